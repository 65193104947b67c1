"""Trace and cache events of compiled functions: the `runtime` logger and trace listeners.

Level 1 events are traces (logged at INFO), level 2 cache hits off the fast path (DEBUG).
A listener, `fn(level, message)`, sees every event whatever the logger's level (autograph's
verbosity switch is one).
"""

from __future__ import annotations

import logging
from typing import Callable

logger = logging.getLogger("runtime")
_listeners: list[Callable[[int, str], None]] = []


def add_trace_listener(listener: Callable[[int, str], None]) -> None:
    """Calls `listener(level, message)` for each trace (level 1) and slow cache hit (level 2)."""
    if listener not in _listeners:
        _listeners.append(listener)


def remove_trace_listener(listener: Callable[[int, str], None]) -> None:
    """Stops calling a listener added with add_trace_listener (KeyError if it was not added)."""
    try:
        _listeners.remove(listener)
    except ValueError:
        raise KeyError(f"{listener!r} is not a registered trace listener.") from None


def wanted(level: int) -> bool:
    """True when an event of this level reaches a listener or the logger (build it then only)."""
    return bool(_listeners) or logger.isEnabledFor(logging.INFO if level <= 1 else logging.DEBUG)


def log_event(level: int, message: str) -> None:
    """Sends an event to the logger and to every listener."""
    logger.log(logging.INFO if level <= 1 else logging.DEBUG, message)
    for listener in list(_listeners):
        listener(level, message)
