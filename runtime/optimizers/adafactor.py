"""Adafactor (Shazeer and Stern, 2018): second moments kept as factored row and column means."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_math
from ..ops.variables import Variable
from .base import Hyper, Optimizer
from .numbers import real_number


class Adafactor(Optimizer):
    """With t the step number (from 1), beta = 1 - t ** beta_2_decay, g2 = grad ** 2 + epsilon_1
    and rms(x) = sqrt(mean(x ** 2)):

        variables of rank >= 2:  r = beta * r + (1 - beta) * mean(g2, -1)   (slot "r")
                                 c = beta * c + (1 - beta) * mean(g2, -2)   (slot "c")
                                 v = (r / mean(r, -1))[..., None] * c[..., None, :]
        others:                  v = beta * v + (1 - beta) * g2             (slot "velocity")
        u = grad / sqrt(v);  u /= max(1, rms(u) / clip_threshold)
        var -= max(epsilon_2, rms(var)) * min(learning_rate, 1 / sqrt(t)) * u

    `relative_step` is kept in the config; as in Keras 3, the step size is capped by
    `1 / sqrt(t)` either way.
    """

    def __init__(self, learning_rate: Hyper = 0.001, beta_2_decay: float = -0.8,
                 epsilon_1: float = 1e-30, epsilon_2: float = 1e-3, clip_threshold: float = 1.0,
                 relative_step: bool = True, name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        owner = type(self).__name__
        self.beta_2_decay = real_number(owner, "beta_2_decay", beta_2_decay)
        self.epsilon_1 = real_number(owner, "epsilon_1", epsilon_1)
        self.epsilon_2 = real_number(owner, "epsilon_2", epsilon_2)
        self.clip_threshold = real_number(owner, "clip_threshold", clip_threshold)
        self.relative_step = bool(relative_step)
        self._slot_names = ("r", "c", "velocity")

    def _initial_slot(self, var, name):
        """"velocity" like the variable; "r" and "c" (its shape without the last, and without
        the second last axis) only for a variable of rank 2 or more."""
        shape = var.shape.as_list()
        if name != "velocity":
            if len(shape) < 2:
                return None
            shape = shape[:-1] if name == "r" else shape[:-2] + shape[-1:]
        return np.zeros(shape, var.dtype.as_numpy_dtype)

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        t = array_math.cast(array_math.add(self.iterations, 1), dtype)
        hyper["rho"] = array_math.minimum(hyper["learning_rate"],
                                          array_math.divide(1.0, array_math.sqrt(t)))
        hyper["beta"] = array_math.subtract(1.0, array_math.pow(t, self.beta_2_decay))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        beta = hyper["beta"]
        alpha = array_math.multiply(array_math.maximum(_rms(var.read_value()), self.epsilon_2),
                                    hyper["rho"])
        g2 = array_math.add(array_math.square(grad), self.epsilon_1)
        if "r" in slots:
            r = _average(slots["r"], array_math.reduce_mean(g2, axis=-1), beta)
            c = _average(slots["c"], array_math.reduce_mean(g2, axis=-2), beta)
            row = array_math.divide(r, array_math.reduce_mean(r, axis=-1, keepdims=True))
            v = array_math.multiply(array_math.expand_dims(row, -1), array_math.expand_dims(c, -2))
            slots["velocity"].assign(v)
        else:
            v = _average(slots["velocity"], g2, beta)
        u = array_math.divide(grad, array_math.sqrt(v))
        u = array_math.divide(u, array_math.maximum(array_math.divide(_rms(u), self.clip_threshold),
                                                    1.0))
        var.assign_sub(array_math.multiply(u, alpha))


def _rms(x):
    return array_math.sqrt(array_math.reduce_mean(array_math.square(x)))


def _average(slot: Variable, value, beta):
    """Assigns `beta * slot + (1 - beta) * value` to `slot` and returns it."""
    new = array_math.add(array_math.multiply(slot, beta),
                         array_math.multiply(value, array_math.subtract(1.0, beta)))
    slot.assign(new)
    return new
