"""Adamax: Adam with the infinity norm of the past gradients in place of their second moment."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from ..ops.core import constant
from .base import Hyper, Optimizer
from .numbers import real_number


class Adamax(Optimizer):
    """With t the step number (from 1), slots m ("momentum") and u ("norm") starting at zero:

        m = m + (1 - beta_1) * (grad - m)
        u = max(beta_2 * u, |grad|)
        var -= learning_rate * m / ((1 - beta_1 ** t) * (u + epsilon))
    """

    def __init__(self, learning_rate: Hyper = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        owner = type(self).__name__
        self.beta_1 = real_number(owner, "beta_1", beta_1)
        self.beta_2 = real_number(owner, "beta_2", beta_2)
        self.epsilon = real_number(owner, "epsilon", epsilon)
        self._slot_names = ("momentum", "norm")

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        t = array_math.cast(array_math.add(self.iterations, 1), dtype)
        hyper["bias"] = array_math.subtract(1, array_math.pow(constant(self.beta_1, dtype), t))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        m, u = slots["momentum"], slots["norm"]
        new_m = array_math.add(m, array_math.multiply(array_math.subtract(grad, m), 1 - self.beta_1))
        new_u = array_math.maximum(array_math.multiply(u, self.beta_2), array_math.abs(grad))
        m.assign(new_m)
        u.assign(new_u)
        denom = array_math.multiply(hyper["bias"], array_math.add(new_u, self.epsilon))
        var.assign_sub(array_math.divide(array_math.multiply(hyper["learning_rate"], new_m), denom))
