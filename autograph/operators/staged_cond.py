"""Staging an `if` statement (or `and`/`or`, a conditional expression) whose condition is
staged: both branches are traced under the backend's `cond`, and what they leave behind —
the statement's variables and the branch results (a value, or a jump out of a loop body) —
is merged. See `operators/staging.py`.
"""

from __future__ import annotations

import enum
import re
from typing import Any, Callable, Optional, Sequence

from ..pyct.naming import RETURN_VALUE_STEM
from . import layout as lay
from .dispatch import Backend
from .lists import appended_spec, note_changed, recording_changes, truth
from .location import at
from .special_values import NORMAL, StagedJump, Undefined, is_jump
from .staged_raise import BranchRaised, raised_by_user, stage_raise
from .staging import (
    JUMP_LABEL,
    RETURN_LABEL,
    Retry,
    StagingError,
    jump_parts,
    kinds_of,
    may_jump,
    may_return,
    mismatch_error,
    refuse_globals,
    undefined_error,
)
from .variables import Variables


class _Outcome:
    """What one branch produced: its layout entries and the raw values behind them."""

    def __init__(self, entries: list, raw: list, jump_mode: bool, depth: int,
                 kinds: frozenset = frozenset()):
        self.entries, self.raw, self.jump_mode, self.depth = entries, raw, jump_mode, depth
        self.kinds = kinds


def _encode(backend: Backend, names: Sequence[str], values: list, result: Any,
            jump_mode: bool) -> _Outcome:
    entries, raw = [], []
    for name, value in zip(names, values):
        entries.append(lay.describe(backend, name, value)[0])
        raw.append(value)
    depth = 0
    if jump_mode:
        kind, retval, depth = jump_parts(result)
        entries.append(lay.describe(backend, JUMP_LABEL, kind)[0])
        raw.append(kind)
        entries.append(lay.describe(backend, RETURN_LABEL, retval)[0])
        raw.append(retval)
    else:
        entries.append(lay.describe(backend, RETURN_LABEL, result)[0])
        raw.append(result)
    return _Outcome(entries, raw, jump_mode, depth, kinds_of(result) if jump_mode else frozenset())


def _unify_entry(a: lay.Entry, b: lay.Entry, location: Optional[str],
                 lenient: bool = False) -> lay.Entry:
    placeholder_ok = lenient or (a.label == RETURN_LABEL and b.label == RETURN_LABEL) or (
        a.label.startswith(RETURN_VALUE_STEM))
    a_undef, b_undef = lay.is_undefined(a), lay.is_undefined(b)
    if placeholder_ok and (a_undef or b_undef):
        return b if a_undef else a
    if a.structure == b.structure:
        leaves = []
        for x, y in zip(a.leaves, b.leaves):
            if x.kind == y.kind:
                leaves.append(x)
            elif {x.kind, y.kind} == {lay.UNDEFINED, lay.TENSOR} and placeholder_ok:
                leaves.append(x if x.kind is lay.TENSOR else y)
            elif lay.UNDEFINED in (x.kind, y.kind):
                raise undefined_error(a.label, location)
            else:
                raise mismatch_error(a.label, lay.first_difference(a, b) or "", location)
        merged = lay.Entry(a.label, a.structure, leaves)
        why = lay.first_difference(merged, b)
        if why and not placeholder_ok:
            raise mismatch_error(a.label, why, location)
        return merged
    if a_undef or b_undef:
        raise undefined_error(a.label, location)
    raise mismatch_error(a.label, lay.first_difference(a, b) or "", location)


def _unify(a: _Outcome, b: _Outcome, location: Optional[str],
           placeholders: frozenset = frozenset()) -> list:
    if a.jump_mode != b.jump_mode:
        raise Retry()
    if a.depth and b.depth and a.depth != b.depth:
        raise AssertionError("returns from different loop depths")
    # In a loop body, a variable may be assigned only on a path that leaves the loop body
    # (`found = x; break`): the other path goes on looping without needing it.
    lenient = a.jump_mode and (
        (a.kinds == {NORMAL} and NORMAL not in b.kinds) or (b.kinds == {NORMAL} and NORMAL not in a.kinds))
    return [_unify_entry(x, y, location, (lenient and x.label not in (JUMP_LABEL, RETURN_LABEL))
                         or x.label in placeholders)
            for x, y in zip(a.entries, b.entries)]


def _same_layout(a: list, b: list) -> bool:
    return all(x.structure == y.structure and x.leaves == y.leaves and
               [leaf.kind for leaf in x.leaves] == [leaf.kind for leaf in y.leaves]
               for x, y in zip(a, b)) and len(a) == len(b)


class _NeverTaken(Exception):
    """A branch reads a return value no path of the function assigns: its flag is never
    set, so the branch never runs."""

    def __init__(self, side: "Side"):
        super().__init__(side)
        self.side = side


def _unbound_name(error: NameError) -> str:
    """The name an unbound-variable error is about ('' when unknown)."""
    name = getattr(error, "name", None)
    if name:
        return name
    found = re.search(r"variable '(\w+)'", str(error))
    return found.group(1) if found else ""


class Side(enum.Enum):
    """A branch of a staged `if`."""

    TRUE = "true"
    FALSE = "false"

    @property
    def other(self) -> "Side":
        return Side.FALSE if self is Side.TRUE else Side.TRUE


def staged_cond(backend: Backend, pred: Any, true_fn: Optional[Callable], false_fn: Optional[Callable],
                variables: Variables, location: Optional[str] = None,
                placeholders: frozenset = frozenset()) -> Any:
    """Stages `true_fn() if pred else false_fn()` including the variables they assign;
    returns the merged result (a value, or a StagedJump for loop bodies). The variables
    named in `placeholders` may stay undefined in one branch."""
    refuse_globals(variables, "an `if`", location)
    pred = truth(backend, pred)
    plan = CondPlan(backend, pred, true_fn, false_fn, variables, location)
    plan.placeholders = placeholders
    try:
        return plan.stage()
    except BranchRaised as raised:
        variables.set(plan.init)
        raised_when = raised.side is Side.TRUE
        return stage_raise(backend, pred, raised_when, raised.exception,
                           false_fn if raised_when else true_fn)
    except _NeverTaken as never:
        variables.set(plan.init)
        other = false_fn if never.side is Side.TRUE else true_fn
        return other() if other is not None else None
    except BaseException:
        variables.set(plan.init)    # a `finally:` that runs meanwhile must not see branch values
        raise


class CondPlan:
    """Staging one `if`: `trace` runs a branch under the backend's `cond` and encodes what it
    leaves behind, `unify` merges it with the other branch's layout, `finish` decodes the
    outputs. What a round learns (the merged layout, whether the branches jump) is kept, and
    a `Retry` starts a new round with it."""

    def __init__(self, backend: Backend, pred: Any, true_fn: Optional[Callable],
                 false_fn: Optional[Callable], variables: Variables, location: Optional[str]):
        self.backend, self.pred, self.variables, self.location = backend, pred, variables, location
        self.fns = {Side.TRUE: true_fn, Side.FALSE: false_fn}
        self.init = variables.get()
        self.names = variables.names
        self.hint_jump = may_jump(true_fn) or may_jump(false_fn)
        # trace the returning branch first, so that its return value sets the layout
        self.swap = self.hint_jump and may_return(false_fn) and not may_return(true_fn)
        self.target_entries: Optional[list] = None     # the layout both branches must emit
        self.target_jump_mode: Optional[bool] = None
        self.first_entries: Optional[list] = None      # the layout the first branch emitted
        self.outcomes: dict[Side, _Outcome] = {}
        self.labels: list[str] = []
        self.lists: dict[int, Any] = {}     # variable index -> element spec: a staged list
        self.appended: dict[int, Any] = {}  # Python lists a branch appended to
        self.placeholders: frozenset = frozenset()

    def stage(self) -> Any:
        for _ in range(6):
            self.outcomes.clear()
            self.variables.set(self.init)
            try:
                outputs = self._cond()
                break
            except Retry:
                if self.target_entries is None and self.target_jump_mode is True:
                    # the first branch guessed the wrong mode: let both branches use jump
                    # mode and learn the layout in the next round
                    self.first_entries = None
                continue
        else:   # pragma: no cover - each retry adds knowledge, so this does not happen
            raise AssertionError("staging a cond did not converge")
        return self.finish(outputs)

    def _cond(self) -> Sequence:
        backend = self.backend
        if self.swap:
            return backend.cond(backend.logical_not(self.pred), self._branch(Side.FALSE),
                                self._branch(Side.TRUE), self.labels)
        return backend.cond(self.pred, self._branch(Side.TRUE), self._branch(Side.FALSE), self.labels)

    def _branch(self, side: Side) -> Callable[[], tuple]:
        return lambda: self.trace(side)

    def _branch_init(self) -> list:
        """The variables a branch starts from: Python lists are copied, so that appending in
        one branch does not show in the other; a list a branch appends to is a staged list."""
        init = []
        for i, value in enumerate(self.init):
            if type(value) is list:
                value = list(value)
                if i in self.lists:
                    value = self.backend.new_list(value, self.lists[i])
            init.append(value)
        return init

    def _note_appends(self, init: list, lengths: list, values: list, changed: set) -> None:
        """Notes the Python lists the branch appended to. `init`: the values the branch
        started from; `lengths`: the lengths of its lists before it ran (None for other
        values)."""
        for i, (n, after) in enumerate(zip(lengths, values)):
            if n is None:
                continue
            if self.backend.is_list(after):     # a nested `if` or loop staged it
                spec = self.backend.spec(after)
            elif type(after) is not list or not {id(after), id(init[i])} & changed:
                continue    # (a nested staged `if` gives back a new list for the one appended to)
            else:
                spec = appended_spec(self.backend, n, after)
            if spec is not None and i not in self.lists:
                self.appended.setdefault(i, spec)

    def _unify_or_stage_lists(self, side: Side, outcome: _Outcome) -> list:
        """`unify`; when the branches disagree after one appended to a list, that list
        becomes a staged list (a graph's lists have a fixed length) in a new round."""
        try:
            return self.unify(side, outcome)
        except StagingError:
            if not self.appended:
                raise
            self.lists.update(self.appended)
            self.appended.clear()
            self.target_entries = self.first_entries = None    # layouts change: learn anew
            raise Retry() from None

    def _staged_list_error(self, e: TypeError) -> StagingError:
        names = ", ".join(f"'{self.names[i]}'" for i in sorted(self.lists))
        return StagingError(
            f"{names}: a list one branch of an `if` whose condition is a tensor"
            f"{at(self.location)} appends to becomes a staged list (its length is only known "
            f"when the graph runs), and using it as a Python list failed: {e}. Append to it "
            "the same number of times in both branches, or use it only with append, pop, len "
            "and rt.stack.")

    def trace(self, side: Side) -> tuple:
        """Runs one branch; the flat backend values it emits under the unified layout."""
        init = self._branch_init()
        lengths = [len(v) if type(v) is list else None for v in init]
        self.variables.set(init)
        fn = self.fns[side]
        with recording_changes() as changed:
            try:
                result = fn() if fn is not None else None
            except NameError as e:
                if not _unbound_name(e).startswith(RETURN_VALUE_STEM):
                    raise
                # `lambda: return_value__` after a jump out of a `with`/`try` whose staged
                # return could never run (it sat in an `except`): this branch is never taken
                raise _NeverTaken(side) from None
            except Exception as e:
                if raised_by_user(e):
                    raise BranchRaised(e, side) from None
                if isinstance(e, TypeError) and self.lists and not isinstance(e, StagingError):
                    raise self._staged_list_error(e) from e
                raise
        values = self.variables.get()
        self._note_appends(init, lengths, values, changed)
        if self.target_jump_mode is not None:
            jump_mode = self.target_jump_mode
        else:
            jump_mode = is_jump(result) or (self.hint_jump and result is None)
        outcome = _encode(self.backend, self.names, values, result, jump_mode)
        self.outcomes[side] = outcome
        entries = self._unify_or_stage_lists(side, outcome)
        self.labels[:] = lay.leaf_labels(entries)
        flat = []
        for value, entry in zip(outcome.raw, entries):
            flat.extend(lay.values_of(self.backend, value, entry))
        return tuple(flat)

    def unify(self, side: Side, outcome: _Outcome) -> list:
        """The layout this branch emits under: the target learnt earlier, the merge with the
        other branch (a different one than the first branch emitted starts a new round), or
        for the first branch, its own."""
        if self.target_entries is not None:
            if outcome.jump_mode != self.target_jump_mode:
                raise AssertionError("inconsistent branch results")
            _unify(_Outcome(self.target_entries, [], outcome.jump_mode, outcome.depth), outcome,
                   self.location, self.placeholders)
            return self.target_entries
        other = self.outcomes.get(side.other)
        if other is None:
            self.first_entries = outcome.entries
            return outcome.entries
        try:
            entries = _unify(other, outcome, self.location, self.placeholders)
        except Retry:
            self.target_jump_mode = True
            raise
        if not _same_layout(entries, self.first_entries):
            self.target_entries = entries
            self.target_jump_mode = outcome.jump_mode
            raise Retry()
        return entries

    def finish(self, outputs: Sequence) -> Any:
        """The statement's result; sets the user's variables from the cond's outputs."""
        outcomes = self.outcomes
        final = outcomes[Side.TRUE] if Side.TRUE in outcomes else outcomes[Side.FALSE]
        entries = self.target_entries or self.first_entries
        it = iter(outputs)
        values = [lay.rebuild(e, it) for e in entries]
        n = len(self.names)
        self.variables.set(values[:n])
        note_changed(values[i] for i in self.appended if type(values[i]) is list)
        if not final.jump_mode:
            return values[n]
        kind, retval = values[n], values[n + 1]
        depth = max(o.depth for o in outcomes.values())
        has_return = not isinstance(retval, Undefined)
        kinds = frozenset().union(*(o.kinds for o in outcomes.values()))
        return StagedJump(kind, retval if has_return else None, depth or 1, has_return, kinds)
