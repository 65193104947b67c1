"""Schedule-free AdamW (Defazio et al., 2024): Adam's normalized step on a sequence z (slot
"momentum", starting at the variable), the variable kept at the interpolation of z and the
running average x of z."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_math
from ..ops.core import constant
from ..ops.variables import Variable
from .base import Hyper, Optimizer
from .numbers import real_number


class ScheduleFreeAdamW(Optimizer):
    """With t the step number (from 1), z ("momentum") starting at the variable y and v
    ("velocity") at zero, lr ramped up linearly over `warmup_steps`:

        v = beta_2 * v + (1 - beta_2) * grad ** 2
        z = z - lr * grad / (sqrt(v / (1 - beta_2 ** t)) + epsilon)
        x = (y - (1 - beta_1) * z) / beta_1;  x = (1 - 1/t) * x + z / t
        y = (1 - beta_1) * z + beta_1 * x

    x is recovered from the updated z, as Keras 3.15 computes it on TensorFlow (the paper
    uses the z before the step); weight decay uses the learning rate without the warmup.
    """

    def __init__(self, learning_rate: Hyper = 0.0025, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-8, warmup_steps: int = 0, name: str | None = None,
                 **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`, `use_ema`, ...); any other keyword raises
        `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        self.beta_1 = real_number(type(self).__name__, "beta_1", beta_1)
        self.beta_2 = real_number(type(self).__name__, "beta_2", beta_2)
        self.epsilon = real_number(type(self).__name__, "epsilon", epsilon)
        self.warmup_steps = warmup_steps
        self._slot_names = ("momentum", "velocity")

    def _initial_slot(self, var: Variable, name: str) -> np.ndarray | None:
        if name == "momentum":  # z starts at the variable, as Keras's build copies it
            return np.array(var.numpy(), var.dtype.as_numpy_dtype)
        return super()._initial_slot(var, name)

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        t = array_math.cast(array_math.add(self.iterations, 1), dtype)
        hyper["t"] = t
        hyper["b2_power"] = array_math.pow(constant(self.beta_2, dtype), t)
        hyper["step_lr"] = hyper["learning_rate"]  # weight decay keeps the plain rate
        if self.warmup_steps > 0:
            ramp = array_math.minimum(array_math.divide(t, float(self.warmup_steps)), 1.0)
            hyper["step_lr"] = array_math.multiply(hyper["learning_rate"], ramp)
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        z, v = slots["momentum"], slots["velocity"]
        v.assign_add(array_math.multiply(array_math.subtract(array_math.square(grad), v),
                                         1 - self.beta_2))
        denom = array_math.add(array_math.sqrt(array_math.divide(
            v, array_math.subtract(1.0, hyper["b2_power"]))), self.epsilon)
        z.assign_sub(array_math.divide(array_math.multiply(hyper["step_lr"], grad), denom))
        weight = array_math.divide(1.0, hyper["t"])
        # x from the updated z, as Keras 3.15 on TensorFlow reads it (its "momentum_old" is
        # the variable itself, read after the update)
        x = array_math.divide(array_math.subtract(var.read_value(),
                                                  array_math.multiply(z.read_value(),
                                                                      1 - self.beta_1)),
                              self.beta_1)
        x = array_math.add(array_math.multiply(array_math.subtract(1.0, weight), x),
                           array_math.multiply(weight, z.read_value()))
        var.assign(array_math.add(array_math.multiply(z.read_value(), 1 - self.beta_1),
                                  array_math.multiply(x, self.beta_1)))
