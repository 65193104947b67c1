"""Trace and cache events of compiled functions: the `runtime.function` logger, trace
listeners, and the warning for functions created anew and traced again and again.

The runtime logs under the `runtime` logger hierarchy (`runtime.function` here), which has a
`NullHandler` and no handler of its own: configure it with `logging` as usual
(`logging.basicConfig(level=logging.INFO)` shows every trace once).

Level 1 events are traces (logged at INFO), level 2 cache hits off the fast path (DEBUG).
A listener, `fn(level, message)`, sees every event whatever the logger's level (autograph's
verbosity switch is one).
"""

from __future__ import annotations

import weakref
from typing import Callable

from autograph.logging_util import DEBUG, INFO, LibraryLogger, add_library_dir, warn
from autograph.logging_util import user_stacklevel as user_stacklevel  # for warnings.warn

add_library_dir(__file__.rsplit("function", 1)[0])  # runtime/: its frames are not the user's
# `logging` is imported when the logger is first used (autograph.logging_util.LibraryLogger)
logger = LibraryLogger("runtime.function", handler_on="runtime")
_listeners: list[Callable[[int, str], None]] = []

_RECREATED_WARNING_AT = 5   # then at 50, 500, ...: ten times as many new functions each time
_new_functions_per_code: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    return bool(_listeners) or logger.enabled(INFO if level <= 1 else DEBUG)


def log_event(level: int, message: str) -> None:
    """Sends an event to the logger and to every listener."""
    if logger.enabled(INFO if level <= 1 else DEBUG):
        logger.log(INFO if level <= 1 else DEBUG, message)
    for listener in list(_listeners):
        listener(level, message)


def note_new_function_traced(python_function: Callable, name: str) -> None:
    """Counts the first trace of a new compiled function by its Python code; warns when the
    same code keeps being compiled anew (`rt.function(...)` inside a loop)."""
    code = getattr(python_function, "__code__", None)
    if code is None:
        return
    count = _new_functions_per_code.get(code, 0) + 1
    _new_functions_per_code[code] = count
    threshold = _RECREATED_WARNING_AT
    while threshold < count:
        threshold *= 10
    if count == threshold:
        warn(logger,
            "%s (%s:%d) has been compiled anew and traced %d times: each rt.function(...) call "
            "makes a new function with an empty trace cache. Tracing is expensive; create the "
            "compiled function once, outside the loop, and call it repeatedly.",
            name, code.co_filename, code.co_firstlineno, count)
