"""AdamW: Adam with decoupled weight decay (Loshchilov and Hutter, 2019)."""

from __future__ import annotations

from typing import Any

from .adam import Adam
from .base import Hyper
from .numbers import real_number


class AdamW(Adam):
    """Adam, after first shrinking each variable: `var -= learning_rate * weight_decay * var`."""

    def __init__(self, learning_rate: Hyper = 0.001, weight_decay: float = 0.004,
                 beta_1: float = 0.9, beta_2: float = 0.999, epsilon: float = 1e-7,
                 amsgrad: bool = False, name: str | None = None, **kwargs: Any) -> None:
        real_number(type(self).__name__, "weight_decay", weight_decay)  # None too, as in Keras
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon,
                         amsgrad=amsgrad, name=name, weight_decay=weight_decay, **kwargs)
