"""Weight and activity penalties: `regularizer(tensor) -> scalar`, Keras 3's regularizers.

Layers take them as `kernel_regularizer`, `bias_regularizer`, `recurrent_regularizer`,
`embeddings_regularizer` and `activity_regularizer`; the penalties are in `layer.losses`
(computed when read) and `fit` / `evaluate` add them to the loss. `get` turns a name
("l1", "l2", "l1_l2", "orthogonal_regularizer", or a class name), a config dict, a
regularizer or a callable into a regularizer.
"""

from __future__ import annotations

import inspect
import math
from typing import Callable

from ..ops import array_math, linalg
from ..ops.core import convert_to_tensor


def _factor(value, name: str) -> float:
    """A non-negative finite float penalty factor (None is 0), else ValueError."""
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            math.isnan(value) or math.isinf(value) or value < 0:
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float, "
                         f"got {name}={value!r}.")
    return float(value)


class Regularizer:
    """Base class: `regularizer(x)` returns the penalty (0 here); subclasses define
    `__call__` and `get_config`."""

    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config().")

    @classmethod
    def from_config(cls, config: dict) -> "Regularizer":
        return cls(**config)

    def __repr__(self) -> str:
        try:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = ""
        return f"{type(self).__name__}({args})"


def _l1(x, factor: float):
    return array_math.multiply(array_math.reduce_sum(array_math.abs(x)), factor)


def _l2(x, factor: float):
    return array_math.multiply(array_math.reduce_sum(array_math.square(x)), factor)


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x ** 2)`."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _factor(l1, "l1")
        self.l2 = _factor(l2, "l2")

    def __call__(self, x):
        x = convert_to_tensor(x)
        penalty = array_math.zeros([], x.dtype)
        if self.l1:
            penalty = array_math.add(penalty, _l1(x, self.l1))
        if self.l2:
            penalty = array_math.add(penalty, _l2(x, self.l2))
        return penalty

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    """`l1 * sum(|x|)`."""

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _factor(0.01 if l1 is None else l1, "l1")

    def __call__(self, x):
        return _l1(convert_to_tensor(x), self.l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(Regularizer):
    """`l2 * sum(x ** 2)`."""

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _factor(0.01 if l2 is None else l2, "l2")

    def __call__(self, x):
        return _l2(convert_to_tensor(x), self.l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """`factor * mean |<u_i, u_j>|` over the pairs i < j of L2-normalised rows
    (`mode="rows"`) or columns (`mode="columns"`) of a rank-2 tensor."""

    def __init__(self, factor: float = 0.01, mode: str = "rows") -> None:
        self.factor = _factor(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(f"Invalid value for argument mode: expected 'rows' or 'columns', "
                             f"got mode={mode!r}.")
        self.mode = mode

    def __call__(self, x):
        x = convert_to_tensor(x)
        if x.shape.rank != 2:
            raise ValueError(f"OrthogonalRegularizer needs a rank-2 tensor, got shape {x.shape}.")
        if self.mode == "columns":
            x = array_math.transpose(x)
        size = x.shape.as_list()[0]
        if size < 2:  # no pairs to penalise (Keras divides 0 by 0 pairs: NaN)
            return array_math.zeros([], x.dtype)
        norms = array_math.sqrt(array_math.maximum(
            array_math.reduce_sum(array_math.square(x), axis=1, keepdims=True), 1e-12))
        unit = array_math.divide(x, norms)
        product = linalg.matmul(unit, unit, transpose_b=True)
        off_diagonal = array_math.multiply(product, array_math.subtract(
            1.0, array_math.eye(size, dtype=x.dtype)))
        pairs = size * (size - 1) / 2
        return array_math.multiply(array_math.reduce_sum(array_math.abs(off_diagonal)),
                                   self.factor * 0.5 / pairs)

    def get_config(self) -> dict:
        return {"factor": self.factor, "mode": self.mode}


_CLASSES = {cls.__name__: cls for cls in (Regularizer, L1, L2, L1L2, OrthogonalRegularizer)}
_NAMES: dict[str, Callable[[], Regularizer]] = {
    "l1": L1, "l2": L2, "l1_l2": lambda: L1L2(l1=0.01, l2=0.01),
    "orthogonal_regularizer": OrthogonalRegularizer, "regularizer": Regularizer,
}


def serialize(regularizer) -> dict:
    """`{"class_name", "config"}` of a regularizer of this module."""
    return {"module": "keras.regularizers", "class_name": type(regularizer).__name__,
            "config": regularizer.get_config(), "registered_name": None}


def from_serialized(config, classes: dict, kind: str):
    """The object a `{"class_name", "config"}` dict describes, its class one of `classes`
    (regularizers' and constraints' `deserialize`)."""
    cls = classes.get(config.get("class_name")) if isinstance(config, dict) else None
    if cls is None or not isinstance(config.get("config", {}), dict):
        raise ValueError(f"Unknown {kind} config {config!r:.200}: the classes are "
                         f"{sorted(classes)}.")
    return cls.from_config(config.get("config", {}))


def resolve(identifier, argument: str, kind: str, names: dict, classes: dict, base: type,
            example: str, signature: str):
    """`get` of regularizers and constraints: None for None, an object for a name (of
    `names` or `classes`), a config dict or a class, a callable as it is."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        make = names.get(identifier) or classes.get(identifier)
        if make is None:
            raise ValueError(f"Unknown {argument} {identifier!r}; known names are "
                             f"{sorted(names)} and {sorted(classes)}, or pass a {kind} "
                             f"object or a callable {signature}.")
        return make()
    if isinstance(identifier, dict):
        return from_serialized(identifier, classes, kind)
    if inspect.isclass(identifier) and issubclass(identifier, base):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"{argument} must be a {kind}, a name such as {example!r}, a callable or "
                     f"None, got {identifier!r:.100}.")


def deserialize(config: dict) -> Regularizer:
    """The regularizer of a `serialize` dict (a class of this module)."""
    return from_serialized(config, _CLASSES, "regularizer")


def get(identifier, argument: str = "regularizer"):
    """A regularizer (or a callable used as one) for `identifier`, None for None."""
    return resolve(identifier, argument, "regularizer", _NAMES, _CLASSES, Regularizer, "l2",
                   "weight -> penalty")


__all__ = ["Regularizer", "L1L2", "L1", "L2", "OrthogonalRegularizer", "get", "serialize",
           "deserialize"]
