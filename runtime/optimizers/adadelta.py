"""Adadelta: steps scaled by running averages of squared gradients and squared updates."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from .base import Hyper, Optimizer
from .numbers import real_number


class Adadelta(Optimizer):
    """With slots g2 ("accumulated_grad") and d2 ("accumulated_delta_var") starting at zero:

        g2 = rho * g2 + (1 - rho) * grad ** 2
        delta = -sqrt(d2 + epsilon) * grad / sqrt(g2 + epsilon)
        d2 = rho * d2 + (1 - rho) * delta ** 2
        var += learning_rate * delta
    """

    def __init__(self, learning_rate: Hyper = 0.001, rho: float = 0.95, epsilon: float = 1e-7,
                 name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        self.rho = real_number(type(self).__name__, "rho", rho)
        self.epsilon = real_number(type(self).__name__, "epsilon", epsilon)
        self._slot_names = ("accumulated_grad", "accumulated_delta_var")

    def _rms(self, x):
        return array_math.sqrt(array_math.add(x, self.epsilon))

    def _update(self, grad, var, slots, hyper) -> None:
        g2, d2 = slots["accumulated_grad"], slots["accumulated_delta_var"]
        new_g2 = array_math.add(array_math.multiply(g2, self.rho),
                                array_math.multiply(array_math.square(grad), 1 - self.rho))
        g2.assign(new_g2)
        delta = array_math.negative(array_math.divide(array_math.multiply(self._rms(d2), grad),
                                                      self._rms(new_g2)))
        d2.assign(array_math.add(array_math.multiply(d2, self.rho),
                                 array_math.multiply(array_math.square(delta), 1 - self.rho)))
        var.assign_add(array_math.multiply(delta, hyper["learning_rate"]))
