"""A `raise` under a staged condition, and the `except` clauses that could catch it.

A branch of a staged `if` that ends in a `raise` statement of converted code is not traced
under `cond`: the exception becomes an op that raises it when the graph runs and the branch
is taken (`Backend.raise_unless`), and the other branch runs after that op, unconditionally.

    if x > 0:                      raise_unless(not x > 0, ValueError("positive"))
        raise ValueError("positive")   ->   y = x / 2
    y = x / 2

Such an exception is raised when the graph runs, after the Python code has finished, so no
`except` clause of the converted code can catch it: staging one inside a `try` whose
handlers match it is refused (`catching` records the handlers of the running `try`s).
"""

from __future__ import annotations

import dis
import threading
from typing import Any, Callable, Optional

from ..pyct import loader
from .dispatch import Backend
from .location import at
from .staging import StagingError

_RAISE = dis.opmap["RAISE_VARARGS"]
_state = threading.local()


class BranchRaised(Exception):
    """A branch being traced ended in a `raise` statement of converted code."""

    def __init__(self, exception: BaseException, side: Any):
        super().__init__(exception)
        self.exception, self.side = exception, side


def raised_by_user(exc: BaseException) -> bool:
    """Whether `exc` comes straight from a `raise` statement of converted code."""
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code
    return loader.is_generated(code) and code.co_code[tb.tb_lasti] == _RAISE


def _raise_location(exc: BaseException) -> Optional[str]:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return None if tb is None else f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"


def _handlers() -> list:
    stack = getattr(_state, "handlers", None)
    if stack is None:
        stack = _state.handlers = []
    return stack


class catching:  # noqa: N801 - used like a statement: `with ag__.catching(ValueError):`
    """Marks the body of a `try` whose `except` clauses catch `types` (None: a bare
    `except:`)."""

    __slots__ = ("types",)

    def __init__(self, *types: Any):
        self.types = tuple(BaseException if t is None else t for t in types)

    def __enter__(self) -> None:
        _handlers().append(self.types)

    def __exit__(self, *exc_info: Any) -> bool:
        _handlers().pop()
        return False


class UncaughtStagingError(BaseException):
    """The refusal of a staged `raise` when the converted code's own `except` clauses would
    also catch a StagingError: a BaseException, so that they do not hide it."""


def _caught(exception: BaseException) -> bool:
    for caught in _handlers():
        try:
            if isinstance(exception, caught):
                return True
        except TypeError:
            continue
    return False


def _refuse_if_caught(exception: BaseException) -> None:
    if not _caught(exception):
        return
    error = StagingError(
        f"{type(exception).__name__} is raised under a condition that is a tensor"
        f"{at(_raise_location(exception))}, inside a `try` whose `except` clause catches it. "
        "The exception is raised when the graph runs, where no `except` of the converted code "
        "can catch it: compute the fallback value with a tensor condition instead (an `if` "
        "or rt.where).")
    if _caught(error):
        raise UncaughtStagingError(str(error)) from None
    raise error from None


def stage_raise(backend: Backend, pred: Any, raised_when: bool, exception: BaseException,
                other: Optional[Callable[[], Any]]) -> Any:
    """Stages `raise exception` for when `pred` is `raised_when`, then runs the other branch
    (`other`); returns the other branch's result."""
    _refuse_if_caught(exception)
    backend.raise_unless(backend.logical_not(pred) if raised_when else pred, exception)
    if other is None:
        return None
    try:
        return other()
    except Exception as e:
        if not raised_by_user(e):
            raise
        _refuse_if_caught(e)     # both branches raise
        backend.raise_unless(pred if raised_when else backend.logical_not(pred), e)
        return None


__all__ = ["BranchRaised", "catching", "raised_by_user", "stage_raise"]
