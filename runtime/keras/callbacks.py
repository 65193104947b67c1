"""`keras.callbacks`: every callback of `runtime.layers.callbacks` (`rt.callbacks`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..layers import callbacks as _callbacks

_EXPORTED = [name for name in getattr(_callbacks, "__all__", ()) if not name.startswith("_")]
globals().update({name: getattr(_callbacks, name) for name in _EXPORTED})

__all__ = list(_EXPORTED)

if TYPE_CHECKING:  # the names made above, declared for type checkers (docs/make_typing_surface.py)
    from ._declared_callbacks import *  # noqa: F403
