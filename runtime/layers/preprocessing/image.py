"""Keras's image preprocessing layers: Resizing, CenterCrop, and the seeded augmentation
layers (RandomFlip, RandomRotation, RandomZoom, RandomTranslation, RandomContrast,
RandomBrightness, RandomCrop), which are the identity at inference (`training=False`).

Images are channels_last batches (N, H, W, C) or single images (H, W, C). Resizing follows
TensorFlow's `tf.image.resize` without antialiasing (half-pixel centers; bicubic is Keys'
kernel with a = -0.5, sampled at 1/1024 steps as TensorFlow's table), as Keras 3 does on the
TensorFlow backend; each method is a separable pair of 1-D weight matrices."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ops import array_math
from ...ops.control_flow import cond
from ...ops.core import convert_to_tensor
from ..base import Layer
from ._common import SeedStream, check_factor, run_numpy

_METHODS = ("nearest", "bilinear", "bicubic", "area")
_FILL_MODES = ("reflect", "wrap", "constant", "nearest")


def _keys(x: np.ndarray, a: float = -0.5) -> np.ndarray:
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x <= 1, near, np.where(x < 2, far, 0.0))


def resize_weights(n: int, m: int, method: str) -> np.ndarray:
    """The (m, n) matrix taking n input samples to m outputs by `method`."""
    scale = n / m
    w = np.zeros((m, n))
    out = np.arange(m)
    if method == "nearest":
        w[out, np.minimum(np.floor((out + 0.5) * scale).astype(int), n - 1)] = 1.0
    elif method == "bilinear":
        src = (out + 0.5) * scale - 0.5
        low = np.floor(src)
        frac = src - low
        np.add.at(w, (out, np.clip(low, 0, n - 1).astype(int)), 1 - frac)
        np.add.at(w, (out, np.clip(low + 1, 0, n - 1).astype(int)), frac)
    elif method == "bicubic":
        src = (out + 0.5) * scale - 0.5
        low = np.floor(src)
        src = low + np.rint((src - low) * 1024) / 1024  # TF reads the kernel from a table
        for tap in (-1, 0, 1, 2):
            index = low + tap
            inside = (index >= 0) & (index <= n - 1)
            weight = _keys(src - index) * inside  # taps outside are dropped, then renormalized
            np.add.at(w, (out, np.clip(index, 0, n - 1).astype(int)), weight)
        w /= w.sum(axis=1, keepdims=True)
    else:  # area: each output averages the input span it covers, partial samples in part
        for o in range(m):
            start, end = o * scale, (o + 1) * scale
            for i in range(int(math.floor(start)), int(math.ceil(end))):
                w[o, min(i, n - 1)] += min(i + 1, end) - max(i, start)
        w /= scale
    return w


def resize_images(images: np.ndarray, height: int, width: int, method: str) -> np.ndarray:
    """A batch (N, H, W, C) resized to (N, height, width, C) in float64."""
    x = np.asarray(images, np.float64)
    wh = resize_weights(x.shape[1], height, method)
    ww = resize_weights(x.shape[2], width, method)
    return np.einsum("oh,nhwc,pw->nopc", wh, x, ww, optimize=True)


def _crop_box(height: int, width: int, target_h: int, target_w: int) -> tuple:
    crop_h = max(min(height, int(width * target_h / target_w)), 1)
    crop_w = max(min(width, int(height * target_w / target_h)), 1)
    top, left = int((height - crop_h) / 2), int((width - crop_w) / 2)
    return top, left, crop_h, crop_w


def _batched(fn):
    """Runs `fn(batch)` on a batch or on one image (given a batch of one)."""
    def run(x):
        x = np.asarray(x)
        if x.ndim == 3:
            return fn(x[None])[0]
        if x.ndim != 4:
            raise ValueError(f"image layers take (height, width, channels) images or batches "
                             f"of them, got an input of shape {x.shape}.")
        return fn(x)
    return run


def _image_shape(shape, height, width):
    if shape.rank is None:
        return None
    dims = shape.as_list()
    return dims[:-3] + [height, width, dims[-1]]


class _ImageLayer(Layer):
    """Channels_last image layers: `data_format` checked, outputs in the layer's dtype."""

    def __init__(self, data_format=None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise NotImplementedError(f"{type(self).__name__}: only "
                                      "data_format='channels_last' is implemented here, got "
                                      f"data_format={data_format!r}.")
        self.data_format = "channels_last"

    def _run(self, fn, inputs, shape):
        dtype = self._dtype.as_numpy_dtype
        return run_numpy(lambda x: _batched(fn)(x).astype(dtype), inputs, self.dtype, shape)


def _check_method(interpolation: str, layer: str, allowed=_METHODS) -> str:
    if interpolation in ("lanczos3", "lanczos5"):
        raise NotImplementedError(f"{layer}: interpolation={interpolation!r} is not "
                                  f"implemented here; use one of {', '.join(allowed)}.")
    if interpolation not in allowed:
        raise ValueError(f"{layer}: `interpolation` must be one of {', '.join(allowed)}, got "
                         f"interpolation={interpolation!r}.")
    return interpolation


class Resizing(_ImageLayer):
    """Resizes images to (height, width) by `interpolation` (bilinear by default; nearest,
    bicubic, area), after a centered crop to the target's aspect ratio
    (`crop_to_aspect_ratio`) or a centered padding with `fill_value` to it
    (`pad_to_aspect_ratio`)."""

    def __init__(self, height, width, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
                 fill_mode: str = "constant", fill_value: float = 0.0, antialias: bool = False,
                 data_format=None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Resizing: only one of `crop_to_aspect_ratio` and "
                             "`pad_to_aspect_ratio` can be True.")
        if antialias:
            raise NotImplementedError("Resizing(antialias=True) is not implemented here.")
        if fill_mode != "constant":
            raise ValueError(f"Resizing: `fill_mode` must be 'constant', got "
                             f"fill_mode={fill_mode!r}.")
        self.height, self.width = int(height), int(width)
        self.interpolation = _check_method(interpolation, "Resizing")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode, self.fill_value, self.antialias = fill_mode, fill_value, False

    def _resize(self, x: np.ndarray) -> np.ndarray:
        height, width = x.shape[1], x.shape[2]
        if self.crop_to_aspect_ratio:
            top, left, h, w = _crop_box(height, width, self.height, self.width)
            x = x[:, top:top + h, left:left + w]
        elif self.pad_to_aspect_ratio:
            pad_h = max(height, int(width * self.height / self.width))
            pad_w = max(width, int(height * self.width / self.height))
            top, left = int((pad_h - height) / 2), int((pad_w - width) / 2)
            padded = np.full((x.shape[0], pad_h, pad_w, x.shape[3]), self.fill_value,
                             np.float64)
            padded[:, top:top + height, left:left + width] = x
            x = padded
        return resize_images(x, self.height, self.width, self.interpolation)

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        return self._run(self._resize, inputs, _image_shape(inputs.shape, self.height,
                                                            self.width))


class CenterCrop(_ImageLayer):
    """The central (height, width) window of each image; an image smaller than the target
    is first resized (bilinear, cropped to the target's aspect ratio), as Keras does."""

    def __init__(self, height, width, data_format=None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        self.height, self.width = int(height), int(width)

    def _crop(self, x: np.ndarray) -> np.ndarray:
        dh, dw = x.shape[1] - self.height, x.shape[2] - self.width
        if dh < 0 or dw < 0:
            top, left, h, w = _crop_box(x.shape[1], x.shape[2], self.height, self.width)
            return resize_images(x[:, top:top + h, left:left + w], self.height, self.width,
                                 "bilinear")
        top, left = dh // 2, dw // 2
        return x[:, top:top + self.height, left:left + self.width]

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        return self._run(self._crop, inputs, _image_shape(inputs.shape, self.height,
                                                          self.width))


# -- augmentation -----------------------------------------------------------------------------
class _RandomLayer(_ImageLayer):
    """Random when training (the default of a direct call, as in Keras 3), the identity (cast
    to the layer's dtype) with `training=False`, in `predict` and `evaluate`."""

    def __init__(self, seed=None, data_format=None, **kwargs: Any) -> None:
        super().__init__(data_format, **kwargs)
        self.seed = seed
        self._stream = SeedStream(seed)

    @property
    def rng(self) -> np.random.Generator:
        return self._stream.rng

    def _augment(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _output_shape(self, shape):
        return shape.as_list() if shape.rank is not None else None

    def call(self, inputs, training=True):
        inputs = convert_to_tensor(inputs)
        shape = self._output_shape(inputs.shape)
        if training is False:
            if type(self)._inference is _RandomLayer._inference:
                return self._identity(inputs)
            return self._run(self._inference, inputs, shape)
        if training is True or training is None:
            return self._run(self._augment, inputs, shape)
        return cond(training, lambda: self._run(self._augment, inputs, shape),
                    lambda: self._run(self._inference, inputs, shape))

    def _inference(self, x: np.ndarray) -> np.ndarray:
        return x

    _keeps_integers = False  # integer images stay integers (RandomGrayscale, as in Keras)

    def _identity(self, inputs):
        """The inference output of a layer whose inference is the identity, as graph ops
        (a saved serving function holds no NumPy call): the inputs in the layer's dtype."""
        if inputs.dtype == self.dtype or (self._keeps_integers and inputs.dtype.is_integer):
            return array_math.identity(inputs)
        return array_math.cast(inputs, self.dtype)


class RandomFlip(_RandomLayer):
    """Flips each image left-right ("horizontal"), up-down ("vertical") or each of them
    ("horizontal_and_vertical", the default), each with probability 1/2."""

    def __init__(self, mode: str = "horizontal_and_vertical", seed=None, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip: `mode` must be 'horizontal', 'vertical' or "
                             f"'horizontal_and_vertical', got mode={mode!r}.")
        self.mode = mode

    def _augment(self, x: np.ndarray) -> np.ndarray:
        x = np.array(x)
        if "horizontal" in self.mode:
            flip = self.rng.uniform(size=len(x)) <= 0.5
            x[flip] = x[flip][:, :, ::-1]
        if "vertical" in self.mode:
            flip = self.rng.uniform(size=len(x)) <= 0.5
            x[flip] = x[flip][:, ::-1]
        return x


def _map_coordinates(coord: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Coordinates outside [0, n-1] mapped by the fill mode (constant keeps them outside)."""
    if mode in ("reflect", "wrap") and n == 1:
        return np.zeros_like(coord)
    if mode == "reflect":
        period = 2 * n
        c = np.mod(coord + 0.5, period) - 0.5  # half-sample symmetric, TF's REFLECT
        c = np.where(c > n - 1, period - 1 - c, c)
        return np.clip(c, 0, n - 1)  # TF clamps the mapped coordinate into the image
    if mode == "wrap":  # TF's WRAP: shifts by whole lengths counted in (n - 1) steps
        low = coord + n * (np.floor(-coord / (n - 1)) + 1)
        high = coord - n * np.floor(coord / (n - 1))
        c = np.where(coord < 0, low, np.where(coord > n - 1, high, coord))
        return np.clip(c, 0, n - 1)
    if mode == "nearest":
        return np.clip(coord, 0, n - 1)
    return coord


def affine_transform(images: np.ndarray, matrices: np.ndarray, interpolation: str,
                     fill_mode: str, fill_value: float) -> np.ndarray:
    """Each output pixel (x, y) of image k reads the input at (a0 x + a1 y + a2,
    b0 x + b1 y + b2), `matrices[k] = [a0, a1, a2, b0, b1, b2]` (TF's projective form)."""
    x = np.asarray(images, np.float64)
    n, h, w, _ = x.shape
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    out = np.empty_like(x)
    for k in range(n):
        a0, a1, a2, b0, b1, b2 = matrices[k]
        sx = _map_coordinates(a0 * xs + a1 * ys + a2, w, fill_mode)
        sy = _map_coordinates(b0 * xs + b1 * ys + b2, h, fill_mode)
        out[k] = _sample(x[k], sx, sy, interpolation, fill_value)
    return out


def _sample(image, sx, sy, interpolation, fill_value):
    h, w = image.shape[:2]

    def read(yi, xi):
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        values = image[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(inside[..., None], values, fill_value)

    if interpolation == "nearest":  # TF rounds half away from zero
        def nearest(c):
            return (np.sign(c) * np.floor(np.abs(c) + 0.5)).astype(int)
        return read(nearest(sy), nearest(sx))
    y0, x0 = np.floor(sy).astype(int), np.floor(sx).astype(int)
    fy, fx = (sy - y0)[..., None], (sx - x0)[..., None]
    top = read(y0, x0) * (1 - fx) + read(y0, x0 + 1) * fx
    bottom = read(y0 + 1, x0) * (1 - fx) + read(y0 + 1, x0 + 1) * fx
    return top * (1 - fy) + bottom * fy


class _TransformLayer(_RandomLayer):
    def __init__(self, fill_mode, interpolation, seed, fill_value, data_format,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        layer = type(self).__name__
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"{layer}: `fill_mode` must be one of "
                                      f"{', '.join(_FILL_MODES)}, got fill_mode={fill_mode!r}.")
        self.fill_mode, self.fill_value = fill_mode, float(fill_value)
        self.interpolation = _check_method(interpolation, layer, ("nearest", "bilinear"))

    def _matrices(self, n: int, h: int, w: int) -> np.ndarray:
        raise NotImplementedError

    def _augment(self, x: np.ndarray) -> np.ndarray:
        matrices = self._matrices(len(x), x.shape[1], x.shape[2])
        return affine_transform(x, matrices, self.interpolation, self.fill_mode,
                                self.fill_value)


class RandomRotation(_TransformLayer):
    """Rotates each image about its center by an angle drawn in
    [lower * 2pi, upper * 2pi] (`factor`: a fraction of a full turn, one number for a
    symmetric range); counter-clockwise for positive angles."""

    def __init__(self, factor, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed=None, fill_value: float = 0.0, data_format=None, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor
        self._range = check_factor(factor, "factor", "RandomRotation")

    def get_config(self) -> dict:  # the (lower, upper) pair, as Keras's
        factor = tuple(self.factor) if isinstance(self.factor, (tuple, list)) else (
            -self.factor, self.factor)
        return {**super().get_config(), "factor": factor}

    def _matrices(self, n: int, h: int, w: int) -> np.ndarray:
        angles = self.rng.uniform(self._range[0], self._range[1], n) * 2 * np.pi
        cos, sin = np.cos(angles), np.sin(angles)
        x_off = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2
        y_off = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2
        return np.stack([cos, -sin, x_off, sin, cos, y_off], axis=1)


class RandomZoom(_TransformLayer):
    """Zooms each image about its center: `height_factor` (and `width_factor`, the same
    draw when None) give the range of -zoom; positive factors zoom out, negative in."""

    def __init__(self, height_factor, width_factor=None, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed=None, fill_value: float = 0.0,
                 data_format=None, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = check_factor(height_factor, "height_factor", "RandomZoom", -1.0)
        self._w = None if width_factor is None else check_factor(width_factor, "width_factor",
                                                                 "RandomZoom", -1.0)

    def _matrices(self, n: int, h: int, w: int) -> np.ndarray:
        zy = 1.0 + self.rng.uniform(self._h[0], self._h[1], n)
        zx = zy if self._w is None else 1.0 + self.rng.uniform(self._w[0], self._w[1], n)
        zero = np.zeros(n)
        return np.stack([zx, zero, (w - 1) / 2 * (1 - zx), zero, zy, (h - 1) / 2 * (1 - zy)],
                        axis=1)


class RandomTranslation(_TransformLayer):
    """Shifts each image by a fraction of its height and width drawn in the factors'
    ranges (positive: down and right)."""

    def __init__(self, height_factor, width_factor, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed=None, fill_value: float = 0.0,
                 data_format=None, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = check_factor(height_factor, "height_factor", "RandomTranslation")
        self._w = check_factor(width_factor, "width_factor", "RandomTranslation")

    def _matrices(self, n: int, h: int, w: int) -> np.ndarray:
        dy = self.rng.uniform(self._h[0], self._h[1], n) * h
        dx = self.rng.uniform(self._w[0], self._w[1], n) * w
        one, zero = np.ones(n), np.zeros(n)
        return np.stack([one, zero, -dx, zero, one, -dy], axis=1)


class RandomContrast(_RandomLayer):
    """Scales each image's deviation from its per-channel mean by a factor drawn in
    [1 - lower, 1 + upper] (`factor`: one number f for (f, f), or the pair), clipped to
    `value_range`."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs: Any) -> None:
        super().__init__(seed, None, **kwargs)
        self.factor, self.value_range = factor, tuple(value_range)
        low, high = check_factor(factor, "factor", "RandomContrast")
        if not isinstance(factor, (int, float)):  # a pair (lower, upper): [1-lower, 1+upper]
            low = -low
        self._range = (max(1.0 + low, 0.0), 1.0 + high)

    def _augment(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float64)
        f = self.rng.uniform(self._range[0], self._range[1], (len(x), 1, 1, 1))
        mean = x.mean(axis=(1, 2), keepdims=True)
        return np.clip((x - mean) * f + mean, *self.value_range)


class RandomBrightness(_RandomLayer):
    """Adds to each image a delta drawn in [lower, upper] times the width of `value_range`
    (factors within [-1, 1]), clipped to `value_range`."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs: Any) -> None:
        super().__init__(seed, None, **kwargs)
        self.factor, self.value_range = factor, tuple(value_range)
        self._range = check_factor(factor, "factor", "RandomBrightness", -1.0)
        if self._range[1] > 1.0:
            raise ValueError(f"RandomBrightness: `factor` must be within [-1, 1], got "
                             f"factor={factor!r}.")

    def _augment(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float64)
        low, high = self.value_range
        delta = self.rng.uniform(self._range[0], self._range[1], (len(x), 1, 1, 1))
        return np.clip(x + delta * (high - low), low, high)


class _RandomSide(_RandomLayer):
    """RandomHeight / RandomWidth (tf.keras's legacy layers): each batch resized along one
    side by a factor drawn in [1 + lower, 1 + upper] (`factor` f: [-f, f]), the other side
    kept; the identity at inference."""

    _AXIS, _LESS = 1, "lesser"  # Keras's two messages differ by this word

    def __init__(self, factor, interpolation: str = "bilinear", seed=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, None, **kwargs)
        lower, upper = factor if isinstance(factor, (tuple, list)) else (-factor, factor)
        if upper < lower:
            raise ValueError(f"`factor` argument cannot have an upper bound {self._LESS} than "
                             f"the lower bound. Received: factor={factor}")
        if lower < -1.0 or upper < -1.0:
            raise ValueError("`factor` argument must have values larger than -1. "
                             f"Received: factor={factor}")
        self.factor, self._bounds = factor, (float(lower), float(upper))
        self.interpolation = _check_method(interpolation, type(self).__name__)

    def _output_shape(self, shape):
        if shape.rank is None:
            return None
        dims = shape.as_list()
        dims[self._AXIS - 4] = None
        return dims

    def _augment(self, x: np.ndarray) -> np.ndarray:
        factor = np.float32(self.rng.uniform(1.0 + self._bounds[0], 1.0 + self._bounds[1]))
        size = int(factor * np.float32(x.shape[self._AXIS]))
        height, width = (size, x.shape[2]) if self._AXIS == 1 else (x.shape[1], size)
        return resize_images(x, height, width, self.interpolation)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("data_format", None)  # Keras's config of these has none
        return config


class RandomHeight(_RandomSide):
    """Resizes each batch to a random height: `factor` 0.2 draws heights from 80% to 120%."""

    _AXIS = 1


class RandomWidth(_RandomSide):
    """Resizes each batch to a random width: `factor` 0.2 draws widths from 80% to 120%."""

    _AXIS, _LESS = 2, "less"


class RandomInvert(_RandomLayer):
    """Inverts each image (`value_range[1] - x`) with a probability drawn for it in
    `factor` (a float f: [0, f]; or a (low, high) pair)."""

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = tuple(factor) if isinstance(factor, (tuple, list)) else (0, factor)
        self.value_range = tuple(value_range)

    def _augment(self, x: np.ndarray) -> np.ndarray:
        probability = self.rng.uniform(self.factor[0], self.factor[1], (len(x), 1, 1, 1))
        invert = self.rng.uniform(size=(len(x), 1, 1, 1)) < probability
        return np.where(invert, self.value_range[1] - np.asarray(x, np.float64), x)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}  # the (low, high) pair, as Keras


class RandomGrayscale(_RandomLayer):
    """Turns each image grey (ITU-R 601 luma, 0.2989 R + 0.587 G + 0.114 B, in every
    channel) with probability `factor`."""

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        if not 0 <= factor <= 1:
            raise ValueError(f"`factor` should be between 0 and 1. Received: factor={factor}")
        self.factor = factor

    def _augment(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x)
        grey = np.tensordot(x.astype(np.float64), [0.2989, 0.5870, 0.1140], axes=([-1], [0]))
        grey = np.broadcast_to(grey[..., None], x.shape)
        if x.dtype.kind in "iu":
            grey = np.round(grey)
        apply = self.rng.uniform(size=(len(x), 1, 1, 1)) < self.factor
        return np.where(apply, grey, x)

    _keeps_integers = True

    def _run(self, fn, inputs, shape):
        if inputs.dtype.is_integer:  # integer images stay integers, as in Keras
            out = inputs.dtype.as_numpy_dtype
            return run_numpy(lambda x: _batched(fn)(x).astype(out), inputs, inputs.dtype, shape)
        return super()._run(fn, inputs, shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("seed", None)  # Keras's config of this layer has no seed
        return config


class AutoContrast(_ImageLayer):
    """Stretches each channel of each image to the whole of `value_range` (its lowest value
    to the range's low end, its highest to the high end), at training and inference."""

    def __init__(self, value_range=(0, 255), **kwargs: Any) -> None:
        super().__init__(None, **kwargs)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError("The `value_range` argument should be a list of two numbers. "
                             f"Received: value_range={value_range}")
        self.value_range = sorted(value_range)

    def call(self, inputs, training=None):
        inputs = convert_to_tensor(inputs)
        return self._run(self._stretch, inputs,
                         inputs.shape.as_list() if inputs.shape.rank is not None else None)

    def _stretch(self, x: np.ndarray) -> np.ndarray:
        original = np.asarray(x, np.float64)
        low_end, high_end = self.value_range
        scaled = (original - low_end) * (255.0 / (high_end - low_end))
        low = scaled.min(axis=(1, 2), keepdims=True)
        high = scaled.max(axis=(1, 2), keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = 255.0 / (high - low)
            out = np.clip(scaled * scale - low * scale, 0.0, 255.0)
        out = out * ((high_end - low_end) / 255.0) + low_end
        return np.where(np.isnan(out), original, out)  # a flat channel stays as it was

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format,
                "value_range": list(self.value_range)}


class RandomCrop(_RandomLayer):
    """A random (height, width) window of each image when training; at inference (or when
    an image is smaller than the target) the image resized to the target after a centered
    crop to its aspect ratio, as Keras 3 does."""

    def __init__(self, height, width, seed=None, data_format=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.height, self.width = int(height), int(width)

    def _output_shape(self, shape):
        return _image_shape(shape, self.height, self.width)

    def _inference(self, x: np.ndarray) -> np.ndarray:
        top, left, h, w = _crop_box(x.shape[1], x.shape[2], self.height, self.width)
        return resize_images(x[:, top:top + h, left:left + w], self.height, self.width,
                             "bilinear")

    def _augment(self, x: np.ndarray) -> np.ndarray:
        dh, dw = x.shape[1] - self.height, x.shape[2] - self.width
        if dh < 0 or dw < 0:
            return self._inference(x)
        top = self.rng.integers(0, dh + 1)
        left = self.rng.integers(0, dw + 1)
        return x[:, top:top + self.height, left:left + self.width]
