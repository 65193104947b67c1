"""Lion (Chen et al., 2023): steps of fixed size in the sign of an interpolated momentum."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from .base import Hyper, Optimizer
from .numbers import real_number


class Lion(Optimizer):
    """With a slot m ("momentum") starting at zero:

        var -= learning_rate * sign(beta_1 * m + (1 - beta_1) * grad)
        m = beta_2 * m + (1 - beta_2) * grad
    """

    def __init__(self, learning_rate: Hyper = 0.001, beta_1: float = 0.9, beta_2: float = 0.99,
                 name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`.
        `beta_1` must be in (0, 1] (0 would make it SignSGD), as Keras requires."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        self.beta_1 = real_number(type(self).__name__, "beta_1", beta_1)
        self.beta_2 = real_number(type(self).__name__, "beta_2", beta_2)
        if not 0 < self.beta_1 <= 1:
            raise ValueError(f"Lion: `beta_1` must be in (0, 1]; 0 makes the optimizer SignSGD. "
                             f"Received: beta_1={beta_1}.")
        self._slot_names = ("momentum",)

    def _update(self, grad, var, slots, hyper) -> None:
        m = slots["momentum"]
        direction = array_math.sign(array_math.add(array_math.multiply(m, self.beta_1),
                                                   array_math.multiply(grad, 1 - self.beta_1)))
        var.assign_sub(array_math.multiply(direction, hyper["learning_rate"]))
        m.assign(array_math.add(array_math.multiply(m, self.beta_2),
                                array_math.multiply(grad, 1 - self.beta_2)))
