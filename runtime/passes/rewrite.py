"""Rewriting a graph without touching it: the tool of the optimising passes.

A pass replaces an operation by another that produces the *same* output tensors (a Const
holding their value, an Identity of an equal tensor), so no consumer, nested body or graph
output needs rewiring; the result is a `Rewritten` graph: the same inputs and outputs with the
new op list. A branch or loop body is rewritten the same way, and its op is replaced by one
that runs the rewritten bodies (`with_bodies`). Where a value must move to another graph (a
constant computed from a loop body, defined in the outermost graph), its readers are given the
new tensor (`Substitutions`). The traced graph itself is left as it is: gradients and reports
read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional, Union

from ..graph import Graph, Operation
from ..graph_printer import format_graph
from ..opdef import OpDef
from ..tensor import SymbolicTensor


class Rewritten:
    """A graph's inputs with a rewritten program (what lowering reads).

    It stands for the traced graph `traced` (a graph, branch or loop body): ops and tensors
    keep pointing at traced graphs, so nesting is asked of it (`is_ancestor_of`,
    `outer_graph`). `outputs` are the traced graph's unless a pass gave them new tensors.
    `pruned`: it holds only ops its outputs or effects need (dead code was removed last).
    """

    def __init__(self, graph: GraphLike, operations: list[Operation],
                 outputs: Optional[list[SymbolicTensor]] = None) -> None:
        self.traced: Graph = graph.traced if isinstance(graph, Rewritten) else graph
        self.name: str = graph.name
        self.inputs: list[SymbolicTensor] = graph.inputs
        self.outputs: list[SymbolicTensor] = graph.outputs if outputs is None else outputs
        self.operations: list[Operation] = operations
        self.pruned = False

    @property
    def outer_graph(self) -> Graph | None:
        return self.traced.outer_graph

    def is_ancestor_of(self, graph: Graph | None) -> bool:
        """Whether `graph` (an op's traced graph) is this graph or nested in it."""
        return self.traced.is_ancestor_of(graph)

    def __str__(self) -> str:
        return format_graph(self)

    def __repr__(self) -> str:
        return f"<Rewritten '{self.name}' with {len(self.operations)} operations>"


GraphLike = Union[Graph, Rewritten]  # what the passes read: a traced graph, or a rewritten one


_FIELDS = tuple(name for name in Operation.__slots__ if not name.startswith("__"))


def replacement(op: Operation, opdef: OpDef, inputs: list[Any], attrs: dict[str, Any],
                subgraphs: Sequence[GraphLike] = ()) -> Operation:
    """A new operation of `opdef` in place of `op`, producing `op`'s output tensors (with its
    name, device and location: made field by field, since `Operation()` looks up the
    location of the user's code on the stack)."""
    new = Operation.__new__(Operation)
    for name in _FIELDS:
        setattr(new, name, getattr(op, name, None))
    new.opdef = opdef
    new.type = opdef.name
    new.inputs = list(inputs)
    new.attrs = attrs
    new.subgraphs = tuple(subgraphs)  # type: ignore[arg-type]  # rewritten bodies
    new._effects = None
    return new


def with_operations(graph: GraphLike, operations: list[Operation],
                    outputs: Optional[list[SymbolicTensor]] = None,
                    changed: Optional[bool] = None) -> GraphLike:
    """`graph` with `operations` as its program (and `outputs`, when given); the graph itself
    when unchanged (`changed`: whether the pass changed anything, when it knows)."""
    if changed is None:
        changed = (outputs is not None or len(operations) != len(graph.operations)
                   or any(a is not b for a, b in zip(operations, graph.operations)))
    return Rewritten(graph, operations, outputs) if changed else graph


def with_bodies(op: Operation, bodies: Sequence[GraphLike],
                inputs: Optional[list[Any]] = None) -> Operation:
    """`op` running `bodies` instead of its subgraphs (and reading `inputs`, when given);
    `op` itself when nothing changed."""
    same_bodies = all(a is b for a, b in zip(bodies, op.subgraphs))
    if same_bodies and (inputs is None or all(a is b for a, b in zip(inputs, op.inputs))):
        return op
    return replacement(op, op.opdef, op.inputs if inputs is None else inputs, op.attrs,
                       bodies)


class Substitutions:
    """Tensors whose readers read another tensor instead (id(old) -> new)."""

    __slots__ = ("_new",)

    def __init__(self) -> None:
        self._new: dict[int, SymbolicTensor] = {}

    def __bool__(self) -> bool:
        return bool(self._new)

    def add(self, old: SymbolicTensor, new: SymbolicTensor) -> None:
        self._new[id(old)] = new

    def get(self, tensor: Any) -> Any:
        return self._new.get(id(tensor), tensor)

    def inputs(self, op: Operation) -> list[Any] | None:
        """`op`'s inputs with substitutions made, or None when none applies."""
        if not self._new or not any(id(t) in self._new for t in op.inputs):
            return None
        return [self._new.get(id(t), t) for t in op.inputs]

    def outputs(self, graph: GraphLike) -> list[SymbolicTensor] | None:
        """`graph`'s outputs with substitutions made, or None when none applies."""
        if not self._new or not any(id(t) in self._new for t in graph.outputs):
            return None
        return [self._new.get(id(t), t) for t in graph.outputs]
