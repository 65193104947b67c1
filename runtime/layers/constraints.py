"""Weight constraints: `constraint(w) -> w'`, Keras 3's constraints.

A layer takes them as `kernel_constraint`, `bias_constraint`, `embeddings_constraint`, ...;
the weight's variable keeps it (`variable.constraint`) and the optimizer assigns
`constraint(variable)` to the variable after each update, as Keras's optimizers do. `get`
turns a name ("max_norm", "non_neg", "unit_norm", "min_max_norm", or a class name), a config
dict, a constraint or a callable into a constraint.
"""

from __future__ import annotations

from typing import Callable

from ..ops import array_math
from ..ops.core import convert_to_tensor
from . import losses as _losses
from . import regularizers as _regularizers


def _epsilon() -> float:
    return _losses._EPSILON  # keras.backend.set_epsilon changes it


def _norms(w, axis):
    return array_math.sqrt(array_math.reduce_sum(array_math.square(w), axis=axis, keepdims=True))


class Constraint:
    """Base class: `constraint(w)` returns the constrained weight (`w` itself here);
    subclasses define `__call__` and `get_config`."""

    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Constraint":
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class MaxNorm(Constraint):
    """Rescales each slice along `axis` whose L2 norm exceeds `max_value` to that norm."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = array_math.clip_by_value(norms, 0.0, float(self.max_value))
        return array_math.multiply(w, array_math.divide(desired,
                                                        array_math.add(norms, _epsilon())))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves each slice's L2 norm along `axis` towards [min_value, max_value]: the new norm
    is rate * clip(norm, min_value, max_value) + (1 - rate) * norm."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        norms = _norms(w, self.axis)
        clipped = array_math.clip_by_value(norms, float(self.min_value), float(self.max_value))
        desired = array_math.add(array_math.multiply(clipped, float(self.rate)),
                                 array_math.multiply(norms, 1.0 - float(self.rate)))
        return array_math.multiply(w, array_math.divide(desired,
                                                        array_math.add(norms, _epsilon())))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


class NonNeg(Constraint):
    """Sets the negative weights to zero."""

    def __call__(self, w):
        w = convert_to_tensor(w)
        zeros = array_math.zeros_like(w)
        return array_math.where(array_math.greater_equal(w, zeros), w, zeros)


class UnitNorm(Constraint):
    """Rescales each slice along `axis` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = convert_to_tensor(w)
        return array_math.divide(w, array_math.add(_norms(w, self.axis), _epsilon()))

    def get_config(self) -> dict:
        return {"axis": self.axis}


_CLASSES = {cls.__name__: cls for cls in (Constraint, MaxNorm, MinMaxNorm, NonNeg, UnitNorm)}
_NAMES: dict[str, Callable[[], Constraint]] = {
    "max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg,
    "unit_norm": UnitNorm, "constraint": Constraint,
}


def serialize(constraint) -> dict:
    """`{"module", "class_name", "config", "registered_name"}` of a constraint."""
    return {"module": "keras.constraints", "class_name": type(constraint).__name__,
            "config": constraint.get_config(), "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None) -> Constraint:
    """The constraint of a `serialize` dict (a class of this module, or of custom_objects)."""
    return _regularizers.from_serialized(config, {**_CLASSES, **(custom_objects or {})},
                                         "constraint")


def get(identifier, argument: str = "constraint"):
    """A constraint (or a callable used as one) for `identifier`, None for None."""
    return _regularizers.resolve(identifier, argument, "constraint", _NAMES, _CLASSES,
                                 Constraint, "max_norm", "weight -> weight")


__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
           "serialize"]
