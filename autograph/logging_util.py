"""User-facing warnings of a library logger that reach the user whether or not logging is set up.

The packages' loggers carry only a `NullHandler`, as libraries should; that also silences
Python's last-resort handler, so a warning logged before the application configures logging
would be lost. `warn` logs the record and, while no handler but `NullHandler`s would receive
it, also issues it through `warnings` (shown once per message, filterable as usual).

The loggers are `LibraryLogger`s, which import `logging` when first used: importing it compiles
regular expressions, which neither `import runtime` nor the first conversion needs.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

DEBUG, INFO, WARNING = 10, 20, 30  # the levels of `logging`

# Frames under these directories belong to the library; a warning is attributed to the first
# frame outside them (the user's line). The runtime adds its own directory on import.
_LIBRARY_DIRS: list[str] = [os.path.dirname(os.path.abspath(__file__)) + os.sep]


class LibraryWarning(UserWarning):
    """A warning of autograph or the runtime (a retrace, a function that is not converted)."""


class LibraryLogger:
    """`logging.getLogger(name)`, made when first used, with a `NullHandler` on the logger
    named `handler_on` (default: itself), as a library's logger has. Its attributes (`info`,
    `warning`, `handlers`, ...) are the logger's."""

    def __init__(self, name: str, handler_on: str | None = None) -> None:
        self.name = name
        self._handler_on = handler_on or name
        self._logger: logging.Logger | None = None

    @property
    def logger(self) -> logging.Logger:
        if self._logger is None:
            import logging

            holder = logging.getLogger(self._handler_on)
            if not any(isinstance(h, logging.NullHandler) for h in holder.handlers):
                holder.addHandler(logging.NullHandler())
            self._logger = logging.getLogger(self.name)
        return self._logger

    def enabled(self, level: int) -> bool:
        """`isEnabledFor(level)`, without importing `logging` for a level below WARNING while
        nothing imported it (then nothing configured it: its root logger handles WARNING and
        above only)."""
        if self._logger is None and level < WARNING and "logging" not in sys.modules:
            return False
        return self.logger.isEnabledFor(level)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.logger, name)


def _configured(logger: logging.Logger | LibraryLogger) -> bool:
    import logging

    current: Any = logger
    while current is not None:
        if any(not isinstance(h, logging.NullHandler) for h in current.handlers):
            return True
        if not current.propagate:
            return False
        current = current.parent
    return False


def add_library_dir(path: str) -> None:
    """Treats frames under the directory `path` as library frames for `user_stacklevel`."""
    path = os.path.dirname(os.path.abspath(path)) if os.path.isfile(path) else os.path.abspath(path)
    path = path.rstrip(os.sep) + os.sep
    if path not in _LIBRARY_DIRS:
        _LIBRARY_DIRS.append(path)


def _is_library_file(filename: str) -> bool:
    if filename.startswith("<frozen "):
        return True   # importlib's frames (converted user code keeps the user's file name)
    return any(filename.startswith(d) for d in _LIBRARY_DIRS)


def user_stacklevel() -> int:
    """The `stacklevel` for `warnings.warn` called by the caller of this function that points
    at the first frame outside the library (the user's line that led to the warning)."""
    frame = sys._getframe(1)   # the function about to call warnings.warn: stacklevel 1
    level = 1
    while frame is not None and _is_library_file(os.path.abspath(frame.f_code.co_filename)):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 1


def warn(logger: logging.Logger | LibraryLogger, message: str, *args: object) -> None:
    """Logs `message % args` at WARNING on `logger`; without logging configured, warns too,
    attributed to the user's line (the first frame outside autograph and the runtime)."""
    if "logging" not in sys.modules:
        # nothing imported logging, so nothing configured it: the record would only reach the
        # NullHandler (as `enabled` reasons); the warning is all the user sees either way
        warnings.warn(message % args if args else message, LibraryWarning,
                      stacklevel=user_stacklevel())
        return
    logger.warning(message, *args)
    if not _configured(logger) and logger.isEnabledFor(WARNING):
        warnings.warn(message % args if args else message, LibraryWarning,
                      stacklevel=user_stacklevel())
