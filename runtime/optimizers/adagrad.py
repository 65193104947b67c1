"""Adagrad: per-variable step sizes from the sum of all squared gradients so far."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import array_math
from .base import Hyper, Optimizer
from .numbers import real_number


class Adagrad(Optimizer):
    """With an accumulator starting at `initial_accumulator_value`:

        accumulator += grad ** 2
        var -= learning_rate * grad / sqrt(accumulator + epsilon)
    """

    def __init__(self, learning_rate: Hyper = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str | None = None, **kwargs: Any) -> None:
        """`kwargs`: the Keras options of `Optimizer` (`clipnorm`, `clipvalue`,
        `global_clipnorm`, `weight_decay`); any other keyword raises `TypeError`."""
        super().__init__(name, {"learning_rate": learning_rate}, **kwargs)
        if not isinstance(initial_accumulator_value, (int, float)) or \
                initial_accumulator_value < 0:
            raise ValueError("Adagrad initial_accumulator_value must be a non-negative number, "
                             f"got {initial_accumulator_value!r}.")
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = real_number(type(self).__name__, "epsilon", epsilon)
        self._slot_names = ("accumulator",)

    def _initial_slot(self, var, name):
        return np.full(var.shape.as_list(), self.initial_accumulator_value,
                       var.dtype.as_numpy_dtype)

    def _update(self, grad, var, slots, hyper) -> None:
        accumulator = slots["accumulator"]
        new_accumulator = array_math.add(accumulator, array_math.square(grad))
        accumulator.assign(new_accumulator)
        var.assign_sub(array_math.divide(array_math.multiply(hyper["learning_rate"], grad),
                                         array_math.sqrt(array_math.add(new_accumulator,
                                                                        self.epsilon))))
