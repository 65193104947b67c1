"""Adafactor (Shazeer and Stern, 2018): second moments kept as factored row and column means."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_ops, math_ops, reduce_ops
from ..ops.variable_ops import Variable
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
                 relative_step: bool = True, name: str = "Adafactor", **kwargs: Any) -> None:
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
        t = array_ops.cast(math_ops.add(self.iterations, 1), dtype)
        hyper["rho"] = math_ops.minimum(hyper["learning_rate"],
                                        math_ops.divide(1.0, math_ops.sqrt(t)))
        hyper["beta"] = math_ops.subtract(1.0, math_ops.pow(t, self.beta_2_decay))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        beta = hyper["beta"]
        alpha = math_ops.multiply(math_ops.maximum(_rms(var.read_value()), self.epsilon_2),
                                  hyper["rho"])
        g2 = math_ops.add(math_ops.square(grad), self.epsilon_1)
        if "r" in slots:
            r = _average(slots["r"], reduce_ops.reduce_mean(g2, axis=-1), beta)
            c = _average(slots["c"], reduce_ops.reduce_mean(g2, axis=-2), beta)
            row = math_ops.divide(r, reduce_ops.reduce_mean(r, axis=-1, keepdims=True))
            v = math_ops.multiply(array_ops.expand_dims(row, -1), array_ops.expand_dims(c, -2))
            slots["velocity"].assign(v)
        else:
            v = _average(slots["velocity"], g2, beta)
        u = math_ops.divide(grad, math_ops.sqrt(v))
        u = math_ops.divide(u, math_ops.maximum(math_ops.divide(_rms(u), self.clip_threshold),
                                                1.0))
        var.assign_sub(math_ops.multiply(u, alpha))


def _rms(x):
    return math_ops.sqrt(reduce_ops.reduce_mean(math_ops.square(x)))


def _average(slot: Variable, value, beta):
    """Assigns `beta * slot + (1 - beta) * value` to `slot` and returns it."""
    new = math_ops.add(math_ops.multiply(slot, beta),
                       math_ops.multiply(value, math_ops.subtract(1.0, beta)))
    slot.assign(new)
    return new
