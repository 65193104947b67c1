"""Reverse-mode automatic differentiation: `GradientTape`, `stop_gradient`, `custom_gradient`.

Gradient rules of the primitive ops live beside the ops (runtime/ops/*); this package holds
the tape, the reverse sweep, and the rules that need the graph machinery: `cond`,
`while_loop`, `TensorArray` and calls of compiled functions.
"""

from . import cond_grad, while_grad  # noqa: F401 - they register rules
from .custom import custom_gradient, stop_gradient
from .tape import GradientTape, UnconnectedGradients

__all__ = ["GradientTape", "UnconnectedGradients", "custom_gradient", "stop_gradient"]
