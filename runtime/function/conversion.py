"""Autograph conversion of the functions that `rt.function(autograph=True)` traces.

The converter is imported on the first conversion, not with the runtime, so that
`import runtime` stays fast; this is the one place the runtime loads the converter (the
modules that import other parts of autograph are listed in docs/architecture.md). A
function whose source cannot be read (defined at the interactive prompt, with `python -c`
or `exec`) is traced as written, with a warning in autograph's log.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from . import logs


def convert(python_function: Callable, options: Any = None) -> Callable:
    """The autograph-converted `python_function` (`options`: see `rt.function`).

    A `functools.partial` converts its underlying function and keeps its bound arguments.
    """
    if isinstance(python_function, functools.partial):
        inner = convert(python_function.func, options)
        return functools.partial(inner, *python_function.args, **python_function.keywords)
    try:
        from .. import autograph_backend  # lazy: loads the converter on first use
    except ImportError:  # pragma: no cover - the converter is part of this distribution
        warnings.warn("autograph is unavailable; tracing the function as written.",
                      stacklevel=logs.user_stacklevel())
        return python_function
    try:
        return autograph_backend.convert(python_function, options)
    except autograph_backend.SourceUnavailableError as e:
        name = getattr(python_function, "__qualname__", repr(python_function))
        autograph_backend.ag_logs.warning(
            "Not converting %s: %s. It is traced as written, so control flow on tensors "
            "inside it is not staged.", name, e)
        return python_function
