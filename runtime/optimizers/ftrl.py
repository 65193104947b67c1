"""FTRL-Proximal (McMahan et al., 2013): follow the regularized leader, with L1/L2 terms."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_math
from .base import Hyper, Optimizer
from .numbers import real_number


def _non_negative(key: str, value: Any) -> float:
    """`value` as a float; a ValueError naming `key` unless it is a number >= 0."""
    number = real_number("Ftrl", key, value)
    if number < 0:
        raise ValueError(f"Ftrl: `{key}` needs to be positive or zero. Received: {key}={value}.")
    return number


class Ftrl(Optimizer):
    """With p = -learning_rate_power, slots n ("accumulator", from `initial_accumulator_value`)
    and z ("linear", from zero), lr the learning rate:

        n_new = n + grad ** 2
        z += grad + 2 * l2_shrinkage * var - (n_new ** p - n ** p) / lr * var
        var = (clip(z, -l1, l1) - z) / (n_new ** p / lr + 2 * (l2 + beta / (2 * lr)));  n = n_new
    """

    def __init__(self, learning_rate: Hyper = 0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
                 name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        owner = type(self).__name__
        self.initial_accumulator_value = _non_negative(
            "initial_accumulator_value", initial_accumulator_value)
        self.l1_regularization_strength = _non_negative(
            "l1_regularization_strength", l1_regularization_strength)
        self.l2_regularization_strength = _non_negative(
            "l2_regularization_strength", l2_regularization_strength)
        self.l2_shrinkage_regularization_strength = _non_negative(
            "l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength)
        self.learning_rate_power = real_number(owner, "learning_rate_power", learning_rate_power)
        if self.learning_rate_power > 0:
            raise ValueError("Ftrl: `learning_rate_power` needs to be negative or zero. "
                             f"Received: learning_rate_power={learning_rate_power}.")
        self.beta = real_number(owner, "beta", beta)
        self._slot_names = ("accumulator", "linear")

    def _initial_slot(self, var, name):
        fill = self.initial_accumulator_value if name == "accumulator" else 0.0
        return np.full(var.shape.as_list(), fill, var.dtype.as_numpy_dtype)

    def _update(self, grad, var, slots, hyper) -> None:
        accum, linear = slots["accumulator"], slots["linear"]
        lr, power = hyper["learning_rate"], -self.learning_rate_power
        new_accum = array_math.add(accum, array_math.square(grad))
        new_scaled = array_math.pow(new_accum, power)
        old_scaled = array_math.pow(accum.read_value(), power)
        shrunk = array_math.add(grad, array_math.multiply(
            var.read_value(), 2 * self.l2_shrinkage_regularization_strength))
        sigma = array_math.divide(array_math.subtract(new_scaled, old_scaled), lr)
        new_linear = array_math.subtract(array_math.add(linear, shrunk),
                                         array_math.multiply(sigma, var.read_value()))
        linear.assign(new_linear)
        l2 = array_math.add(array_math.divide(self.beta / 2.0, lr), self.l2_regularization_strength)
        quadratic = array_math.add(array_math.divide(new_scaled, lr), array_math.multiply(l2, 2.0))
        l1 = self.l1_regularization_strength
        clipped = array_math.clip_by_value(new_linear, -l1, l1)
        var.assign(array_math.divide(array_math.subtract(clipped, new_linear), quadratic))
        accum.assign(new_accum)
