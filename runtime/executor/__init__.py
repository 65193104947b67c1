"""The executor: lowers a graph to straight-line Python that calls NumPy, compiled once."""

from .codegen import CompiledGraph, lower

__all__ = ["CompiledGraph", "lower"]
