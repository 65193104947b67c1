"""`keras.optimizers`: the runtime's optimizers, `schedules`, and `get`."""

from __future__ import annotations

import sys as _sys

from ..layers.training import get_optimizer
from ..optimizers import (
    SGD,
    Adadelta,
    Adafactor,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Ftrl,
    Lamb,
    Lion,
    LossScaleOptimizer,
    MultiOptimizer,
    Muon,
    Nadam,
    Optimizer,
    OptimizerMap,
    RMSprop,
    ScheduleFreeAdamW,
    schedules,
)
from . import legacy_optimizers as legacy

# `from runtime.keras.optimizers.legacy import Adam` works as it does with tf.keras
_sys.modules.setdefault(f"{__name__}.legacy", legacy)

_BY_NAME = {cls.__name__.lower(): cls for cls in (SGD, Adam, AdamW, RMSprop, Adagrad, Adadelta,
                                                 Adafactor, Adamax, Ftrl, Lamb, Lion, LossScaleOptimizer, Muon,
                                                 MultiOptimizer, Nadam, ScheduleFreeAdamW)}


def get(identifier) -> Optimizer | None:
    """An optimizer from a Keras name ("adam", "SGD", ...: any case, a new optimizer with
    Keras's defaults), a `serialize` dict, or an optimizer (returned as is); None stays None.
    An unknown name is a `ValueError` listing the known ones."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    return get_optimizer(identifier)


def serialize(optimizer: Optimizer) -> dict:
    """`{"class_name", "config"}` of an optimizer."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config: dict) -> Optimizer:
    """The optimizer described by `serialize`'s result."""
    name = config.get("class_name")
    if not isinstance(name, str) or name.lower() not in _BY_NAME:
        raise ValueError(f"Unknown optimizer class {name!r}; known classes are "
                         f"{sorted(cls.__name__ for cls in _BY_NAME.values())}.")
    return _BY_NAME[name.lower()].from_config(config.get("config", {}))


__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adafactor", "Adamax", "Ftrl",
           "Lamb", "Lion", "LossScaleOptimizer", "MultiOptimizer", "OptimizerMap", "Muon", "Nadam",
           "Optimizer", "ScheduleFreeAdamW", "schedules", "get", "serialize", "deserialize", "legacy"]
