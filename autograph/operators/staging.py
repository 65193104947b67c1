"""What staged `if` statements and loops share: errors, jump kinds, and static hints.

`staged_cond` (operators/staged_cond.py) and `staged_loop` (operators/staged_loop.py) run
the generated branch and body functions under the backend's `cond` and `while_loop`. They
save and restore the user's variables around each trace, convert Python numbers to backend
values, carry `break`/`return` decisions as staged jump kinds, and discover what they cannot
know in advance (the type of a variable first assigned inside a loop, a list that a loop
grows, whether a body breaks or returns) by tracing once, then retracing with that knowledge.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, Optional

from ..pyct import loader
from .location import at
from .special_values import BREAK, BREAK_KIND, NORMAL, RETURN_KIND, Return, StagedJump, Undefined

RETURN_LABEL = "the return value"
JUMP_LABEL = "the break/return state"


class Retry(Exception):
    """Raised inside a trace to restart it with more knowledge."""


class StagingError(TypeError, ValueError):
    """A construct cannot be staged as written (the message says why and how to fix it)."""


# -- static hints from the generated code ------------------------------------------------------

@functools.lru_cache(maxsize=8192)
def _mentions(code: types.CodeType, names: frozenset) -> bool:
    if names.intersection(code.co_names):
        return True
    return any(isinstance(c, types.CodeType) and _mentions(c, names) for c in code.co_consts)


_JUMPS = frozenset({"BREAK", "Return"})
_RETURNS = frozenset({"Return"})


def _fn_mentions(fn: Optional[Callable], names: frozenset) -> bool:
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    if _mentions(code, names):
        return True
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        inner = getattr(value, "__code__", None)
        if isinstance(inner, types.CodeType) and loader.is_generated(inner) and _mentions(inner, names):
            return True
    return False


def may_jump(fn: Optional[Callable]) -> bool:
    """Whether a generated function may return BREAK or Return (a cheap, conservative look)."""
    return _fn_mentions(fn, _JUMPS)


def may_return(fn: Optional[Callable]) -> bool:
    return _fn_mentions(fn, _RETURNS)


# -- jumps -------------------------------------------------------------------------------------

def kinds_of(result: Any) -> frozenset:
    """The jump kinds a generated function's result may stand for."""
    if result is None:
        return frozenset({NORMAL})
    if result is BREAK:
        return frozenset({BREAK_KIND})
    if isinstance(result, Return):
        return frozenset({RETURN_KIND})
    if isinstance(result, StagedJump):
        return result.kinds
    return frozenset({NORMAL})


def jump_parts(result: Any) -> tuple[Any, Any, int]:
    """(kind, returned value or Undefined, depth) of a generated function's result."""
    if result is None:
        return NORMAL, Undefined(RETURN_LABEL), 0
    if result is BREAK:
        return BREAK_KIND, Undefined(RETURN_LABEL), 0
    if isinstance(result, Return):
        return RETURN_KIND, result.value, result.depth
    if isinstance(result, StagedJump):
        value = result.value if result.has_return else Undefined(RETURN_LABEL)
        return result.kind, value, result.depth if result.has_return else 0
    raise AssertionError(f"unexpected jump {result!r}")


def undefined_error(name: str, location: Optional[str]) -> StagingError:
    return StagingError(
        f"'{name}' is assigned in only one branch of an `if` whose condition is a tensor{at(location)}, "
        "and it is used afterwards. Staged `if` statements run both branches, so give "
        f"'{name}' a value in both branches (or before the `if`).")


def refuse_globals(variables, statement: str, location: Optional[str]) -> None:
    """Raises StagingError when a staged statement assigns a `global` variable: the staged
    value would be left in the module, where nothing can use it once tracing ends."""
    names = variables.global_names()
    if names:
        raise StagingError(
            f"'{names[0]}' is declared `global` and assigned inside {statement} whose condition "
            f"is a tensor{at(location)}. A staged value cannot be stored in a module global; "
            "assign a local variable there and return it (or assign the global outside the "
            "staged statement).")


def mismatch_error(name: str, why: str, location: Optional[str]) -> StagingError:
    if name == RETURN_LABEL:
        return StagingError(
            f"the two branches of an `if` whose condition is a tensor{at(location)} return "
            f"different kinds of values ({why}). When a return depends on a tensor, every path "
            "must return values of the same structure and type: where an `if` branch returns, "
            "the else branch must also have a return statement (falling off the end of the "
            "function returns None).")
    return StagingError(
        f"'{name}' has different types in the two branches of an `if` whose condition is a "
        f"tensor{at(location)}: {why}. Both branches must leave it with the same structure "
        "and type.")
