"""Staging `if` statements and loops whose conditions are staged values.

`staged_cond` and `staged_loop` run the generated branch and body functions under the
backend's `cond` and `while_loop`. They save and restore the user's variables around each
trace, convert Python numbers to backend values, carry `break`/`return` decisions as staged
jump kinds, and discover what they cannot know in advance (the type of a variable first
assigned inside a loop, a list that a loop grows, whether a body breaks or returns) by
tracing once, then retracing with that knowledge.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable, Optional, Sequence

from ..pyct import loader
from . import layout as lay
from .dispatch import Backend
from .location import at
from .special_values import BREAK, BREAK_KIND, NORMAL, RETURN_KIND, Return, StagedJump, Undefined, is_jump
from .variables import Variables

RETURN_LABEL = "the return value"
JUMP_LABEL = "the break/return state"


class _Retry(Exception):
    """Raised inside a trace to restart it with more knowledge."""


class StagingError(TypeError):
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

def _kinds(result: Any) -> frozenset:
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


def _jump_parts(result: Any) -> tuple[Any, Any, int]:
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


def _undefined_error(name: str, location: Optional[str]) -> StagingError:
    return StagingError(
        f"'{name}' is assigned in only one branch of an `if` whose condition is a tensor{at(location)}, "
        "and it is used afterwards. Staged `if` statements run both branches, so give "
        f"'{name}' a value in both branches (or before the `if`).")


def _mismatch_error(name: str, why: str, location: Optional[str]) -> StagingError:
    if name == RETURN_LABEL:
        return StagingError(
            f"the two branches of an `if` whose condition is a tensor{at(location)} return "
            f"different kinds of values ({why}). When a return depends on a tensor, every path "
            "must return values of the same structure and type.")
    return StagingError(
        f"'{name}' has different types in the two branches of an `if` whose condition is a "
        f"tensor{at(location)}: {why}. Both branches must leave it with the same structure "
        "and type.")


# -- cond --------------------------------------------------------------------------------------

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
        kind, retval, depth = _jump_parts(result)
        entries.append(lay.describe(backend, JUMP_LABEL, kind)[0])
        raw.append(kind)
        entries.append(lay.describe(backend, RETURN_LABEL, retval)[0])
        raw.append(retval)
    else:
        entries.append(lay.describe(backend, RETURN_LABEL, result)[0])
        raw.append(result)
    return _Outcome(entries, raw, jump_mode, depth, _kinds(result) if jump_mode else frozenset())


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
                raise _undefined_error(a.label, location)
            else:
                raise _mismatch_error(a.label, lay.first_difference(a, b) or "", location)
        merged = lay.Entry(a.label, a.structure, leaves)
        why = lay.first_difference(merged, b)
        if why and not placeholder_ok:
            raise _mismatch_error(a.label, why, location)
        return merged
    if a_undef or b_undef:
        raise _undefined_error(a.label, location)
    raise _mismatch_error(a.label, lay.first_difference(a, b) or "", location)


def _unify(a: _Outcome, b: _Outcome, location: Optional[str]) -> list:
    if a.jump_mode != b.jump_mode:
        raise _Retry()
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
                except _Retry:
                    target["jump_mode"] = True
                    raise
                if not _same_layout(entries, first_emitted["entries"]):
                    target["entries"] = entries
                    target["jump_mode"] = outcome.jump_mode
                    raise _Retry()
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
        except _Retry:
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


# -- loops -------------------------------------------------------------------------------------

class _Knowledge:
    """What earlier traces of a loop body found out."""

    def __init__(self):
        self.undefined: dict[int, lay.Entry] = {}   # var index -> layout after one iteration
        self.lists: dict[int, Any] = {}              # var index -> element spec
        self.jump_mode = False
        self.retval: Optional[lay.Entry] = None
        self.depth = 0
        self.kinds: set = {NORMAL}


def _list_growth(backend: Backend, before: lay.Entry, value: Any):
    """The element spec of a Python list that grew by `append` during one iteration, or None."""
    from . import nest
    if type(value) is not list or before.structure is nest.LEAF or before.structure[0] is not list:
        return None
    n = len(before.structure[1])
    if len(value) <= n or any(isinstance(v, (list, tuple, dict)) for v in value[n:]):
        return None
    first = value[n]
    try:
        first = first if backend.is_value(first) else backend.convert(first)
    except TypeError:
        return None
    return backend.spec(first)


def staged_loop(backend: Backend, variables: Variables, test: Callable[[tuple], Any],
                body: Callable[[tuple], tuple[Any, tuple]], extras: tuple = (),
                extra_labels: tuple = (), jump: Optional[StagedJump] = None,
                opts: Optional[dict] = None, lists: bool = True,
                location: Optional[str] = None) -> tuple[Optional[StagedJump], tuple, list]:
    """Stages `while test(extras): jump, extras = body(extras)` over the user's variables.

    Returns the final jump (None when the body never jumps), the final extras, and for
    variables undefined when the loop started, (index, staged "was assigned") pairs to pass
    to `finish_loop`."""
    opts = opts or {}
    init = variables.get()
    names = variables.names
    know = _Knowledge()
    if jump is not None:
        know.jump_mode = True
        know.kinds |= jump.kinds
        if jump.has_return:
            know.retval = lay.describe(backend, RETURN_LABEL, jump.value)[0]
            know.depth = jump.depth

    for _ in range(6):
        variables.set(init)
        try:
            return _loop_attempt(backend, variables, init, names, test, body, extras, extra_labels,
                                 jump, opts, lists, know, location)
        except _Retry:
            continue
    raise AssertionError("staging a loop did not converge")  # pragma: no cover


def _loop_attempt(backend, variables, init, names, test, body, extras, extra_labels, jump, opts,
                  lists, know: _Knowledge, location):
    plan: list[tuple[str, Optional[lay.Entry]]] = []   # per var: ("carry"|"probe"|"undef", entry)
    entries: list[lay.Entry] = []
    flat_init: list = []
    start_values = list(init)
    for i, (name, value) in enumerate(zip(names, init)):
        if isinstance(value, Undefined):
            if i in know.undefined:
                entry = know.undefined[i]
                plan.append(("undef", entry))
                entries.append(entry)
                flat_init.extend(lay.values_of(backend, Undefined(name), entry))
                flag = lay.describe(backend, f"{name} (defined)", False)
                entries.append(flag[0])
                flat_init.extend(flag[1])
            else:
                plan.append(("probe", None))
            continue
        if i in know.lists and type(value) is list:
            value = backend.new_list(value, know.lists[i])
            start_values[i] = value
        entry, flat = lay.describe(backend, name, value)
        if any(leaf.kind == "U" for leaf in entry.leaves):
            raise StagingError(f"'{name}' is partly undefined when a staged loop starts{at(location)}.")
        plan.append(("carry", entry))
        entries.append(entry)
        flat_init.extend(flat)
    extra_entries = []
    for label, value in zip(extra_labels, extras):
        entry, flat = lay.describe(backend, label, value)
        extra_entries.append(entry)
        flat_init.extend(flat)
    jump_entries = []
    if know.jump_mode:
        kind0 = jump.kind if jump is not None else NORMAL
        entry, flat = lay.describe(backend, JUMP_LABEL, kind0)
        jump_entries.append(entry)
        flat_init.extend(flat)
        if know.retval is not None:
            start = jump.value if jump is not None and jump.has_return else Undefined(RETURN_LABEL)
            jump_entries.append(know.retval)
            flat_init.extend(lay.values_of(backend, start, know.retval))
    all_entries = entries + extra_entries + jump_entries
    labels = lay.leaf_labels(all_entries)

    def unpack(flat):
        it = iter(flat)
        values = []
        for (mode, entry), name in zip(plan, names):
            if mode == "probe":
                values.append(Undefined(name))
            elif mode == "undef":
                values.append(lay.rebuild(entry, it))
                next(it)   # the defined flag
            else:
                values.append(lay.rebuild(entry, it))
        ex = tuple(lay.rebuild(e, it) for e in extra_entries)
        kind = retval = None
        if know.jump_mode:
            kind = next(it)
            if know.retval is not None:
                retval = lay.rebuild(know.retval, it)
        return values, ex, kind, retval

    def loop_test(*flat):
        values, ex, kind, _ = unpack(flat)
        variables.set(values)
        if not know.jump_mode:
            return _as_bool(backend, test(ex))
        running = backend.equal(kind, backend.convert(NORMAL))
        return _lazy_and(backend, running, lambda: test(ex))

    def loop_body(*flat):
        values, ex, kind, retval = unpack(flat)
        variables.set(values)
        result, new_ex = body(ex)
        new_values = variables.get()
        retry = False
        out: list = []
        for i, ((mode, entry), name, value) in enumerate(zip(plan, names, new_values)):
            if mode == "probe":
                if not isinstance(value, Undefined):
                    know.undefined[i] = lay.describe(backend, name, value)[0]
                    retry = True
                continue
            new_entry = lay.describe(backend, name, value)[0]
            if mode == "carry" and lists and i not in know.lists:
                spec = _list_growth(backend, entry, value)
                if spec is not None:
                    know.lists[i] = spec
                    retry = True
                    continue
            why = _loop_difference(entry, new_entry)
            if why:
                if isinstance(value, Undefined) or any(leaf.kind == "U" for leaf in new_entry.leaves):
                    raise StagingError(
                        f"'{name}' has no value at the end of an iteration of a loop whose "
                        f"condition is a tensor{at(location)}; assign it on every path of the loop body.")
                raise StagingError(
                    f"'{name}' changes from {why} between iterations of a loop whose condition is "
                    f"a tensor{at(location)}. Loop variables must keep their structure and type.")
            out.extend(lay.values_of(backend, value, entry))
            if mode == "undef":
                out.append(backend.convert(True))
        for e, value in zip(extra_entries, new_ex):
            out.extend(lay.values_of(backend, value, e))
        if result is not None or know.jump_mode:
            new_kind, new_ret, depth = _jump_parts(result)
            know.kinds |= _kinds(result)
            if not know.jump_mode:
                know.jump_mode = True
                retry = True
            if not isinstance(new_ret, Undefined) and know.retval is None:
                know.retval = lay.describe(backend, RETURN_LABEL, new_ret)[0]
                know.depth = depth
                retry = True
            if not retry:
                out.extend(lay.values_of(backend, new_kind, jump_entries[0]))
                if know.retval is not None:
                    keep = new_ret if not isinstance(new_ret, Undefined) else retval
                    out.extend(lay.values_of(backend, keep, know.retval))
        if retry:
            raise _Retry()
        return tuple(out)

    invariants = _shape_invariants(all_entries, opts.get("shape_invariants"))
    outputs = backend.while_loop(loop_test, loop_body, tuple(flat_init), labels,
                                 shape_invariants=invariants,
                                 maximum_iterations=opts.get("maximum_iterations"))
    it = iter(outputs)
    final_values = []
    guards = []
    for i, ((mode, entry), name) in enumerate(zip(plan, names)):
        if mode == "probe":
            final_values.append(Undefined(name))
        elif mode == "undef":
            final_values.append(lay.rebuild(entry, it))
            guards.append((i, next(it)))
        else:
            final_values.append(lay.rebuild(entry, it))
    final_extras = tuple(lay.rebuild(e, it) for e in extra_entries)
    variables.set(final_values)
    if not know.jump_mode:
        return None, final_extras, guards
    kind = next(it)
    retval = lay.rebuild(know.retval, it) if know.retval is not None else None
    return (StagedJump(kind, retval, know.depth or 1, know.retval is not None, frozenset(know.kinds)),
            final_extras, guards)


def _loop_difference(before: lay.Entry, after: lay.Entry) -> Optional[str]:
    if before.structure != after.structure:
        from .nest import describe
        return f"{describe(before.structure)} to {describe(after.structure)}"
    for x, y in zip(before.leaves, after.leaves):
        if x.kind != y.kind or (x.kind == "S" and not lay.same_constant(x.payload, y.payload)):
            a = "a tensor" if x.kind == "T" else repr(x.payload) if x.kind == "S" else "undefined"
            b = "a tensor" if y.kind == "T" else repr(y.payload) if y.kind == "S" else "undefined"
            return f"{a} to {b}"
    return None


def _guard(backend: Backend, value: Any, defined: Any, message: str) -> Any:
    from . import nest
    leaves, structure = nest.flatten(value)
    guarded = [backend.guard_defined(v, defined, message) if backend.is_value(v) else v
               for v in leaves]
    return nest.unflatten(structure, guarded) if structure is not nest.LEAF else guarded[0]


def _shape_invariants(entries: list, given: Optional[dict]) -> Optional[list]:
    if not given:
        return None
    out = []
    for e in entries:
        n = sum(1 for leaf in e.leaves if leaf.kind == "T")
        if e.label in given and n == 1:
            out.append(given[e.label])
        elif e.label in given:
            shape = given[e.label]
            out.extend(shape if isinstance(shape, (list, tuple)) and len(shape) == n else [shape] * n)
        else:
            out.extend([None] * n)
    return out


def _as_bool(backend: Backend, value: Any) -> Any:
    if backend.is_value(value):
        return value
    return backend.convert(bool(value))


def _lazy_and(backend: Backend, a: Any, b_fn: Callable[[], Any]) -> Any:
    """`a and b_fn()` for a staged bool `a`, evaluating `b_fn` only when `a` holds."""
    outputs = backend.cond(a, lambda: (_as_bool(backend, b_fn()),),
                           lambda: (backend.convert(False),), ["the loop condition"])
    return outputs[0]


# -- after a loop --------------------------------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def _stores(code: types.CodeType, name: str) -> bool:
    import dis
    for ins in dis.get_instructions(code):
        if ins.opname in ("STORE_DEREF", "STORE_GLOBAL", "STORE_FAST", "STORE_NAME") and ins.argval == name:
            return True
    return any(isinstance(c, types.CodeType) and _stores(c, name) for c in code.co_consts)


def _assigns(fn: Optional[Callable], name: str) -> bool:
    code = getattr(fn, "__code__", None)
    return code is not None and _stores(code, name)


def finish_loop(backend: Backend, variables: Variables, jump: Optional[StagedJump],
                orelse: Optional[Callable], on_break: Optional[Callable],
                location: Optional[str] = None, guards: Sequence = ()) -> Any:
    """Runs `orelse`/`on_break` and produces the loop statement's result after a staged loop.

    `guards` (from `staged_loop`) make variables first assigned inside the loop fail, when
    the graph runs, if the loop ran zero times (unless the `else:` clause assigns them)."""
    result = _finish(backend, variables, jump, orelse, on_break, location)
    if guards:
        values = variables.get()
        for index, defined in guards:
            name = variables.names[index]
            if _assigns(orelse, name) or isinstance(values[index], Undefined):
                continue
            message = (f"'{name}' is used after a loop that ran zero times{at(location)}; it is "
                       "first assigned inside the loop, so it has no value. Assign it before the loop.")
            values[index] = _guard(backend, values[index], defined, message)
        variables.set(values)
    return result


def _finish(backend, variables, jump, orelse, on_break, location):
    if jump is None:
        return orelse() if orelse is not None else None
    kind = jump.kind

    def returned():
        return jump.value if jump.depth <= 1 else Return(jump.value, jump.depth - 1)

    def not_returned():
        can_break = BREAK_KIND in jump.kinds
        if not can_break:
            return orelse() if orelse is not None else None
        if orelse is None and on_break is None:
            return None
        if on_break is None:
            return staged_cond(backend, backend.equal(kind, backend.convert(NORMAL)), orelse, None,
                               variables, location)
        if orelse is None:
            return staged_cond(backend, backend.equal(kind, backend.convert(BREAK_KIND)), on_break,
                               None, variables, location)
        return staged_cond(backend, backend.equal(kind, backend.convert(BREAK_KIND)), on_break,
                           orelse, variables, location)

    if not jump.has_return or RETURN_KIND not in jump.kinds:
        return not_returned()
    return staged_cond(backend, backend.equal(kind, backend.convert(RETURN_KIND)), returned,
                       not_returned, variables, location)
