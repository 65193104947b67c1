"""`keras.saving`: saving and loading models, and registering your own classes for it."""

from __future__ import annotations

from typing import Any

from ..arguments import strict_keywords
from ..layers import function_source as _function_source
from ..layers.saving import load_model, load_weights, save_model, save_weights
from ..layers.serialization import (
    custom_object_scope,
    deserialize_value,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from ..layers.serialization import serialize_value as serialize_keras_object

CustomObjectScope = custom_object_scope


@strict_keywords()
def deserialize_keras_object(config: Any, custom_objects: dict | None = None,
                             safe_mode: bool = True) -> Any:
    """The object a `serialize_keras_object` config describes. With `safe_mode` (the
    default), only the functions `load_model` allows in safe mode are rebuilt (see
    docs/models.md); anything else, lambdas included, raises `ValueError`."""
    safe_mode = _function_source.effective_safe_mode(safe_mode)
    with custom_object_scope(custom_objects or {}), _function_source.loading(safe_mode):
        return deserialize_value(config)


__all__ = ["load_model", "save_model", "load_weights", "save_weights", "custom_object_scope",
           "CustomObjectScope", "get_registered_name", "get_registered_object",
           "register_keras_serializable", "serialize_keras_object", "deserialize_keras_object"]
