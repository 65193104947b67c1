"""Staging a loop whose condition, iterable or break/return decision is staged, with the
backend's `while_loop`, and finishing the loop statement afterwards (`else:` clause, code
after a `break`, the value of a `return`). See `operators/staging.py`.
"""

from __future__ import annotations

import dis
import functools
import types
from typing import Any, Callable, Optional, Sequence

from .. import nest
from . import layout as lay
from .dispatch import Backend
from .location import at
from .special_values import BREAK_KIND, NORMAL, RETURN_KIND, Return, StagedJump, Undefined
from .staged_cond import staged_cond
from .staging import JUMP_LABEL, RETURN_LABEL, Retry, StagingError, jump_parts, kinds_of
from .variables import Variables


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
        except Retry:
            continue
    raise AssertionError("staging a loop did not converge")  # pragma: no cover


def _loop_attempt(backend, variables, init, names, test, body, extras, extra_labels, jump, opts,
                  lists, know: _Knowledge, location):
    plan: list[tuple[str, Optional[lay.Entry]]] = []   # per var: ("carry"|"probe"|"undef", entry)
    entries: list[lay.Entry] = []
    flat_init: list = []
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
            new_kind, new_ret, depth = jump_parts(result)
            know.kinds |= kinds_of(result)
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
            raise Retry()
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
        return f"{nest.describe(before.structure)} to {nest.describe(after.structure)}"
    for x, y in zip(before.leaves, after.leaves):
        if x.kind != y.kind or (x.kind == "S" and not lay.same_constant(x.payload, y.payload)):
            a = "a tensor" if x.kind == "T" else repr(x.payload) if x.kind == "S" else "undefined"
            b = "a tensor" if y.kind == "T" else repr(y.payload) if y.kind == "S" else "undefined"
            return f"{a} to {b}"
    return None


def _guard(backend: Backend, value: Any, defined: Any, message: str) -> Any:
    leaves, structure = nest.flatten_with_structure(value)
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
