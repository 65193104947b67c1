"""`keras.activations`: activation functions, and `get` / `serialize` / `deserialize`."""

from __future__ import annotations

from typing import Callable

from ..layers import activations as _activations
from ..layers import serialization as _serialization
from ..ops import math_ops, nn_ops

relu = nn_ops.relu
softmax = nn_ops.softmax
log_softmax = nn_ops.log_softmax
sigmoid = math_ops.sigmoid
tanh = math_ops.tanh
exponential = math_ops.exp
linear = _activations.linear
elu = nn_ops.elu
gelu = nn_ops.gelu
softplus = nn_ops.softplus
leaky_relu = nn_ops.leaky_relu


def swish(x):
    """x * sigmoid(x)."""
    return math_ops.multiply(x, math_ops.sigmoid(x))


silu = swish


def get(identifier) -> Callable:
    """The activation for a name, a callable, or None (linear)."""
    if isinstance(identifier, str) and identifier.lower() in _EXTRA:
        return _EXTRA[identifier.lower()]
    return _activations.get(identifier)


def serialize(activation) -> str:
    """The name of an activation function."""
    for name, fn in {**_activations._BY_NAME, **_EXTRA}.items():
        if fn is activation:
            return name
    value = _serialization.serialize_value(activation)
    if callable(value):
        raise ValueError(f"{activation!r} has no name; register it with "
                         "keras.saving.register_keras_serializable().")
    return value


def deserialize(name, custom_objects: dict | None = None) -> Callable:
    """The activation named `name` (a registered or `custom_objects` one too)."""
    with _serialization.custom_object_scope(custom_objects or {}):
        found = _serialization.deserialize_value(name) if isinstance(name, dict) else None
        if found is None and isinstance(name, str):
            found = _serialization.get_registered_object(name)
    return found or get(name)


_EXTRA = {"elu": elu, "gelu": gelu, "softplus": softplus, "leaky_relu": leaky_relu,
          "swish": swish, "silu": silu}

__all__ = ["relu", "softmax", "log_softmax", "sigmoid", "tanh", "exponential", "linear", "elu",
           "gelu", "softplus", "leaky_relu", "swish", "silu", "get", "serialize", "deserialize"]
