"""`keras.regularizers`: weight and activity penalties `regularizer(x) -> scalar`.

Layers take them (`kernel_regularizer=`, `bias_regularizer=`, `recurrent_regularizer=`,
`embeddings_regularizer=`, `activity_regularizer=`) as objects, names ("l1", "l2", "l1_l2")
or callables; the penalties are in `layer.losses` and `fit` / `evaluate` add them to the loss.
"""

from __future__ import annotations

from ..layers.regularizers import (
    L1,
    L1L2,
    L2,
    OrthogonalRegularizer,
    Regularizer,
    deserialize,
    get,
    serialize,
)

l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer

__all__ = ["L1", "L1L2", "L2", "OrthogonalRegularizer", "Regularizer", "deserialize", "get",
           "l1", "l1_l2", "l2", "orthogonal_regularizer", "serialize"]
