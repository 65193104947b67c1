"""Staging an `if` statement (or `and`/`or`, a conditional expression) whose condition is
staged: both branches are traced under the backend's `cond`, and what they leave behind —
the statement's variables and the branch results (a value, or a jump out of a loop body) —
is merged. See `operators/staging.py`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from . import layout as lay
from .dispatch import Backend
from .special_values import NORMAL, StagedJump, Undefined, is_jump
from .staging import (
    JUMP_LABEL,
    RETURN_LABEL,
    Retry,
    jump_parts,
    kinds_of,
    may_jump,
    may_return,
    mismatch_error,
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
    placeholder_ok = lenient or (a.label == RETURN_LABEL and b.label == RETURN_LABEL)
    a_undef = all(leaf.kind == "U" for leaf in a.leaves)
    b_undef = all(leaf.kind == "U" for leaf in b.leaves)
    if placeholder_ok and (a_undef or b_undef):
        return b if a_undef else a
    if a.structure == b.structure:
        leaves = []
        for x, y in zip(a.leaves, b.leaves):
            if x.kind == y.kind:
                leaves.append(x)
            elif {x.kind, y.kind} == {"U", "T"} and placeholder_ok:
                leaves.append(x if x.kind == "T" else y)
            elif "U" in (x.kind, y.kind):
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


def _unify(a: _Outcome, b: _Outcome, location: Optional[str]) -> list:
    if a.jump_mode != b.jump_mode:
        raise Retry()
    if a.depth and b.depth and a.depth != b.depth:
        raise AssertionError("returns from different loop depths")
    # In a loop body, a variable may be assigned only on a path that leaves the loop body
    # (`found = x; break`): the other path goes on looping without needing it.
    lenient = a.jump_mode and (
        (a.kinds == {NORMAL} and NORMAL not in b.kinds) or (b.kinds == {NORMAL} and NORMAL not in a.kinds))
    return [_unify_entry(x, y, location, lenient and x.label not in (JUMP_LABEL, RETURN_LABEL))
            for x, y in zip(a.entries, b.entries)]


def _same_layout(a: list, b: list) -> bool:
    return all(x.structure == y.structure and x.leaves == y.leaves and
               [leaf.kind for leaf in x.leaves] == [leaf.kind for leaf in y.leaves]
               for x, y in zip(a, b)) and len(a) == len(b)


def staged_cond(backend: Backend, pred: Any, true_fn: Optional[Callable], false_fn: Optional[Callable],
                variables: Variables, location: Optional[str] = None) -> Any:
    """Stages `true_fn() if pred else false_fn()` including the variables they assign;
    returns the merged result (a value, or a StagedJump for loop bodies)."""
    init = variables.get()
    names = variables.names
    hint_jump = may_jump(true_fn) or may_jump(false_fn)
    swap = hint_jump and may_return(false_fn) and not may_return(true_fn)
    target: dict[str, Any] = {"entries": None, "jump_mode": None}
    labels: list[str] = []

    def run(fn: Optional[Callable]):
        variables.set(init)
        result = fn() if fn is not None else None
        return variables.get(), result

    outcomes: dict[str, _Outcome] = {}
    first_emitted: dict[str, list] = {}

    def branch(side: str, fn: Optional[Callable]):
        other_side = "false" if side == "true" else "true"

        def traced():
            values, result = run(fn)
            if target["jump_mode"] is not None:
                jump_mode = target["jump_mode"]
            else:
                jump_mode = is_jump(result) or (hint_jump and result is None)
            outcome = _encode(backend, names, values, result, jump_mode)
            outcomes[side] = outcome
            if target["entries"] is not None:
                entries = target["entries"]
                if outcome.jump_mode != target["jump_mode"]:
                    raise AssertionError("inconsistent branch results")
                _unify(_Outcome(entries, [], outcome.jump_mode, outcome.depth), outcome, location)
            elif other_side in outcomes:
                other = outcomes[other_side]
                try:
                    entries = _unify(other, outcome, location)
                except Retry:
                    target["jump_mode"] = True
                    raise
                if not _same_layout(entries, first_emitted["entries"]):
                    target["entries"] = entries
                    target["jump_mode"] = outcome.jump_mode
                    raise Retry()
            else:
                entries = outcome.entries
                first_emitted["entries"] = entries
            labels[:] = lay.leaf_labels(entries)
            flat = []
            for value, entry in zip(outcome.raw, entries):
                flat.extend(lay.values_of(backend, value, entry))
            return tuple(flat)
        return traced

    for _ in range(4):
        outcomes.clear()
        variables.set(init)
        try:
            if swap:
                outputs = backend.cond(backend.logical_not(pred), branch("false", false_fn),
                                       branch("true", true_fn), labels)
            else:
                outputs = backend.cond(pred, branch("true", true_fn), branch("false", false_fn), labels)
            break
        except Retry:
            if target["entries"] is None and target["jump_mode"] is True:
                # the first branch guessed the wrong mode: let both branches use jump mode
                # and learn the layout in the next round
                first_emitted.clear()
            continue
    else:   # pragma: no cover - each retry adds knowledge, so this does not happen
        raise AssertionError("staging a cond did not converge")

    final = outcomes["true"] if "true" in outcomes else outcomes["false"]
    entries = target["entries"] or first_emitted["entries"]
    it = iter(outputs)
    values = [lay.rebuild(e, it) for e in entries]
    n = len(names)
    variables.set(values[:n])
    if final.jump_mode:
        kind, retval = values[n], values[n + 1]
        depth = max(o.depth for o in outcomes.values())
        has_return = not isinstance(retval, Undefined)
        kinds = frozenset().union(*(o.kinds for o in outcomes.values()))
        return StagedJump(kind, retval if has_return else None, depth or 1, has_return, kinds)
    return values[n]
