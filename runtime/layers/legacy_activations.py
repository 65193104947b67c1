"""Keras 2's activation layers that `tf.keras` (Keras 3 under TensorFlow) still exports from
its legacy layers: `ThresholdedReLU`."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from .core import _SameShape


class ThresholdedReLU(_SameShape):
    """`x` where `x > theta`, else 0."""

    _passes_masks = True
    _built_at_init = True  # no weights

    def __init__(self, theta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if theta is None:
            raise ValueError(f"Theta of a Thresholded ReLU layer cannot be None, expected a "
                             f"float. Received: {theta}")
        if theta < 0:
            raise ValueError(f"The theta value of a Thresholded ReLU layer should be >=0. "
                             f"Received: {theta}")
        self.theta = float(theta)

    def call(self, inputs):
        inputs = array_math.cast(inputs, self.dtype)
        return inputs * array_math.cast(array_math.greater(inputs, self.theta), self.dtype)
