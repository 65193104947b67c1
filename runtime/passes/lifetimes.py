"""Buffer lifetimes of a lowered program: when each value dies, and which buffers ops reuse.

A liveness pass over the top-level ops of a graph finds the last op that reads each tensor;
the emitter deletes the tensor's name after it, so a temporary is freed as soon as it is no
longer needed. An elementwise op may write its result into an input that dies at that op
(`np.add(t1, t2, out=t1)`) when the input's buffer is owned by the program: made fresh by an
elementwise op or a matmul, read only by elementwise ops (which keep no view of it), not an
output, and of the result's static shape and dtype (rank at least 1: 0-d results are NumPy
scalars, which `out=` cannot receive). A variable's add or sub update writes into its dying
operand the same way, and the variable keeps that buffer.

Both apply to values of at least `LARGE` elements (or of unknown size): NumPy allocates
small arrays from a cache, and for them `out=` and `del` cost more than they save.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..graph import Operation, external_inputs
from ..tensor import SymbolicTensor

LARGE = 1024  # ops whose result is a new array: below this size, no `out=` or `del`


class Lifetimes:
    """For each position in a list of ops: the tensors that die there, and the input (if
    any) whose buffer the op may overwrite with its result."""

    def __init__(self, ops: Sequence[Operation], outputs: Sequence[SymbolicTensor]) -> None:
        self.dying: list[list[SymbolicTensor]] = [[] for _ in ops]
        self.reuse: dict[int, SymbolicTensor] = {}
        kept = {id(t) for t in outputs}
        last: dict[int, int] = {}
        readers: dict[int, list[Operation]] = {}
        escapes = set(kept)
        reads: list[list[SymbolicTensor]] = []
        for k, op in enumerate(ops):
            outer = external_inputs(op) if op.subgraphs else []
            reads.append(list(op.inputs) + outer)
            for t in op.inputs:
                readers.setdefault(id(t), []).append(op)
            escapes.update(id(t) for t in outer)
            for t in reads[k]:
                last[id(t)] = k
        owned: set[int] = set()
        for k, op in enumerate(ops):
            ufunc = ufunc_of(op)
            if ufunc is not None or _is_update(op):
                self._choose_reuse(k, op, last, readers, escapes, owned)
            if ufunc is not None or op.opdef.fresh_output:
                owned.update(id(t) for t in op.outputs)
            for t in op.outputs:
                if id(t) not in kept and id(t) not in last and _large(t):
                    self.dying[k].append(t)  # never read
            seen = set()
            for t in reads[k]:
                if id(t) not in seen and id(t) not in kept and last[id(t)] == k and _large(t):
                    seen.add(id(t))
                    self.dying[k].append(t)

    def _choose_reuse(self, k: int, op: Operation, last: dict[int, int],
                      readers: dict[int, list[Operation]], escapes: set[int],
                      owned: set[int]) -> None:
        out = op.outputs[0]
        shape = out.shape.as_tuple()
        count = out.shape.num_elements()  # None exactly when a dimension is unknown
        if not shape or None in shape or count is None or count < LARGE:
            return
        for t in op.inputs:
            if (id(t) in owned and id(t) not in escapes and last.get(id(t)) == k
                    and t.dtype is out.dtype and t.shape.as_tuple() == shape
                    and all(ufunc_of(r) is not None or r is op for r in readers[id(t)])):
                self.reuse[k] = t
                return


def _large(tensor: SymbolicTensor) -> bool:
    """True when `tensor` may hold at least LARGE elements."""
    count = tensor.shape.num_elements()
    return count is None or count >= LARGE


def _is_update(op: Operation) -> bool:
    """An op whose own emitter may write its new value into a dying operand (a variable's
    `assign_add`/`assign_sub`, which then keeps that buffer: no other name holds it)."""
    in_place = op.opdef.in_place
    return in_place is not None and in_place(op)


def ufunc_of(op: Operation) -> str | None:
    """The op as a ufunc writing into `{out}` (its OpDef's `out_template`, derived from its
    `ufunc`), or None for ops that are not one. The caller keeps `{out}` of the result's
    dtype, so an op whose dtype may differ from its operands' (true division of ints) only
    writes into a buffer of its result's dtype."""
    return None if op.attrs else op.opdef.out_template
