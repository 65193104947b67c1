"""More of `tf`, `tf.math`, `tf.linalg`, `tf.nn`, `tf.signal` and `tf.image`, composed of ops.

`accumulate_n`, the mean and sqrt-n segment reductions, `in_top_k`, the broadcast shape
functions, `set_diag` / `tensor_diag` / `tensor_diag_part` / `normalize`,
`depth_to_space` / `space_to_depth`, `fftshift` / `ifftshift` and the YIQ / YUV colour
conversions, `psnr`, `image_gradients` and `adjust_gamma`. None defines an op: each builds its
result from ops every tier runs and differentiates.
"""

from __future__ import annotations

import numbers
from typing import Sequence

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import NAMESPACES, export
from ..graph import constant_value
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor
from . import array_composed as _composed
from . import array_math as _a
from . import array_scatter as _scatter
from . import array_sort as _sort
from . import debugging as _debugging
from . import linalg as _linalg
from . import math_composed as _math
from . import math_special as _special
from .core import convert_to_tensor


def _alias(obj, *names: str) -> None:
    for name in names:
        space, _, attr = name.rpartition(".")
        NAMESPACES.setdefault(space, {})[attr] = obj


def _known(value):
    if isinstance(value, EagerTensor):
        return value.numpy()
    if isinstance(value, Tensor):
        return constant_value(value)
    return np.asarray(value)


# -- sums and segment reductions -------------------------------------------------------------------

@export("math.accumulate_n")
def accumulate_n(inputs: Sequence, shape=None, tensor_dtype=None, name=None) -> Tensor:
    """The elementwise sum of a list of tensors (TensorFlow deprecates it for `add_n`)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("accumulate_n: `inputs` must be a list of at least one Tensor with "
                         "the same dtype and shape.")
    total = _math.add_n(list(inputs), name=name)
    if tensor_dtype is not None and total.dtype is not _dtypes.as_dtype(tensor_dtype):
        raise TypeError(f"accumulate_n: `tensor_dtype` is {_dtypes.as_dtype(tensor_dtype).name} "
                        f"but the inputs are {total.dtype.name}.")
    if shape is not None and not total.shape.is_compatible_with(TensorShape(shape)):
        raise ValueError(f"accumulate_n: `shape` {TensorShape(shape)} does not match the "
                         f"inputs' shape {total.shape}.")
    return total


def _segment_counts(data, segment_ids, num_segments):
    ones = _a.ones_like(segment_ids, dtype=data.dtype)
    counts = _scatter.unsorted_segment_sum(ones, segment_ids, num_segments)
    extra = data.shape.rank - segment_ids.shape.rank if data.shape.rank is not None else 0
    for _ in range(max(extra, 0)):
        counts = _a.expand_dims(counts, -1)
    return counts


@export("math.unsorted_segment_mean")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None) -> Tensor:
    """The mean of the rows of `data` in each segment; an empty segment gives 0."""
    data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    total = _scatter.unsorted_segment_sum(data, segment_ids, num_segments)
    counts = _segment_counts(data, segment_ids, num_segments)
    return _a.divide(total, _a.maximum(counts, _a.ones_like(counts)), name=name)


@export("math.unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None) -> Tensor:
    """The sum of each segment's rows divided by the square root of their number (0 if none)."""
    data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    if not data.dtype.is_floating:
        raise TypeError(f"unsorted_segment_sqrt_n needs floating-point `data`, got "
                        f"{data.dtype.name}.")
    total = _scatter.unsorted_segment_sum(data, segment_ids, num_segments)
    counts = _segment_counts(data, segment_ids, num_segments)
    return _a.divide(total, _a.sqrt(_a.maximum(counts, _a.ones_like(counts))), name=name)


@export("math.in_top_k", "nn.in_top_k")
def in_top_k(targets, predictions, k, name=None) -> Tensor:
    """Whether each row's `targets` class is among its `k` largest `predictions`.

    Classes tied with the k-th value all count as in the top k; a row whose target
    prediction is not finite gives False."""
    predictions, targets = convert_to_tensor(predictions), convert_to_tensor(targets)
    if predictions.shape.rank not in (None, 2) or targets.shape.rank not in (None, 1):
        raise ValueError(f"in_top_k needs `predictions` of rank 2 and `targets` of rank 1, got "
                         f"shapes {predictions.shape} and {targets.shape}.")
    if not targets.dtype.is_integer:
        raise TypeError(f"in_top_k needs integer `targets`, got {targets.dtype.name}.")
    depth = predictions.shape.as_tuple()[-1] if predictions.shape.rank == 2 else None
    mask = _a.cast(_a.one_hot(targets, depth if depth is not None else _a.shape(predictions)[1],
                              dtype=_dtypes.int8), _dtypes.bool_)
    picked = _a.where(mask, predictions, _a.zeros_like(predictions))
    target = _a.reduce_sum(picked, axis=1, keepdims=True)
    above = _a.reduce_sum(_a.cast(_a.greater(predictions, target), _dtypes.int32), axis=1)
    finite = _a.squeeze(_composed.is_finite(target), -1)
    return _a.logical_and(_a.less(above, _a.cast(k, _dtypes.int32)), finite, name=name)


# -- broadcast shapes ------------------------------------------------------------------------------

@export("broadcast_static_shape")
def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The TensorShape two shapes broadcast to; ValueError when they cannot."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    dims = []
    for a, b in zip(((None, *x.as_tuple())[-1:0:-1] + (1,) * max(0, y.rank - x.rank)),
                    ((None, *y.as_tuple())[-1:0:-1] + (1,) * max(0, x.rank - y.rank))):
        if a == 1:
            dims.append(b)
        elif b == 1:
            dims.append(a)
        elif a is None or b is None or a == b:
            dims.append(a if a is not None else b)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}. Two shapes are "
                             "compatible if for each dimension pair they are either equal or one "
                             "of them is 1.")
    return TensorShape(dims[::-1])


@export("broadcast_dynamic_shape")
def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The shape (a 1-D integer tensor) two shapes given as 1-D integer tensors broadcast to."""
    sx, sy = convert_to_tensor(shape_x), convert_to_tensor(shape_y)
    for what, s in (("shape_x", sx), ("shape_y", sy)):
        if not s.dtype.is_integer or s.shape.rank not in (None, 1):
            raise ValueError(f"broadcast_dynamic_shape: `{what}` must be a 1-D integer tensor, "
                             f"got {s.dtype.name} of shape {s.shape}.")
    kx, ky = _known(sx), _known(sy)
    if kx is not None and ky is not None:
        try:
            out = np.broadcast_shapes(tuple(int(d) for d in kx), tuple(int(d) for d in ky))
        except ValueError:
            raise InvalidArgumentError(f"Incompatible shapes: {kx.tolist()} vs. "
                                       f"{ky.tolist()}") from None
        return convert_to_tensor(np.array(out, sx.dtype.as_numpy_dtype))
    zeros = _a.add(_a.zeros(sx, _dtypes.int8), _a.zeros(sy, _dtypes.int8))
    return _a.shape(zeros, out_type=sx.dtype)


# -- diagonals, rank and normalisation ---------------------------------------------------------------

@export("linalg.set_diag")
def set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT") -> Tensor:  # noqa: A002
    """`input` (matrices [..., M, N]) with its main diagonal replaced by `diagonal` ([...,
    min(M, N)]). Only the main diagonal (k=0) is supported."""
    if not (isinstance(k, numbers.Integral) and k == 0):
        raise NotImplementedError(f"set_diag supports the main diagonal only (k=0), got k={k!r}; "
                                  "build other diagonals with rt.linalg.diag(diagonal, k=k).")
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise ValueError(f"set_diag: unknown `align` {align!r}.")
    x, d = convert_to_tensor(input), convert_to_tensor(diagonal)
    dims = x.shape.as_tuple()
    if x.shape.rank is None or x.shape.rank < 2 or None in dims[-2:]:
        raise ValueError(f"set_diag needs matrices of known size as `input`, got shape {x.shape}.")
    m, n = dims[-2:]
    if d.shape.rank is not None and d.shape.as_tuple()[-1] not in (None, min(m, n)):
        raise ValueError(f"set_diag: `diagonal` must have {min(m, n)} elements in its last "
                         f"axis for input of shape {x.shape}, got shape {d.shape}.")
    d = _a.cast(d, x.dtype)
    if n > m:
        d = _composed.pad(d, [[0, 0]] * (d.shape.rank - 1) + [[0, n - m]])
    rows = _a.expand_dims(d, -2)
    mask = _a.cast(_a.eye(m, n), _dtypes.bool_)
    return _a.where(mask, rows, x, name=name)


@export("linalg.tensor_diag")
def tensor_diag(diagonal, name=None) -> Tensor:
    """The tensor of rank 2k whose element [i..., i...] is diagonal[i...], zeros elsewhere."""
    d = convert_to_tensor(diagonal)
    dims = d.shape.as_tuple()
    if d.shape.rank is None or None in dims:
        raise ValueError(f"tensor_diag needs a fully known shape, got {d.shape}.")
    flat = _a.reshape(d, [-1])
    return _a.reshape(_composed.diag(flat), list(dims) * 2, name=name)


@export("linalg.tensor_diag_part")
def tensor_diag_part(input, name=None) -> Tensor:  # noqa: A002
    """The diagonal of a tensor of shape [d1..., d1...]: shape [d1...]."""
    x = convert_to_tensor(input)
    dims = x.shape.as_tuple()
    if x.shape.rank is None or x.shape.rank % 2 or None in dims:
        raise ValueError(f"tensor_diag_part needs a tensor of even rank and known shape, got "
                         f"{x.shape}.")
    half = dims[: len(dims) // 2]
    if tuple(dims[len(dims) // 2:]) != tuple(half):
        raise InvalidArgumentError(f"tensor_diag_part: the shape {x.shape} is not "
                                   "[d1..., d1...].")
    size = int(np.prod(half, dtype=np.int64))
    return _a.reshape(_composed.diag_part(_a.reshape(x, [size, size])), list(half), name=name)


@export("linalg.normalize")
def normalize(tensor, ord="euclidean", axis=None, name=None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """(tensor / norm, norm): the tensor scaled to norm 1 along `axis`, and the norm."""
    x = convert_to_tensor(tensor)
    norm = _composed.norm(x, ord=ord, axis=axis, keepdims=True)
    return _a.divide(x, norm, name=name), norm


_alias(_math.l2_normalize, "linalg.l2_normalize")


# -- space and depth, fft shifts ------------------------------------------------------------------

def _nhwc(x, fn, data_format):
    if data_format != "NHWC":
        raise NotImplementedError(f"{fn} supports data_format='NHWC' only, got {data_format!r}: "
                                  "transpose to NHWC first.")
    dims = x.shape.as_tuple()
    if x.shape.rank != 4 or None in dims[1:]:
        raise ValueError(f"{fn} needs a 4-D NHWC input with known height, width and depth, got "
                         f"shape {x.shape}.")
    return dims


@export("nn.depth_to_space")
def depth_to_space(input, block_size, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """Moves blocks of depth into block_size x block_size spatial blocks (NHWC)."""
    x = convert_to_tensor(input)
    _, h, w, c = _nhwc(x, "depth_to_space", data_format)
    b = int(block_size)
    if b < 2 or c % (b * b):
        raise ValueError(f"depth_to_space: `block_size` must be >= 2 and divide the depth "
                         f"{c} by its square, got {block_size}.")
    y = _a.reshape(x, [-1, h, w, b, b, c // (b * b)])
    y = _a.transpose(y, [0, 1, 3, 2, 4, 5])
    return _a.reshape(y, [-1, h * b, w * b, c // (b * b)], name=name)


@export("nn.space_to_depth")
def space_to_depth(input, block_size, data_format="NHWC", name=None) -> Tensor:  # noqa: A002
    """Moves block_size x block_size spatial blocks into the depth (NHWC)."""
    x = convert_to_tensor(input)
    _, h, w, c = _nhwc(x, "space_to_depth", data_format)
    b = int(block_size)
    if b < 2 or h % b or w % b:
        raise ValueError(f"space_to_depth: `block_size` must be >= 2 and divide height {h} and "
                         f"width {w}, got {block_size}.")
    y = _a.reshape(x, [-1, h // b, b, w // b, b, c])
    y = _a.transpose(y, [0, 1, 3, 2, 4, 5])
    return _a.reshape(y, [-1, h // b, w // b, b * b * c], name=name)


def _shift(x, axes, sign, name):
    x = convert_to_tensor(x)
    if x.shape.rank is None:
        raise ValueError("fftshift needs a tensor of known rank.")
    dims = x.shape.as_tuple()
    axes = list(range(x.shape.rank)) if axes is None else (
        [axes] if isinstance(axes, numbers.Integral) else list(axes))
    if any(dims[a] is None for a in axes):
        raise ValueError(f"fftshift needs the shifted axes known, got shape {x.shape}.")
    shifts = [(dims[a] // 2) if sign > 0 else -(dims[a] // 2) for a in axes]
    return _sort.roll(x, shifts, axes, name=name)


@export("signal.fftshift")
def fftshift(x, axes=None, name=None) -> Tensor:
    """Moves the zero-frequency term to the centre (NumPy's `fft.fftshift`)."""
    return _shift(x, axes, 1, name)


@export("signal.ifftshift")
def ifftshift(x, axes=None, name=None) -> Tensor:
    """The inverse of `fftshift`."""
    return _shift(x, axes, -1, name)


# -- images ---------------------------------------------------------------------------------------

_YIQ = np.array([[0.299, 0.59590059, 0.2115],
                 [0.587, -0.27455667, -0.52273617],
                 [0.114, -0.32134392, 0.31119955]])
_YUV = np.array([[0.299, -0.14714119, 0.61497538],
                 [0.587, -0.28886916, -0.51496512],
                 [0.114, 0.43601035, -0.10001026]])


def _colour(images, kernel, fn, name):
    x = convert_to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn} needs floating-point images, got {x.dtype.name}.")
    if x.shape.rank is not None and x.shape.as_tuple()[-1] not in (None, 3):
        raise ValueError(f"{fn} needs 3 channels in the last axis, got shape {x.shape}.")
    k = convert_to_tensor(kernel.astype(x.dtype.as_numpy_dtype))
    return _linalg.tensordot(x, k, axes=[[-1], [0]], name=name)


@export("image.rgb_to_yiq")
def rgb_to_yiq(images, name=None) -> Tensor:
    """RGB images (floats in [0, 1], channels last) as YIQ."""
    return _colour(images, _YIQ, "rgb_to_yiq", name)


@export("image.yiq_to_rgb")
def yiq_to_rgb(images, name=None) -> Tensor:
    """YIQ images as RGB."""
    return _colour(images, np.linalg.inv(_YIQ), "yiq_to_rgb", name)


@export("image.rgb_to_yuv")
def rgb_to_yuv(images, name=None) -> Tensor:
    """RGB images (floats in [0, 1], channels last) as YUV."""
    return _colour(images, _YUV, "rgb_to_yuv", name)


@export("image.yuv_to_rgb")
def yuv_to_rgb(images, name=None) -> Tensor:
    """YUV images as RGB."""
    return _colour(images, np.linalg.inv(_YUV), "yuv_to_rgb", name)


@export("image.psnr")
def psnr(a, b, max_val, name=None) -> Tensor:
    """The peak signal-to-noise ratio of two batches of images, per image (in dB)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if not a.dtype.is_floating:
        a, b = _a.cast(a, _dtypes.float32), _a.cast(b, _dtypes.float32)
    mse = _a.reduce_mean(_a.square(_a.subtract(a, b)), axis=[-3, -2, -1])
    max_val = _a.cast(max_val, a.dtype)
    ratio = _a.divide(_a.square(max_val), mse)
    return _a.multiply(_a.log(ratio), 10.0 / np.log(10.0), name=name)


@export("image.image_gradients")
def image_gradients(image) -> tuple[Tensor, Tensor]:
    """(dy, dx): forward differences of a batch of NHWC images, zero in the last row / column."""
    x = convert_to_tensor(image)
    if x.shape.rank != 4:
        raise ValueError(f"image_gradients needs a 4-D NHWC tensor, got shape {x.shape}.")
    dy = _a.subtract(x[:, 1:], x[:, :-1])
    dx = _a.subtract(x[:, :, 1:], x[:, :, :-1])
    dy = _composed.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = _composed.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


@export("image.adjust_gamma")
def adjust_gamma(image, gamma=1, gain=1) -> Tensor:
    """`gain * image ** gamma` (integer images scaled to [0, 1] and back)."""
    x = convert_to_tensor(image)
    if isinstance(gamma, numbers.Real) and gamma < 0:
        raise ValueError(f"adjust_gamma: `gamma` must be non-negative, got {gamma}.")
    dtype = x.dtype
    if not dtype.is_floating:
        x = _a.divide(_a.cast(x, _dtypes.float32), float(dtype.max))
    y = _a.multiply(_a.pow(x, _a.cast(gamma, x.dtype)), _a.cast(gain, x.dtype))
    if not dtype.is_floating:  # back as TF's convert_image_dtype(saturate=True) does
        y = _math.saturate_cast(_a.multiply(y, float(dtype.max) + 0.5), dtype)
    return y


# -- names TensorFlow also exports elsewhere -------------------------------------------------------

_alias(_debugging.assert_equal, "assert_equal")
_alias(_debugging.assert_greater, "assert_greater")
_alias(_debugging.assert_less, "assert_less")
_alias(_debugging.assert_rank, "assert_rank")
_alias(_a.cast, "dtypes.cast")
_alias(_dtypes.bool_, "dtypes.bool")
_alias(_dtypes.float16, "half", "dtypes.half")
_alias(_dtypes.float64, "double", "dtypes.double")


# -- windows --------------------------------------------------------------------------------------

def _window_length(window_length, fn) -> int:
    known = _a.static_ints(window_length, f"{fn}: window_length")
    if known is None or len(known) != 1 or known[0] < 0:
        raise ValueError(f"{fn} needs `window_length` as a non-negative int known when tracing, "
                         f"got {window_length!r}.")
    return known[0]


def _float_dtype(dtype, fn):
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{fn}: `dtype` must be a floating type, got {dtype.name}.")
    return dtype


@export("signal.kaiser_window")
def kaiser_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None) -> Tensor:
    """The Kaiser window: I0(beta * sqrt(1 - (2n / (N - 1) - 1)**2)) / I0(beta)."""
    n_total = _window_length(window_length, "kaiser_window")
    dtype = _float_dtype(dtype, "kaiser_window")
    if n_total == 1:
        return _a.ones([1], dtype)
    n = _a.cast(_a.range(n_total), dtype)
    ratio = _a.subtract(_a.multiply(n, 2.0 / (n_total - 1)), 1.0)
    beta = _a.cast(beta, dtype)
    arg = _a.multiply(beta, _a.sqrt(_a.maximum(_a.subtract(1.0, _a.square(ratio)), 0.0)))
    return _a.divide(_special.bessel_i0(arg), _special.bessel_i0(beta), name=name)


@export("signal.kaiser_bessel_derived_window")
def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dtypes.float32,
                                 name=None) -> Tensor:
    """The Kaiser-Bessel-derived window of even length N: the square roots of the running sums
    of a Kaiser window of length N / 2 + 1 over its total, mirrored."""
    n_total = _window_length(window_length, "kaiser_bessel_derived_window")
    if n_total % 2:
        raise ValueError(f"kaiser_bessel_derived_window needs an even `window_length`, got "
                         f"{n_total}.")
    half = n_total // 2
    kaiser = kaiser_window(half + 1, beta, dtype)
    running = _a.cumsum(kaiser[:half])
    rising = _a.sqrt(_a.divide(running, _a.reduce_sum(kaiser)))
    return _a.concat([rising, _a.reverse(rising, [0])], 0, name=name)


@export("signal.vorbis_window")
def vorbis_window(window_length, dtype=_dtypes.float32, name=None) -> Tensor:
    """The Vorbis power-complementary window: sin(pi / 2 * sin(pi * (n + 0.5) / N)**2)."""
    n_total = _window_length(window_length, "vorbis_window")
    dtype = _float_dtype(dtype, "vorbis_window")
    n = _a.cast(_a.range(n_total), dtype)
    inner = _a.sin(_a.multiply(_a.add(n, 0.5), np.pi / n_total))
    return _a.sin(_a.multiply(_a.square(inner), np.pi / 2), name=name)


# -- normalisation --------------------------------------------------------------------------------

@export("nn.weighted_moments")
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None) -> tuple[Tensor, Tensor]:
    """(mean, variance) of `x` over `axes`, each element counted `frequency_weights` times."""
    x = convert_to_tensor(x)
    w = _a.cast(convert_to_tensor(frequency_weights), x.dtype)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    total = _a.reduce_sum(_a.multiply(w, _a.ones_like(x)), axis=axes, keepdims=True)
    mean = _a.divide(_a.reduce_sum(_a.multiply(w, x), axis=axes, keepdims=True), total)
    spread = _a.multiply(w, _a.square(_a.subtract(x, mean)))
    variance = _a.divide(_a.reduce_sum(spread, axis=axes, keepdims=True), total)
    if not keepdims:
        mean, variance = _a.squeeze(mean, axes), _a.squeeze(variance, axes)
    return _a.identity(mean, name=name), variance


@export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,  # noqa: A002
                                 name=None) -> Tensor:
    """input / (bias + alpha * sum of squares over the 2r + 1 nearest channels) ** beta
    (4-D input, channels last)."""
    x = convert_to_tensor(input)
    if x.shape.rank not in (None, 4):
        raise ValueError(f"local_response_normalization needs a 4-D input, got shape {x.shape}.")
    if not x.dtype.is_floating:
        raise TypeError(f"local_response_normalization needs floats, got {x.dtype.name}.")
    r = int(depth_radius)
    squares = _composed.pad(_a.square(x), [[0, 0], [0, 0], [0, 0], [r + 1, r]])
    running = _a.cumsum(squares, axis=3)
    window = _a.subtract(running[..., 2 * r + 1:], running[..., :-(2 * r + 1)])
    scale = _a.pow(_a.add(_a.cast(bias, x.dtype), _a.multiply(_a.cast(alpha, x.dtype), window)),
                   _a.cast(beta, x.dtype))
    return _a.divide(x, scale, name=name)
