"""A traced graph as HTML: one row per live op, nested cond/while bodies collapsible."""

from __future__ import annotations

from html import escape

import numpy as np

from ..graph_printer import _attr_text, _ref, _type_of
from ..passes import live_operations
from .pipeline import origin_line


class GraphView:
    """Renders the graphs of one trace; `prefix` keeps element ids unique on the page."""

    def __init__(self, prefix: str, filename: str, python_names: dict):
        self.prefix = prefix
        self.filename = filename
        self.python_names = python_names

    def op_id(self, op) -> str:
        return f"{self.prefix}-op-{op.name}"

    def html(self, graph) -> str:
        captured = {id(t): self.python_names.get(id(value)) for value, t in graph.captures}
        return self._graph(graph, captured)

    def _graph(self, graph, captured: dict) -> str:
        params = ", ".join(f'<span class="ph">%{escape(t.op.name)}: {escape(_type_of(t))}</span>'
                           for t in graph.inputs)
        outputs = {id(t): i for i, t in enumerate(graph.outputs)}
        rows = [f'<div class="ghead">graph <b>{escape(graph.name)}</b>({params})</div>']
        for op in live_operations(graph, graph.outputs):
            if op.opdef.is_constant and op.outputs[0].shape.num_elements() == 1 \
                    and id(op.outputs[0]) not in captured:
                continue  # a scalar constant is shown where it is used
            rows.append(self._op(op, graph, outputs, captured))
        if graph.outputs:
            refs = ", ".join(self._operand(t, graph) for t in graph.outputs)
            rows.append(f'<div class="ret">return {refs}</div>')
        return '<div class="graph">' + "".join(rows) + "</div>"

    def _op(self, op, graph, outputs: dict, captured: dict) -> str:
        line = origin_line(op, self.filename)
        attrs = [f'id="{escape(self.op_id(op))}"', f'data-op="{escape(self.prefix)}:{escape(op.name)}"']
        if line is not None:
            attrs.append(f'data-line="{line}"')
        where = f"{op.location[0]}:{op.location[1]}" if op.location else "no source line"
        attrs.append(f'title="{escape(op.type)} created at {escape(where)}"')
        names = ", ".join(f"%{op.name}" if len(op.outputs) == 1 else f"%{op.name}:{i}"
                          for i in range(len(op.outputs)))
        args = ", ".join(self._operand(t, graph) for t in op.inputs)
        text = (f'<span class="lhs">{escape(names)}</span> = ' if names else "") + \
            f'<span class="type">{escape(op.type)}</span>({args})'
        attr_text = _attr_text(op) if not op.opdef.is_constant else _value_text(op.attrs["value"])
        if attr_text:
            text += f' <span class="attrs">{escape(attr_text)}</span>'
        if op.outputs:
            text += ' : <span class="ty">' + escape(", ".join(_type_of(t) for t in op.outputs)) \
                + "</span>"
        badges = [f'<span class="badge out">output {outputs[id(t)]}</span>'
                  for t in op.outputs if id(t) in outputs]
        for t in op.outputs:
            if id(t) in captured:
                name = captured[id(t)]
                badges.append('<span class="badge cap">captured from Python'
                              + (f": {escape(name)}" if name else "") + "</span>")
        if "var" in op.attrs:
            badges.append(f'<span class="badge var">variable {escape(op.attrs["var"].name)}</span>')
        row = text + "".join(badges)
        if not op.subgraphs:
            return f'<div class="op" {" ".join(attrs)}>{row}</div>'
        bodies = "".join(self._graph(sub, {}) for sub in op.subgraphs)
        return (f'<details class="sub" open><summary class="op" {" ".join(attrs)}>'
                f'<span class="fold" title="fold or unfold the body"></span>{row}</summary>'
                f'<div class="body">{bodies}</div></details>')

    def _operand(self, tensor, graph) -> str:
        text = escape(_ref(tensor))
        op = tensor.op
        if op.opdef.is_constant and not text.startswith("%"):
            return f'<span class="const">{text}</span>'
        if op in op.graph.operations:
            target = f'href="#{escape(self.op_id(op))}"'
        else:  # a placeholder: the graph's own parameter
            target = ""
        if op.graph is not graph and not graph.is_ancestor_of(op.graph):
            return (f'<a class="ref captured" {target} title="captured from graph '
                    f'{escape(op.graph.name)}">{text}<sup>&#8593;{escape(op.graph.name)}</sup></a>')
        return f'<a class="ref" {target}>{text}</a>'


def _value_text(value: np.ndarray) -> str:
    """A constant's value, shortened for large arrays."""
    return "value=" + np.array2string(np.asarray(value), threshold=8, edgeitems=2,
                                      separator=", ").replace("\n", "")
