"""Fusing chains of elementwise ops into one loop over the elements.

Consecutive elementwise ops whose result has one static shape, and whose operands have that
shape or are scalars, form a group. A group is written as one loop (`numba.prange` above
`PARALLEL_MIN_SIZE` elements) that computes each element through the whole chain; only the
results used outside the group are stored.
"""

from __future__ import annotations

import contextlib

from .rules import CAST, ELEMENTWISE, FILL
from .vectorised import vectorised

PARALLEL_MIN_SIZE = 1 << 24  # measured on 2 busy cores: threads lose below this (docs/jit.md)
LARGE = 1 << 20  # elements from which a stored result is allocated by NumPy


def operands(op) -> list:
    """The inputs a fused loop reads per element (`Fill` reads its value, not its dims)."""
    return op.inputs[1:] if op.type == FILL else op.inputs


def fusible(op) -> bool:
    """Whether `op` may join a fused loop: elementwise, static non-scalar shape, no broadcast."""
    if op.type not in ELEMENTWISE and op.type not in (CAST, FILL):
        return False
    if vectorised(op):  # NumPy's whole-array routine: not fused
        return False
    shape = op.outputs[0].shape
    if not shape.rank or not shape.is_fully_defined():
        return False
    return all(t.shape.rank == 0 or t.shape == shape or _row(t, shape) for t in operands(op))


def _row(tensor, shape) -> bool:
    """Whether `tensor` is a vector broadcast along the last axis of `shape` (a bias)."""
    return (shape.rank >= 2 and tensor.shape.rank == 1 and tensor.shape.is_fully_defined()
            and tensor.shape.as_list()[0] == shape.as_list()[-1])


class Group:
    """Ops fused into one loop, in program order."""

    def __init__(self, op):
        self.ops = [op]
        self.shape = op.outputs[0].shape
        self.outputs = {id(op.outputs[0])}

    def accepts(self, op) -> bool:
        return self.shape == op.outputs[0].shape

    def add(self, op) -> None:
        self.ops.append(op)
        self.outputs.add(id(op.outputs[0]))

    def reads_from(self, tensors) -> bool:
        return any(id(t) in self.outputs for t in tensors)


def plan(ops, reads_of) -> list:
    """`ops` in program order with fusible runs replaced by Groups.

    `reads_of(op)` lists the tensors an op reads (for cond/while, also those its bodies read).
    A non-fusible op that reads a group's result closes the group before it.
    """
    items: list = []
    group = None
    for op in ops:
        if fusible(op):
            if group is not None and group.accepts(op):
                group.add(op)
                continue
            if group is not None:
                items.append(group)
            group = Group(op)
            continue
        if group is not None and group.reads_from(reads_of(op)):
            items.append(group)
            group = None
        items.append(op)
    if group is not None:
        items.append(group)
    return items


def write_group(w, group, needed) -> None:
    """Writes the loop of `group`; `needed(tensor)` tells whether a result is used outside."""
    n = 1
    for d in group.shape.as_list():
        n *= d
    members = {id(op.outputs[0]) for op in group.ops}
    flat: dict[int, str] = {}
    rows: dict[int, str] = {}  # vectors broadcast along the last axis, read at the column
    scalars: dict[int, str] = {}
    for op in group.ops:
        for t in operands(op):
            if id(t) in members or id(t) in flat or id(t) in rows or t.shape.rank == 0:
                continue
            if t.shape != group.shape:
                rows[id(t)] = w.fresh("f")
                w.line(f"{rows[id(t)]} = np.ascontiguousarray({w.name_of(t)})")
                continue
            name = w.fresh("f")
            w.line(f"{name} = np.ascontiguousarray({w.name_of(t)}).reshape({n})")
            flat[id(t)] = name
    stores = []
    for op in group.ops:
        out = op.outputs[0]
        if needed(out):
            name = w.fresh("f")
            if n >= LARGE:  # NumPy's allocator asks the kernel for huge pages; Numba's does not
                kind = "boolean" if out.dtype.is_bool else out.dtype.name
                w.object_mode = True
                w.line(f"with numba.objmode({name}='{kind}[::1]'):")
                with w.indented():
                    w.line(f"{name} = np.empty({n}, {w.dt(out.dtype)})")
            else:
                w.line(f"{name} = np.empty({n}, {w.dt(out.dtype)})")
            stores.append((out, name))
    loop = "numba.prange" if n >= PARALLEL_MIN_SIZE else "range"
    if loop == "numba.prange":
        w.parallel = True
    index = w.fresh("i")
    with contextlib.ExitStack() as nest:
        if rows:  # a loop over rows around a loop over columns
            last = group.shape.as_list()[-1]
            row, col = w.fresh("r"), w.fresh("j")
            w.line(f"for {row} in {loop}({n // last}):")
            nest.enter_context(w.indented())
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
            values = [scalars.get(id(t)) or w.name_of(t) for t in operands(op)]
            name = w.fresh("s")
            w.line(f"{name} = {w.scalar_expr(op, values)}")
            scalars[id(op.outputs[0])] = name
        for out, name in stores:
            w.line(f"{name}[{index}] = {scalars[id(out)]}")
    shape = tuple(group.shape.as_list())
    for out, name in stores:
        if len(shape) == 1:
            w.set_name(out, name)
        else:
            w.set_name(out, w.fresh("t"))
            w.line(f"{w.name_of(out)} = {name}.reshape({shape!r})")
