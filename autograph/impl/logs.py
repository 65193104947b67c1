"""Verbosity and logging. Conversions are logged through the standard `logging` module
(logger "autograph", which has a `NullHandler` and no handler of its own); the level is
`ag.set_verbosity(level)` or, when that was never called, the environment variable
AUTOGRAPH_VERBOSITY (default 0).

Levels: 1 logs each conversion, 2 also why functions are not converted, 3 and more also
the converted source. `alsologtostdout=True` also prints each message, and the events a
backend `echo`es (the runtime's traces, which it logs under its own logger).
"""

from __future__ import annotations

import os
import sys
from typing import Optional

from .. import logging_util

logger = logging_util.LibraryLogger("autograph")

_verbosity: Optional[int] = None
_also_stdout = False


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Sets how much autograph logs; `alsologtostdout` also prints the messages."""
    global _verbosity, _also_stdout
    _verbosity = int(level)
    _also_stdout = bool(alsologtostdout)


def get_verbosity() -> int:
    """The verbosity set by `set_verbosity`, else AUTOGRAPH_VERBOSITY, else 0."""
    if _verbosity is not None:
        return _verbosity
    try:
        return int(os.environ.get("AUTOGRAPH_VERBOSITY", "0"))
    except ValueError:
        return 0


def trace(*args: object) -> None:
    """Prints `args` when it runs: in a traced function, once per trace (the values are
    the symbolic tensors being traced), as TensorFlow's `tf.autograph.trace` does."""
    print(*args)


def has_verbosity(level: int) -> bool:
    return get_verbosity() >= level


def log(level: int, message: str, *args) -> None:
    """Logs at INFO when the verbosity is at least `level`."""
    if get_verbosity() >= level:
        logger.info(message, *args)
        if _also_stdout:
            print(message % args if args else message, file=sys.stdout)


def echo(level: int, message: str) -> None:
    """Prints a backend's event (logged by the backend itself) when the verbosity is at least
    `level` and `alsologtostdout` was set."""
    if _also_stdout and get_verbosity() >= level:
        print(message, file=sys.stdout)


def warning(message: str, *args) -> None:
    """Logs a warning (always; through `warnings` too while logging is not configured)."""
    logging_util.warn(logger, message, *args)
    if _also_stdout:
        print("WARNING: " + (message % args if args else message), file=sys.stdout)
