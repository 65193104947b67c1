"""The serving signatures of a Keras model, as TensorFlow saves them.

`rt.saved_model.save(model, path)` without `signatures=` saves `serving_default` (flat keyword
arguments `inputs`, `inputs_1`, ..., outputs `{"output_0": ...}`, or the model's own output
keys), as `tf.saved_model.save` does for a Keras 3 model, and `serve` (the model's inputs as
one positional argument, its outputs as returned). `Model.export(path)` saves the two that
Keras 3's `model.export` writes: `serve`, and `serving_default` keyed by the names of the
model's input Keras tensors.
"""

from __future__ import annotations

import inspect
from typing import Any

from .. import nest
from ..function import function
from ..shapes import TensorShape, TensorSpec


def input_structure(model) -> Any:
    """The model's inputs as a nest of TensorSpecs named as its input Keras tensors (as
    Keras 3's export names them: `keras_tensor_15`, or the `keras.Input`'s name), with any
    batch size (None: unknown).

    A functional model has its `keras.Input`s; a Sequential model its Input, declared or of
    the shape of its first call; a subclassed model that was built or called has the shape
    it was built for (with any batch size)."""
    declared = getattr(model, "_nested_inputs", None)
    if declared is None and "_input_tensor" in model.__dict__:   # a built Sequential
        declared = model.__dict__["_input_tensor"]
    if declared is not None:
        return nest.map_structure(
            lambda t: TensorSpec(_any_batch(t.shape), t.dtype, name=t.name), declared)
    spec = getattr(model, "_input_spec", None)
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] is not None:
        return TensorSpec(_any_batch(spec[0]), spec[1], name="inputs")
    built = model.__dict__.get("_build_input_shape")
    if built is None:
        return None
    dtype = model.__dict__.get("_build_input_dtype") or model.dtype
    return nest.map_structure(lambda s: TensorSpec(_any_batch(s), dtype), built)


def _any_batch(shape) -> TensorShape:
    dims = TensorShape(shape).as_list()
    return TensorShape([None] + dims[1:]) if dims else TensorShape(dims)


def _named_outputs(outputs) -> dict:
    """A signature's outputs: a dict model's keys, else `output_0`, `output_1`, ..."""
    if isinstance(outputs, dict):
        return dict(outputs)
    return {f"output_{i}": t for i, t in enumerate(nest.flatten(outputs))}


def _keyword_function(model, structure, names: list[str]):
    """A concrete function taking the flat inputs as keyword arguments `names`."""
    specs = [TensorSpec(s.shape, s.dtype, name=n) for s, n in zip(nest.flatten(structure), names)]

    def serving_default(*flat):
        inputs = nest.pack_sequence_as(structure, list(flat))
        return _named_outputs(model(inputs, training=False))

    serving_default.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    return function(serving_default, input_signature=specs,
                    autograph=False).get_concrete_function()


def _serve_function(model, structure):
    """A concrete function taking the inputs as one positional argument."""
    def serve(inputs):
        return model(inputs, training=False)

    return function(serve, input_signature=[structure], autograph=False).get_concrete_function()


def _structure_or_error(model, caller: str, input_signature=None):
    structure = input_structure(model) if input_signature is None else input_signature
    if isinstance(structure, (list, tuple)) and len(structure) == 1 and input_signature is not None:
        structure = structure[0]
    if structure is None:
        raise ValueError(f"{caller}: {type(model).__name__} {getattr(model, 'name', '')!r} has "
                         "never been built or called, so its input shapes are unknown; call it "
                         "once on an input, declare a keras.Input, or pass signatures= (a "
                         "concrete function, or a dict of them).")
    return structure


def saved_model_signatures(model) -> dict:
    """{"serving_default", "serve"}: what `rt.saved_model.save(model, path)` saves."""
    structure = _structure_or_error(model, "rt.saved_model.save")
    count = len(nest.flatten(structure))
    names = ["inputs"] + [f"inputs_{i}" for i in range(1, count)]
    return {"serving_default": _keyword_function(model, structure, names),
            "serve": _serve_function(model, structure)}


def export_signatures(model, input_signature=None) -> dict:
    """{"serve", "serving_default"}: what `Model.export(path)` saves, as Keras 3's."""
    structure = _structure_or_error(model, "Model.export", input_signature)
    flat = nest.flatten(structure)
    names = [s.name or ("inputs" if i == 0 else f"inputs_{i}") for i, s in enumerate(flat)]
    if len(set(names)) != len(names):
        names = ["inputs"] + [f"inputs_{i}" for i in range(1, len(flat))]
    return {"serve": _serve_function(model, structure),
            "serving_default": _keyword_function(model, structure, names)}
