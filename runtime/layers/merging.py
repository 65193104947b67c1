"""Layers that merge a list of inputs: Concatenate, Add, Subtract, Multiply, Average,
Maximum, Minimum, Dot."""

from __future__ import annotations

from typing import Any

from ..ops import array_ops, linalg_ops, math_ops, reduce_ops
from ..ops.core import convert_to_tensor
from .base import Layer


def _inputs(layer: Layer, inputs, least: int = 2) -> list:
    if not isinstance(inputs, (list, tuple)) or len(inputs) < least:
        raise ValueError(f"{layer.name} needs a list of at least {least} inputs, got "
                         f"{type(inputs).__name__}.")
    return [convert_to_tensor(x) for x in inputs]


def _check_masks(layer: Layer, inputs, mask) -> bool:
    """Whether `mask` (a list, one per input) holds a mask; ValueError when it does not
    match the inputs."""
    if mask is None:
        return False
    if not isinstance(mask, (list, tuple)) or not isinstance(inputs, (list, tuple)) \
            or len(mask) != len(inputs):
        raise ValueError(f"{layer.name}: `mask` must be a list of one mask (or None) per "
                         f"input, got {mask!r:.100}.")
    return any(m is not None for m in mask)


class _Merge(Layer):
    """A merge of elementwise ops: the output's mask keeps a step where any input's mask
    does, and is None when an input has none (as in Keras)."""

    _passes_masks = True

    def _merge(self, xs: list):
        raise NotImplementedError

    def call(self, inputs):
        return self._merge(_inputs(self, inputs))

    def compute_mask(self, inputs, mask=None):
        if not _check_masks(self, inputs, mask) or any(m is None for m in mask):
            return None
        merged = convert_to_tensor(mask[0])
        for m in mask[1:]:
            merged = math_ops.logical_or(merged, convert_to_tensor(m))
        return merged


class Add(_Merge):
    """The elementwise sum of the inputs."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = math_ops.add(total, x)
        return total


class Subtract(_Merge):
    """`inputs[0] - inputs[1]` (exactly two inputs)."""

    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError(f"{self.name} needs exactly 2 inputs, got {len(xs)}.")
        return math_ops.subtract(xs[0], xs[1])


class Multiply(_Merge):
    """The elementwise product of the inputs."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = math_ops.multiply(total, x)
        return total


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, xs):
        return math_ops.multiply(Add._merge(self, xs), 1.0 / len(xs))


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = math_ops.maximum(total, x)
        return total


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = math_ops.minimum(total, x)
        return total


class Concatenate(_Merge):
    """Joins the inputs along `axis` (the last by default)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _merge(self, xs):
        return array_ops.concat(xs, self.axis)

    def compute_mask(self, inputs, mask=None):
        """The inputs' masks (all True for an input without one), joined along `axis`
        and reduced with `any` over the last axis, as Keras does."""
        if not _check_masks(self, inputs, mask):
            return None
        parts = []
        for x, m in zip(inputs, mask):
            x = convert_to_tensor(x)
            if m is None:
                parts.append(array_ops.ones_like(x, dtype="bool"))
                continue
            m = array_ops.cast(m, "bool")
            if m.shape.rank is not None and x.shape.rank is not None \
                    and m.shape.rank < x.shape.rank:
                m = math_ops.logical_or(array_ops.expand_dims(m, -1),
                                        array_ops.zeros_like(x, dtype="bool"))
            parts.append(m)
        return reduce_ops.reduce_any(array_ops.concat(parts, self.axis), axis=-1)


class Dot(_Merge):
    """Per-example dot products of two inputs along `axes` (an int or a pair).

    Rank-2 inputs `[batch, n]` give `[batch, 1]`; rank-3 inputs contract one axis each and
    give `[batch, m, k]`. `normalize=True` L2-normalizes along the axes first (cosine
    similarity).
    """

    def __init__(self, axes, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        pair = (axes, axes) if isinstance(axes, int) else tuple(axes)
        if len(pair) != 2:
            raise ValueError(f"Dot: `axes` must be an int or a pair of ints, got {axes!r}.")
        self.axes = tuple(int(a) for a in pair)
        self.normalize = bool(normalize)

    def compute_mask(self, inputs, mask=None):
        """None: a dot product has no steps left to mask."""
        return None

    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError(f"{self.name} needs exactly 2 inputs, got {len(xs)}.")
        x, y = xs
        rank = x.shape.rank
        if rank not in (2, 3) or y.shape.rank != rank:
            raise NotImplementedError(f"{self.name}: Dot supports two inputs of rank 2 or 3, "
                                      f"got shapes {x.shape} and {y.shape}.")
        ax, ay = (a % rank for a in self.axes)
        if ax == 0 or ay == 0:
            raise ValueError(f"{self.name}: `axes` cannot include the batch axis, got "
                             f"{self.axes}.")
        if self.normalize:
            x = _l2_normalize(x, ax)
            y = _l2_normalize(y, ay)
        if rank == 2:
            return reduce_ops.reduce_sum(math_ops.multiply(x, y), axis=1, keepdims=True)
        if ax == 1:
            x = array_ops.transpose(x, [0, 2, 1])
        if ay == 2:
            y = array_ops.transpose(y, [0, 2, 1])
        return linalg_ops.matmul(x, y)


def _l2_normalize(x, axis):
    norm = reduce_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(norm, 1e-12)))
