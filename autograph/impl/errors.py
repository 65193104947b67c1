"""Errors from converted code point at the user's code.

Converted code is compiled with the user's file name and line numbers, so its traceback
frames already show the original file, line and source text. When an exception leaves a
converted function called by the user (`to_graph`'s result, or the runtime's traced
function), `annotate` additionally

* adds the innermost user location to the start of the message (for exceptions whose
  message is their single string argument) and as a note;
* removes autograph's own frames (operators, conversion machinery) and those of the
  backend's package (`register_internal_dir`) from the traceback.
  Set AUTOGRAPH_TRACEBACK_FILTERING=0 to keep them; a backend may install its own switch
  (`set_filtering_switch`: the runtime's is `rt.debugging.disable_traceback_filtering`).
"""

from __future__ import annotations

import linecache
import os
import types
from typing import Callable, Optional

from ..pyct import loader

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_internal_dirs: tuple[str, ...] = (_PACKAGE_DIR + os.sep,)
_MARK = "__ag_annotated__"


def _environment_switch() -> bool:
    return os.environ.get("AUTOGRAPH_TRACEBACK_FILTERING", "1") != "0"


_filtering_enabled: Callable[[], bool] = _environment_switch


def set_filtering_switch(switch: Callable[[], bool]) -> None:
    """Makes `switch()` decide whether tracebacks are filtered (default: the environment)."""
    global _filtering_enabled
    _filtering_enabled = switch


def _innermost_user_frame(tb: Optional[types.TracebackType]):
    found = None
    while tb is not None:
        if loader.is_generated(tb.tb_frame.f_code):
            found = tb
        tb = tb.tb_next
    return found


def register_internal_dir(path: str) -> None:
    """Hides the frames of files under `path` too (a backend registers its package)."""
    global _internal_dirs
    _internal_dirs = _internal_dirs + (os.path.abspath(path) + os.sep,)


def _is_internal(tb: types.TracebackType) -> bool:
    filename = tb.tb_frame.f_code.co_filename
    return filename.startswith(_internal_dirs) and not loader.is_generated(tb.tb_frame.f_code)


def filter_traceback(tb: Optional[types.TracebackType]) -> Optional[types.TracebackType]:
    """The traceback without internal frames: autograph's and its backend's."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    kept = [t for t in frames if not _is_internal(t)]
    new = None
    for t in reversed(kept):
        new = types.TracebackType(new, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return new


def location_text(tb: types.TracebackType) -> str:
    code = tb.tb_frame.f_code
    line = linecache.getline(code.co_filename, tb.tb_lineno, tb.tb_frame.f_globals).strip()
    where = f'File "{code.co_filename}", line {tb.tb_lineno}, in {loader.user_function_name(code)}'
    return f"{where}\n    {line}" if line else where


def _str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ means: leave the message alone
        return ""


def annotate(exc: BaseException) -> BaseException:
    """Points `exc` at the user's code (once); returns it with a filtered traceback."""
    if not isinstance(exc, Exception) or getattr(exc, _MARK, False):
        return exc
    try:
        setattr(exc, _MARK, True)
    except (AttributeError, TypeError):
        return exc
    tb = exc.__traceback__
    user = _innermost_user_frame(tb)
    if user is not None:
        text = location_text(user)
        header = f"in user code:\n  {text}"
        if len(exc.args) == 1 and isinstance(exc.args[0], str) and _str(exc) == exc.args[0]:
            exc.args = (f"{header}\n{exc.args[0]}",)
        elif hasattr(exc, "add_note"):
            exc.add_note(header)
    if tb is not None and _filtering_enabled():
        exc = exc.with_traceback(filter_traceback(tb))
    return exc
