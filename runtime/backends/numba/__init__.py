"""The Numba tier (`jit_compile=True` or `"numba"`): a Program becomes one Numba kernel.

Numba is optional (`pip install 'autograph-rt[jit]'`); it is imported only when a function
asks for this tier, and so is the tier's own code: registering the backend costs nothing at
`import runtime`. See docs/jit.md.
"""

from __future__ import annotations

import copy
import importlib
from typing import Any, Optional

from ..base import Backend, JitCompileError
from ..compile_options import wait_for_compile


def _compiler():
    """The tier's compiler, imported (with numba, an optional extra) when the tier is used."""
    return importlib.import_module(".compiler", __name__)


class NumbaBackend(Backend):
    """Machine code through Numba: scalar loops and small calls run fastest here."""

    name = "numba"
    wait_for_compile: Optional[bool] = None  # None: rt.config.experimental's setting

    def require(self) -> None:
        _compiler().check_numba()  # not imported yet: a tiered call may never need it

    def with_options(self, wait_for_compile: Optional[bool] = None) -> "NumbaBackend":
        if wait_for_compile is None:
            return self
        configured = copy.copy(self)
        configured.wait_for_compile = wait_for_compile
        return configured

    def render(self, program, name: str, log=None):
        return _compiler().compile_graph(program, name, log,
                                         wait=wait_for_compile(self.wait_for_compile))


NUMBA = NumbaBackend()


def __getattr__(name: str) -> Any:
    # the compiler's names, loaded with it on first use
    if name in ("INSTALL_HINT", "JitCompiled", "compile_graph", "require_numba"):
        return getattr(_compiler(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["INSTALL_HINT", "JitCompiled", "JitCompileError", "NUMBA", "NumbaBackend",
           "compile_graph", "require_numba"]
