"""`keras.export`: `ExportArchive`, Keras 3's way to write a SavedModel with chosen endpoints.

    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call,
                         input_signature=[keras.InputSpec(shape=(None, 3), dtype="float32")])
    archive.add_variable_collection("optimizer_variables", model.optimizer.variables)
    archive.write_out("path/")
    loaded = rt.saved_model.load("path/")
    loaded.serve(x); loaded.signatures["serving_default"](inputs=x)["output_0"]
    loaded.optimizer_variables          # a list of the collection's variables

The directory is this runtime's saved format (`rt.saved_model`: saved_model.json and
variables.npz, read by `rt.saved_model.load` and `keras.layers.TFSMLayer`), not TensorFlow's
protocol buffers. Every endpoint is a signature and a function of the loaded object; the
first one is also saved as `serving_default` (flat keyword inputs, a dict of outputs
`output_0`, ...), as TensorFlow saves it. Unlike TensorFlow, `loaded.signatures[name]` for
another endpoint is the endpoint itself (its outputs as it returns them), and the loaded
object's `variables` also hold the variables the endpoints read without being tracked and
those of the variable collections.
"""

from __future__ import annotations

import inspect
import os
from typing import Any, Callable

import numpy as np

from .. import nest
from ..function import Function, function
from ..layers import Layer
from ..layers.functional import KerasTensor
from ..layers.input_spec import InputSpec
from ..module import Module
from ..ops.variables import Variable
from ..saved_model import files as _files
from ..saved_model import options as _options
from ..saved_model.graph_io import variables_read
from ..saved_model.loaded import LoadedObject
from ..saved_model.save import IDENTIFIER as _IDENTIFIER
from ..saved_model.save import _overload_of
from ..saved_model.save import build as _build
from ..shapes import TensorShape, TensorSpec
from ..tensor import Tensor

DEFAULT_ENDPOINT_NAME = "serve"
_RESERVED = frozenset({"variables", "trainable_variables", "non_trainable_variables",
                       "signatures", "kind"})


class ExportArchive:
    """A SavedModel being assembled for inference (Keras 3's `ExportArchive`): `track` the
    layers or models it serves, `add_endpoint` the functions to call, optionally
    `add_variable_collection`, then `write_out(path)`. `format` is "saved_model" (this
    runtime's saved format, see the module doc)."""

    def __init__(self, format: str = "saved_model") -> None:
        if format != "saved_model":
            raise ValueError(f"Unsupported format: {format}"
                             + (" (Keras's Neptune format is not supported here)"
                                if format == "neptune_model" else ""))
        self._endpoint_names: list[str] = []
        self._endpoints: dict[str, Function] = {}
        self._endpoint_signatures: dict[str, Any] = {}
        self._variables: list = []
        self._trainable_variables: list = []
        self._non_trainable_variables: list = []
        self._collections: dict[str, list] = {}

    @property
    def variables(self) -> list:
        """The variables of the tracked layers and models, in the order they were tracked."""
        return self._variables

    @property
    def trainable_variables(self) -> list:
        return self._trainable_variables

    @property
    def non_trainable_variables(self) -> list:
        return self._non_trainable_variables

    def track(self, resource) -> None:
        """Adds the variables of `resource` (a built Keras layer or model, or an `rt.Module`)
        to the archive; the variables an endpoint reads are saved even when untracked."""
        if isinstance(resource, Layer):
            if not resource.built:
                raise ValueError("The layer provided has not yet been built. It must be built "
                                 "before export.")
            variables = resource.variables
            trainable = resource.trainable_variables
            non_trainable = resource.non_trainable_variables
        elif isinstance(resource, Module):
            variables = list(resource.variables)
            trainable = [v for v in variables if v.trainable]
            non_trainable = [v for v in variables if not v.trainable]
        else:
            raise ValueError("Invalid resource type. Expected a Keras `Layer` or `Model` or a "
                             f"`rt.Module`. Received object {resource} of type "
                             f"'{type(resource)}'. ")
        self._variables += variables
        self._trainable_variables += trainable
        self._non_trainable_variables += non_trainable

    def add_endpoint(self, name: str, fn: Callable, input_signature=None,
                     **kwargs) -> Function:
        """Registers `fn` as the endpoint `name` and returns the `rt.function` that wraps it.

        `input_signature` is a list (one item per positional argument of `fn`) of
        `keras.InputSpec`s, `rt.TensorSpec`s, Keras tensors or tensors (or nests of them).
        Without it, `fn` must be an `rt.function` that has an input_signature or has been
        called (its first trace is the signature; every trace is saved). Keras's JAX-only
        `jax2tf_kwargs` and `is_static` raise ValueError, as Keras's TensorFlow backend."""
        if "jax2tf_kwargs" in kwargs or "is_static" in kwargs:
            raise ValueError("'jax2tf_kwargs' and 'is_static' are only supported with the jax "
                             "backend. Current backend: tensorflow")
        if kwargs:
            raise TypeError(f"ExportArchive.add_endpoint() got unexpected keyword arguments "
                            f"{sorted(kwargs)}.")
        self._check_name(name, "endpoint")
        if name in self._endpoint_names:
            raise ValueError(f"Endpoint name '{name}' is already taken.")
        if input_signature is None:
            if not isinstance(fn, Function):
                raise ValueError(
                    "If the `fn` argument provided is not a `tf.function`, you must provide "
                    "an `input_signature` argument to specify the shape and dtype of the "
                    "function arguments. Example:\n\nexport_archive.add_endpoint(\n"
                    "    name='call',\n    fn=model.call,\n    input_signature=[\n"
                    "        keras.InputSpec(\n            shape=(None, 224, 224, 3),\n"
                    "            dtype='float32',\n        )\n    ],\n)")
            if fn.input_signature is None and not fn.list_concrete_functions():
                raise ValueError(
                    f"The provided tf.function '{fn}' has never been called. To specify the "
                    "expected shape and dtype of the function's arguments, you must either "
                    "provide a function that has been called at least once, or alternatively "
                    "pass an `input_signature` argument in `add_endpoint()`.")
            decorated = fn
        else:
            if not callable(fn):
                raise TypeError(f"ExportArchive.add_endpoint: `fn` must be callable, got "
                                f"{fn!r}.")
            if not isinstance(input_signature, (list, tuple)):
                input_signature = [input_signature]
            specs = nest.map_structure(_tensor_spec, list(input_signature))
            decorated = function(fn, input_signature=specs, autograph=False)
            self._endpoint_signatures[name] = specs
        self._endpoints[name] = decorated
        self._endpoint_names.append(name)
        return decorated

    def track_and_add_endpoint(self, name: str, resource, input_signature, **kwargs) -> Function:
        """`track(resource)`, then `add_endpoint(name, resource.__call__, input_signature)`
        (the call's arguments named `inputs`, `inputs_1`, ...)."""
        self.track(resource)
        count = len(input_signature) if isinstance(input_signature, (list, tuple)) else 1

        def call(*args):
            return resource(*args)

        call.__signature__ = inspect.Signature(
            [inspect.Parameter("inputs" if i == 0 else f"inputs_{i}",
                               inspect.Parameter.POSITIONAL_OR_KEYWORD) for i in range(count)])
        return self.add_endpoint(name, call, input_signature, **kwargs)

    def add_variable_collection(self, name: str, variables) -> None:
        """Saves `variables` (a list, tuple or set of variables) so that the loaded object
        gives them back as a list, `loaded.<name>`."""
        if not isinstance(variables, (list, tuple, set)):
            raise ValueError("Expected `variables` to be a list/tuple/set. Received instead "
                             f"object of type '{type(variables)}'.")
        if not all(isinstance(v, Variable) for v in variables):
            raise ValueError("Expected all elements in `variables` to be `tf.Variable` "
                             "instances. Found instead the following types: "
                             f"{list(set(type(v) for v in variables))}")
        self._check_name(name, "variable collection")
        if name in self._endpoints:
            raise ValueError(f"ExportArchive.add_variable_collection: {name!r} is the name of "
                             "an endpoint; choose another name.")
        self._collections[name] = list(variables)

    def write_out(self, filepath, options=None, verbose: bool = True) -> None:
        """Writes the SavedModel directory `filepath` (see the module doc); `options` (an
        `rt.saved_model.SaveOptions`) is accepted and has no effect. Prints the endpoints
        unless `verbose` is False."""
        _options.check(options, _options.SaveOptions, "ExportArchive.write_out")
        if not self._endpoint_names:
            raise ValueError("No endpoints have been set yet. Call add_endpoint().")
        functions: dict = {}
        overloads: dict = {}
        for name in self._endpoint_names:
            traces = self._traces(name)
            functions[name] = traces[0]
            if len(traces) > 1:
                overloads[name] = traces
        if "serving_default" not in functions:
            first = self._endpoint_names[0]
            functions["serving_default"] = _keyword_signature(self._endpoints[first],
                                                               functions[first])
        owned: list = []
        seen: set = set()
        for var in [*self._variables, *(v for c in self._collections.values() for v in c)]:
            if id(var) not in seen:
                seen.add(id(var))
                owned.append(var)
        attributes = {f"{name}._{i}": var for name, group in self._collections.items()
                      for i, var in enumerate(group)}
        # the object saved: the endpoints (all signatures), the variables and collections
        archive = LoadedObject("module", functions, owned, None, {}, overloads,
                               list(functions), attributes)
        document, arrays = _build(archive)
        path = os.fspath(filepath)
        _files.write_dir(path, document, arrays)
        if verbose:
            endpoints = "\n\n".join(_describe_endpoint(name, functions[name])
                                    for name in self._endpoint_names)
            print(f"Saved artifact at '{path}'. The following endpoints are available:\n\n"
                  f"{endpoints}")

    # -- helpers ------------------------------------------------------------------------------
    def _traces(self, name: str) -> list:
        fn = self._endpoints[name]
        if fn.input_signature is not None:
            return [fn.get_concrete_function()]
        return list(fn.list_concrete_functions())

    def _check_name(self, name, what: str) -> None:
        if not isinstance(name, str) or not _IDENTIFIER.match(name) or \
                name.startswith("_") or name in _RESERVED or _overload_of(name):
            raise ValueError(f"ExportArchive: the {what} name {name!r} must be a Python "
                             f"identifier not starting with '_' (nor one of "
                             f"{sorted(_RESERVED)}), as the loaded object's attribute.")
        if name in self._collections:
            raise ValueError(f"ExportArchive: {name!r} is the name of a variable collection; "
                             "choose another name.")


def _tensor_spec(value) -> TensorSpec:
    """Keras's `make_tf_tensor_spec`: a TensorSpec from a TensorSpec, a keras.InputSpec, a
    Keras tensor or a tensor (or array)."""
    if isinstance(value, TensorSpec):
        return value
    if isinstance(value, InputSpec):
        if value.shape is None:
            raise ValueError(f"ExportArchive: {value!r} has no shape; give the InputSpec a "
                             "shape (None for any size of an axis).")
        return TensorSpec(TensorShape(list(value.shape)), value.dtype or "float32",
                          name=value.name)
    if isinstance(value, KerasTensor):
        return TensorSpec(TensorShape(value.shape), value.dtype, name=value.name)
    if isinstance(value, (Tensor, np.ndarray)):
        return TensorSpec(TensorShape(value.shape), value.dtype)
    raise TypeError(f"ExportArchive: an input_signature holds keras.InputSpec, rt.TensorSpec, "
                    f"Keras tensors or tensors; got {value!r}.")


def _keyword_signature(fn: Function, concrete):
    """The first endpoint as TensorFlow's `serving_default` signature: flat keyword inputs
    (named by the spec's name, else the argument's: `inputs`, `inputs_1`, ...), a dict of
    outputs (`output_0`, ... unless the endpoint returns a dict)."""
    positional, keywords = concrete.structured_input_signature
    structure = (tuple(positional), dict(keywords))
    names: list[str] = []
    arg_names = list(concrete.arg_names)
    for i, arg in enumerate(list(positional) + list(keywords.values())):
        base = arg_names[i] if i < len(arg_names) else (list(keywords)[i - len(positional)]
                                                        if i >= len(positional) else f"args_{i}")
        leaves = [s for s in nest.flatten(arg) if isinstance(s, TensorSpec)]
        for k, spec in enumerate(leaves):
            names.append(spec.name or (base if k == 0 else f"{base}_{k}"))
    if len(set(names)) != len(names) or not all(_IDENTIFIER.match(n) for n in names):
        names = [f"args_{i}" for i in range(len(names))]
    flat_specs = [s for s in nest.flatten(structure) if isinstance(s, TensorSpec)]
    specs = [TensorSpec(s.shape, s.dtype, name=n) for s, n in zip(flat_specs, names)]

    def serving_default(*flat):
        values = iter(flat)
        args, kwargs = nest.map_structure(
            lambda s: next(values) if isinstance(s, TensorSpec) else s, structure)
        outputs = fn(*args, **kwargs)
        if isinstance(outputs, dict):
            return dict(outputs)
        return {f"output_{i}": t for i, t in enumerate(nest.flatten(outputs))}

    serving_default.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    return function(serving_default, input_signature=specs,
                    autograph=False).get_concrete_function()


def _describe_endpoint(name: str, concrete) -> str:
    positional, keywords = concrete.structured_input_signature
    names = list(concrete.arg_names)
    lines = [f"* Endpoint '{name}'"]
    for i, spec in enumerate(positional):
        label = names[i] if i < len(names) else f"args_{i}"
        lines.append(f"  {label} (POSITIONAL_OR_KEYWORD): {spec!r}")
    lines += [f"  {key} (KEYWORD_ONLY): {spec!r}" for key, spec in keywords.items()]
    lines += ["Output Type:", f"  {concrete.structured_outputs!r}"]
    read = variables_read(concrete)
    if read:
        lines.append("Captures:")
        lines += [f"  {id(v)}: TensorSpec(shape=(), dtype=rt.resource, name=None)"
                  for v in read]
    return "\n".join(lines)


__all__ = ["ExportArchive"]
