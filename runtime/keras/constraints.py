"""`keras.constraints`: weight constraints `constraint(w) -> w'` (runtime/layers/constraints.py).

Layers take them (`kernel_constraint=`, `bias_constraint=`, `embeddings_constraint=`, ...)
as objects, names ("max_norm", "non_neg", "unit_norm", "min_max_norm") or callables; the
optimizer applies each to its weight after every update.
"""

from __future__ import annotations

from ..layers.constraints import (
    Constraint,
    MaxNorm,
    MinMaxNorm,
    NonNeg,
    UnitNorm,
    deserialize,
    get,
    serialize,
)

max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
           "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]
