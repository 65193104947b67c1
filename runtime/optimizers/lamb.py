"""LAMB (You et al., 2019): Adam's bias-corrected step scaled per variable by the trust
ratio of the variable's norm to the step's norm."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from ..ops.core import constant
from .base import Hyper, Optimizer
from .numbers import real_number


class Lamb(Optimizer):
    """With t the step number (from 1), slots m ("momentum") and v ("velocity") from zero:

        m = beta_1 * m + (1 - beta_1) * grad
        v = beta_2 * v + (1 - beta_2) * grad ** 2
        update = (m / (1 - beta_1 ** t)) / (sqrt(v / (1 - beta_2 ** t)) + epsilon)
        var -= learning_rate * r * update,  r = |var| / |update| (1 when either is 0)
    """

    def __init__(self, learning_rate: Hyper = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        self.beta_1 = real_number(type(self).__name__, "beta_1", beta_1)
        self.beta_2 = real_number(type(self).__name__, "beta_2", beta_2)
        self.epsilon = real_number(type(self).__name__, "epsilon", epsilon)
        self._slot_names = ("momentum", "velocity")

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        t = array_math.cast(array_math.add(self.iterations, 1), dtype)
        hyper["b1_power"] = array_math.pow(constant(self.beta_1, dtype), t)
        hyper["b2_power"] = array_math.pow(constant(self.beta_2, dtype), t)
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        m, v = slots["momentum"], slots["velocity"]
        m.assign_add(array_math.multiply(array_math.subtract(grad, m), 1 - self.beta_1))
        v.assign_add(array_math.multiply(array_math.subtract(array_math.square(grad), v),
                                         1 - self.beta_2))
        m_hat = array_math.divide(m, array_math.subtract(1.0, hyper["b1_power"]))
        v_root = array_math.add(array_math.sqrt(array_math.divide(
            v, array_math.subtract(1.0, hyper["b2_power"]))), self.epsilon)
        update = array_math.divide(m_hat, v_root)
        w_norm = array_math.sqrt(array_math.reduce_sum(array_math.square(var)))
        g_norm = array_math.sqrt(array_math.reduce_sum(array_math.square(update)))
        one = array_math.ones_like(w_norm)
        safe_g = array_math.where(array_math.greater(g_norm, 0), g_norm, one)
        ratio = array_math.where(array_math.greater(w_norm, 0),
                                 array_math.where(array_math.greater(g_norm, 0),
                                                  array_math.divide(w_norm, safe_g), one), one)
        var.assign_sub(array_math.multiply(array_math.multiply(ratio, hyper["learning_rate"]),
                                           update))
