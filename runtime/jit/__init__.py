"""The compiler tier behind `rt.function(..., jit_compile=True)`: graphs to Numba kernels.

Numba is optional (`pip install 'autograph-rt[jit]'`); it is imported only when a function
asks for `jit_compile=True`. See docs/jit.md.
"""

from .compiler import INSTALL_HINT, JitCompiled, compile_graph, require_numba
from .lowering import JitCompileError

__all__ = ["INSTALL_HINT", "JitCompiled", "JitCompileError", "compile_graph", "require_numba"]
