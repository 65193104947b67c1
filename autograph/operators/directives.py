"""Functions users call to give autograph directions; they do nothing when run directly."""

from __future__ import annotations

from typing import Any, Optional, Sequence


def set_loop_options(parallel_iterations: Optional[int] = None, swap_memory: Optional[bool] = None,
                     maximum_iterations: Any = None,
                     shape_invariants: Optional[Sequence[tuple[Any, Any]]] = None) -> None:
    """Options for the staged loop this call is the first statement of.

    `shape_invariants` is a list of `(variable, shape)` pairs, e.g.
    `[(x, rt.TensorShape([None]))]`, letting `x` change shape between iterations;
    `maximum_iterations` bounds the number of iterations. The converter reads this call
    and removes it from the loop body; run unconverted it does nothing.
    """
    del parallel_iterations, swap_memory, maximum_iterations, shape_invariants
