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

from ..graph import external_inputs

# templates whose value is a ufunc of the inputs, and the same ufunc writing into `out`
_BINARY = {"{0} + {1}": "np.add", "{0} - {1}": "np.subtract", "{0} * {1}": "np.multiply",
           "{0} / {1}": "np.true_divide", "{0} ** {1}": "np.power",
           "np.maximum({0}, {1})": "np.maximum", "np.minimum({0}, {1})": "np.minimum"}
_UNARY = {"-{0}": "np.negative", **{f"np.{f}({{0}})": f"np.{f}" for f in (
    "abs", "sign", "square", "sqrt", "exp", "log", "log1p", "sin", "cos", "tan", "tanh", "floor",
    "ceil")}}
OUT_TEMPLATES = {
    **{t: f"{u}({{0}}, {{1}}, out={{out}})" for t, u in _BINARY.items()},
    **{t: f"{u}({{0}}, out={{out}})" for t, u in _UNARY.items()},
    "np.maximum({0}, 0)": "np.maximum({0}, 0, out={out})",  # relu
    "{0} * ({1} > 0)": "np.multiply({0}, {1} > 0, out={out})",  # relu gradient
}
_FRESH_TYPES = {"MatMul"}
LARGE = 1024  # ops without a ufunc template whose result is a new array


class Lifetimes:
    """For each position in a list of ops: the tensors that die there, and the input (if
    any) whose buffer the op may overwrite with its result."""

    def __init__(self, ops: list, outputs: list):
        self.dying: list[list] = [[] for _ in ops]
        self.reuse: dict[int, object] = {}
        kept = {id(t) for t in outputs}
        last: dict[int, int] = {}
        readers: dict[int, list] = {}
        escapes = set(kept)
        reads = []
        for k, op in enumerate(ops):
            outer = external_inputs(op) if op.subgraphs else []
            reads.append(list(op.inputs) + outer)
            for t in op.inputs:
                readers.setdefault(id(t), []).append(op)
            escapes.update(id(t) for t in outer)
            for t in reads[k]:
                last[id(t)] = k
        owned = set()
        for k, op in enumerate(ops):
            ufunc = ufunc_of(op)
            if ufunc is not None or _is_update(op):
                self._choose_reuse(k, op, last, readers, escapes, owned)
            if ufunc is not None or op.type in _FRESH_TYPES:
                owned.update(id(t) for t in op.outputs)
            for t in op.outputs:
                if id(t) not in kept and id(t) not in last and _large(t):
                    self.dying[k].append(t)  # never read
            seen = set()
            for t in reads[k]:
                if id(t) not in seen and id(t) not in kept and last[id(t)] == k and _large(t):
                    seen.add(id(t))
                    self.dying[k].append(t)

    def _choose_reuse(self, k, op, last, readers, escapes, owned) -> None:
        out = op.outputs[0]
        shape = out.shape.as_tuple()
        if not shape or None in shape or out.shape.num_elements() < LARGE:
            return
        for t in op.inputs:
            if (id(t) in owned and id(t) not in escapes and last.get(id(t)) == k
                    and t.dtype is out.dtype and t.shape.as_tuple() == shape
                    and all(ufunc_of(r) is not None or r is op for r in readers[id(t)])):
                self.reuse[k] = t
                return


def _large(tensor) -> bool:
    """True when `tensor` may hold at least LARGE elements."""
    count = tensor.shape.num_elements()
    return count is None or count >= LARGE


def _is_update(op) -> bool:
    """A variable's `assign_add`/`assign_sub`: the new value may go into its dying operand,
    which the variable then keeps (no other name holds that buffer)."""
    return op.type == "AssignVariableOp" and op.attrs["mode"] in ("add", "sub")


def ufunc_of(op) -> str | None:
    """The op's template as a ufunc writing into `{out}`, or None for ops that are not one."""
    if op.type == "RealDiv":  # emitted as `/` when the result keeps the operands' dtype
        same = op.outputs[0].dtype is op.inputs[0].dtype is op.inputs[1].dtype
        return "np.true_divide({0}, {1}, out={out})" if same else None
    template = op.opdef.template
    if template is None or op.opdef.emit is not None or op.attrs:
        return None
    return OUT_TEMPLATES.get(template)
