"""One self-contained HTML page showing a compiled function's whole pipeline.

    page = rt.function(f).report(x)              # the HTML text
    rt.function(f).report(x, path="f.html")     # also written to a file
    ag.report(f, x, path="f.html")               # the same from autograph

The page shows the original source, the autograph-converted source, every traced graph
(with the reason each trace happened) and the NumPy code the executor generated for it,
cross-linked by the user's source lines: clicking a line or an op highlights everything
that came from the same line. It needs no network: styles and script are inline.
"""

from __future__ import annotations

from typing import Any, Optional

from ..function.reporting import set_report_builder
from ..html_repr import ReportPage
from .page import render_page
from .pipeline import collect


def report(function: Any, *args: Any, path: Optional[str] = None, **kwargs: Any) -> ReportPage:
    """The HTML report of `function` (an `rt.function`, or a plain function to compile).

    With arguments (values or `TensorSpec`s), the function is traced for them first (without
    running). Every trace made so far is shown. With `path`, the page is also written there.
    The result is the page's text (a `str`); Jupyter shows it rendered, in a frame."""
    html = ReportPage(render_page(collect(function, args, kwargs)))
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
    return html


set_report_builder(report)  # `Function.report` and `ag.report` build pages here from now on

__all__ = ["ReportPage", "report"]
