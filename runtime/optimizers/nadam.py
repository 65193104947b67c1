"""Nadam: Adam with Nesterov momentum (Dozat, 2016), with Keras's momentum schedule."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_math
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
                 epsilon: float = 1e-7, name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        owner = type(self).__name__
        self.beta_1 = real_number(owner, "beta_1", beta_1)
        self.beta_2 = real_number(owner, "beta_2", beta_2)
        self.epsilon = real_number(owner, "epsilon", epsilon)
        self._slot_names = ("momentum", "velocity")

    def _mu(self, steps, dtype):
        decay = array_math.pow(constant(0.96, dtype), steps)
        return array_math.multiply(array_math.subtract(1.0, array_math.multiply(decay, 0.5)),
                                   self.beta_1)

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        step = array_math.add(self.iterations, 1)
        t = array_math.cast(step, dtype)
        table = constant(_DECAY_PRODUCTS.astype(dtype.as_numpy_dtype))
        product = array_math.multiply(
            array_math.gather(table, array_math.minimum(step, len(_DECAY_PRODUCTS) - 1)),
            array_math.pow(constant(self.beta_1, dtype), t))
        mu_t, mu_next = self._mu(t, dtype), self._mu(array_math.add(t, 1), dtype)
        hyper["m_scale"] = array_math.divide(
            mu_next, array_math.subtract(1, array_math.multiply(product, mu_next)))
        hyper["g_scale"] = array_math.divide(array_math.subtract(1, mu_t),
                                             array_math.subtract(1, product))
        hyper["v_scale"] = array_math.subtract(1, array_math.pow(constant(self.beta_2, dtype), t))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        m, v = slots["momentum"], slots["velocity"]
        new_m = array_math.add(m, array_math.multiply(array_math.subtract(grad, m), 1 - self.beta_1))
        new_v = array_math.add(v, array_math.multiply(array_math.subtract(array_math.square(grad), v),
                                                      1 - self.beta_2))
        m.assign(new_m)
        v.assign(new_v)
        m_hat = array_math.add(array_math.multiply(new_m, hyper["m_scale"]),
                               array_math.multiply(grad, hyper["g_scale"]))
        denom = array_math.add(array_math.sqrt(array_math.divide(new_v, hyper["v_scale"])),
                               self.epsilon)
        var.assign_sub(array_math.divide(array_math.multiply(m_hat, hyper["learning_rate"]), denom))
