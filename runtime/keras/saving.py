"""`keras.saving`: saving and loading models, and registering your own classes for it."""

from __future__ import annotations

from ..layers.saving import load_model, load_weights, save_model, save_weights
from ..layers.serialization import (
    custom_object_scope,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from ..layers.serialization import deserialize_value as deserialize_keras_object
from ..layers.serialization import serialize_value as serialize_keras_object

CustomObjectScope = custom_object_scope

__all__ = ["load_model", "save_model", "load_weights", "save_weights", "custom_object_scope",
           "CustomObjectScope", "get_registered_name", "get_registered_object",
           "register_keras_serializable", "serialize_keras_object", "deserialize_keras_object"]
