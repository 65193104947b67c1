"""Adam (Kingma and Ba, 2015): per-variable step sizes from running moments of the gradient."""

from __future__ import annotations

from typing import Any

from ..arguments import strict_keywords
from ..ops import array_math
from ..ops.core import constant
from .base import Hyper, Optimizer
from .numbers import real_number


class Adam(Optimizer):
    """With t the step number (from 1), m and v slots starting at zero:

        m = beta_1 * m + (1 - beta_1) * grad
        v = beta_2 * v + (1 - beta_2) * grad ** 2
        var -= learning_rate * sqrt(1 - beta_2 ** t) / (1 - beta_1 ** t) * m / (sqrt(v) + epsilon)

    With `amsgrad`, the running maximum of v (slot "vhat") replaces v in the last line.
    """

    def __init__(self, learning_rate: Hyper = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: str | None = None,
                 **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        for label, value in (("beta_1", beta_1), ("beta_2", beta_2)):
            if not isinstance(value, (int, float)) or not 0 <= value < 1:
                raise ValueError(f"Adam {label} must be a number in [0, 1), got {value!r}.")
        self.beta_1 = float(beta_1)
        self.beta_2 = float(beta_2)
        self.epsilon = real_number(type(self).__name__, "epsilon", epsilon)
        self.amsgrad = bool(amsgrad)
        self._slot_names = ("m", "v", "vhat") if amsgrad else ("m", "v")

    def _prepare(self, dtype) -> dict:
        hyper = super()._prepare(dtype)
        t = array_math.cast(array_math.add(self.iterations, 1), dtype)
        b1_power = array_math.pow(constant(self.beta_1, dtype), t)
        b2_power = array_math.pow(constant(self.beta_2, dtype), t)
        hyper["alpha"] = array_math.divide(
            array_math.multiply(hyper["learning_rate"], array_math.sqrt(array_math.subtract(1, b2_power))),
            array_math.subtract(1, b1_power))
        return hyper

    def _update(self, grad, var, slots, hyper) -> None:
        m, v = slots["m"], slots["v"]
        new_m = array_math.add(array_math.multiply(m, self.beta_1),
                               array_math.multiply(grad, 1 - self.beta_1))
        new_v = array_math.add(array_math.multiply(v, self.beta_2),
                               array_math.multiply(array_math.square(grad), 1 - self.beta_2))
        m.assign(new_m)
        v.assign(new_v)
        if self.amsgrad:
            vhat = slots["vhat"]
            new_v = array_math.maximum(vhat, new_v)
            vhat.assign(new_v)
        denom = array_math.add(array_math.sqrt(new_v), self.epsilon)
        var.assign_sub(array_math.divide(array_math.multiply(hyper["alpha"], new_m), denom))


class AdamOptimizer(Adam):
    """Adam under its TF1 name and argument names."""

    @strict_keywords()
    def __init__(self, learning_rate: Hyper = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(learning_rate, beta_1=beta1, beta_2=beta2, epsilon=epsilon, name=name)
