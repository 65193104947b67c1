"""The report page: sources, trace list, and each trace's graph and generated code."""

from __future__ import annotations

from html import escape

from .assets import SCRIPT, STYLE
from .graph_view import GraphView
from .pipeline import Pipeline, SourceLine, Trace


def render_page(pipeline: Pipeline) -> str:
    """The whole HTML document for `pipeline`."""
    name = escape(pipeline.name)
    converted = (_code(pipeline.converted, "converted") if pipeline.converted
                 else f'<div class="note">{escape(pipeline.converted_note)}</div>')
    body = [
        f"<header><h1>{name}: pipeline report</h1>"
        f"<p>{escape(pipeline.filename)} &middot; {len(pipeline.traces)} trace(s). Click a line "
        "or an op to highlight everything made from the same source line.</p></header><main>",
        '<h2>Source</h2><div class="cols">',
        _pane("original source", _code(pipeline.source, "source")),
        _pane("converted by autograph", converted),
        "</div>",
        _trace_table(pipeline.traces),
        *(_trace_section(t, GraphView(f"t{t.index}", pipeline.filename, pipeline.captured_names))
          for t in pipeline.traces),
        "</main>",
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{name}: pipeline report</title><style>{STYLE}</style></head><body>"
            + "".join(body) + f"<script>{SCRIPT}</script></body></html>\n")


def _pane(title: str, content: str, extra: str = "") -> str:
    return f'<div class="pane"{extra}><h3>{escape(title)}</h3>{content}</div>'


def _code(lines: list[SourceLine], kind: str, prefix: str = "") -> str:
    out = []
    for number, line in enumerate(lines, 1):
        attrs = [f'class="ln {kind}"']
        if line.origin is not None:
            attrs.append(f'data-line="{line.origin}"')
        if line.ops:
            attrs.append(f'data-op="{escape(prefix)}:{escape(line.ops[0])}"')
        shown = line.origin if kind == "source" else number
        out.append(f'<span {" ".join(attrs)}><span class="no">{shown}</span>'
                   f"{escape(line.text)}</span>")
    return f'<div class="code">{"".join(out)}</div>'


def _trace_table(traces: list[Trace]) -> str:
    if not traces:
        return '<h2>Traces</h2><div class="note">not traced yet: pass arguments to report()</div>'
    rows = "".join(f'<tr><td><a href="#trace-{t.index}">#{t.index}</a></td>'
                   f"<td><code>{escape(t.signature)}</code></td><td>{escape(t.reason)}</td></tr>"
                   for t in traces)
    return ('<h2>Traces</h2><table class="traces" id="traces"><tr><th>trace</th>'
            f"<th>signature</th><th>why it was traced</th></tr>{rows}</table>")


def _trace_section(trace: Trace, view: GraphView) -> str:
    prefix = view.prefix
    graph = view.html(trace.concrete.graph)
    return (f'<section id="trace-{trace.index}"><h2>Trace #{trace.index} '
            f"&mdash; {escape(trace.reason)}</h2>"
            '<div class="cols">'
            + _pane("traced graph", graph, f' id="{prefix}-graph"')
            + _pane("generated NumPy code", _code(trace.generated, "generated", prefix),
                    f' id="{prefix}-code"')
            + "</div></section>")
