"""Adamax: Adam with the infinity norm of the past gradients in place of their second moment."""

from __future__ import annotations

from typing import Any

from ..ops import array_ops, math_ops
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
                 epsilon: float = 1e-7, name: str = "Adamax", **kwargs: Any) -> None:
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
        t = array_ops.cast(math_ops.add(self.iterations, 1), dtype)
        hyper["bias"] = math_ops.subtract(1, math_ops.pow(constant(self.beta_1, dtype), t))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        m, u = slots["momentum"], slots["norm"]
        new_m = math_ops.add(m, math_ops.multiply(math_ops.subtract(grad, m), 1 - self.beta_1))
        new_u = math_ops.maximum(math_ops.multiply(u, self.beta_2), math_ops.abs(grad))
        m.assign(new_m)
        u.assign(new_u)
        denom = math_ops.multiply(hyper["bias"], math_ops.add(new_u, self.epsilon))
        var.assign_sub(math_ops.divide(math_ops.multiply(hyper["learning_rate"], new_m), denom))
