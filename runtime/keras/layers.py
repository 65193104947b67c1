"""`keras.layers`: every public name of `runtime.layers` (read at import, and looked up there
for names added later), with `Input`, `InputLayer`, `serialize` and `deserialize`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import layers as _layers
from ..layers.functional import Input, InputLayer  # noqa: F401 - in __all__
from ..layers.serialization import deserialize_layer, serialize_layer
from .tfsm_layer import TFSMLayer  # noqa: F401 - in __all__

_EXPORTED = [name for name in getattr(_layers, "__all__", dir(_layers)) if not name.startswith("_")]
globals().update({name: getattr(_layers, name) for name in _EXPORTED})


def serialize(layer) -> dict:
    """`{"class_name", "config"}` of a layer."""
    return serialize_layer(layer)


def deserialize(config: dict, custom_objects: dict | None = None):
    """The layer described by `serialize`'s result."""
    return deserialize_layer(config, custom_objects)


if not TYPE_CHECKING:  # a checker sees the declared names only, and reports a misspelt one
    def __getattr__(name: str) -> Any:
        value = getattr(_layers, name, None)
        if value is None or name.startswith("_"):
            raise AttributeError(f"module 'keras.layers' has no attribute {name!r}")
        return value


__all__ = sorted({*_EXPORTED, "Input", "InputLayer", "TFSMLayer", "serialize", "deserialize"})

if TYPE_CHECKING:  # the names made above, declared for type checkers (docs/make_typing_surface.py)
    from ._declared_layers import *  # noqa: F403
