"""`tf.recompute_grad`: a function whose gradient is the wrapped function's own."""

from __future__ import annotations

import functools
from typing import Callable

from ..exports import export


@export("recompute_grad")
def recompute_grad(f: Callable) -> Callable:
    """`f` with the same values and gradients. TensorFlow recomputes `f`'s activations in the
    backward pass to save memory; here the wrapped function keeps them (no memory saved)."""
    if not callable(f):
        raise TypeError(f"recompute_grad needs a callable, got {type(f).__name__}.")

    @functools.wraps(f)
    def inner(*args, **kwargs):
        return f(*args, **kwargs)

    return inner
