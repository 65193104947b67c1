"""The XLA tier (`jit_compile="xla"`): a Program becomes one `jax.jit` function.

JAX is optional (`pip install 'autograph-rt[xla]'`); it is imported only when a function
asks for this tier, with the tier's own code (`compiler.py` and `lowering.py` import JAX at
their top): registering the backend costs nothing at `import runtime`. See docs/xla.md.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..base import Backend, JitCompileError

INSTALL_HINT = "pip install 'autograph-rt[xla]'"


def _compiler():
    """The compiler module, imported (with JAX) on first use; ImportError naming the extra
    to install when JAX is missing."""
    try:
        return importlib.import_module(".compiler", __name__)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").partition(".")[0]
        if missing not in ("jax", "jaxlib") and "jaxlib" not in str(exc):
            raise
        raise ImportError(f"jit_compile='xla' compiles with JAX, which is not installed: "
                          f"{INSTALL_HINT}") from None


class XlaBackend(Backend):
    """XLA through JAX: whole-array programs fused and compiled for JAX's default device."""

    name = "xla"

    def require(self) -> None:
        _compiler()

    def render(self, program, name: str, log=None):
        return _compiler().compile_graph(program, name, log)


XLA = XlaBackend()


def __getattr__(name: str) -> Any:
    # the compiler's names, loaded with it on first use
    if name in ("XlaCompiled", "check", "compile_graph"):
        return getattr(_compiler(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["INSTALL_HINT", "JitCompileError", "XLA", "XlaBackend", "XlaCompiled", "check",
           "compile_graph"]
