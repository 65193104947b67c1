"""Traceback filtering: errors leaving the library show the user's frames, not the library's.

The public entry points (`Function.__call__`, `get_concrete_function`) re-raise an
exception with the frames whose file is inside the `runtime` or `autograph` package removed,
so the traceback ends in the user's code, as TensorFlow's does. The work happens only when an
exception passes through; calls that succeed pay nothing.

`rt.debugging.disable_traceback_filtering()` keeps every frame (the environment variable
AUTOGRAPH_TRACEBACK_FILTERING=0 sets the same default at start-up).
"""

from __future__ import annotations

import os
import types
from typing import Optional

from .exports import export

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
# autograph ships next to the runtime in the same distribution; its frames are internal too
_INTERNAL_DIRS = (_RUNTIME_DIR + os.sep,
                  os.path.join(os.path.dirname(_RUNTIME_DIR), "autograph") + os.sep)
_enabled = os.environ.get("AUTOGRAPH_TRACEBACK_FILTERING", "1") != "0"


@export("debugging.enable_traceback_filtering")
def enable_traceback_filtering() -> None:
    """Errors from compiled functions hide the library's own frames (the default)."""
    global _enabled
    _enabled = True


@export("debugging.disable_traceback_filtering")
def disable_traceback_filtering() -> None:
    """Errors from compiled functions keep every frame, the library's included."""
    global _enabled
    _enabled = False


@export("debugging.is_traceback_filtering_enabled")
def is_traceback_filtering_enabled() -> bool:
    """True when errors hide the library's frames (see `disable_traceback_filtering`)."""
    return _enabled


def is_internal_file(filename: str) -> bool:
    """True for a file inside the runtime or autograph package."""
    return filename.startswith(_INTERNAL_DIRS)


def without_internal_frames(tb: Optional[types.TracebackType]) -> Optional[types.TracebackType]:
    """The traceback `tb` with the frames of internal files removed."""
    kept = []
    while tb is not None:
        if not is_internal_file(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    new = None
    for t in reversed(kept):
        new = types.TracebackType(new, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return new


def filtered(exc: BaseException) -> BaseException:
    """`exc` with the internal frames removed from its traceback when filtering is on.

    Called in an `except` block of a public entry point, before a bare `raise` (which keeps
    the filtered traceback and adds no frame of the entry point)."""
    if _enabled and exc.__traceback__ is not None:
        exc.__traceback__ = without_internal_frames(exc.__traceback__)
    return exc
