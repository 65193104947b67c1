"""`keras.regularizers`: weight penalties `regularizer(weight) -> scalar` (add them to your
loss: layers here do not collect losses)."""

from __future__ import annotations

from ..ops import math_ops, reduce_ops


class Regularizer:
    """Base class: `regularizer(weight)` returns the penalty."""

    def __call__(self, weight):
        return 0.0

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Regularizer":
        return cls(**config)


class L1L2(Regularizer):
    """`l1 * sum(|w|) + l2 * sum(w ** 2)`."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, weight):
        penalty = 0.0
        if self.l1:
            penalty = penalty + self.l1 * reduce_ops.reduce_sum(math_ops.abs(weight))
        if self.l2:
            penalty = penalty + self.l2 * reduce_ops.reduce_sum(math_ops.square(weight))
        return penalty

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """`l1 * sum(|w|)`."""

    def __init__(self, l1: float = 0.01) -> None:
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """`l2 * sum(w ** 2)`."""

    def __init__(self, l2: float = 0.01) -> None:
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


l1, l2, l1_l2 = L1, L2, L1L2

__all__ = ["Regularizer", "L1L2", "L1", "L2", "l1", "l2", "l1_l2"]
