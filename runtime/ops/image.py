"""`rt.image`: basic image functions over [height, width, channels] images or
[batch, height, width, channels] batches, composed from existing ops (so they stage, compile
and differentiate like the ops they use).

Pixel conventions follow TensorFlow's documentation: floating-point images hold values in
[0, 1], integer images the full range of their dtype; `resize` samples at pixel centers
(half-pixel centers).
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from .. import dtypes as _dtypes
from .. import errors as _errors
from ..exports import export
from ..tensor import Tensor
from . import array_math
from . import array_scatter as _scatter
from . import nn as _nn
from . import nn_conv as _nn_conv
from . import random as _random
from . import random_stateless as _stateless
from .array_composed import pad as _pad
from .array_composed import slice as _slice
from .core import convert_to_tensor
from .math_composed import saturate_cast


def _image(value, what: str = "image") -> Tensor:
    x = convert_to_tensor(value)
    rank = x.shape.rank
    if rank is not None and rank not in (3, 4):
        raise ValueError(f"`{what}` must be a 3-D image [height, width, channels] or a 4-D "
                         f"batch [batch, height, width, channels], got shape {x.shape}.")
    if rank is None:
        raise ValueError(f"`{what}` must have a known rank (3 or 4).")
    return x


def _hw(x: Tensor, what: str = "image") -> tuple[int, int]:
    dims = x.shape.as_tuple()
    h, w = dims[-3], dims[-2]
    if h is None or w is None:
        raise ValueError(f"`{what}` needs a known height and width, got shape {x.shape}.")
    return h, w


def _max_of(dtype: _dtypes.DType) -> float:
    return float(np.iinfo(dtype.as_numpy_dtype).max)


@export("image.convert_image_dtype")
def convert_image_dtype(image, dtype, saturate: bool = False, name=None) -> Tensor:
    """`image` in `dtype`, rescaled: floats are in [0, 1], integers span their dtype's range
    (uint8 255 is float 1.0; uint8 to uint16 multiplies by 256, as TensorFlow). With
    `saturate`, values are clipped to `dtype`'s range before the cast (else they wrap)."""
    x = convert_to_tensor(image)
    dtype = _dtypes.as_dtype(dtype)
    for what, d in (("image", x.dtype), ("dtype", dtype)):
        if not (d.is_floating or d.is_integer):
            raise TypeError(f"`{what}` must be a floating-point or integer type, got {d.name}.")
    if x.dtype is dtype:
        return x
    if x.dtype.is_floating and dtype.is_floating:
        return array_math.cast(x, dtype)
    if x.dtype.is_integer and dtype.is_floating:
        return array_math.multiply(array_math.cast(x, dtype), np.asarray(1.0 / _max_of(x.dtype), dtype.as_numpy_dtype))
    if x.dtype.is_floating:   # float -> integer: [0, 1] onto [0, max]
        scaled = array_math.multiply(x, np.asarray(_max_of(dtype) + 0.5, x.dtype.as_numpy_dtype))
        if saturate:
            return saturate_cast(scaled, dtype)
        if dtype.as_numpy_dtype().itemsize < 4:   # out of range wraps around, as TF's cast
            scaled = array_math.cast(scaled, _dtypes.int64)
        return array_math.cast(scaled, dtype)
    # integer -> integer, as TensorFlow: divide or multiply by the ratio of the ranges' sizes
    top_in, top_out = (int(np.iinfo(d.as_numpy_dtype).max) for d in (x.dtype, dtype))
    cast = saturate_cast if saturate else array_math.cast
    if top_in > top_out:
        ratio = np.asarray((top_in + 1) // (top_out + 1), x.dtype.as_numpy_dtype)
        return cast(array_math.floordiv(x, ratio), dtype)
    ratio = np.asarray((top_out + 1) // (top_in + 1), dtype.as_numpy_dtype)
    return array_math.multiply(cast(x, dtype), ratio)


def _as_float(x: Tensor) -> tuple[Tensor, _dtypes.DType]:
    """(x as float in [0, 1], its original dtype)."""
    if x.dtype.is_floating:
        return x, x.dtype
    return convert_image_dtype(x, _dtypes.float32), x.dtype


def _back(x: Tensor, dtype: _dtypes.DType) -> Tensor:
    return x if dtype.is_floating else convert_image_dtype(x, dtype, saturate=True)


@export("image.adjust_brightness")
def adjust_brightness(image, delta, name=None) -> Tensor:
    """`image + delta` (computed in floating point for integer images, then converted back)."""
    x, dtype = _as_float(_image(image))
    return _back(array_math.add(x, array_math.cast(convert_to_tensor(delta), x.dtype)), dtype)


@export("image.adjust_contrast")
def adjust_contrast(images, contrast_factor, name=None) -> Tensor:
    """Each channel moved away from (factor > 1) or toward (factor < 1) its mean over height
    and width: `(x - mean) * contrast_factor + mean`."""
    x, dtype = _as_float(_image(images, "images"))
    mean = array_math.reduce_mean(x, axis=[-3, -2], keepdims=True)
    factor = array_math.cast(convert_to_tensor(contrast_factor), x.dtype)
    return _back(array_math.add(array_math.multiply(array_math.subtract(x, mean), factor), mean), dtype)


_GRAY = (0.2989, 0.5870, 0.1140)


@export("image.rgb_to_grayscale")
def rgb_to_grayscale(images, name=None) -> Tensor:
    """The luma of RGB images (weights 0.2989, 0.5870, 0.1140), keeping a channel axis of 1."""
    x = convert_to_tensor(images)
    if x.shape.rank is not None and x.shape.rank < 1 or x.shape.as_tuple()[-1] not in (3, None):
        raise ValueError(f"`images` must have 3 (RGB) channels in the last axis, got shape "
                         f"{x.shape}.")
    f, dtype = _as_float(x)
    weights = np.asarray(_GRAY, f.dtype.as_numpy_dtype)
    gray = array_math.reduce_sum(array_math.multiply(f, weights), axis=-1, keepdims=True)
    return _back(gray, dtype)


@export("image.grayscale_to_rgb")
def grayscale_to_rgb(images, name=None) -> Tensor:
    """Grayscale images (last axis 1) with the channel repeated three times."""
    x = convert_to_tensor(images)
    if x.shape.rank is None or x.shape.rank < 2 or x.shape.as_tuple()[-1] not in (1, None):
        raise ValueError(f"`images` must have 1 channel in the last axis, got shape {x.shape}.")
    return array_math.tile(x, [1] * (x.shape.rank - 1) + [3])


@export("image.flip_left_right")
def flip_left_right(image) -> Tensor:
    """`image` mirrored along its width."""
    return array_math.reverse(_image(image), [-2])


@export("image.flip_up_down")
def flip_up_down(image) -> Tensor:
    """`image` mirrored along its height."""
    return array_math.reverse(_image(image), [-3])


@export("image.transpose")
def transpose(image, name=None) -> Tensor:
    """`image` with height and width swapped."""
    x = _image(image)
    perm = [1, 0, 2] if x.shape.rank == 3 else [0, 2, 1, 3]
    return array_math.transpose(x, perm)


@export("image.rot90")
def rot90(image, k: int = 1, name=None) -> Tensor:
    """`image` rotated counter-clockwise by `k` quarter turns."""
    x = _image(image)
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool):
        raise TypeError(f"`k` must be a Python int, got {k!r}.")
    k = int(k) % 4
    if k == 0:
        return x
    if k == 2:
        return array_math.reverse(x, [-3, -2])
    if k == 1:
        return transpose(array_math.reverse(x, [-2]))
    return array_math.reverse(transpose(x), [-2])


def _size(size) -> tuple[int, int]:
    dims = np.asarray(size.numpy() if isinstance(size, Tensor) else size)
    if dims.shape != (2,) or dims.dtype.kind not in "iu":
        raise ValueError(f"`size` must be a 1-D int32 tensor of 2 elements [new_height, "
                         f"new_width], got {size!r}.")
    if (dims <= 0).any():
        raise ValueError(f"`size` must be positive, got {dims.tolist()}.")
    return int(dims[0]), int(dims[1])


def _linear_taps(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lower index, upper index, weight of upper) of each output pixel, half-pixel centers."""
    scale = n_in / n_out
    src = (np.arange(n_out) + 0.5) * scale - 0.5
    low = np.floor(src)
    frac = src - low
    lo = np.clip(low, 0, n_in - 1).astype(np.int64)
    hi = np.clip(np.ceil(src), 0, n_in - 1).astype(np.int64)
    return lo, hi, frac


def _dynamic_taps(x: Tensor, axis: int, n_out: int, nearest: bool = False):
    """`_linear_taps` (or the nearest pixels' indices) for an axis whose size is known only
    when the graph runs (images decoded in a `Dataset.map`), computed with ops."""
    n_in = array_math.shape(x, out_type=_dtypes.int64)[axis]
    scale = array_math.divide(array_math.cast(n_in, _dtypes.float64), float(n_out))
    centers = array_math.add(array_math.range(n_out, dtype=_dtypes.float64), 0.5)
    last = array_math.subtract(n_in, 1)
    if nearest:
        rows = array_math.cast(array_math.floor(array_math.multiply(centers, scale)),
                               _dtypes.int64)
        return array_math.minimum(rows, last)
    src = array_math.subtract(array_math.multiply(centers, scale), 0.5)
    low = array_math.floor(src)

    def index(v):
        return array_math.minimum(array_math.maximum(array_math.cast(v, _dtypes.int64), 0),
                                  last)
    return index(low), index(array_math.ceil(src)), array_math.subtract(src, low)


def _lerp_axis(x: Tensor, axis: int, n_out: int) -> Tensor:
    n_in = x.shape.as_tuple()[axis]
    if n_in is None:
        lo, hi, frac = _dynamic_taps(x, axis, n_out)
    else:
        lo, hi, frac = _linear_taps(n_in, n_out)
    a = _scatter.gather(x, lo, axis=axis)
    b = _scatter.gather(x, hi, axis=axis)
    shape = [1] * x.shape.rank
    shape[axis] = n_out
    if isinstance(frac, Tensor):
        w = array_math.reshape(array_math.cast(frac, x.dtype), shape)
    else:
        w = np.reshape(frac, shape).astype(x.dtype.as_numpy_dtype)
    return array_math.add(a, array_math.multiply(array_math.subtract(b, a), w))


@export("image.resize")
def resize(images, size, method: str = "bilinear", preserve_aspect_ratio: bool = False,
           antialias: bool = False, name=None) -> Tensor:
    """`images` resized to `size` = [new_height, new_width], sampling at pixel centers.

    method "bilinear" (the default; float32 result for non-float input) or "nearest" (keeps
    the dtype). `antialias` is accepted only when downsampling is not asked (or when False);
    `preserve_aspect_ratio` fits the image inside `size`.
    """
    x = _image(images, "images")
    h_out, w_out = _size(size)
    h, w = x.shape.as_tuple()[-3:-1]
    if h is None or w is None:
        return _resize_dynamic(x, h_out, w_out, method, preserve_aspect_ratio, antialias)
    if preserve_aspect_ratio:
        scale = min(h_out / h, w_out / w)
        h_out, w_out = max(1, int(round(h * scale))), max(1, int(round(w * scale)))
    method = str(getattr(method, "value", method)).lower()
    if antialias and (h_out < h or w_out < w) and method != "nearest":
        raise NotImplementedError("resize(antialias=True) when downsampling is not implemented.")
    if method == "bilinear":
        f = x if x.dtype in (_dtypes.float32, _dtypes.float64) else array_math.cast(x, _dtypes.float32)
        return _lerp_axis(_lerp_axis(f, f.shape.rank - 3, h_out), f.shape.rank - 2, w_out)
    if method in ("nearest", "nearest_neighbor"):
        rows = np.minimum(np.floor((np.arange(h_out) + 0.5) * (h / h_out)), h - 1).astype(np.int64)
        cols = np.minimum(np.floor((np.arange(w_out) + 0.5) * (w / w_out)), w - 1).astype(np.int64)
        out = _scatter.gather(x, rows, axis=x.shape.rank - 3)
        return _scatter.gather(out, cols, axis=x.shape.rank - 2)
    raise ValueError(f"`method` must be 'bilinear' or 'nearest', got {method!r}.")


def _resize_dynamic(x: Tensor, h_out: int, w_out: int, method, preserve_aspect_ratio: bool,
                    antialias: bool) -> Tensor:
    """`resize` of images whose height and width are known only when the graph runs."""
    if preserve_aspect_ratio:
        raise ValueError("resize(preserve_aspect_ratio=True) needs the images' height and "
                         f"width known when tracing, got shape {x.shape}.")
    method = str(getattr(method, "value", method)).lower()
    if antialias and method != "nearest":
        raise NotImplementedError("resize(antialias=True) of images of unknown size is not "
                                  "implemented.")
    rank = x.shape.rank
    if method == "bilinear":
        f = x if x.dtype in (_dtypes.float32, _dtypes.float64) else \
            array_math.cast(x, _dtypes.float32)
        return _lerp_axis(_lerp_axis(f, rank - 3, h_out), rank - 2, w_out)
    if method in ("nearest", "nearest_neighbor"):
        out = _scatter.gather(x, _dynamic_taps(x, rank - 3, h_out, nearest=True), axis=rank - 3)
        return _scatter.gather(out, _dynamic_taps(out, rank - 2, w_out, nearest=True),
                               axis=rank - 2)
    raise ValueError(f"`method` must be 'bilinear' or 'nearest', got {method!r}.")


def _window(x: Tensor, top: int, left: int, height: int, width: int) -> Tensor:
    key = (builtins.slice(top, top + height), builtins.slice(left, left + width))
    if x.shape.rank == 4:
        key = (builtins.slice(None),) + key
    return array_math.getitem(x, key)


def _nonneg_ints(**values) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"`{name}` must be an int, got {v!r}.")


@export("image.crop_to_bounding_box")
def crop_to_bounding_box(image, offset_height: int, offset_width: int, target_height: int,
                         target_width: int) -> Tensor:
    """The `target_height` x `target_width` window of `image` whose top-left corner is at
    (`offset_height`, `offset_width`)."""
    x = _image(image)
    _nonneg_ints(offset_height=offset_height, offset_width=offset_width,
                 target_height=target_height, target_width=target_width)
    h, w = _hw(x)
    if offset_height < 0 or offset_width < 0:
        raise ValueError("`offset_height` and `offset_width` must be >= 0.")
    if target_height <= 0 or target_width <= 0:
        raise ValueError("`target_height` and `target_width` must be > 0.")
    if offset_height + target_height > h:
        raise ValueError(f"height must be >= target + offset: {h} < {target_height} + "
                         f"{offset_height}.")
    if offset_width + target_width > w:
        raise ValueError(f"width must be >= target + offset: {w} < {target_width} + "
                         f"{offset_width}.")
    return _window(x, offset_height, offset_width, target_height, target_width)


@export("image.pad_to_bounding_box")
def pad_to_bounding_box(image, offset_height: int, offset_width: int, target_height: int,
                        target_width: int) -> Tensor:
    """`image` placed at (`offset_height`, `offset_width`) in a zero image of
    `target_height` x `target_width`."""
    x = _image(image)
    _nonneg_ints(offset_height=offset_height, offset_width=offset_width,
                 target_height=target_height, target_width=target_width)
    h, w = _hw(x)
    if offset_height < 0 or offset_width < 0:
        raise ValueError("`offset_height` and `offset_width` must be >= 0.")
    after_h, after_w = target_height - offset_height - h, target_width - offset_width - w
    if after_h < 0:
        raise ValueError(f"target_height must be >= offset_height + height: {target_height} < "
                         f"{offset_height} + {h}.")
    if after_w < 0:
        raise ValueError(f"target_width must be >= offset_width + width: {target_width} < "
                         f"{offset_width} + {w}.")
    pads = [[offset_height, after_h], [offset_width, after_w], [0, 0]]
    if x.shape.rank == 4:
        pads = [[0, 0]] + pads
    return _pad(x, pads)


@export("image.resize_with_crop_or_pad")
def resize_with_crop_or_pad(image, target_height: int, target_width: int) -> Tensor:
    """`image` centrally cropped and/or zero-padded to `target_height` x `target_width`."""
    x = _image(image)
    h, w = _hw(x)
    _nonneg_ints(target_height=target_height, target_width=target_width)
    if target_height <= 0 or target_width <= 0:
        raise ValueError("`target_height` and `target_width` must be > 0.")
    crop_h, crop_w = max(h - target_height, 0), max(w - target_width, 0)
    x = crop_to_bounding_box(x, crop_h // 2, crop_w // 2, min(h, target_height),
                             min(w, target_width))
    pad_h, pad_w = max(target_height - h, 0), max(target_width - w, 0)
    return pad_to_bounding_box(x, pad_h // 2, pad_w // 2, target_height, target_width)


@export("image.central_crop")
def central_crop(image, central_fraction: float) -> Tensor:
    """The central `central_fraction` (in (0, 1]) of `image`'s height and width."""
    x = _image(image)
    fraction = float(central_fraction)
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"`central_fraction` must be within (0, 1], got {central_fraction!r}.")
    if fraction == 1.0:
        return x
    h, w = _hw(x)
    top, left = int((h - h * fraction) / 2), int((w - w * fraction) / 2)
    return _window(x, top, left, h - 2 * top, w - 2 * left)


@export("image.per_image_standardization")
def per_image_standardization(image) -> Tensor:
    """Each image scaled to mean 0 and variance 1 over all its pixels and channels: `(x -
    mean) / max(stddev, 1 / sqrt(number of elements))`; float32 for integer input."""
    x = _image(image)
    if not x.dtype.is_floating:
        x = array_math.cast(x, _dtypes.float32)
    dims = x.shape.as_tuple()[-3:]
    if any(d is None for d in dims):
        raise ValueError(f"`image` needs known height, width and channels, got {x.shape}.")
    count = math.prod(dims)
    axes = [-3, -2, -1]
    mean = array_math.reduce_mean(x, axis=axes, keepdims=True)
    centered = array_math.subtract(x, mean)
    std = array_math.sqrt(array_math.reduce_mean(array_math.square(centered), axis=axes, keepdims=True))
    floor = np.asarray(1.0 / math.sqrt(count), x.dtype.as_numpy_dtype)
    return array_math.truediv(centered, array_math.maximum(std, floor))


@export("image.rgb_to_hsv")
def rgb_to_hsv(images, name=None) -> Tensor:
    """RGB (floats in [0, 1], last axis 3) to HSV, each component in [0, 1]."""
    x = convert_to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"`images` must be floating-point, got {x.dtype.name}.")
    r, g, b = array_math.unstack(x, axis=-1)
    value = array_math.reduce_max(x, axis=-1)
    low = array_math.reduce_min(x, axis=-1)
    span = array_math.subtract(value, low)
    safe_v = array_math.where(array_math.greater(value, 0), value, array_math.ones_like(value))
    saturation = array_math.where(array_math.greater(value, 0), array_math.truediv(span, safe_v),
                                  array_math.zeros_like(value))
    safe = array_math.where(array_math.greater(span, 0), span, array_math.ones_like(span))
    hue_r = array_math.truediv(array_math.subtract(g, b), safe)
    hue_g = array_math.add(array_math.truediv(array_math.subtract(b, r), safe), 2.0)
    hue_b = array_math.add(array_math.truediv(array_math.subtract(r, g), safe), 4.0)
    hue = array_math.where(array_math.equal(value, r), hue_r,
                           array_math.where(array_math.equal(value, g), hue_g, hue_b))
    hue = array_math.where(array_math.greater(span, 0), hue, array_math.zeros_like(hue))
    hue = array_math.truediv(hue, 6.0)
    hue = array_math.subtract(hue, array_math.floor(hue))   # wrap negatives into [0, 1)
    return array_math.stack([hue, saturation, value], axis=-1)


@export("image.hsv_to_rgb")
def hsv_to_rgb(images, name=None) -> Tensor:
    """HSV (each component in [0, 1], last axis 3) to RGB."""
    x = convert_to_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"`images` must be floating-point, got {x.dtype.name}.")
    h, s, v = array_math.unstack(x, axis=-1)
    h6 = array_math.multiply(array_math.subtract(h, array_math.floor(h)), 6.0)

    def channel(n):
        k = array_math.floormod(array_math.add(h6, float(n)), 6.0)
        ramp = array_math.minimum(array_math.minimum(k, array_math.subtract(4.0, k)), 1.0)
        return array_math.subtract(v, array_math.multiply(array_math.multiply(v, s), array_math.maximum(ramp, 0.0)))

    return array_math.stack([channel(5), channel(3), channel(1)], axis=-1)


@export("image.adjust_saturation")
def adjust_saturation(image, saturation_factor, name=None) -> Tensor:
    """RGB `image` with its HSV saturation multiplied by `saturation_factor` (clipped to
    [0, 1])."""
    x, dtype = _as_float(_image(image))
    hsv = rgb_to_hsv(x)
    h, s, v = array_math.unstack(hsv, axis=-1)
    factor = array_math.cast(convert_to_tensor(saturation_factor), x.dtype)
    s = array_math.minimum(array_math.maximum(array_math.multiply(s, factor), 0.0), 1.0)
    return _back(hsv_to_rgb(array_math.stack([h, s, v], axis=-1)), dtype)


@export("image.adjust_hue")
def adjust_hue(image, delta, name=None) -> Tensor:
    """RGB `image` with its HSV hue turned by `delta` (in [-1, 1], a fraction of the colour
    circle), in the image's own dtype."""
    if isinstance(delta, (int, float)) and not -1 <= delta <= 1:
        raise ValueError("delta must be in the interval [-1, 1]")
    x, dtype = _as_float(_image(image))
    h, s, v = array_math.unstack(rgb_to_hsv(x), axis=-1)
    h = array_math.floormod(h + array_math.cast(convert_to_tensor(delta), x.dtype), 1.0)
    return _back(hsv_to_rgb(array_math.stack([h, s, v], axis=-1)), dtype)


def _check_hue_delta(max_delta) -> None:
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    _check_delta(max_delta)


@export("image.random_hue")
def random_hue(image, max_delta, seed=None) -> Tensor:
    """`adjust_hue` by a delta drawn uniformly in [-max_delta, max_delta) (max_delta <= 0.5)."""
    _check_hue_delta(max_delta)
    return adjust_hue(image, _uniform([], -max_delta, max_delta, seed, False))


@export("image.stateless_random_hue")
def stateless_random_hue(image, max_delta, seed) -> Tensor:
    """`random_hue` whose delta is a function of `seed` (a pair of ints)."""
    _check_hue_delta(max_delta)
    return adjust_hue(image, _uniform([], -max_delta, max_delta, seed, True))


@export("image.random_saturation")
def random_saturation(image, lower, upper, seed=None) -> Tensor:
    """`adjust_saturation` by a factor drawn uniformly in [lower, upper)."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform([], lower, upper, seed, False))


@export("image.stateless_random_saturation")
def stateless_random_saturation(image, lower, upper, seed) -> Tensor:
    """`random_saturation` whose factor is a function of `seed` (a pair of ints)."""
    _check_range(lower, upper)
    return adjust_saturation(image, _uniform([], lower, upper, seed, True))


_SOBEL_DY = ((-1.0, -2.0, -1.0), (0.0, 0.0, 0.0), (1.0, 2.0, 1.0))


@export("image.sobel_edges")
def sobel_edges(image) -> Tensor:
    """Sobel edge maps of a [batch, height, width, channels] float batch: [..., 2] holding
    the vertical (dy) and horizontal (dx) derivatives, the image mirrored at its borders
    (REFLECT), as TensorFlow's."""
    x = convert_to_tensor(image)
    if x.shape.rank != 4:
        raise ValueError(f"sobel_edges: `image` must be a 4-D batch [batch, height, width, "
                         f"channels], got shape {x.shape}.")
    if not x.dtype.is_floating:
        raise TypeError(f"sobel_edges: `image` must be floating-point, got {x.dtype.name}.")
    h, w = _hw(x)
    padded = _pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")

    def edge(kernel) -> Tensor:
        total = None
        for i in range(3):
            for j in range(3):
                if kernel[i][j]:
                    term = array_math.multiply(padded[:, i:i + h, j:j + w, :], kernel[i][j])
                    total = term if total is None else array_math.add(total, term)
        return total

    dx_kernel = tuple(zip(*_SOBEL_DY))
    return array_math.stack([edge(_SOBEL_DY), edge(dx_kernel)], axis=-1)


@export("image.total_variation")
def total_variation(images, name=None) -> Tensor:
    """The sum of absolute differences of neighbouring pixels (down and across): a scalar
    for one [height, width, channels] image, one value an image for a 4-D batch."""
    x = convert_to_tensor(images)
    if x.shape.rank not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    rows = x[..., 1:, :, :] - x[..., :-1, :, :]
    cols = x[..., :, 1:, :] - x[..., :, :-1, :]
    axes = [-3, -2, -1]
    return array_math.add(array_math.reduce_sum(array_math.abs(rows), axis=axes),
                          array_math.reduce_sum(array_math.abs(cols), axis=axes), name=name)


@export("image.resize_with_pad")
def resize_with_pad(image, target_height: int, target_width: int, method: str = "bilinear",
                    antialias: bool = False) -> Tensor:
    """`image` resized to fit `target_height` x `target_width` keeping its aspect ratio, then
    padded with zeros around it (centred, the odd pixel after), as TensorFlow's."""
    x = _image(image)
    _nonneg_ints(target_height=target_height, target_width=target_width)
    if target_height <= 0 or target_width <= 0:
        raise ValueError(f"resize_with_pad: target_height and target_width must be positive, "
                         f"got {target_height} and {target_width}.")
    h, w = _hw(x)
    ratio = builtins.max(w / target_width, h / target_height)
    new_h = builtins.max(int(math.floor(h / ratio)), 1)
    new_w = builtins.max(int(math.floor(w / ratio)), 1)
    resized = resize(x, [new_h, new_w], method=method, antialias=antialias)
    top = builtins.max(0, (target_height - new_h) // 2)
    left = builtins.max(0, (target_width - new_w) // 2)
    return pad_to_bounding_box(resized, top, left, target_height, target_width)


@export("image.ResizeMethod")
class ResizeMethod:
    """The names of `resize`'s methods, as TensorFlow's `tf.image.ResizeMethod` (this
    runtime implements BILINEAR and NEAREST_NEIGHBOR; the others are refused by `resize`)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


@export("image.random_crop")
def random_crop(value, size, seed=None, name=None) -> Tensor:
    """A block of `size` (one entry per axis of `value`) at a uniformly random offset, as
    TensorFlow's (the offsets drawn as int32 values modulo the room on each axis)."""
    return _crop_at_random(value, size, name, lambda shape: _random.uniform(
        shape, maxval=2 ** 31 - 1, dtype=_dtypes.int32, seed=seed))


def _crop_at_random(value, size, name, draw) -> Tensor:
    """`random_crop` with the offsets' int32 draws made by `draw(shape)`."""
    x = convert_to_tensor(value)
    size_t = convert_to_tensor(size, dtype=_dtypes.int32)
    if x.shape.rank is not None and size_t.shape.as_list() != [x.shape.rank]:
        raise ValueError(f"random_crop: `size` needs one entry per axis of `value` (shape "
                         f"{x.shape}), got shape {size_t.shape}.")
    dims, wanted = x.shape.as_tuple(), _static_ints(size)
    if wanted is not None and None not in dims and any(
            w > d for w, d in zip(wanted, dims)):
        raise _errors.InvalidArgumentError(f"random_crop: Need value.shape >= size, got "
                                           f"{list(dims)} {wanted}.")
    limit = array_math.add(array_math.subtract(array_math.shape(x), size_t), 1)
    offset = array_math.floormod(draw(array_math.shape(limit)), limit)
    if wanted is None:
        return _slice(x, offset, size_t, name=name)
    return array_math.reshape(_slice(x, offset, wanted), wanted, name=name)  # known shape


def _static_ints(value) -> list[int] | None:
    """`value` as a list of ints when it is known now (a list, an array, an eager tensor)."""
    if isinstance(value, Tensor):
        try:
            return [int(v) for v in np.asarray(value.numpy()).ravel()]
        except Exception:  # a symbolic tensor: known when the graph runs
            return None
    return [int(v) for v in np.asarray(value).ravel()]


# -- random adjustments (tf.image.random_* draw from rt.random, stateless_* from their seed) --

def _uniform(shape, minval, maxval, seed, stateless: bool, dtype=_dtypes.float32) -> Tensor:
    if stateless:
        return _stateless.stateless_uniform(shape, seed, minval, maxval, dtype=dtype)
    return _random.uniform(shape, minval, maxval, dtype=dtype, seed=seed)


def _check_delta(max_delta) -> None:
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")


def _check_range(lower, upper) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def _random_flip(image, axis: int, seed, stateless: bool) -> Tensor:
    """Each image (of a batch, each one) mirrored along `axis` with probability 1/2."""
    x = _image(image)
    if x.shape.rank == 3:
        flip = array_math.less(_uniform([], 0.0, 1.0, seed, stateless), 0.5)
        return array_math.where(flip, array_math.reverse(x, [axis]), x)
    batch = array_math.shape(x)[:1]
    draws = _uniform(array_math.concat([batch, [1, 1, 1]], 0), 0.0, 1.0, seed, stateless)
    return array_math.where(array_math.less(draws, 0.5), array_math.reverse(x, [axis]), x)


@export("image.random_brightness")
def random_brightness(image, max_delta, seed=None) -> Tensor:
    """`adjust_brightness` by a delta drawn uniformly in [-max_delta, max_delta)."""
    _check_delta(max_delta)
    return adjust_brightness(image, _uniform([], -max_delta, max_delta, seed, False))


@export("image.stateless_random_brightness")
def stateless_random_brightness(image, max_delta, seed) -> Tensor:
    """`random_brightness` whose delta is a function of `seed` (a pair of ints)."""
    _check_delta(max_delta)
    return adjust_brightness(image, _uniform([], -max_delta, max_delta, seed, True))


@export("image.random_contrast")
def random_contrast(image, lower, upper, seed=None) -> Tensor:
    """`adjust_contrast` by a factor drawn uniformly in [lower, upper)."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform([], lower, upper, seed, False))


@export("image.stateless_random_contrast")
def stateless_random_contrast(image, lower, upper, seed) -> Tensor:
    """`random_contrast` whose factor is a function of `seed` (a pair of ints)."""
    _check_range(lower, upper)
    return adjust_contrast(image, _uniform([], lower, upper, seed, True))


@export("image.random_flip_left_right")
def random_flip_left_right(image, seed=None) -> Tensor:
    """Each image mirrored along its width with probability 1/2."""
    return _random_flip(image, -2, seed, False)


@export("image.stateless_random_flip_left_right")
def stateless_random_flip_left_right(image, seed) -> Tensor:
    """`random_flip_left_right` whose draws are a function of `seed` (a pair of ints)."""
    return _random_flip(image, -2, seed, True)


@export("image.random_flip_up_down")
def random_flip_up_down(image, seed=None) -> Tensor:
    """Each image mirrored along its height with probability 1/2."""
    return _random_flip(image, -3, seed, False)


@export("image.stateless_random_flip_up_down")
def stateless_random_flip_up_down(image, seed) -> Tensor:
    """`random_flip_up_down` whose draws are a function of `seed` (a pair of ints)."""
    return _random_flip(image, -3, seed, True)


@export("image.stateless_random_crop")
def stateless_random_crop(value, size, seed, name=None) -> Tensor:
    """`random_crop` whose offset is a function of `seed` (a pair of ints)."""
    return _crop_at_random(value, size, name, lambda shape: _stateless.stateless_uniform(
        shape, seed, 0, 2 ** 31 - 1, dtype=_dtypes.int32))


# -- structural similarity -----------------------------------------------------------------------

_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _gaussian_window(size: int, sigma: float, channels: int) -> np.ndarray:
    """The normalised size x size Gaussian window, one per channel: [size, size, channels, 1]."""
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = -0.5 * coords ** 2 / sigma ** 2
    g = np.exp(g[:, None] + g[None, :])
    g = (g / g.sum()).astype(np.float32)
    return np.tile(g[:, :, None, None], (1, 1, channels, 1))


def _ssim_images(img1, img2, max_val, fn):
    a, b = convert_to_tensor(img1), convert_to_tensor(img2)
    if a.shape.rank is None or a.shape.rank < 3:
        raise ValueError(f"{fn}: the images must have rank 3 or more ([..., height, width, "
                         f"channels]), got shape {a.shape}.")
    if not a.shape.is_compatible_with(b.shape):
        raise ValueError(f"{fn}: `img1` and `img2` must have one shape, got {a.shape} and "
                         f"{b.shape}.")
    if a.dtype is not b.dtype:
        raise TypeError(f"{fn}: `img1` and `img2` must have one dtype, got {a.dtype.name} and "
                        f"{b.dtype.name}.")
    top = convert_image_dtype(array_math.cast(convert_to_tensor(max_val), a.dtype),
                              _dtypes.float32)
    return convert_image_dtype(a, _dtypes.float32), convert_image_dtype(b, _dtypes.float32), top


def _ssim_per_channel(a, b, top, filter_size, filter_sigma, k1, k2, fn):
    """(the SSIM map's mean over height and width, the contrast-structure part's mean), per
    channel, as TensorFlow's `tf.image.ssim` computes them."""
    dims = a.shape.as_tuple()
    h, w, channels = dims[-3:]
    if None in (h, w, channels):
        raise ValueError(f"{fn}: the images' height, width and channels must be known, got shape "
                         f"{a.shape}.")
    if h < filter_size or w < filter_size:
        raise _errors.InvalidArgumentError(
            f"{fn}: the images ({h}x{w}) must be at least filter_size={filter_size} high and "
            "wide; lower `filter_size`.")
    window = _gaussian_window(int(filter_size), float(filter_sigma), channels)
    lead = dims[:-3]

    def local_mean(x):
        flat = array_math.reshape(x, [-1, h, w, channels])
        y = _nn_conv.depthwise_conv2d(flat, window, [1, 1, 1, 1], "VALID")
        return array_math.reshape(y, [-1 if None in lead else d for d in lead] +
                                  [h - filter_size + 1, w - filter_size + 1, channels]) \
            if lead else array_math.reshape(y, [h - filter_size + 1, w - filter_size + 1,
                                                channels])

    c1 = array_math.square(array_math.multiply(top, k1))
    c2 = array_math.square(array_math.multiply(top, k2))
    mean_a, mean_b = local_mean(a), local_mean(b)
    num0 = array_math.multiply(array_math.multiply(mean_a, mean_b), 2.0)
    den0 = array_math.add(array_math.square(mean_a), array_math.square(mean_b))
    luminance = array_math.divide(array_math.add(num0, c1), array_math.add(den0, c1))
    num1 = array_math.multiply(local_mean(array_math.multiply(a, b)), 2.0)
    den1 = local_mean(array_math.add(array_math.square(a), array_math.square(b)))
    cs = array_math.divide(array_math.add(array_math.subtract(num1, num0), c2),
                           array_math.add(array_math.subtract(den1, den0), c2))
    return luminance, cs


@export("image.ssim")
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False) -> Tensor:
    """The structural similarity index (Wang et al. 2004) of two images or batches [...,
    height, width, channels], as TensorFlow computes it: local means, variances and covariance
    under a `filter_size` Gaussian window of `filter_sigma` (no padding), averaged over height
    and width, then over channels. `max_val` is the images' dynamic range (1.0 for float
    images in [0, 1], 255 for uint8). With `return_index_map` the map itself, averaged over
    channels only. float32 results."""
    a, b, top = _ssim_images(img1, img2, max_val, "ssim")
    luminance, cs = _ssim_per_channel(a, b, top, filter_size, filter_sigma, k1, k2, "ssim")
    index = array_math.multiply(luminance, cs)
    if return_index_map:
        return array_math.reduce_mean(index, axis=-1)
    return array_math.reduce_mean(array_math.reduce_mean(index, axis=[-3, -2]), axis=-1)


@export("image.ssim_multiscale")
def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03) -> Tensor:
    """Multi-scale SSIM (Wang, Simoncelli and Bovik 2003), as TensorFlow computes it: at each
    of len(`power_factors`) scales (each halving height and width by a 2x2 average, after
    padding odd sizes by mirroring), the contrast-structure mean per channel; the last scale
    gives the whole SSIM instead. Each (clipped at 0) is raised to its power factor and the
    product is averaged over channels. The smallest scale must still be `filter_size` wide."""
    a, b, top = _ssim_images(img1, img2, max_val, "ssim_multiscale")
    dims = a.shape.as_tuple()
    lead = dims[:-3]
    images = [a, b]
    parts = []
    for k in range(len(power_factors)):
        if k:
            h, w, c = images[0].shape.as_tuple()[-3:]
            flat = [array_math.reshape(x, [-1, h, w, c]) for x in images]
            if h % 2 or w % 2:
                flat = [_pad(x, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
                        for x in flat]
            down = [_nn_conv.avg_pool2d(x, [2, 2], [2, 2], "VALID") for x in flat]
            size = down[0].shape.as_tuple()[1:]
            images = [array_math.reshape(x, ([-1 if None in lead else d for d in lead]
                                             if lead else []) + list(size)) for x in down]
        luminance, cs = _ssim_per_channel(images[0], images[1], top, filter_size, filter_sigma,
                                          k1, k2, "ssim_multiscale")
        if k < len(power_factors) - 1:
            parts.append(_nn.relu(array_math.reduce_mean(cs, axis=[-3, -2])))
        else:
            whole = array_math.reduce_mean(array_math.multiply(luminance, cs), axis=[-3, -2])
            parts.append(_nn.relu(whole))
    stacked = array_math.stack(parts, axis=-1)
    weights = np.asarray(power_factors, dtype=np.float32)
    product = array_math.reduce_prod(array_math.pow(stacked, weights), axis=-1)
    return array_math.reduce_mean(product, axis=-1)
