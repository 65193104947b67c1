"""Fusing chains of elementwise ops into one loop over the elements.

Consecutive elementwise ops whose result has one static shape, and whose operands have that
shape, are scalars, or are broadcast along the last axis (a row, `b[None, :]`) or along the
others (a column, `m[:, None]`), form a group. A group is written as one loop (`numba.prange`
above `PARALLEL_MIN_SIZE` elements) that computes each element through the whole chain; only
the results used outside the group are stored. A variable's add/sub update of that shape
(`v.assign_sub(lr * g)`), or an assignment of a value of that shape (an optimizer's slot),
joins the group: the loop writes the variable's new buffer directly.
"""

from __future__ import annotations

import contextlib

from ...ops.variables import ASSIGN
from .rules import may_raise, writer
from .vectorised import vectorised

PARALLEL_MIN_SIZE = 1 << 24  # measured on 2 busy cores: threads lose below this (docs/jit.md)
LARGE = 1 << 20  # elements from which a stored result is allocated by NumPy


def operands(op) -> list:
    """The inputs a fused loop reads per element (`Fill` reads its value, not its dims)."""
    found = writer(op.opdef)
    return op.inputs[found.first_operand:] if found is not None else op.inputs


def fusible(op) -> bool:
    """Whether `op` may join a fused loop: elementwise, static non-scalar shape, no broadcast."""
    if op.opdef is ASSIGN:
        return _fusible_update(op)
    found = writer(op.opdef)
    if found is None or found.scalar is None:
        return False
    if vectorised(op):  # NumPy's whole-array routine: not fused
        return False
    shape = op.outputs[0].shape
    if not shape.rank or not shape.is_fully_defined():
        return False
    return all(t.shape.rank == 0 or t.shape == shape or _row(t, shape) or _column(t, shape)
               for t in operands(op))


def _fusible_update(op) -> bool:
    """Whether `op` (an AssignVariableOp) assigns, adds to or subtracts from a variable a
    value of the variable's static shape and dtype (an optimizer's slots and weights: one
    loop computes and stores them all)."""
    var, x = op.attrs["var"], op.inputs[0]
    if op.attrs["mode"] not in ("assign", "add", "sub") or not op.outputs:
        return False
    shape = x.shape
    return (bool(shape.rank) and shape.is_fully_defined() and var.shape == shape
            and var.dtype == x.dtype and op.outputs[0].shape == shape)


def _row(tensor, shape) -> bool:
    """Whether `tensor` is broadcast along all but the last axis of `shape` (a bias: a
    vector, or leading dims of 1)."""
    if shape.rank < 2 or not tensor.shape.rank or not tensor.shape.is_fully_defined():
        return False
    dims, full = tensor.shape.as_list(), shape.as_list()
    return (len(dims) <= len(full) and dims[-1] == full[-1] and dims[-1] != 1
            and all(d == 1 for d in dims[:-1]))


def _column(tensor, shape) -> bool:
    """Whether `tensor` is broadcast along the last axis of `shape` only (`m[:, None]`)."""
    if shape.rank < 2 or tensor.shape.rank != shape.rank or not tensor.shape.is_fully_defined():
        return False
    dims, full = tensor.shape.as_list(), shape.as_list()
    return dims[-1] == 1 and full[-1] != 1 and dims[:-1] == full[:-1]


def touches_state(op) -> bool:
    """Whether `op` may read or write a variable (a group that updates one closes before it)."""
    return bool(op.subgraphs) or op.opdef.stateful


class Group:
    """Ops fused into one loop, in program order."""

    def __init__(self, op):
        self.ops = []
        self.shape = op.outputs[0].shape
        self.outputs: set[int] = set()
        self.updated: set[int] = set()  # ids of the variables the group updates
        self.add(op)

    def accepts(self, op) -> bool:
        if op.opdef is ASSIGN and id(op.attrs["var"]) in self.updated:
            return False  # the loop reads each variable's value from before the group
        return self.shape == op.outputs[0].shape

    def add(self, op) -> None:
        self.ops.append(op)
        self.outputs.add(id(op.outputs[0]))
        if op.opdef is ASSIGN:
            self.updated.add(id(op.attrs["var"]))

    def reads_from(self, tensors) -> bool:
        return any(id(t) in self.outputs for t in tensors)


def plan(ops, reads_of, apart=()) -> list:
    """`ops` in program order with fusible runs replaced by Groups.

    `reads_of(op)` lists the tensors an op reads (for cond/while, also those its bodies read).
    A non-fusible op that reads a group's result closes the group before it. Ops whose ids
    are in `apart` are written on their own.
    """
    items: list = []
    group = None
    for op in ops:
        if id(op) not in apart and fusible(op):
            if group is not None and group.accepts(op):
                group.add(op)
                continue
            if group is not None:
                items.append(group)
            group = Group(op)
            continue
        if group is not None and (group.reads_from(reads_of(op))
                                  or (group.updated and touches_state(op))):
            items.append(group)
            group = None
        items.append(op)
    if group is not None:
        items.append(group)
    return items


def write_empty(w, name: str, shape: tuple, dtype) -> None:
    """Writes `name = np.empty(shape, dtype)`, a C-contiguous array, allocated by NumPy
    (through object mode) from `LARGE` elements: NumPy's allocator asks the kernel for huge
    pages; Numba's does not."""
    n = 1
    for d in shape:
        n *= d
    if n < LARGE:
        w.line(f"{name} = np.empty({shape!r}, {w.dt(dtype)})")
        return
    kind = "boolean" if dtype.is_bool else dtype.name
    w.object_mode = True
    w.line(f"with numba.objmode({name}='{kind}[{', '.join([':'] * (len(shape) - 1) + ['::1'])}]'):")
    with w.indented():
        w.line(f"{name} = np.empty({shape!r}, {w.dt(dtype)})")


def _dying_inputs(w, group, flat) -> list:
    """The group's full-shape operands whose arrays the kernel allocated for them alone and
    that only the group's ops read (in the group's graph): the loop may store its results
    there, as the NumPy tier's ufuncs write into a dying operand."""
    graph = group.ops[0].graph
    found = []
    for t_id in flat:
        t = next(t for op in group.ops for t in operands(op) if id(t) == t_id)
        if (t_id in w.fresh_arrays and w.read_only_within(t, group.ops)
                and t.op is not None and t.op.graph is graph):
            found.append(t)
    return found


def write_group(w, group, needed) -> None:
    """Writes the loop of `group`; `needed(tensor)` tells whether a result is used outside."""
    n = 1
    for d in group.shape.as_list():
        n *= d
    members = {id(op.outputs[0]) for op in group.ops}
    flat: dict[int, str] = {}
    rows: dict[int, str] = {}  # broadcast along the leading axes, read at the column
    columns: dict[int, str] = {}  # broadcast along the last axis, read at the row
    scalars: dict[int, str] = {}
    last = group.shape.as_list()[-1]
    for op in group.ops:
        for t in operands(op):
            if (id(t) in members or id(t) in flat or id(t) in rows or id(t) in columns
                    or t.shape.rank == 0):
                continue
            name = w.fresh("f")
            if t.shape == group.shape:
                w.line(f"{name} = np.ascontiguousarray({w.name(t)}).reshape({n})")
                flat[id(t)] = name
            elif _column(t, group.shape):
                w.line(f"{name} = np.ascontiguousarray({w.name(t)}).reshape({n // last})")
                columns[id(t)] = name
            else:
                w.line(f"{name} = np.ascontiguousarray({w.name(t)}).reshape({last})")
                rows[id(t)] = name
    current: dict[int, str] = {}  # updated variables' values from before the group, flat
    for op in group.ops:
        if op.opdef is ASSIGN and op.attrs["mode"] != "assign":
            current[id(op)] = w.fresh("f")
            w.line(f"{current[id(op)]} = np.ascontiguousarray("
                   f"{w.variable(op.attrs['var'])}).reshape({n})")
    stores = []
    dying = _dying_inputs(w, group, flat)
    for op in group.ops:
        out = op.outputs[0]
        if op.opdef is ASSIGN or needed(out):
            name = w.fresh("f")
            into = next((t for t in dying if t.dtype == out.dtype), None)
            if op.opdef is not ASSIGN and into is not None:
                # each element is read before the loop stores that element's results
                dying.remove(into)
                w.line(f"{name} = {flat[id(into)]}")
            else:
                write_empty(w, name, (n,), out.dtype)
            stores.append((out, name))
    parallel = n >= PARALLEL_MIN_SIZE and not any(may_raise(op) for op in group.ops)
    loop = "numba.prange" if parallel else "range"
    if loop == "numba.prange":
        w.parallel = True
    index = w.fresh("i")
    with contextlib.ExitStack() as nest:
        if rows or columns:  # a loop over rows around a loop over columns
            row, col = w.fresh("r"), w.fresh("j")
            w.line(f"for {row} in {loop}({n // last}):")
            nest.enter_context(w.indented())
            for t_id, name in columns.items():  # read once per row
                scalars[t_id] = w.fresh("s")
                w.line(f"{scalars[t_id]} = {name}[{row}]")
            w.line(f"for {col} in range({last}):")
            nest.enter_context(w.indented())
            w.line(f"{index} = {row} * {last} + {col}")
            for t_id, name in rows.items():
                scalars[t_id] = f"{name}[{col}]"
        else:
            w.line(f"for {index} in {loop}({n}):")
            nest.enter_context(w.indented())
        for t_id, name in flat.items():
            scalars[t_id] = f"{name}[{index}]"
        for op in group.ops:
            values = [scalars.get(id(t)) or w.name(t) for t in operands(op)]
            name = w.fresh("s")
            if op.opdef is ASSIGN and op.attrs["mode"] == "assign":
                expr = f"{w.dt(op.outputs[0].dtype)}({values[0]})"
            elif op.opdef is ASSIGN:  # the variable's new value, as the NumPy tier computes it
                sign = "+" if op.attrs["mode"] == "add" else "-"
                expr = f"{w.dt(op.outputs[0].dtype)}({current[id(op)]}[{index}] {sign} {values[0]})"
            else:
                expr = w.scalar_expr(op, values)
            w.line(f"{name} = {expr}")
            scalars[id(op.outputs[0])] = name
        for out, name in stores:
            w.line(f"{name}[{index}] = {scalars[id(out)]}")
    shape = tuple(group.shape.as_list())
    for out, name in stores:
        if len(shape) == 1:
            w.alias(out, name)
        else:
            w.alias(out, w.fresh("t"))
            w.line(f"{w.name(out)} = {name}.reshape({shape!r})")
        if out.op.opdef is ASSIGN:
            var = w.variable(out.op.attrs["var"])
            w.line(f"{var} = {w.name(out)}")
            w.assigned.add(int(var[1:]))
        else:
            w.fresh_arrays.add(id(out))
