"""`ag.report`: the HTML pipeline page, made by the installed backend.

The converter never imports a backend: the one that registered under the `autograph.backends`
entry point (the runtime does) traces the function and writes the page.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Optional


def installed_backend() -> ModuleType:
    """The backend's tool module (the `autograph.backends` entry point); ImportError if none."""
    from importlib import metadata
    backends = list(metadata.entry_points(group="autograph.backends"))
    if not backends:
        raise ImportError("no autograph backend is installed (such as the runtime: "
                          "pip install autograph-rt)")
    return backends[0].load()


def report(function: Callable, *args: Any, path: Optional[str] = None, **kwargs: Any) -> str:
    """One self-contained HTML page of `function`'s source, converted source, traced graphs and
    generated code, cross-linked; traced for `args` (values or specs). `path` writes it."""
    return installed_backend().report(function, *args, path=path, **kwargs)
