"""The XLA tier (`jit_compile="xla"`): a Program becomes one `jax.jit` function.

JAX is optional (`pip install 'autograph-rt[xla]'`); it is imported only when a function
asks for this tier, and so is the tier's own code: registering the backend costs nothing at
`import runtime`. See docs/xla.md.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..base import Backend, JitCompileError


def _compiler():
    return importlib.import_module(".compiler", __name__)


class XlaBackend(Backend):
    """XLA through JAX: whole-array programs fused and compiled for JAX's default device."""

    name = "xla"

    def require(self) -> None:
        _compiler().require_jax()

    def render(self, program, name: str, log=None):
        return _compiler().compile_graph(program, name, log)


XLA = XlaBackend()


def __getattr__(name: str) -> Any:
    # the compiler's names, loaded with it on first use
    if name in ("INSTALL_HINT", "XlaCompiled", "check", "compile_graph", "require_jax"):
        return getattr(_compiler(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["INSTALL_HINT", "JitCompileError", "XLA", "XlaBackend", "XlaCompiled", "check",
           "compile_graph", "require_jax"]
