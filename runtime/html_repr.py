"""HTML shown by Jupyter for reports, compiled functions and tensors (`_repr_html_`).

Each object's `_repr_html_` calls one function here. The module imports nothing of the
runtime (it reads the objects it is given), so the tensor layer can use it. The fragments
are self-contained and link-free: inline styles, no scripts, no external resources. A report
page is embedded whole in an `<iframe srcdoc>`, so its styles and script stay inside the frame.
"""

from __future__ import annotations

import inspect
from collections import Counter
from typing import Any

import numpy as np

MAX_ROWS = 10       # a tensor's table shows at most this many rows ...
MAX_COLUMNS = 10    # ... and columns; larger tensors show their first and last ones
_STYLE = ("font-family:monospace;font-size:12px;border-collapse:collapse;"
          "margin:2px 0;text-align:right")
_CELL = "border:1px solid #ccc;padding:1px 6px"
_HEAD = "border:1px solid #ccc;padding:1px 6px;background:#f3f3f3;text-align:left"


def escape(text: str, quote: bool = True) -> str:
    """`html.escape`; the module loads with the first HTML view (`import runtime` skips it and
    its table of entities)."""
    import html
    return html.escape(text, quote)


class ReportPage(str):
    """The HTML text of a pipeline report (a `str`), which Jupyter renders inline."""

    def _repr_html_(self) -> str:
        return report_frame(str(self))


def report_frame(page: str, height: int = 600) -> str:
    """`page`, a whole HTML document, in an iframe of its own (inline, no file, no link)."""
    return (f'<iframe srcdoc="{escape(page, quote=True)}" style="width:100%;height:{height}px;'
            'border:1px solid #ccc" sandbox="allow-scripts"></iframe>')


def _table(rows: list[list[str]], header: list[str] | None = None) -> str:
    head = ("<tr>" + "".join(f'<th style="{_HEAD}">{escape(h)}</th>' for h in header) + "</tr>"
            if header else "")
    body = "".join("<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in row) + "</tr>"
                   for row in rows)
    return f'<table style="{_STYLE}">{head}{body}</table>'


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


# -- tensors ---------------------------------------------------------------------------------
def _shown_indices(n: int, limit: int) -> list[int | None]:
    """The indices shown of an axis of length `n` (None marks the elided middle)."""
    if n <= limit:
        return list(range(n))
    half = limit // 2
    return [*range(half), None, *range(n - (limit - half), n)]


def _format_cell(value: Any) -> str:
    if isinstance(value, bytes):
        return escape(repr(value))
    return escape(np.array2string(np.asarray(value), separator=", "))


def _value_table(value: np.ndarray) -> str:
    if value.ndim == 0:
        return _table([[_format_cell(value[()])]])
    matrix = value if value.ndim == 2 else value.reshape(1, -1) if value.ndim == 1 else None
    if matrix is None:  # 3-D and more: NumPy's own summarised print
        text = np.array2string(value, separator=", ", threshold=MAX_ROWS * MAX_COLUMNS,
                               edgeitems=3)
        return f'<pre style="font-size:12px;margin:2px 0">{escape(text)}</pre>'
    rows = _shown_indices(matrix.shape[0], MAX_ROWS)
    columns = _shown_indices(matrix.shape[1], MAX_COLUMNS)
    out = []
    for r in rows:
        if r is None:
            out.append(["&vellip;" if c is not None else "&dtdot;" for c in columns])
        else:
            out.append([_format_cell(matrix[r, c]) if c is not None else "&hellip;"
                        for c in columns])
    return _table(out)


def eager_tensor_html(tensor: Any) -> str:
    """A caption with shape and dtype over a table of the values (large tensors truncated)."""
    value = np.asarray(tensor.numpy())
    caption = (f'<div style="font-family:monospace;font-size:12px"><b>rt.Tensor</b> '
               f"shape={escape(str(tensor.shape))} dtype={escape(tensor.dtype.name)}"
               + (f" ({value.size} values, some shown)"
                  if value.ndim and (value.ndim > 2 or value.shape[0] > MAX_ROWS
                                     or value.shape[-1] > MAX_COLUMNS) else "")
               + "</div>")
    return f"<div>{caption}{_value_table(value)}</div>"


def symbolic_tensor_html(tensor: Any) -> str:
    """Name, shape, dtype and the producing op of a tensor of a graph being built."""
    op = getattr(tensor, "op", None)
    rows = [["name", _code(tensor.name)], ["shape", _code(str(tensor.shape))],
            ["dtype", _code(tensor.dtype.name)]]
    if op is not None:
        rows.append(["op", _code(op.type)])
    return ('<div style="font-family:monospace;font-size:12px"><b>rt.Tensor</b> (symbolic)</div>'
            + _table(rows))


# -- compiled functions -----------------------------------------------------------------------
def _op_summary(graph: Any) -> str:
    counts = Counter(op.type for op in graph.get_operations())
    shown = ", ".join(f"{t}&times;{n}" if n > 1 else t for t, n in counts.most_common(8))
    more = len(counts) - 8
    return f"{sum(counts.values())} ops: {shown}" + (f", &hellip; ({more} more types)"
                                                     if more > 0 else "")


def _tier(concrete: Any) -> str:
    return getattr(concrete.backend, "name", str(concrete.backend))


def concrete_function_html(concrete: Any) -> str:
    """Signature, why it was traced, its tier and a summary of its graph."""
    rows = [["signature", f'<pre style="margin:0;text-align:left">'
             f"{escape(concrete.pretty_printed_signature())}</pre>"],
            ["why traced", escape(str(getattr(concrete, "trace_reason", "")))],
            ["tier", escape(_tier(concrete))],
            ["graph", _op_summary(concrete.graph)]]
    return (f'<div style="font-family:monospace;font-size:12px"><b>ConcreteFunction</b> '
            f"{escape(concrete.name)}</div>" + _table(rows))


def function_html(fn: Any) -> str:
    """The Python signature, the compile options and one row per trace."""
    try:
        signature = str(inspect.signature(fn.python_function))
    except (TypeError, ValueError):
        signature = "(...)"
    options = [f"jit_compile={fn.jit_compile!r}", f"autograph={fn.autograph!r}",
               f"reduce_retracing={fn.reduce_retracing!r}"]
    if fn.input_signature is not None:
        options.append(f"input_signature={fn.input_signature!r}")
    concretes = fn.list_concrete_functions()
    header = (f'<div style="font-family:monospace;font-size:12px"><b>rt.Function</b> '
              f"{escape(fn.__name__)}{escape(signature)}<br>{escape(', '.join(options))}<br>"
              f"{len(concretes)} trace(s)</div>")
    if not concretes:
        return f"<div>{header}<div>not traced yet: call it, or use get_concrete_function</div></div>"
    rows = [[str(i), f'<pre style="margin:0;text-align:left">'
             f"{escape(c.pretty_printed_signature(verbose=False))}</pre>",
             escape(str(getattr(c, "trace_reason", ""))), escape(_tier(c)), _op_summary(c.graph)]
            for i, c in enumerate(concretes, 1)]
    return f"<div>{header}{_table(rows, ['#', 'signature', 'why traced', 'tier', 'graph'])}</div>"


# -- variables, datasets and models -----------------------------------------------------------
def _caption(text: str) -> str:
    return f'<div style="font-family:monospace;font-size:12px">{text}</div>'


def variable_html(variable: Any) -> str:
    """Name, shape, dtype and trainability over a table of the value (large ones truncated);
    a variable of a graph being built shows no value."""
    caption = _caption(f"<b>rt.Variable</b> {escape(repr(variable.name))} "
                       f"shape={escape(str(variable.shape))} dtype={escape(variable.dtype.name)}"
                       f" trainable={bool(variable.trainable)}")
    try:
        value = np.asarray(variable.numpy())
    except Exception:   # inside a function being traced, or not initialised yet
        return f"<div>{caption}</div>"
    return f"<div>{caption}{_value_table(value)}</div>"


def _spec_leaves(spec: Any, path: str = "") -> list[tuple[str, Any]]:
    """(path, leaf) of an element spec's nest: dicts by sorted key, tuples and lists by index,
    namedtuples and dataclass-like nests by field."""
    if isinstance(spec, dict):
        return [leaf for key in sorted(spec, key=str)
                for leaf in _spec_leaves(spec[key], f"{path}[{key!r}]")]
    fields = getattr(spec, "_fields", None)
    if isinstance(spec, tuple) and fields:
        return [leaf for name in fields for leaf in _spec_leaves(getattr(spec, name),
                                                                  f"{path}.{name}")]
    if isinstance(spec, (list, tuple)):
        return [leaf for i, item in enumerate(spec) for leaf in _spec_leaves(item, f"{path}[{i}]")]
    return [(path or "element", spec)]


_CARDINALITY = {-1: "infinite", -2: "unknown"}


def dataset_html(dataset: Any, cardinality: int) -> str:
    """The dataset's class and number of elements over a table of its element spec (nothing
    of the pipeline runs)."""
    count = _CARDINALITY.get(int(cardinality), f"{int(cardinality)} elements")
    kind = type(dataset).__name__.lstrip("_")
    caption = _caption(f"<b>rt.data.Dataset</b> {escape(kind)}, {escape(count)}")
    rows = [[_code(path), _code(str(getattr(leaf, "shape", ""))),
             _code(getattr(getattr(leaf, "dtype", None), "name", "") or type(leaf).__name__)]
            for path, leaf in _spec_leaves(dataset.element_spec)]
    return f"<div>{caption}{_table(rows, ['component', 'shape', 'dtype'])}</div>"


def model_html(title: str, header: list[str], rows: list[list[str]], footer: list[str]) -> str:
    """A model's summary (the rows of `Model.summary()`) as an HTML table."""
    body = [[escape(cell) for cell in row] for row in rows]
    totals = "<br>".join(escape(line.strip()) for line in footer)
    return (f"<div>{_caption(f'<b>{escape(title)}</b>')}"
            f"{_table(body, header)}{_caption(totals)}</div>")
