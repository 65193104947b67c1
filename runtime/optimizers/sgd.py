"""Stochastic gradient descent, with optional (Nesterov) momentum."""

from __future__ import annotations

from typing import Any

from ..arguments import strict_keywords
from ..ops import array_math
from .base import Hyper, Optimizer


class SGD(Optimizer):
    """`var -= learning_rate * grad`; with momentum m, a velocity slot:

        velocity = m * velocity - learning_rate * grad
        var += velocity                                  (nesterov: var += m * velocity - lr * grad)
    """

    def __init__(self, learning_rate: Hyper = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        if not isinstance(momentum, (int, float)) or not 0 <= momentum <= 1:
            raise ValueError(f"SGD momentum must be a number in [0, 1], got {momentum!r}.")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self._slot_names = ("momentum",) if self.momentum else ()

    def _update(self, grad, var, slots, hyper) -> None:
        step = array_math.multiply(hyper["learning_rate"], grad)
        if not self.momentum:
            var.assign_sub(step)
            return
        velocity = slots["momentum"]
        momentum = self.momentum
        new_velocity = array_math.subtract(array_math.multiply(velocity, momentum), step)
        velocity.assign(new_velocity)
        if self.nesterov:
            var.assign_add(array_math.subtract(array_math.multiply(new_velocity, momentum), step))
        else:
            var.assign_add(new_velocity)


class GradientDescentOptimizer(SGD):
    """The seed's name for plain SGD: `var -= learning_rate * grad`."""

    @strict_keywords()
    def __init__(self, learning_rate: Hyper, use_locking: bool = False,
                 name: str = "GradientDescent") -> None:
        super().__init__(learning_rate, name=name)


class MomentumOptimizer(SGD):
    """SGD with momentum under its TF1 name (the same update for a constant learning rate)."""

    @strict_keywords()
    def __init__(self, learning_rate: Hyper, momentum: float, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False) -> None:
        super().__init__(learning_rate, momentum=momentum, nesterov=use_nesterov, name=name)
