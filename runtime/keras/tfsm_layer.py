"""`keras.layers.TFSMLayer`: a saved model's endpoint used as a Keras layer (Keras 3's).

    model.export("path/")                  # or keras.export.ExportArchive().write_out("path/")
    layer = keras.layers.TFSMLayer("path/", call_endpoint="serve")
    outputs = layer(inputs)                 # and trainable: fit updates the saved weights

The directory is this runtime's saved format (`rt.saved_model.load` reads it). The layer's
weights are the loaded variables the endpoints read (trainable ones first), named as Keras
names them (the saved name with '/' made '_'); training updates them, so the endpoint's
results follow. Called while a function traces (inside `fit`'s compiled step, or an
`rt.function`), the endpoint's graph is copied into the traced graph, so gradients flow
through it as through any layer.
"""

from __future__ import annotations

import os

from .. import context, nest
from ..graph import FuncGraph
from ..layers import Layer
from ..layers import base as _base
from ..layers import function_source as _function_source
from ..ops.core import apply, convert_to_tensor
from ..saved_model import load as _load
from ..saved_model.graph_io import variables_read
from ..saved_model.loaded import Overloaded
from ..shapes import TensorSpec
from ..tensor import Tensor


class TFSMLayer(Layer):
    """Reloads a saved model or layer (written by `Model.export`, `keras.export.ExportArchive`
    or `rt.saved_model.save`) as a layer calling its endpoint `call_endpoint` ("serve" for an
    exported model; "serving_default" otherwise). With `call_training_endpoint`, a call with
    `training=True` runs that endpoint instead. `trainable=False` freezes the reloaded
    weights. Only endpoints taking one `inputs` argument (a tensor, or a list/dict of them)
    are supported, as in Keras.

    As in Keras, `from_config` (and `load_model` of a model holding this layer) is refused
    in safe mode."""

    _built_at_init = True

    def __init__(self, filepath, call_endpoint: str = "serve",
                 call_training_endpoint: str | None = None, trainable: bool = True,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(trainable=trainable, name=name, dtype=dtype)
        self._reloaded_obj = _load(os.fspath(filepath))
        self.filepath = filepath
        self.call_endpoint = call_endpoint
        self.call_training_endpoint = call_training_endpoint
        self.call_endpoint_fn = self._endpoint(call_endpoint, select=True)
        self.call_training_endpoint_fn = None
        fns = [self.call_endpoint_fn]
        if call_training_endpoint:
            self.call_training_endpoint_fn = self._endpoint(call_training_endpoint)
            fns.append(self.call_training_endpoint_fn)
        trainable_vars, frozen = _variables_used_by(fns)
        for variable in trainable_vars + frozen:
            self._add_existing_weight(variable)
        self.built = True

    def _endpoint(self, name: str, select: bool = False):
        loaded = self._reloaded_obj
        try:
            return getattr(loaded, name)
        except AttributeError:
            pass
        if name in loaded.signatures:
            return loaded.signatures[name]
        hint = " Select another endpoint via the `call_endpoint` argument." if select else ""
        raise ValueError(f"The endpoint '{name}' is neither an attribute of the reloaded "
                         "SavedModel, nor an entry in the `signatures` field of the reloaded "
                         f"SavedModel.{hint} Available endpoints for this SavedModel: "
                         f"{list(loaded.signatures.keys())}")

    def _add_existing_weight(self, variable) -> None:
        """Makes a loaded variable one of this layer's weights (Keras's names: no '/')."""
        name = variable.name.replace("/", "_")
        variable._name = variable._path = name
        self._weights.append(variable)
        _base._weights_made[id(variable)] = variable

    def call(self, inputs, training=False, **kwargs):
        fn = self.call_endpoint_fn
        if training and self.call_training_endpoint_fn is not None:
            fn = self.call_training_endpoint_fn
        return _call(fn, (inputs,), kwargs)

    def get_config(self) -> dict:
        """Keras's config: the base layer's, with `filepath`, `call_endpoint` and
        `call_training_endpoint` (the path as a string, so that the config is JSON; as in
        Keras, not portable)."""
        config = super().get_config()
        config = {key: config[key] for key in ("name", "trainable", "dtype") if key in config}
        return {**config, "filepath": os.fspath(self.filepath),
                "call_endpoint": self.call_endpoint,
                "call_training_endpoint": self.call_training_endpoint}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None,
                    safe_mode: bool | None = None) -> "TFSMLayer":
        """The layer `get_config()` describes. As in Keras, refused in safe mode (a saved
        model's graph may hold any op, file writes among them): pass `safe_mode=False`, call
        `keras.config.enable_unsafe_deserialization()`, or load the model holding it with
        `load_model(..., safe_mode=False)`."""
        if safe_mode is None:
            safe_mode = _function_source.effective_safe_mode(_function_source._MODE.safe)
        if safe_mode is not False:
            raise ValueError(
                "Requested the deserialization of a `TFSMLayer`, which loads an external "
                "SavedModel. This carries a potential risk of arbitrary code execution and "
                "thus it is disallowed by default. If you trust the source of the artifact, "
                "you can override this error by passing `safe_mode=False` to the loading "
                "function, or calling `keras.config.enable_unsafe_deserialization()`.")
        return cls(**config)


def _concretes(fn) -> list:
    return list(fn.concrete_functions) if isinstance(fn, Overloaded) else [fn]


def _variables_used_by(fns) -> tuple[list, list]:
    """(trainable, non-trainable) variables the functions read, each once, in order."""
    trainable, frozen, seen = [], [], set()
    for fn in fns:
        for concrete in _concretes(fn):
            for variable in variables_read(concrete):
                if id(variable) not in seen:
                    seen.add(id(variable))
                    (trainable if variable.trainable else frozen).append(variable)
    return trainable, frozen


def _call(fn, args: tuple, kwargs: dict):
    """`fn(*args, **kwargs)`; while a function traces, the graph of the first trace whose
    signature fits is copied into the traced graph."""
    graph = context.current_graph()
    if graph is None:
        return fn(*args, **kwargs)
    errors = []
    for concrete in _concretes(fn):
        try:
            flat = _bind(concrete, args, kwargs)
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
            continue
        return _inline(concrete, flat, graph)
    raise TypeError(f"The saved endpoint {getattr(fn, 'name', '')!r} cannot take these "
                    f"inputs: {'; '.join(errors)}")


def _bind(concrete, args: tuple, kwargs: dict) -> list:
    """The tensors for the concrete function's placeholders, in order, checked against its
    signature (TypeError/ValueError when they do not fit)."""
    sig_args, sig_kwargs = concrete.structured_input_signature
    names = list(concrete.arg_names)
    kwargs = dict(kwargs)
    given = list(args)
    for i in range(len(given), len(sig_args)):
        name = names[i] if i < len(names) else None
        given.append(kwargs.pop(name) if name in kwargs else sig_args[i])
    if len(given) != len(sig_args) or set(kwargs) - set(sig_kwargs):
        raise TypeError(f"{concrete.name}() takes {len(sig_args)} arguments "
                        f"{names[:len(sig_args)]}, got {len(args)} and {sorted(kwargs)}.")
    pairs = list(zip(sig_args, given)) + [(spec, kwargs.get(key, spec))
                                          for key, spec in sig_kwargs.items()]
    flat = []
    for spec, value in pairs:
        nest.assert_same_structure(spec, value, expand_composites=False)
        for s, v in zip(nest.flatten(spec), nest.flatten(value)):
            if not isinstance(s, TensorSpec):
                if s != v:
                    raise ValueError(f"{concrete.name}() was saved for {s!r}, got {v!r}.")
                continue
            if isinstance(v, TensorSpec):
                raise TypeError(f"{concrete.name}() is missing an argument ({s!r}).")
            tensor = v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=s.dtype)
            if tensor.dtype is not s.dtype or not s.shape.is_compatible_with(tensor.shape):
                raise ValueError(f"{concrete.name}() takes {s!r}, got a {tensor.dtype.name} "
                                 f"tensor of shape {tensor.shape}.")
            flat.append(tensor)
    return flat


def _inline(concrete, flat: list, graph):
    """Copies the concrete function's ops into `graph` with its placeholders bound to `flat`;
    returns its outputs in their structure."""
    mapping = {id(p): t for p, t in zip(concrete.graph.inputs, flat)}
    _copy_ops(concrete.graph, graph, mapping)
    outputs = [mapping[id(t)] for t in concrete.graph.outputs]
    return concrete.pack_tensors(outputs[0] if len(outputs) == 1 else outputs)


def _copy_ops(source, target, mapping: dict) -> None:
    """Each op of `source` applied again in `target` (recorded on the active tapes, as any
    op traced there), its inputs looked up in `mapping`; cond/while bodies are copied too."""
    with context.graph_scope(target):
        for op in source.operations:
            if op.opdef.is_constant:
                mapping[id(op.outputs[0])] = target.constant(op.attrs["value"])
                continue
            subgraphs = tuple(_copy_subgraph(sub, target, mapping) for sub in op.subgraphs)
            outs = apply(op.opdef, [mapping[id(t)] for t in op.inputs], dict(op.attrs),
                         op.name, subgraphs)
            for old, made in zip(op.outputs, outs if isinstance(outs, list) else [outs]):
                mapping[id(old)] = made


def _copy_subgraph(sub, outer, mapping: dict):
    copy = FuncGraph(sub.name, outer_graph=outer)
    for p in sub.inputs:
        mapping[id(p)] = copy.placeholder(p.shape, p.dtype, name=p.op.name)
    _copy_ops(sub, copy, mapping)
    copy.outputs = [mapping[id(t)] for t in sub.outputs]
    return copy


__all__ = ["TFSMLayer"]
