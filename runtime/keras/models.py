"""`keras.models`: `Model`, `Sequential`, `load_model`, `save_model`, `clone_model`,
`model_from_json`."""

from __future__ import annotations

from typing import Callable

from ..layers import Model, Sequential
from ..layers import function_source as _function_source
from ..layers import serialization as _serialization
from ..layers.saving import load_model, model_from_json, save_model


def clone_model(model, input_tensors=None, clone_function: Callable | None = None):
    """A new model of the same architecture with new, freshly initialized weights (built
    from the model's config; `clone_function` is not supported)."""
    if input_tensors is not None or clone_function is not None:
        raise NotImplementedError("clone_model(input_tensors=..., clone_function=...) is not "
                                  "implemented: the clone is rebuilt from the config.")
    with _function_source.loading(safe_mode=False):  # its own config, not a file: trusted
        return _serialization.deserialize_layer(_serialization.serialize_layer(model))


__all__ = ["Model", "Sequential", "load_model", "save_model", "clone_model", "model_from_json"]
