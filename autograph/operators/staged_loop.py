"""Staging a loop whose condition, iterable or break/return decision is staged, with the
backend's `while_loop`, and finishing the loop statement afterwards (`else:` clause, code
after a `break`, the value of a `return`). See `operators/staging.py`.
"""

from __future__ import annotations

import dis
import enum
import functools
import types
from typing import Any, Callable, Optional, Sequence

from .. import nest
from ..pyct.naming import RETURN_VALUE_STEM
from . import layout as lay
from .dispatch import Backend
from .lists import appended_spec, recording_changes, truth
from .location import at
from .special_values import BREAK_KIND, NORMAL, RETURN_KIND, Return, StagedJump, Undefined
from .staged_cond import staged_cond
from .staging import (
    JUMP_LABEL,
    RETURN_LABEL,
    Retry,
    StagingError,
    jump_parts,
    kinds_of,
    refuse_globals,
)
from .variables import Variables


class VarMode(enum.Enum):
    """How a staged loop carries one of the user's variables."""

    CARRY = "carry"            # defined when the loop starts: carried with its layout
    PROBE = "probe"            # undefined, layout unknown: traced once to learn it, not carried
    FIRST_ASSIGNED = "first"   # undefined, assigned inside: carried with a "defined" flag


class _Knowledge:
    """What earlier traces of a loop body found out."""

    def __init__(self):
        self.undefined: dict[int, lay.Entry] = {}   # var index -> layout after one iteration
        self.lists: dict[int, Any] = {}              # var index -> element spec
        self.jump_mode = False
        self.retval: Optional[lay.Entry] = None
        self.depth = 0
        self.kinds: set = {NORMAL}


def _list_change(backend: Backend, before: lay.Entry, value: Any):
    """The element spec of a Python list that grew (`append`) or shrank (`pop`) during one
    iteration, or None."""
    if before.structure is nest.LEAF or before.structure[0] is not list:
        return None
    if backend.is_list(value):      # an `if` in the body made it a staged list
        return backend.spec(value)
    if type(value) is not list:
        return None
    n = len(before.structure[1])
    if len(value) < n:      # popped: the elements it had are like its first one
        if any(child is not nest.LEAF for child in before.structure[1]):
            return None
        leaf = before.leaves[0]
        return backend.spec(leaf.payload) if leaf.kind is lay.TENSOR else None
    return appended_spec(backend, n, value)


class _Loop:
    """A loop statement to stage: its inputs, and what tracing its body taught so far."""

    def __init__(self, backend: Backend, variables: Variables, test: Callable[[tuple], Any],
                 body: Callable[[tuple], tuple[Any, tuple]], extras: tuple, extra_labels: tuple,
                 jump: Optional[StagedJump], opts: dict, lists: bool, location: Optional[str]):
        self.backend, self.variables, self.test, self.body = backend, variables, test, body
        self.extras, self.extra_labels, self.jump = extras, extra_labels, jump
        self.opts, self.lists, self.location = opts, lists, location
        self.init = variables.get()
        self.names = variables.names
        self.know = know = _Knowledge()
        if jump is not None:
            know.jump_mode = True
            know.kinds |= jump.kinds
            if jump.has_return:
                know.retval = lay.describe(backend, RETURN_LABEL, jump.value)[0]
                know.depth = jump.depth


def staged_loop(backend: Backend, variables: Variables, test: Callable[[tuple], Any],
                body: Callable[[tuple], tuple[Any, tuple]], extras: tuple = (),
                extra_labels: tuple = (), jump: Optional[StagedJump] = None,
                opts: Optional[dict] = None, lists: bool = True,
                location: Optional[str] = None) -> tuple[Optional[StagedJump], tuple, list]:
    """Stages `while test(extras): jump, extras = body(extras)` over the user's variables.

    Returns the final jump (None when the body never jumps), the final extras, and for
    variables undefined when the loop started, (index, staged "was assigned") pairs to pass
    to `finish_loop`."""
    refuse_globals(variables, "a loop", location)
    loop = _Loop(backend, variables, test, body, extras, extra_labels, jump, opts or {}, lists,
                 location)
    for _ in range(6):
        variables.set(loop.init)
        try:
            return LoopPlan(loop).stage()
        except Retry:
            continue
        except BaseException:
            # what runs while the error propagates (a `finally:`, `__exit__`) must not see
            # the loop body's values, which belong to a graph that has ended
            variables.set(loop.init)
            raise
    raise AssertionError("staging a loop did not converge")  # pragma: no cover


class LoopPlan:
    """One attempt at staging a loop with what its `_Loop` knows: `classify` decides how each
    value is carried, `stage` runs the backend's `while_loop` over `test` and `body`, and
    `finish` turns its outputs back into the user's values. A trace that learns something
    raises `Retry` for a new plan."""

    def __init__(self, loop: _Loop):
        self.loop, self.backend, self.know = loop, loop.backend, loop.know
        self.modes: list[VarMode] = []
        self.var_entries: list[Optional[lay.Entry]] = []   # per variable (None when probed)
        self.carried: list[lay.Entry] = []     # the entries of the carried values, in order
        self.extra_entries: list[lay.Entry] = []
        self.jump_entries: list[lay.Entry] = []
        self.flat_init: list = []
        self.classify()

    # -- the plan ---------------------------------------------------------------------------

    def classify(self) -> None:
        loop, backend = self.loop, self.backend
        for i, (name, value) in enumerate(zip(loop.names, loop.init)):
            self._classify_variable(i, name, value)
        for label, value in zip(loop.extra_labels, loop.extras):
            entry, flat = lay.describe(backend, label, value)
            self.extra_entries.append(entry)
            self._carry(entry, flat)
        if self.know.jump_mode:
            jump = loop.jump
            entry, flat = lay.describe(backend, JUMP_LABEL, jump.kind if jump is not None else NORMAL)
            self.jump_entries.append(entry)
            self._carry(entry, flat)
            if self.know.retval is not None:
                start = jump.value if jump is not None and jump.has_return else Undefined(RETURN_LABEL)
                self.jump_entries.append(self.know.retval)
                self._carry(self.know.retval, lay.values_of(backend, start, self.know.retval))

    def _classify_variable(self, i: int, name: str, value: Any) -> None:
        backend, know = self.backend, self.know
        if isinstance(value, Undefined):
            if i not in know.undefined:
                self._plan(VarMode.PROBE, None)
                return
            entry = know.undefined[i]
            self._plan(VarMode.FIRST_ASSIGNED, entry)
            self._carry(entry, lay.values_of(backend, Undefined(name), entry))
            self._carry(*lay.describe(backend, f"{name} (defined)", False))
            return
        if i in know.lists and type(value) is list:
            value = backend.new_list(value, know.lists[i])
        entry, flat = lay.describe(backend, name, value)
        if lay.is_partly_undefined(entry):
            raise StagingError(f"'{name}' is partly undefined when a staged loop starts"
                               f"{at(self.loop.location)}.")
        self._plan(VarMode.CARRY, entry)
        self._carry(entry, flat)

    def _plan(self, mode: VarMode, entry: Optional[lay.Entry]) -> None:
        self.modes.append(mode)
        self.var_entries.append(entry)

    def _carry(self, entry: lay.Entry, flat: list) -> None:
        self.carried.append(entry)
        self.flat_init.extend(flat)

    def unpack(self, flat: Sequence) -> tuple[list, tuple, Any, Any, list]:
        """(variables, extras, jump kind, returned value, (index, defined flag) pairs) of the
        loop-carried values `flat`."""
        it = iter(flat)
        values, flags = [], []
        for i, (mode, entry, name) in enumerate(zip(self.modes, self.var_entries, self.loop.names)):
            if mode is VarMode.PROBE:
                values.append(Undefined(name))
                continue
            values.append(lay.rebuild(entry, it))
            if mode is VarMode.FIRST_ASSIGNED:
                flags.append((i, next(it)))
        extras = tuple(lay.rebuild(e, it) for e in self.extra_entries)
        kind = retval = None
        if self.know.jump_mode:
            kind = next(it)
            if self.know.retval is not None:
                retval = lay.rebuild(self.know.retval, it)
        return values, extras, kind, retval, flags

    # -- the traced functions ---------------------------------------------------------------

    def test(self, *flat: Any) -> Any:
        backend = self.backend
        values, extras, kind, _, _ = self.unpack(flat)
        self.loop.variables.set(values)
        if not self.know.jump_mode:
            return _as_bool(backend, self.loop.test(extras))
        running = backend.equal(kind, backend.convert(NORMAL))
        return _lazy_and(backend, running, lambda: self.loop.test(extras))

    def body(self, *flat: Any) -> tuple:
        loop = self.loop
        values, extras, _, retval, _ = self.unpack(flat)
        loop.variables.set(values)
        with recording_changes() as changed:
            try:
                result, new_extras = loop.body(extras)
            except NameError as e:
                if e.name in loop.names and isinstance(loop.init[loop.names.index(e.name)], Undefined):
                    raise UnboundLocalError(
                        f"'{e.name}' is read before it is assigned in a loop whose condition is a "
                        f"tensor{at(loop.location)}: it has no value when the loop starts. Assign it "
                        "before the loop.") from None
                raise
        out: list = []
        retry = self._variables_out(values, loop.variables.get(), changed, out)
        for e, value in zip(self.extra_entries, new_extras):
            out.extend(lay.values_of(self.backend, value, e))
        if result is not None or self.know.jump_mode:
            retry = self._jump_out(result, retval, out, retry)
        if retry:
            raise Retry()
        return tuple(out)

    def _variables_out(self, old_values: list, new_values: list, changed: set, out: list) -> bool:
        """Appends the carried values after one iteration to `out`; whether the trace learnt
        something that needs a new plan. `changed`: the ids of the Python lists the
        iteration appended to or popped from."""
        backend, know, retry = self.backend, self.know, False
        for i, (mode, entry, name, value) in enumerate(
                zip(self.modes, self.var_entries, self.loop.names, new_values)):
            if mode is VarMode.PROBE:
                if not isinstance(value, Undefined):
                    know.undefined[i] = lay.describe(backend, name, value)[0]
                    retry = True
                continue
            if mode is VarMode.CARRY and self.loop.lists and i not in know.lists:
                spec = _list_change(backend, entry, value)
                if spec is not None:
                    if (type(value) is list and id(value) not in changed
                            and id(old_values[i]) not in changed):
                        raise StagingError(
                            f"'{name}' is a list whose length changes in a loop whose condition "
                            f"is a tensor{at(self.loop.location)}, in a way that cannot be "
                            f"staged: only `{name}.append(x)` and `{name}.pop()` as statements "
                            "(or `y = ...pop()`, `s += ...pop()`) become staged list operations. "
                            f"Write `{name}.append(x)` instead of `{name} = {name} + [x]` or "
                            f"`{name}.extend(...)`: as it is, '{name}' does not have the same "
                            "nested structure after one iteration.")
                    know.lists[i] = spec
                    retry = True
                    continue
            self._check_unchanged(name, entry, value)
            out.extend(lay.values_of(backend, value, entry))
            if mode is VarMode.FIRST_ASSIGNED:
                out.append(backend.convert(True))
        return retry

    def _check_unchanged(self, name: str, entry: lay.Entry, value: Any) -> None:
        new_entry = lay.describe(self.backend, name, value)[0]
        why = _loop_difference(entry, new_entry)
        if not why:
            return
        location = self.loop.location
        if isinstance(value, Undefined) or lay.is_partly_undefined(new_entry):
            raise StagingError(
                f"'{name}' has no value at the end of an iteration of a loop whose "
                f"condition is a tensor{at(location)}; assign it on every path of the loop body.")
        raise StagingError(
            f"'{name}' does not have the same nested structure after one iteration of a loop "
            f"whose condition is a tensor{at(location)}: it changes from {why}. Loop variables "
            "must keep their structure and type.")

    def _jump_out(self, result: Any, retval: Any, out: list, retry: bool) -> bool:
        """Appends the jump kind and returned value after one iteration to `out`; whether
        a new plan is needed."""
        know, backend = self.know, self.backend
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
            out.extend(lay.values_of(backend, new_kind, self.jump_entries[0]))
            if know.retval is not None:
                keep = new_ret if not isinstance(new_ret, Undefined) else retval
                out.extend(lay.values_of(backend, keep, know.retval))
        return retry

    # -- staging ----------------------------------------------------------------------------

    def stage(self) -> tuple[Optional[StagedJump], tuple, list]:
        opts = self.loop.opts
        entries = self.carried
        first_assigned = {e.label for e, m in zip(self.var_entries, self.modes)
                          if m is VarMode.FIRST_ASSIGNED}
        outputs = self.backend.while_loop(
            self.test, self.body, tuple(self.flat_init), lay.leaf_labels(entries),
            shape_invariants=_shape_invariants(self.backend, entries, opts.get("shape_invariants"),
                                               first_assigned),
            maximum_iterations=opts.get("maximum_iterations"),
            **({"relax_shapes": True} if opts.get("relax_shapes") else {}))
        return self.finish(outputs)

    def finish(self, outputs: Sequence) -> tuple[Optional[StagedJump], tuple, list]:
        values, extras, kind, retval, guards = self.unpack(outputs)
        self.loop.variables.set(values)
        know = self.know
        if not know.jump_mode:
            return None, extras, guards
        has_return = know.retval is not None
        return (StagedJump(kind, retval, know.depth or 1, has_return, frozenset(know.kinds)),
                extras, guards)


def _describe_leaf(leaf: lay.Leaf) -> str:
    if leaf.kind is lay.TENSOR:
        return "a tensor"
    return repr(leaf.payload) if leaf.kind is lay.CONSTANT else "undefined"


def _loop_difference(before: lay.Entry, after: lay.Entry) -> Optional[str]:
    if before.structure != after.structure:
        return f"{nest.describe(before.structure)} to {nest.describe(after.structure)}"
    for x, y in zip(before.leaves, after.leaves):
        if x.kind is not y.kind or (x.kind is lay.CONSTANT and not lay.same_constant(x.payload, y.payload)):
            return f"{_describe_leaf(x)} to {_describe_leaf(y)}"
    return None


def _guard(backend: Backend, value: Any, defined: Any, message: str) -> Any:
    leaves, structure = nest.flatten_with_structure(value)
    guarded = [backend.guard_defined(v, defined, message) if backend.is_value(v) else v
               for v in leaves]
    return nest.unflatten(structure, guarded) if structure is not nest.LEAF else guarded[0]


def _shape_invariants(backend: Backend, entries: list, given: Optional[dict],
                      first_assigned: set) -> Optional[list]:
    """One invariant (or None) per carried value: the user's, and for a variable first
    assigned inside the loop the spec its body gives it (its value before the loop is only
    a stand-in, so its shape may be anything the body makes)."""
    given = given or {}
    if not given and not first_assigned:
        return None
    out = []
    for e in entries:
        n = lay.tensor_count(e)
        if e.label in first_assigned and e.label not in given:
            out.extend(backend.spec(leaf.payload) for leaf in e.leaves if leaf.kind is lay.TENSOR)
        elif e.label in given and n == 1:
            out.append(given[e.label])
        elif e.label in given:
            shape = given[e.label]
            out.extend(shape if isinstance(shape, (list, tuple)) and len(shape) == n else [shape] * n)
        else:
            out.extend([None] * n)
    return out


def _as_bool(backend: Backend, value: Any) -> Any:
    if backend.is_value(value):
        return truth(backend, value)
    return backend.convert(bool(value))


def _lazy_and(backend: Backend, a: Any, b_fn: Callable[[], Any]) -> Any:
    """`a and b_fn()` for a staged bool `a`, evaluating `b_fn` only when `a` holds."""
    outputs = backend.cond(a, lambda: (_as_bool(backend, b_fn()),),
                           lambda: (backend.convert(False),), ["the loop condition"])
    return outputs[0]


# -- after a loop --------------------------------------------------------------------------------

_STORE_NAMES = ("STORE_DEREF", "STORE_GLOBAL", "STORE_FAST", "STORE_NAME", "STORE_FAST_STORE_FAST",
                "STORE_FAST_LOAD_FAST")
_STORE_OPCODES = frozenset(dis.opmap[n] for n in _STORE_NAMES if n in dis.opmap)


@functools.lru_cache(maxsize=4096)
def _stored_names(code: types.CodeType) -> frozenset:
    """The variable names `code` (or code nested in it) stores to."""
    names: set = set()
    if not _STORE_OPCODES.isdisjoint(code.co_code[::2]):   # most tests store nothing
        for ins in dis.get_instructions(code):
            if ins.opname == "STORE_FAST_LOAD_FAST":
                names.add(ins.argval[0])
            elif ins.opname == "STORE_FAST_STORE_FAST":
                names.update(ins.argval)
            elif ins.opname in _STORE_NAMES:
                names.add(ins.argval)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _stored_names(c)
    return frozenset(names)


def assigns(fn: Optional[Callable], name: str) -> bool:
    """Whether the code of `fn` (or code nested in it) stores to `name`."""
    code = getattr(fn, "__code__", None)
    return code is not None and name in _stored_names(code)


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
            if (assigns(orelse, name) or isinstance(values[index], Undefined)
                    or name.startswith(RETURN_VALUE_STEM)):    # read only after a return
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
