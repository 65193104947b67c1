"""Backends: one object per execution tier, and the one compile pipeline.

`compile(graph, backend, name) = backend.render(run_passes(graph), name)`: folding, common
subexpressions, dead code and buffer lifetimes run once (`runtime.passes`), for every
backend. `resolve(jit_compile)` maps `rt.function`'s `jit_compile` to a backend through the
registry: False or None is the NumPy tier, True or "numba" the Numba tier.
"""

from __future__ import annotations

from typing import Any, Optional

from ..graph import Graph
from ..passes import run_passes
from .base import Backend, Compiled, CompileLog, JitCompileError, describe, runtime_error
from .numba import NUMBA
from .numpy_source import NUMPY
from .xla import XLA

__all__ = ["Backend", "CompileLog", "Compiled", "JitCompileError", "NUMBA", "NUMPY", "compile",
           "describe", "register_backend", "resolve", "runtime_error"]

_BY_NAME: dict[str, Backend] = {}


def register_backend(backend: Backend) -> Backend:
    """Makes `backend` a choice of `jit_compile=<backend.name>`."""
    _BY_NAME[backend.name] = backend
    return backend


register_backend(NUMPY)
register_backend(NUMBA)
register_backend(XLA)


def resolve(jit_compile: Any) -> Backend:
    """The backend for a `jit_compile` value: None/False NumPy, True the Numba tier, or a
    registered tier's name; any other value is a ValueError naming the choices."""
    if jit_compile is None or jit_compile is False:
        return NUMPY
    if jit_compile is True:
        return NUMBA
    if isinstance(jit_compile, str) and jit_compile in _BY_NAME:
        return _BY_NAME[jit_compile]
    choices = ", ".join(["False", "True"] + [repr(n) for n in _BY_NAME])
    raise ValueError(f"jit_compile={jit_compile!r} is not a compiler tier; choose one of "
                     f"{choices} (True means 'numba').")


def compile(graph: Graph, backend: Backend, name: str = "graph_fn",  # noqa: A001
            log: Optional[CompileLog] = None) -> Compiled:
    """The one pipeline: the passes, then the backend's rendering of their result."""
    return backend.render(run_passes(graph), name, log)
