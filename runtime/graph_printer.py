"""Readable text (a jaxpr-like listing) and Graphviz DOT for graphs."""

from __future__ import annotations

import numpy as np


def _type_of(t) -> str:
    return f"{t.dtype.short_name}{t.shape.compact()}"


def _ref(t) -> str:
    op = t.op
    if op.opdef.is_constant:
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
        if op.opdef.is_constant and op.outputs[0].shape.num_elements() == 1:
            continue
        outs = ", ".join(f"%{op.name}" if len(op.outputs) == 1 else f"%{op.name}:{i}"
                         for i in range(len(op.outputs)))
        types = ", ".join(_type_of(t) for t in op.outputs)
        args = ", ".join(_ref(t) for t in op.inputs)
        attrs = _attr_text(op) if not op.opdef.is_constant or op.outputs[0].shape.num_elements() <= 6 else ""
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


def _live_ops(graph) -> set:
    """The operations whose results reach the outputs, or that have side effects, in `graph`
    and in the bodies of its control-flow ops."""
    stack = [t.op for t in graph.outputs]
    pending = [graph]
    while pending:
        g = pending.pop()
        for op in g.operations:
            stack.extend([op] if op.stateful else [])
            pending.extend(op.subgraphs)
    live: set = set()
    while stack:
        op = stack.pop()
        if op in live:
            continue
        live.add(op)
        stack.extend(t.op for t in op.inputs)
        for sub in op.subgraphs:
            stack.extend(t.op for t in sub.outputs)
    return live


def _node_label(op) -> str:
    """The op type, then what identifies it: a constant's value (its shape when big), a
    variable's name, else the op's name; then the output types."""
    if op.opdef.is_constant:
        value = op.attrs["value"]
        shown = np.array2string(value, threshold=6, separator=",") if value.size <= 6 else None
        if value.ndim == 0 and value.dtype != object:
            shown = repr(value.item())
        detail = shown.replace("\n", "") if shown is not None else op.name
    elif "var" in op.attrs:
        detail = op.attrs["var"].name.split(":")[0]
    else:
        detail = op.name
    label = f"{op.type}\\n{detail}"
    if op.outputs:
        label += "\\n" + ", ".join(_type_of(t) for t in op.outputs)
    return label.replace('"', "'")


def to_dot(graph) -> str:
    """Graphviz DOT text: one node per live op (constants show small values, variable ops
    the variable's name), cond/while bodies as clusters, and an `outputs` node. A value
    a body captures from an enclosing graph stays there, with an edge into the body."""
    lines = ["digraph G {", '  node [shape=box, fontname="monospace"];']
    crossing: list[str] = []  # edges between graphs, drawn at the top level
    live = _live_ops(graph)
    counter = [0]

    def node_id(op):
        return '"' + op.name.replace('"', "'") + '"'

    def edge(src, dst, g, pad, style=""):
        text = f"{node_id(src)} -> {node_id(dst)}{style};"
        if src.graph is g and dst.graph is g:
            lines.append(pad + text)
        else:
            crossing.append("  " + text)

    def emit(g, depth):
        pad = "  " * depth
        for t in g.inputs:
            lines.append(f'{pad}{node_id(t.op)} [label="{t.op.name}\\n{_type_of(t)}", shape=ellipse];')
        for op in g.operations:
            if op not in live:
                continue
            lines.append(f'{pad}{node_id(op)} [label="{_node_label(op)}"];')
            for t in op.inputs:
                edge(t.op, op, g, pad)
            for sub in op.subgraphs:
                counter[0] += 1
                lines.append(f"{pad}subgraph cluster_{counter[0]} {{")
                lines.append(f'{pad}  label="{op.name}: {sub.name}";')
                emit(sub, depth + 1)
                for t in sub.outputs:
                    edge(t.op, op, sub, pad + "  ", " [style=dashed]")
                lines.append(f"{pad}}}")
    emit(graph, 1)
    if graph.outputs:
        lines.append('  "outputs" [label="outputs", shape=ellipse, style=bold];')
        lines += [f'  {node_id(t.op)} -> "outputs";' for t in graph.outputs]
    lines += crossing
    lines.append("}")
    return "\n".join(lines)
