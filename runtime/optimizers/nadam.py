"""Nadam: Adam with Nesterov momentum (Dozat, 2016), with Keras's momentum schedule."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_ops, math_ops
from ..ops.core import constant
from .base import Hyper, Optimizer
from .numbers import real_number

# prod(1 - 0.5 * 0.96 ** i for i in 1..k) for k = 0..1024 (in float64 every later factor is 1),
# so P_t = beta_1 ** t * _DECAY_PRODUCTS[min(t, 1024)]: a fixed-size table every tier compiles.
_DECAY_PRODUCTS = np.concatenate([[1.0], np.cumprod(1 - 0.5 * 0.96 ** np.arange(1, 1025.0))])


class Nadam(Optimizer):
    """With t the step number (from 1), mu_i = beta_1 * (1 - 0.5 * 0.96 ** i) and
    P_t = mu_1 * ... * mu_t, slots m ("momentum") and v ("velocity") starting at zero:

        m = m + (1 - beta_1) * (grad - m);   v = v + (1 - beta_2) * (grad ** 2 - v)
        m_hat = mu_{t+1} * m / (1 - P_t * mu_{t+1}) + (1 - mu_t) * grad / (1 - P_t)
        var -= learning_rate * m_hat / (sqrt(v / (1 - beta_2 ** t)) + epsilon)

    P_t is recomputed from the step counter, so a restored counter restores it too.
    """

    def __init__(self, learning_rate: Hyper = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "Nadam", **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        owner = type(self).__name__
        self.beta_1 = real_number(owner, "beta_1", beta_1)
        self.beta_2 = real_number(owner, "beta_2", beta_2)
        self.epsilon = real_number(owner, "epsilon", epsilon)
        self._slot_names = ("momentum", "velocity")

    def _mu(self, steps, dtype):
        decay = math_ops.pow(constant(0.96, dtype), steps)
        return math_ops.multiply(math_ops.subtract(1.0, math_ops.multiply(decay, 0.5)),
                                 self.beta_1)

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        step = math_ops.add(self.iterations, 1)
        t = array_ops.cast(step, dtype)
        table = constant(_DECAY_PRODUCTS.astype(dtype.as_numpy_dtype))
        product = math_ops.multiply(
            array_ops.gather(table, math_ops.minimum(step, len(_DECAY_PRODUCTS) - 1)),
            math_ops.pow(constant(self.beta_1, dtype), t))
        mu_t, mu_next = self._mu(t, dtype), self._mu(math_ops.add(t, 1), dtype)
        hyper["m_scale"] = math_ops.divide(
            mu_next, math_ops.subtract(1, math_ops.multiply(product, mu_next)))
        hyper["g_scale"] = math_ops.divide(math_ops.subtract(1, mu_t),
                                           math_ops.subtract(1, product))
        hyper["v_scale"] = math_ops.subtract(1, math_ops.pow(constant(self.beta_2, dtype), t))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        m, v = slots["momentum"], slots["velocity"]
        new_m = math_ops.add(m, math_ops.multiply(math_ops.subtract(grad, m), 1 - self.beta_1))
        new_v = math_ops.add(v, math_ops.multiply(math_ops.subtract(math_ops.square(grad), v),
                                                  1 - self.beta_2))
        m.assign(new_m)
        v.assign(new_v)
        m_hat = math_ops.add(math_ops.multiply(new_m, hyper["m_scale"]),
                             math_ops.multiply(grad, hyper["g_scale"]))
        denom = math_ops.add(math_ops.sqrt(math_ops.divide(new_v, hyper["v_scale"])),
                             self.epsilon)
        var.assign_sub(math_ops.divide(math_ops.multiply(m_hat, hyper["learning_rate"]), denom))
