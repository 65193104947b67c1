"""The Numba tier (`jit_compile=True` or `"numba"`): a Program becomes one Numba kernel.

Numba is optional (`pip install 'autograph-rt[jit]'`); it is imported only when a function
asks for this tier. See docs/jit.md.
"""

from __future__ import annotations

from ..base import Backend, JitCompileError
from .compiler import INSTALL_HINT, JitCompiled, compile_graph, require_numba


class NumbaBackend(Backend):
    """Machine code through Numba: scalar loops and small calls run fastest here."""

    name = "numba"

    def require(self) -> None:
        require_numba()

    def render(self, program, name: str, log=None) -> JitCompiled:
        return compile_graph(program, name, log)


NUMBA = NumbaBackend()

__all__ = ["INSTALL_HINT", "JitCompiled", "JitCompileError", "NUMBA", "NumbaBackend",
           "compile_graph", "require_numba"]
