"""`if` statements and conditional expressions in converted code.

    ag__.if_stmt(x > 0, if_body_1, else_body_1, ('y',))

runs `if_body_1()` or `else_body_1()` like Python does when the condition is a plain value
(or an eager tensor), and stages both under the backend's `cond` when it is staged; `names`
lists the variables the branches assign that the rest of the code may need. The result is
what the chosen branch returned, which lets `return` statements inside the branches work.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from .. import nest
from .dispatch import staged_backend
from .location import at, user_location
from .staged_cond import staged_cond
from .staging import StagingError
from .variables import Variables


def if_stmt(cond: Any, body: Callable[[], Any], orelse: Optional[Callable[[], Any]] = None,
            names: Sequence[str] = (), temps: Sequence[str] = (),
            after_jump: bool = False) -> Any:
    """`body()` if `cond` else `orelse()`; staged when `cond` is staged.

    `temps` are variables the branches read and assign that nobody reads afterwards (as
    when both branches return): a staged `if` restores them before each branch instead of
    merging them. `after_jump` marks the `if` that guards the code after a jump out of a
    `with`/`try` statement (see converters/jump_flags.py): what it assigns may stay
    undefined on the path that jumped, where nothing reads it."""
    if cond is True:
        return body()
    if cond is False:
        return orelse() if orelse is not None else None
    backend = staged_backend(cond)
    if backend is None:
        if cond:
            return body()
        return orelse() if orelse is not None else None
    variables = Variables(names, (body, orelse))
    placeholders = frozenset(names) if after_jump else frozenset()
    if not temps:
        return staged_cond(backend, cond, body, orelse, variables, user_location(), placeholders)
    saved = Variables(temps, (body, orelse))
    start = saved.get()
    result = staged_cond(backend, cond, _restoring(body, saved, start),
                         _restoring(orelse, saved, start), variables, user_location(), placeholders)
    saved.set(start)
    return result


def _restoring(fn: Optional[Callable[[], Any]], saved: Variables, start: list):
    if fn is None:
        return None

    def branch():
        saved.set(start)
        return fn()
    return branch


def if_exp(cond: Any, if_true: Callable[[], Any], if_false: Callable[[], Any]) -> Any:
    """`if_true() if cond else if_false()`; staged when `cond` is staged."""
    if cond is True:
        return if_true()
    if cond is False:
        return if_false()
    backend = staged_backend(cond)
    if backend is None:
        return if_true() if cond else if_false()
    location = user_location()
    same = _SameStructure(location)
    return staged_cond(backend, cond, same.checked(if_true), same.checked(if_false),
                       Variables((), ()), location)


class _SameStructure:
    """Checks that the branches of a staged conditional expression return values of one
    nested structure (a list of two tensors and an empty list differ), as TensorFlow does."""

    def __init__(self, location: Optional[str]):
        self.location = location
        self.seen: list = []      # (structure, value) of each branch traced so far

    def checked(self, fn: Callable[[], Any]) -> Callable[[], Any]:
        def branch():
            value = fn()
            self.check(value)
            return value
        return branch

    def check(self, value: Any) -> None:
        signature = nest.structure_signature(value)
        for other, other_value in self.seen:
            if other != signature:
                raise StagingError(
                    f"a conditional expression whose condition is a tensor{at(self.location)} "
                    "must return the same nested structure in both branches: one branch "
                    f"returned {_shown(other_value)} and the other {_shown(value)}.")
        self.seen.append((signature, value))


def _shown(value: Any) -> str:
    return nest.describe(nest.flatten_with_structure(value)[1])
