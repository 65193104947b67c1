"""Which TensorArray (or accumulator) each handle tensor belongs to, and what it holds.

In a kernel a TensorArray is a tuple (buffer, written, size): a buffer of shape (capacity, *element)
that grows by doubling. Its element rank must be known when the array is created, so the
handle tensors of one array (through writes, loops and branches) are grouped here and the
rank is taken from whichever op of the group knows it.
"""

from __future__ import annotations

_HANDLE_IN = {"TensorArrayWriteV3", "TensorArrayScatterV3", "AccumulatorPush"}
_NEW = {"TensorArrayV3", "AccumulatorNew"}
_RANK_OF = {  # op type -> rank of the elements, from that op's tensors
    "TensorArrayWriteV3": lambda op: op.inputs[2].shape.rank,
    "TensorArrayScatterV3": lambda op: _minus_one(op.inputs[1].shape.rank),
    "TensorArrayReadV3": lambda op: op.outputs[0].shape.rank,
    "TensorArrayStack": lambda op: _minus_one(op.outputs[0].shape.rank),
    "TensorArrayGatherV3": lambda op: _minus_one(op.outputs[0].shape.rank),
}


# TensorArray gradients (maps {index: element gradient}): the ops that pass a map on, and the
# (rank, dtype) of its elements from each op that knows them
_GRAD_THROUGH = {"TensorArrayGradAdd", "TensorArrayWriteGrad", "TensorArrayScatterGrad"}
_GRAD_ELEMENT = {
    "TensorArrayGradFromStack": lambda op: (_minus_one(op.inputs[0].shape.rank), op.inputs[0].dtype),
    "TensorArrayGradFromRead": lambda op: (op.inputs[0].shape.rank, op.inputs[0].dtype),
    "TensorArrayGradFromGather": lambda op: (_minus_one(op.inputs[0].shape.rank), op.inputs[0].dtype),
    "TensorArrayGradFromConcat": lambda op: (op.inputs[0].shape.rank, op.inputs[0].dtype),
    "TensorArrayWriteGrad": lambda op: (op.outputs[1].shape.rank, op.outputs[1].dtype),
    "TensorArrayScatterGrad": lambda op: (_minus_one(op.outputs[1].shape.rank), op.outputs[1].dtype),
}


def _minus_one(rank):
    return None if rank is None else rank - 1


class ArrayInfo:
    """One TensorArray (or while-loop gradient accumulator): the op that creates it, its
    element rank (None while unknown) and, for an accumulator, the op that pushes to it."""

    def __init__(self, new_op):
        self.new_op = new_op
        shape = new_op.attrs.get("element_shape")  # a tuple (None for unknown dims) or None
        self.rank = None if shape is None else len(shape)
        self.push = None


class TensorArrays:
    """Handle tensor -> ArrayInfo, for every TensorArray of a graph and its subgraphs."""

    def __init__(self, graph):
        self._parent: dict[int, int] = {}
        self._info: dict[int, ArrayInfo] = {}
        self._ranks: list[tuple[int, int]] = []
        self._pushes: list = []
        self._grad_elements: list[tuple[int, tuple]] = []
        self._grads: dict[int, tuple] = {}  # root -> (rank, dtype) of a gradient map's elements
        self._walk(graph)
        for key, element in self._grad_elements:
            root = self._find(key)
            if element[0] is not None and root not in self._grads:
                self._grads[root] = element
        for push in self._pushes:
            info = self.info(push.inputs[0])
            if info is not None:
                info.push = push
        for key, rank in self._ranks:
            info = self._info.get(self._find(key))
            if info is not None and info.rank is None and rank is not None:
                info.rank = rank

    def info(self, handle) -> ArrayInfo | None:
        return self._info.get(self._find(id(handle)))

    def grad_element(self, handle) -> tuple | None:
        """(rank, dtype) of the elements of the TensorArray gradient `handle`, if known."""
        return self._grads.get(self._find(id(handle)))

    def _find(self, key: int) -> int:
        while self._parent.get(key, key) != key:
            key = self._parent[key]
        return key

    def _union(self, a, b) -> None:
        ra, rb = self._find(id(a)), self._find(id(b))
        if ra != rb:
            self._parent[rb] = ra
            if rb in self._info and ra not in self._info:
                self._info[ra] = self._info.pop(rb)

    def _walk(self, graph) -> None:
        for op in graph.operations:
            kind = op.type
            if kind in _NEW:
                self._info[self._find(id(op.outputs[0]))] = ArrayInfo(op)
            if kind in _HANDLE_IN:
                self._union(op.inputs[0], op.outputs[0])
            if kind in _GRAD_THROUGH:
                for t in op.inputs[:len(op.inputs) if kind == "TensorArrayGradAdd" else 1]:
                    self._union(op.outputs[0], t)
            if kind in _GRAD_ELEMENT:
                self._grad_elements.append((id(op.outputs[0]), _GRAD_ELEMENT[kind](op)))
            if kind == "AccumulatorPush":
                self._pushes.append(op)
            if kind in _RANK_OF:
                self._ranks.append((id(op.inputs[0]), _RANK_OF[kind](op)))
            for sub in op.subgraphs:
                self._walk(sub)
            if kind == "While":
                cond, body = op.subgraphs
                for i, out in enumerate(op.outputs):
                    for t in (op.inputs[i], cond.inputs[i], body.inputs[i], body.outputs[i]):
                        self._union(out, t)
            elif kind == "If":
                for branch in op.subgraphs:
                    for out, t in zip(op.outputs, branch.outputs):
                        self._union(out, t)
