"""`Graph.as_graph_def()`: a graph as plain data, shaped like TensorFlow's GraphDef.

A `GraphDef` has `.node`, a list of `NodeDef`s in program order (the function's inputs first,
as `Placeholder` nodes), each with `name`, `op`, `input` (the names of the tensors it reads:
`"op"` for an op's first output, `"op:i"` for output i), `device` and `attr` (a dict of the
op's attributes, plus `dtype`/`shape` of a placeholder and `_output_shapes`). The bodies of
cond and while ops are GraphDefs too, in `graph_def.library` by name, and named by the op's
`branches` or `cond`/`body` attribute. It is a description to read and print; nothing loads
it back (rt.saved_model saves graphs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class NodeDef:
    """One operation: its name, op type, inputs ('name' or 'name:index'), device, attributes."""

    name: str
    op: str
    input: list[str] = field(default_factory=list)
    device: str = ""
    attr: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = ["node {", f'  name: "{self.name}"', f'  op: "{self.op}"']
        lines += [f'  input: "{i}"' for i in self.input]
        if self.device:
            lines.append(f'  device: "{self.device}"')
        for key in sorted(self.attr):
            raw = self.attr[key]
            value = (repr(raw) if isinstance(raw, str) else str(raw)).replace("\n", " ")
            if len(value) > 120:
                value = value[:117] + "..."
            lines.append(f"  attr {{ key: \"{key}\" value: {value} }}")
        lines.append("}")
        return "\n".join(lines)


@dataclass
class GraphDef:
    """The nodes of a graph (`.node`), and the GraphDefs of its nested bodies (`.library`)."""

    node: list[NodeDef] = field(default_factory=list)
    library: dict[str, "GraphDef"] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=lambda: {"producer": 1})

    def __str__(self) -> str:
        parts = [str(n) for n in self.node]
        for name, body in self.library.items():
            inner = str(body).replace("\n", "\n  ")
            parts.append(f'library {{ function: "{name}"\n  {inner}\n}}')
        return "\n".join(parts)

    def __len__(self) -> int:
        return len(self.node)


def tensor_name(t) -> str:
    """TensorFlow's spelling of an input: 'op' for output 0, else 'op:index'."""
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _shape(t) -> Any:
    return t.shape.as_list() if t.shape.rank is not None else None


def build(graph) -> GraphDef:
    """The GraphDef of `graph` (a Graph or FuncGraph)."""
    result = GraphDef()
    for t in graph.inputs:
        result.node.append(NodeDef(t.op.name, "Placeholder", [], t.op.device or "",
                                   {"dtype": t.dtype.name, "shape": _shape(t)}))
    for op in graph.operations:
        attr: dict[str, Any] = {}
        for key, value in op.attrs.items():
            attr[key] = value
        if op.outputs:
            attr["_output_shapes"] = [_shape(t) for t in op.outputs]
            attr["T"] = op.outputs[0].dtype.name
        names = []
        for sub in op.subgraphs:
            key = f"{op.name}/{sub.name}"
            result.library[key] = build(sub)
            names.append(key)
        if names:
            if op.opdef.is_loop and len(names) == 2:
                attr["cond"], attr["body"] = names
            else:
                attr["branches"] = names
        inputs = [tensor_name(t) if hasattr(t, "op") else repr(t) for t in op.inputs]
        result.node.append(NodeDef(op.name, op.type, inputs, op.device or "", attr))
    return result
