"""Deferred restoration: saved values waiting for the objects that will hold them.

`Checkpoint.restore` into an object graph that is not built yet (a `Dense` layer before its
first call, an optimizer before its first `apply_gradients`) leaves, on each live object, a
list of callbacks. The object calls `created(self)` when it makes new variables or children
(a layer after `build`, an optimizer after making its step counter, hyperparameters or
slots); each callback then restores what has appeared and says whether it is done.

This module imports only the standard library, so layers and optimizers may import it.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

# live object -> callbacks `fn(obj) -> bool` (True: nothing left to restore for it)
_pending: "weakref.WeakKeyDictionary[Any, list[Callable[[Any], bool]]]" = \
    weakref.WeakKeyDictionary()


def _key(owner: Any) -> Any:
    """The object callbacks are filed under: the owner, or for an unhashable container that
    tracks its items (a checkpoint's ListWrapper) the hashable key it carries."""
    return getattr(owner, "_deferred_key", owner)


def defer(owner: Any, callback: Callable[[Any], bool]) -> None:
    """Runs `callback(owner)` whenever `owner` reports new children, until it returns True."""
    _pending.setdefault(_key(owner), []).append(callback)


def created(owner: Any) -> None:
    """Called by an object that just made new variables or children: restores any saved
    values waiting for them. Costs one dictionary lookup when nothing waits."""
    if not _pending:
        return
    key = _key(owner)
    try:
        callbacks = _pending.pop(key, None)
    except TypeError:  # an unhashable owner never has callbacks
        return
    if not callbacks:
        return
    remaining = [fn for fn in callbacks if not fn(owner)]
    if remaining:  # before any callback a restore added meanwhile: later restores win
        _pending.setdefault(key, [])[:0] = remaining


def waiting(owner: Any) -> bool:
    """True when saved values still wait for children of `owner`."""
    try:
        return bool(_pending.get(_key(owner)))
    except TypeError:
        return False
