"""`keras.activations`: activation functions, and `get` / `serialize` / `deserialize`.

The functions and the name table are `runtime.layers.activations`'s: a layer's
`activation="gelu"` and `keras.activations.get("gelu")` are the same function.
"""

from __future__ import annotations

from typing import Callable

from ..layers import activations as _activations
from ..layers import serialization as _serialization

relu = _activations.relu
leaky_relu = _activations.leaky_relu
relu6 = _activations._BY_NAME["relu6"]
softmax = _activations._BY_NAME["softmax"]
log_softmax = _activations._BY_NAME["log_softmax"]
sigmoid = _activations._BY_NAME["sigmoid"]
tanh = _activations._BY_NAME["tanh"]
exponential = _activations.exponential
linear = _activations.linear
elu = _activations.elu
selu = _activations._BY_NAME["selu"]
celu = _activations.celu
gelu = _activations._BY_NAME["gelu"]
silu = swish = _activations.silu
hard_sigmoid = _activations.hard_sigmoid
hard_silu = hard_swish = _activations.hard_silu
softplus = _activations._BY_NAME["softplus"]
softsign = _activations._BY_NAME["softsign"]
mish = _activations.mish
glu = _activations.glu
tanh_shrink = _activations.tanh_shrink
hard_tanh = _activations.hard_tanh
hard_shrink = _activations.hard_shrink
soft_shrink = _activations.soft_shrink
threshold = _activations.threshold
sparse_plus = _activations.sparse_plus
sparse_sigmoid = _activations.sparse_sigmoid
squareplus = _activations.squareplus
sparsemax = _activations.sparsemax
log_sigmoid = _activations._BY_NAME["log_sigmoid"]


def get(identifier) -> Callable:
    """The activation for a name, a callable, a serialized config, or None (linear)."""
    if isinstance(identifier, dict):
        return deserialize(identifier)
    return _activations.get(identifier)


def serialize(activation) -> str | dict:
    """The name of a built-in activation; `{"class_name": "function", ...}` for a
    registered one."""
    name = _activations.name_of(activation)
    if name is not None:
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
    return found or _activations.get(name)


__all__ = ["celu", "deserialize", "elu", "exponential", "gelu", "get", "glu", "hard_shrink",
           "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear",
           "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "serialize",
           "sigmoid", "silu", "soft_shrink", "softmax", "softplus", "softsign", "sparse_plus",
           "sparse_sigmoid", "sparsemax", "squareplus", "swish", "tanh", "tanh_shrink",
           "threshold"]
