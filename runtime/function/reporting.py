"""Who builds a function's HTML report: a hook this layer exposes and a higher one fills.

`Function.report` and `ag.report` (through `runtime.inspect_tools`) call `build_report`. The
report tool (`runtime/report/`) sits above this package and imports it, so this package never
imports the report: `runtime/__init__.py` registers a builder that loads `runtime.report` on
first use, and `runtime.report` registers its own `report` when it is imported.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

ReportBuilder = Callable[..., str]

_builder: Optional[ReportBuilder] = None


def set_report_builder(builder: Optional[ReportBuilder]) -> None:
    """Makes `builder(function, *args, path=None, **kwargs) -> str` build reports (None: none)."""
    global _builder
    _builder = builder


def build_report(function: Any, *args: Any, path: Optional[str] = None, **kwargs: Any) -> str:
    """The HTML report of `function` (an `rt.function` or a plain function) by the builder."""
    if _builder is None:
        raise RuntimeError("no report builder is registered: import runtime (or runtime.report) "
                           "to make function reports")
    return _builder(function, *args, path=path, **kwargs)


__all__ = ["build_report", "set_report_builder"]
