"""Layers that merge a list of inputs: Concatenate, Add, Subtract, Multiply, Average,
Maximum, Minimum, Dot, and their functional forms (`add([a, b])`, `concatenate`, ...), which
build the layer and call it.

Elementwise merges broadcast as Keras's do: inputs of lower rank get axes of size 1 inserted
after the batch axis, then the usual broadcasting applies."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..ops import array_math, linalg
from ..ops.core import convert_to_tensor
from ..shapes import TensorShape
from .base import Layer


def _inputs(layer: Layer, inputs, least: int = 1) -> list:
    """The inputs as tensors of one dtype (Keras's promotion, see `_merged_dtype`)."""
    if not isinstance(inputs, (list, tuple)) or len(inputs) < least:
        raise ValueError(f"{layer.name} needs a list of at least {least} inputs, got "
                         f"{type(inputs).__name__}.")
    xs = [convert_to_tensor(x) for x in inputs]
    dtype = _merged_dtype([x.dtype for x in xs])
    return [x if x.dtype == dtype else array_math.cast(x, dtype) for x in xs]


def _merged_dtype(dtypes: list) -> _dtypes.DType:
    """The dtype Keras 3's ops give a merge of these dtypes: the widest floating dtype when
    there is one (integers join floats without widening them: int64 and float32 make
    float32), else NumPy's promotion of the integers and booleans (int32 and int64 make
    int64, uint8 and int8 int16)."""
    if len(set(dtypes)) == 1:
        return dtypes[0]
    floats = [d for d in dtypes if d.is_floating]
    chosen = floats or [d for d in dtypes if d.is_integer] or dtypes
    return _dtypes.as_dtype(np.result_type(*[d.as_numpy_dtype for d in chosen]))


def _same_rank(xs: list) -> list:
    """Inputs of lower rank with axes of size 1 inserted after the batch axis (Keras's
    rule), so that they broadcast against the others."""
    ranks = [x.shape.rank for x in xs]
    if None in ranks or len(set(ranks)) == 1:
        return xs
    top = max(ranks)
    out = []
    for x, rank in zip(xs, ranks):
        for _ in range(top - rank):
            x = array_math.expand_dims(x, 1)
        out.append(x)
    return out


def _shapes(layer: Layer, input_shape) -> list[list]:
    """The inputs' shapes as lists of dims (ValueError unless a list of shapes)."""
    if not isinstance(input_shape, (list, tuple)) or not input_shape or \
            not all(isinstance(s, (list, tuple, TensorShape)) for s in input_shape):
        raise ValueError(f"{layer.name}: a merge layer takes a list of input shapes, got "
                         f"input_shape={input_shape!r}.")
    return [TensorShape(s).as_list() for s in input_shape]


def _broadcast_dims(layer: Layer, a: list, b: list) -> list:
    """Keras's elementwise output dims of two non-batch shapes (aligned on the right)."""
    if len(a) < len(b):
        a, b = b, a
    out = list(a[:len(a) - len(b)])
    for i, j in zip(a[len(a) - len(b):], b):
        if i is None or j is None:
            out.append(None)
        elif i == 1 or j == 1 or i == j:
            out.append(j if i == 1 else i)
        else:
            raise ValueError(f"{layer.name}: inputs have incompatible shapes {a} and {b}.")
    return out


def _step_mask(mask, x):
    """A `[batch, steps]` mask broadcast to `x`'s shape (its last axis added), or None."""
    if mask is None:
        return None
    m = array_math.cast(convert_to_tensor(mask), "bool")
    if m.shape.rank is not None and x.shape.rank is not None and m.shape.rank < x.shape.rank:
        m = array_math.expand_dims(m, -1)
    return array_math.logical_or(m, array_math.zeros_like(x, dtype="bool"))


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

    def _merge_masked(self, xs: list, masks: list):
        """The merge of inputs with masks (one per input, None for none); by default the
        masks do not change the values."""
        return self._merge(xs)

    def call(self, inputs, mask=None):
        xs = _same_rank(_inputs(self, inputs))
        if isinstance(mask, (list, tuple)) and len(mask) == len(xs) and \
                any(m is not None for m in mask):
            return self._merge_masked(xs, [_step_mask(m, x) for m, x in zip(mask, xs)])
        return self._merge(xs)

    def compute_output_shape(self, input_shape) -> TensorShape:
        shapes = _shapes(self, input_shape)
        dims = shapes[0][1:]
        for shape in shapes[1:]:
            dims = _broadcast_dims(self, dims, shape[1:])
        batches = {shape[0] for shape in shapes} - {None}
        return TensorShape([batches.pop() if len(batches) == 1 else None, *dims])

    def compute_mask(self, inputs, mask=None):
        if not _check_masks(self, inputs, mask) or any(m is None for m in mask):
            return None
        merged = convert_to_tensor(mask[0])
        for m in mask[1:]:
            merged = array_math.logical_or(merged, convert_to_tensor(m))
        return merged


class Add(_Merge):
    """The elementwise sum of the inputs."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = array_math.add(total, x)
        return total


class Subtract(_Merge):
    """`inputs[0] - inputs[1]` (exactly two inputs)."""

    def _merge(self, xs):
        if len(xs) != 2:
            raise ValueError(f"{self.name} needs exactly 2 inputs, got {len(xs)}.")
        return array_math.subtract(xs[0], xs[1])


class Multiply(_Merge):
    """The elementwise product of the inputs. Masked steps count as 1; when every input has
    a mask, steps masked in all of them are 0 (as in Keras)."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = array_math.multiply(total, x)
        return total

    def _merge_masked(self, xs, masks):
        ones = [x if m is None else array_math.where(m, x, array_math.ones_like(x))
                for x, m in zip(xs, masks)]
        total = self._merge(ones)
        if any(m is None for m in masks):
            return total
        kept = masks[0]
        for m in masks[1:]:
            kept = array_math.logical_or(kept, m)
        return array_math.where(kept, total, array_math.zeros_like(total))


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, xs):
        return array_math.multiply(Add._merge(self, xs), 1.0 / len(xs))


def _fold_masked(op, xs: list, masks: list):
    """`op` folded over the inputs, a masked step taking the other operand's value (so a
    step masked in one input is the other's), as Keras's Maximum and Minimum do."""
    total, total_mask = xs[0], masks[0]
    for x, m in zip(xs[1:], masks[1:]):
        if m is not None:
            x = array_math.where(m, x, total)
        if total_mask is not None:
            total = array_math.where(total_mask, total, x)
        total_mask = None if m is None or total_mask is None else \
            array_math.logical_or(total_mask, m)
        total = op(total, x)
    return total


class Maximum(_Merge):
    """The elementwise maximum of the inputs; a step masked in one input takes the others'
    values."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = array_math.maximum(total, x)
        return total

    def _merge_masked(self, xs, masks):
        return _fold_masked(array_math.maximum, xs, masks)


class Minimum(_Merge):
    """The elementwise minimum of the inputs; a step masked in one input takes the others'
    values."""

    def _merge(self, xs):
        total = xs[0]
        for x in xs[1:]:
            total = array_math.minimum(total, x)
        return total

    def _merge_masked(self, xs, masks):
        return _fold_masked(array_math.minimum, xs, masks)


class Concatenate(_Merge):
    """Joins the inputs along `axis` (the last by default)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = int(axis)

    def call(self, inputs):
        return self._merge(_inputs(self, inputs))

    def _merge(self, xs):
        return array_math.concat(xs, self.axis)

    def compute_output_shape(self, input_shape) -> TensorShape:
        shapes = _shapes(self, input_shape)
        out = list(shapes[0])
        axis = self.axis % len(out)
        for shape in shapes[1:]:
            out[axis] = None if out[axis] is None or shape[axis] is None else \
                out[axis] + shape[axis]
        return TensorShape(out)

    def compute_mask(self, inputs, mask=None):
        """The inputs' masks (all True for an input without one), joined along `axis`
        and reduced with `any` over the last axis, as Keras does."""
        if not _check_masks(self, inputs, mask):
            return None
        parts = []
        for x, m in zip(inputs, mask):
            x = convert_to_tensor(x)
            if m is None:
                parts.append(array_math.ones_like(x, dtype="bool"))
                continue
            m = array_math.cast(m, "bool")
            if m.shape.rank is not None and x.shape.rank is not None \
                    and m.shape.rank < x.shape.rank:
                m = array_math.logical_or(array_math.expand_dims(m, -1),
                                          array_math.zeros_like(x, dtype="bool"))
            parts.append(m)
        return array_math.reduce_any(array_math.concat(parts, self.axis), axis=-1)


class Dot(_Merge):
    """Per-example dot products of two inputs along `axes` (an int, the same axis of both, or
    a pair): Keras's `batch_dot`.

    The output holds the batch axis, then the first input's other axes, then the second's;
    two rank-2 inputs `[batch, n]` give `[batch, 1]`. `normalize=True` L2-normalizes along
    the axes first (cosine similarity).
    """

    def __init__(self, axes, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axes, bool) or not isinstance(axes, (int, list, tuple)):
            raise TypeError(f"Dot: invalid type for argument `axes`: it should be a list or an "
                            f"int, got axes={axes!r}.")
        if isinstance(axes, (list, tuple)) and (
                len(axes) != 2 or not all(isinstance(a, int) for a in axes)):
            raise ValueError(f"Dot: invalid format for argument `axes`: it should hold two "
                             f"ints, got axes={axes!r}.")
        self.axes = axes if isinstance(axes, int) else list(axes)
        self.normalize = bool(normalize)

    def compute_mask(self, inputs, mask=None):
        """None: a dot product has no steps left to mask."""
        return None

    def call(self, inputs):
        xs = _inputs(self, inputs)
        if len(xs) != 2:
            raise ValueError(f"{self.name}: a Dot layer should be called on exactly 2 inputs, "
                             f"got {len(xs)}.")
        return self._merge(xs)

    def _pair(self, x, y) -> tuple[int, int]:
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        ax, ay = (a % t.shape.rank if a < 0 else a for a, t in zip(pair, (x, y)))
        if ax == 0 or ay == 0:
            raise ValueError(f"{self.name}: `axes` cannot include the batch axis, got "
                             f"axes={self.axes!r}.")
        if ax >= x.shape.rank or ay >= y.shape.rank:
            raise ValueError(f"{self.name}: axes={self.axes!r} out of range for inputs of "
                             f"shapes {x.shape} and {y.shape}.")
        dx, dy = x.shape.as_list()[ax], y.shape.as_list()[ay]
        if dx is not None and dy is not None and dx != dy:
            raise ValueError(f"{self.name}: incompatible input shapes: axis values {dx} (at "
                             f"axis {ax}) != {dy} (at axis {ay}); full input shapes: {x.shape}, "
                             f"{y.shape}.")
        return ax, ay

    def compute_output_shape(self, input_shape) -> TensorShape:
        shapes = _shapes(self, input_shape)
        if len(shapes) != 2:
            raise ValueError(f"{self.name}: a Dot layer takes 2 input shapes, got "
                             f"{len(shapes)}.")
        a, b = shapes
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        ax, ay = (p % len(s) for p, s in zip(pair, (a, b)))
        out = [d for i, d in enumerate(a) if i != ax] + \
            [d for i, d in enumerate(b) if i not in (0, ay)]
        return TensorShape(out + [1] if len(out) == 1 else out)

    def _merge(self, xs):
        x, y = xs
        if x.shape.rank is None or y.shape.rank is None or x.shape.rank < 2 or \
                y.shape.rank < 2:
            raise ValueError(f"{self.name}: Dot needs two inputs of known rank >= 2, got shapes "
                             f"{x.shape} and {y.shape}.")
        ax, ay = self._pair(x, y)
        if self.normalize:
            x = _l2_normalize(x, ax)
            y = _l2_normalize(y, ay)
        letters = iter("bcdefghijklmnopqrstuvwxyz")
        batch = next(letters)
        sx = [batch] + [next(letters) for _ in range(x.shape.rank - 1)]
        sy = [batch] + [next(letters) for _ in range(y.shape.rank - 1)]
        sy[ay] = sx[ax]
        rest = [c for i, c in enumerate(sx) if i not in (0, ax)] + \
            [c for i, c in enumerate(sy) if i not in (0, ay)]
        out = linalg.einsum(f"{''.join(sx)},{''.join(sy)}->{batch}{''.join(rest)}", x, y)
        return array_math.expand_dims(out, -1) if not rest else out


def _l2_normalize(x, axis):
    norm = array_math.reduce_sum(array_math.square(x), axis=axis, keepdims=True)
    return array_math.multiply(x, array_math.rsqrt(array_math.maximum(norm, 1e-14)))  # Keras: 1e-7 norm


# -- functional forms: build the layer and call it --------------------------------------------

def add(inputs, **kwargs: Any):
    """`Add(**kwargs)(inputs)`: the elementwise sum of a list of tensors."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs: Any):
    """`Subtract(**kwargs)(inputs)`: `inputs[0] - inputs[1]`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs: Any):
    """`Multiply(**kwargs)(inputs)`: the elementwise product of a list of tensors."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs: Any):
    """`Average(**kwargs)(inputs)`: the elementwise mean of a list of tensors."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs: Any):
    """`Maximum(**kwargs)(inputs)`: the elementwise maximum of a list of tensors."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs: Any):
    """`Minimum(**kwargs)(inputs)`: the elementwise minimum of a list of tensors."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis: int = -1, **kwargs: Any):
    """`Concatenate(axis=axis, **kwargs)(inputs)`: the tensors joined along `axis`."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, **kwargs: Any):
    """`Dot(axes=axes, **kwargs)(inputs)`: per-example dot products of two tensors."""
    return Dot(axes=axes, **kwargs)(inputs)
