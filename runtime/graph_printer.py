"""Readable text (a jaxpr-like listing) and Graphviz DOT for graphs."""

from __future__ import annotations

import numpy as np


def _type_of(t) -> str:
    return f"{t.dtype.short_name}{t.shape.compact()}"


def _ref(t) -> str:
    op = t.op
    if op.type == "Const":
        value = op.attrs["value"]
        if value.size == 1 and value.dtype != object:
            return repr(value.reshape(()).item())
    return f"%{op.name}" if len(op.outputs) == 1 else f"%{op.name}:{t.value_index}"


def _attr_text(op) -> str:
    parts = []
    for k, v in op.attrs.items():
        if k == "var":
            v = v.name
        elif isinstance(v, np.ndarray):
            v = np.array2string(v, threshold=6, separator=",") if v.size <= 6 else f"<{v.dtype}{list(v.shape)}>"
        elif hasattr(v, "name") and hasattr(v, "as_numpy_dtype"):
            v = v.name
        elif callable(v):
            v = getattr(v, "__name__", "fn")
        parts.append(f"{k}={v}")
    return "{" + ", ".join(parts) + "}" if parts else ""


def format_graph(graph, indent: str = "") -> str:
    """One line per op: `%Mul = Mul(%x, 3.0) : f32[1,2]`; nested bodies are indented."""
    head = ", ".join(f"%{t.op.name}: {_type_of(t)}" for t in graph.inputs)
    lines = [f"{indent}graph {graph.name}({head}) {{"]
    for op in graph.operations:
        if op.type == "Const" and op.outputs[0].shape.num_elements() == 1:
            continue
        outs = ", ".join(f"%{op.name}" if len(op.outputs) == 1 else f"%{op.name}:{i}"
                         for i in range(len(op.outputs)))
        types = ", ".join(_type_of(t) for t in op.outputs)
        args = ", ".join(_ref(t) for t in op.inputs)
        attrs = _attr_text(op) if op.type not in ("Const",) or op.outputs[0].shape.num_elements() <= 6 else ""
        lhs = f"{outs} = " if outs else ""
        dev = f"  @{op.device}" if op.device else ""
        lines.append(f"{indent}  {lhs}{op.type}({args}){(' ' + attrs) if attrs else ''}"
                     f"{(' : ' + types) if types else ''}{dev}")
        for sub in op.subgraphs:
            lines.append(format_graph(sub, indent + "    "))
    if graph.outputs:
        lines.append(f"{indent}  return {', '.join(_ref(t) for t in graph.outputs)}")
    lines.append(f"{indent}}}")
    return "\n".join(lines)


def to_dot(graph) -> str:
    """Graphviz DOT text; nested cond/while bodies are clusters."""
    lines = ["digraph G {", '  node [shape=box, fontname="monospace"];']
    counter = [0]

    def node_id(op):
        return '"' + op.name.replace('"', "'") + '"'

    def emit(g, depth):
        pad = "  " * depth
        for t in g.inputs:
            lines.append(f'{pad}{node_id(t.op)} [label="{t.op.name}\\n{_type_of(t)}", shape=ellipse];')
        for op in g.operations:
            label = f"{op.type}\\n{op.name}"
            if op.outputs:
                label += "\\n" + ", ".join(_type_of(t) for t in op.outputs)
            lines.append(f'{pad}{node_id(op)} [label="{label}"];')
            for t in op.inputs:
                lines.append(f"{pad}{node_id(t.op)} -> {node_id(op)};")
            for sub in op.subgraphs:
                counter[0] += 1
                lines.append(f"{pad}subgraph cluster_{counter[0]} {{")
                lines.append(f'{pad}  label="{op.name}: {sub.name}";')
                emit(sub, depth + 1)
                for t in sub.outputs:
                    lines.append(f"{pad}  {node_id(t.op)} -> {node_id(op)} [style=dashed];")
                lines.append(f"{pad}}}")
    emit(graph, 1)
    lines.append("}")
    return "\n".join(lines)
