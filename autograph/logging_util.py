"""User-facing warnings of a library logger that reach the user whether or not logging is set up.

The packages' loggers carry only a `NullHandler`, as libraries should; that also silences
Python's last-resort handler, so a warning logged before the application configures logging
would be lost. `warn` logs the record and, while no handler but `NullHandler`s would receive
it, also issues it through `warnings` (shown once per message, filterable as usual).
"""

from __future__ import annotations

import logging
import warnings


class LibraryWarning(UserWarning):
    """A warning of autograph or the runtime (a retrace, a function that is not converted)."""


def _configured(logger: logging.Logger) -> bool:
    current: logging.Logger | None = logger
    while current is not None:
        if any(not isinstance(h, logging.NullHandler) for h in current.handlers):
            return True
        if not current.propagate:
            return False
        current = current.parent
    return False


def warn(logger: logging.Logger, message: str, *args: object) -> None:
    """Logs `message % args` at WARNING on `logger`; without logging configured, warns too."""
    logger.warning(message, *args)
    if not _configured(logger) and logger.isEnabledFor(logging.WARNING):
        warnings.warn(message % args if args else message, LibraryWarning, stacklevel=3)
