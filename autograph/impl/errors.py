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
import re
import sys
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


_UNCONVERTED_HINTS = (
    ("match ", "a `match` statement is not converted: write its cases as `if`/`elif` on "
               "tensor conditions"),
    ("case ", "a `match` statement is not converted: write its cases as `if`/`elif` on "
              "tensor conditions"),
    ("sorted(", "`sorted` needs the values of the tensor: sort with tensor ops"),
    (" in ", "`in` on a tensor needs its values: write `rt.reduce_any(rt.equal(t, v))`"),
)


_CONVERTED_ADVICE = " Autograph stages"  # the backend's advice when the caller is converted
_ADVICE_MARKERS = (" Write the function with", _CONVERTED_ADVICE)


def _raised_for_converted_code(exc: BaseException) -> bool:
    """Whether the code that handed the tensor to the library raising `exc` is converted
    code (not a function autograph left alone)."""
    module = sys.modules.get(type(exc).__module__)
    library = os.path.dirname(getattr(module, "__file__", None) or "") + os.sep
    tb, caller = exc.__traceback__, None
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(library):
        caller, tb = tb, tb.tb_next
    return caller is not None and loader.is_generated(caller.tb_frame.f_code)


def _unconverted_construct(exc: BaseException, line: str) -> None:
    """A tensor was used where Python needs a value. In converted code, replace the advice to
    convert the function (it already is) by what to write instead; in a function autograph
    left alone, say so."""
    if type(exc).__name__ != "OperatorNotAllowedInGraphError" or len(exc.args) != 1:
        return
    message = str(exc.args[0])
    found = [(i, marker) for marker in _ADVICE_MARKERS if (i := message.find(marker)) >= 0]
    if not found:
        return
    cut, marker = min(found)
    if _raised_for_converted_code(exc):
        padded = f" {line} "
        hint = next((h for key, h in _UNCONVERTED_HINTS
                     if key in padded and not (key == " in " and " for " in padded)), None)
        if hint is None:
            if marker == _CONVERTED_ADVICE:
                return  # the backend's advice for converted code already fits
            hint = "this construct is not converted to graph operations"
        exc.args = (f"{message[:cut]} The function is converted by autograph, but {hint}; see "
                    "docs/limitations.md.",)
    elif marker == _CONVERTED_ADVICE:
        exc.args = (f"{message[:cut]} The function that uses it is not converted by autograph "
                    "(it is marked do_not_convert, or cannot be converted): let autograph convert "
                    "it, as rt.function(autograph=True) does by default, or use rt.cond, "
                    "rt.where or rt.while_loop there.",)


_FREE_VARIABLE = (  # Python 3.11+ wording, then 3.10's; compiled on first use (re's cache)
    r"^(?:cannot access free variable '(\w+)' where it is not associated with a value|"
    r"free variable '(\w+)' referenced before assignment) in enclosing scope$")


def _as_unbound_local(exc: BaseException) -> BaseException:
    """A generated function reading the user's variable before any assignment reports
    Python's own UnboundLocalError, not a NameError about a free variable the user never
    wrote."""
    if type(exc) is not NameError or len(exc.args) != 1:
        return exc
    match = re.match(_FREE_VARIABLE, str(exc.args[0]))
    if not match:
        return exc
    name = match.group(1) or match.group(2)
    new = UnboundLocalError(f"cannot access local variable '{name}' where it is not associated "
                            "with a value")
    return new.with_traceback(exc.__traceback__)


def _str(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ means: leave the message alone
        return ""


def annotate(exc: BaseException) -> BaseException:
    """Points `exc` at the user's code (once); returns it with a filtered traceback (or
    the exception Python itself would raise in its place)."""
    if not isinstance(exc, Exception) or getattr(exc, _MARK, False):
        return exc
    try:
        setattr(exc, _MARK, True)
    except (AttributeError, TypeError):
        return exc
    tb = exc.__traceback__
    user = _innermost_user_frame(tb)
    if user is not None:
        exc = _as_unbound_local(exc)
        setattr(exc, _MARK, True)
        _unconverted_construct(exc, linecache.getline(
            user.tb_frame.f_code.co_filename, user.tb_lineno, user.tb_frame.f_globals).strip())
        text = location_text(user)
        header = f"in user code:\n  {text}"
        if len(exc.args) == 1 and isinstance(exc.args[0], str) and _str(exc) == exc.args[0]:
            exc.args = (f"{header}\n{exc.args[0]}",)
        elif hasattr(exc, "add_note"):
            exc.add_note(header)
    if tb is not None and _filtering_enabled():
        exc = exc.with_traceback(filter_traceback(tb))
    return exc
