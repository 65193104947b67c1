"""Keras 3's colour augmentation layers: RandomHue, RandomSaturation, RandomColorDegeneration,
RandomColorJitter, RandomSharpness, RandomPosterization, Solarization, Equalization and
RandomGaussianBlur, with the base they share with the mixing layers (augmentation_mix).

Each layer draws its transformation from the layer's seeded NumPy generator when training
and is the identity at inference, as Keras's (which of them cast the inputs to the layer's
dtype at inference follows Keras 3.15). A dict input `{"images": ..., "labels": ...}` has
its images and labels transformed by the same draw; segmentation masks and bounding boxes
are refused (NotImplementedError), except by MaxNumBoundingBoxes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..ops import array_math
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..ops.py_function import numpy_function
from ..shapes import TensorSpec
from .preprocessing.image import RandomBrightness, RandomContrast, _RandomLayer

_EPSILON = 1e-7  # keras.config.epsilon()


def factor_range(factor, bounds: tuple, layer: str, argument: str = "factor") -> tuple:
    """Keras's factor: a pair (sorted) or one number f giving (max(-|f|, low), |f|), within
    `bounds`."""
    low, high = bounds
    message = (f"{layer}: the `{argument}` argument should be a number (or a list of two "
               f"numbers) in the range [{low}, {high}]. Received: {argument}={factor}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or factor[0] > high or factor[1] < low:
            raise ValueError(message)
        return tuple(sorted(factor))
    if isinstance(factor, bool) or not isinstance(factor, (int, float)):
        raise ValueError(message)
    if factor < low or factor > high:
        raise ValueError(message)
    factor = abs(factor)
    return (max(-factor, low), factor)


def unit_pair(factor, message: str, low_of) -> tuple:
    """A factor whose given numbers lie in [0, 1]: a pair (sorted), or one number f as
    (low_of(f), f); ValueError(message) otherwise."""
    if isinstance(factor, (tuple, list)) and len(factor) == 2:
        given, pair = tuple(factor), tuple(sorted(factor))
    elif isinstance(factor, (int, float)) and not isinstance(factor, bool):
        given, pair = (factor,), (low_of(factor), abs(factor))
    else:
        raise ValueError(message)
    if not all(0 <= v <= 1 for v in given):
        raise ValueError(message)
    return pair


def value_range_of(value_range, layer: str) -> list:
    """`value_range` checked and sorted, as Keras keeps it."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(f"{layer}: the `value_range` argument should be a list of two "
                         f"numbers. Received: value_range={value_range}")
    return sorted(value_range)


def rescale(x: np.ndarray, source, target) -> np.ndarray:
    """Values taken linearly from the range `source` to the range `target`."""
    if source[0] == target[0] and source[1] == target[1]:
        return x
    return (x - source[0]) / (source[1] - source[0]) * (target[1] - target[0]) + target[0]


def rgb_to_hsv(x: np.ndarray) -> np.ndarray:
    """RGB on the last axis to (hue in [0, 1), saturation, value), as tf.image.rgb_to_hsv."""
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    value = x.max(axis=-1)
    span = value - x.min(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        saturation = np.where(value > 0, span / np.where(value > 0, value, 1), 0.0)
        safe = np.where(span > 0, span, 1)
        hue = np.where(value == r, (g - b) / safe,
                       np.where(value == g, (b - r) / safe + 2, (r - g) / safe + 4))
    hue = np.where(span > 0, hue / 6.0, 0.0)
    hue = hue - np.floor(hue)
    return np.stack([hue, saturation, value], axis=-1)


def hsv_to_rgb(x: np.ndarray) -> np.ndarray:
    """The inverse of `rgb_to_hsv`."""
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    h6 = (h - np.floor(h)) * 6.0

    def channel(n):
        k = np.mod(h6 + n, 6.0)
        return v - v * s * np.maximum(np.minimum(np.minimum(k, 4.0 - k), 1.0), 0.0)

    return np.stack([channel(5), channel(3), channel(1)], axis=-1)


def depthwise_same(x: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Each channel of the batch (N, H, W, C) convolved (correlated) with the 2-D `kernel`,
    zeros outside the image ("SAME" padding, the extra row or column after)."""
    kh, kw = kernel.shape
    top, left = (kh - 1) // 2, (kw - 1) // 2
    padded = np.pad(x, ((0, 0), (top, kh - 1 - top), (left, kw - 1 - left), (0, 0)))
    h, w = x.shape[1], x.shape[2]
    out = np.zeros(x.shape, np.float64)
    for i in range(kh):
        for j in range(kw):
            out += kernel[i, j] * padded[:, i:i + h, j:j + w]
    return out


def _check_rank(x: np.ndarray) -> None:
    if x.ndim not in (3, 4):
        raise ValueError("Expected the input image to be rank 3 or 4. Received: "
                         f"inputs.shape={x.shape}")


class Augmentation(_RandomLayer):
    """The base of the Keras 3 augmentation layers here: `_draw(batch)` makes one random
    transformation (a dict), `_images(batch, t)` applies it to images and `_labels(y, t)`
    to labels (unchanged by default)."""

    _cast_at_inference = False  # Keras returns the inputs as they are (True: in its dtype)

    def _draw(self, x: np.ndarray) -> dict:
        return {}

    def _images(self, x: np.ndarray, t: dict) -> np.ndarray:
        raise NotImplementedError

    def _labels(self, y: np.ndarray, t: dict) -> np.ndarray:
        return y

    def _augment(self, x: np.ndarray) -> np.ndarray:
        return self._images(x, self._draw(x))

    def _identity(self, inputs):
        if self._cast_at_inference and inputs.dtype != self.dtype:
            return array_math.cast(inputs, self.dtype)
        return array_math.identity(inputs)

    def call(self, inputs, training=True):
        if isinstance(inputs, dict):
            return self._call_dict(inputs, training)
        return super().call(inputs, training)

    _label_dtype = None  # the dtype of transformed labels (None: the labels' own)

    def _call_dict(self, data: dict, training):
        unknown = sorted(set(data) - {"images", "labels"})
        if unknown or "images" not in data:
            raise NotImplementedError(
                f"{type(self).__name__}: dict inputs with the keys 'images' and 'labels' are "
                f"implemented here; got the keys {sorted(data)} ('bounding_boxes' and "
                "'segmentation_masks' are not implemented).")
        images = convert_to_tensor(data["images"])
        if "labels" not in data:
            return {"images": self.call(images, training)}
        labels = convert_to_tensor(data["labels"])
        label_dtype = _dtypes.as_dtype(self._label_dtype or labels.dtype)
        image_dtype = self._dtype.as_numpy_dtype

        def augment(x, y):
            single = x.ndim == 3
            batch = x[None] if single else x
            _check_rank(batch)
            t = self._draw(batch)
            out = self._images(batch, t).astype(image_dtype)
            y = self._labels(np.asarray(y), t).astype(label_dtype.as_numpy_dtype)
            return (out[0] if single else out), y

        def run():
            out = numpy_function(augment, [images, labels],
                                 [TensorSpec(images.shape, self.dtype),
                                  TensorSpec(labels.shape, label_dtype)])
            return {"images": out[0], "labels": out[1]}

        def keep():
            return {"images": self._identity(images), "labels": array_math.identity(labels)}

        if training is False:
            return keep()
        if training is True or training is None:
            return run()
        return cond(training, run, keep)

    def compute_output_shape(self, input_shape):
        return input_shape


class _ColorLayer(Augmentation):
    """A colour layer with Keras's `factor` (within `_BOUNDS`) and `value_range`."""

    _BOUNDS = (-1, 1)
    _SORT_RANGE = True  # Keras keeps value_range sorted (a list) for most of these

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        name = type(self).__name__
        self.factor = factor_range(factor, self._BOUNDS, name)
        self.value_range = (value_range_of(value_range, name) if self._SORT_RANGE
                            else value_range)

    def _uniform(self, n: int, shape=()) -> np.ndarray:
        return self.rng.uniform(self.factor[0], self.factor[1], (n,) + shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range}


class RandomHue(_ColorLayer):
    """Turns each image's hue by a fraction of the colour circle: a factor f drawn in
    `factor` (one number f: [0, f]; within [0, 1]), half of it, with a random sign."""

    _BOUNDS, _SORT_RANGE = (0, 1), False

    def _draw(self, x):
        sign = np.where(self.rng.uniform(size=len(x)) > 0.5, -1.0, 1.0)
        return {"delta": sign * self._uniform(len(x)) * 0.5}

    def _images(self, x, t):
        hsv = rgb_to_hsv(rescale(np.asarray(x, np.float64), self.value_range, (0, 1)))
        hue = hsv[..., 0] + t["delta"][:, None, None]
        hue = np.where(hue > 1.0, hue - 1.0, np.where(hue < 0.0, hue + 1.0, hue))
        rgb = np.clip(hsv_to_rgb(np.stack([hue, hsv[..., 1], hsv[..., 2]], axis=-1)), 0, 1)
        return rescale(rgb, (0, 1), self.value_range)


class RandomSaturation(_ColorLayer):
    """Multiplies each image's saturation by f / (1 - f) for f drawn in `factor` (0.5 keeps
    it, 0 makes the image grey, 1 saturates it), clipped to `value_range` as Keras does."""

    def _draw(self, x):
        f = self._uniform(len(x))
        return {"factor": f / (1 - f + _EPSILON)}

    def _images(self, x, t):
        hsv = rgb_to_hsv(np.asarray(x, np.float64))
        s = np.clip(hsv[..., 1] * t["factor"][:, None, None], *self.value_range)
        return hsv_to_rgb(np.stack([hsv[..., 0], s, hsv[..., 2]], axis=-1))


class RandomColorDegeneration(_ColorLayer):
    """Blends each image toward its greyscale version by a weight drawn in `factor`
    (0: unchanged, 1: grey), clipped to `value_range`."""

    _cast_at_inference = False

    def _draw(self, x):
        return {"factor": self._uniform(len(x), (1, 1, 1))}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        grey = np.tensordot(x, [0.2989, 0.5870, 0.1140], axes=([-1], [0]))[..., None]
        return np.clip(x + t["factor"] * (grey - x), *self.value_range)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if len(shape) not in (3, 4):
            raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 "
                             f"(batch of images). Received: input_shape={input_shape}")
        if shape[-1] is not None and shape[-1] != 3:
            raise ValueError("Input images must have 3 channels, but received images with "
                             f"{shape[-1]} channels.")
        return input_shape


class RandomSharpness(_ColorLayer):
    """Blends each image with its 3x3 smoothed version (centre weight 5/13, neighbours
    1/13): weight 1 - 2f for f drawn in `factor` within [0, 1] (f = 0.5 keeps it, larger
    sharpens), clipped to `value_range`."""

    _BOUNDS, _cast_at_inference = (0, 1), True
    _KERNEL = np.array([[1, 1, 1], [1, 5, 1], [1, 1, 1]]) / 13.0

    def _draw(self, x):
        return {"factor": self._uniform(len(x))}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        smoothed = depthwise_same(x, self._KERNEL)
        sharpness = (t["factor"] * 2)[:, None, None, None]
        return np.clip(x + (1.0 - sharpness) * (smoothed - x), *self.value_range)


class RandomPosterization(_ColorLayer):
    """Keeps the top b bits of each 8-bit value (after mapping `value_range` to [0, 255]),
    b drawn in [low, high) from `factor` (within [1, 8]; one number f: [1, f))."""

    _BOUNDS = (1, 8)

    def _draw(self, x):
        low, high = (int(v) for v in self.factor)
        bits = (self.rng.integers(low, high, len(x)) if low != high
                else np.full(len(x), low))
        return {"shift": (8 - bits).astype(np.uint8)}

    def _images(self, x, t):
        x = rescale(np.asarray(x, np.float32), self.value_range, (0, 255))
        shift = t["shift"][:, None, None, None]
        kept = (x.astype(np.uint8) >> shift) << shift
        return rescale(kept.astype(np.float64), (0, 255), self.value_range)


class Solarization(Augmentation):
    """Adds a value drawn in [low, high * 255] of `addition_factor` to each image (in
    [0, 255], clipped), then inverts (255 - v) the values at or above a threshold drawn in
    [low, high * 255] of `threshold_factor` (factors within [0, 1]; one number f is
    (0, f)). With the default factors (0, 0) every value is inverted when training."""

    _cast_at_inference = True

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255),
                 seed=None, **kwargs: Any) -> None:
        super().__init__(seed, kwargs.pop("data_format", None), **kwargs)
        self.addition_factor = self._factor(addition_factor, "addition_factor")
        self.threshold_factor = self._factor(threshold_factor, "threshold_factor")
        self.value_range = value_range_of(value_range, "Solarization")

    @staticmethod
    def _factor(factor, name: str) -> tuple:
        return unit_pair(factor, "Solarization: the `addition_factor` and `threshold_factor` "
                         "arguments should be a number (or a list of two numbers) in the range "
                         f"[0, 1]. Received: {name}={factor}", lambda f: 0)

    def _draw(self, x):
        shape = (len(x), 1, 1, 1)
        return {"add": self.rng.uniform(self.addition_factor[0],
                                        self.addition_factor[1] * 255, shape),
                "threshold": self.rng.uniform(self.threshold_factor[0],
                                              self.threshold_factor[1] * 255, shape)}

    def _images(self, x, t):
        x = rescale(np.asarray(x, np.float64), self.value_range, (0, 255))
        out = np.clip(x + t["add"], 0, 255)
        out = np.where(out < t["threshold"], out, 255 - out)
        return rescale(out, (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format,
                "value_range": self.value_range, "addition_factor": self.addition_factor,
                "threshold_factor": self.threshold_factor}


class Equalization(Augmentation):
    """Histogram equalization of each channel when training: values binned into `bins`
    over [0, 255] (after `value_range`), mapped through the normalised cumulative histogram.
    As Keras 3.15 computes it, the histogram of a channel is the whole batch's."""

    def __init__(self, value_range=(0, 255), bins: int = 256, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(None, data_format, **kwargs)
        self.bins = bins
        self.value_range = value_range_of(value_range, "Equalization")

    def _equalize(self, channel: np.ndarray) -> np.ndarray:
        bins = self.bins
        channel = channel.astype(np.float32)  # Keras computes in float32
        scaled = channel * np.float32(bins - 1) / np.float32(255)
        index = np.clip(scaled.astype(np.int64), 0, bins - 1)
        hist = np.bincount(index.ravel(), minlength=bins)
        if np.count_nonzero(hist) <= 1:
            return channel
        cdf = np.cumsum(hist)
        cdf_min = cdf[np.nonzero(cdf)[0][0]]
        denominator = cdf[-1] - cdf_min or 1
        table = np.clip(np.round((cdf - cdf_min) * 255 / denominator), 0, 255)
        lookup = np.clip(channel / np.float32(255) * np.float32(bins - 1), 0, bins - 1)
        lookup = lookup.astype(np.int64)
        return table[lookup]

    def _images(self, x, t):
        x = rescale(np.asarray(x, np.float64), self.value_range, (0, 255))
        out = np.stack([self._equalize(x[..., c]) for c in range(x.shape[-1])], axis=-1)
        return rescale(out, (0, 255), self.value_range)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("seed", None)
        return {**config, "bins": self.bins, "value_range": self.value_range}


class RandomGaussianBlur(Augmentation):
    """Blurs each image, with a probability drawn in `factor`, by a Gaussian kernel of
    `kernel_size` (odd) whose sigmas (one pair for the batch) are drawn in `sigma`
    (within [0, 1]), zeros outside the image, clipped to `value_range`."""

    _cast_at_inference = True

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255),
                 data_format=None, seed=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = factor_range(factor, (0, 1), "RandomGaussianBlur")
        self.kernel_size = self._kernel_size(kernel_size)
        self.sigma = factor_range(sigma, (0, 1), "RandomGaussianBlur", "sigma")
        self.value_range = value_range

    @staticmethod
    def _kernel_size(size) -> tuple:
        message = f"kernel_size must be an odd number. Received: kernel_size={size}"
        if isinstance(size, (tuple, list)):
            if len(size) != 2:
                raise ValueError("The `kernel_size` argument should be a number (or a list "
                                 f"of two numbers) Received: kernel_size={size}")
            if size[0] % 2 == 0 or size[1] % 2 == 0:
                raise ValueError(message)
            return tuple(size)
        if isinstance(size, bool) or not isinstance(size, (int, float)) or size % 2 == 0:
            raise ValueError(message)
        return (size, size)

    def _draw(self, x):
        n = len(x)
        probability = self.rng.uniform(self.factor[0], self.factor[1], n)
        apply = self.rng.uniform(size=n) < probability
        sigma = self.rng.uniform(self.sigma[0], self.sigma[1], 2) + 1e-6
        return {"apply": apply, "sigma": sigma}

    @staticmethod
    def kernel(size, sigma) -> np.ndarray:
        """keras.ops.image.gaussian_blur's kernel: (size[0], size[1]) from the outer product
        of the 1-D kernels of (size[1], sigma[1]) and (size[0], sigma[0])."""
        def one(n, s):
            offsets = np.arange(n) - (n - 1) / 2
            weights = np.exp(-0.5 * (offsets / s) ** 2)
            return weights / weights.sum()
        size = (int(size[0]), int(size[1]))
        return np.outer(one(size[1], sigma[1]), one(size[0], sigma[0])).reshape(size)

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        blurred = depthwise_same(x, self.kernel(self.kernel_size, t["sigma"]))
        out = np.where(t["apply"][:, None, None, None], blurred, x)
        return np.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "kernel_size": self.kernel_size,
                "sigma": self.sigma, "value_range": self.value_range}


class RandomColorJitter(Augmentation):
    """RandomBrightness, RandomContrast, RandomSaturation and RandomHue in that order, each
    with its factor when given (None: that step is skipped)."""

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None,
                 saturation_factor=None, hue_factor=None, seed=None, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.value_range = value_range
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        steps = ((RandomBrightness, brightness_factor), (RandomContrast, contrast_factor),
                 (RandomSaturation, saturation_factor), (RandomHue, hue_factor))
        self._steps = [kind(factor=factor, value_range=value_range, seed=seed)
                       for kind, factor in steps if factor is not None]
        for step in self._steps:
            step._stream = self._stream  # one generator for the whole chain

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        for step in self._steps:
            x = step._augment(x)
        return x

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor,
                "saturation_factor": self.saturation_factor, "hue_factor": self.hue_factor}


class ContrastLimitedAdaptiveHistogramEqualization(Augmentation):
    """CLAHE at training and inference: each image (in [0, 255] after `value_range`) cut
    into a `tile_grid_size` grid of tiles (padded by mirroring to whole tiles), each tile's
    histogram clipped at `clip_limit` times its mean bin count (the excess spread evenly)
    and turned into an equalizing map; each pixel is mapped by the bilinear blend of the
    maps of the four nearest tile centres. Outputs are in the inputs' dtype."""

    def __init__(self, value_range=(0, 255), clip_limit: float = 4.0, tile_grid_size=(8, 8),
                 data_format=None, **kwargs: Any) -> None:
        super().__init__(None, data_format, **kwargs)
        self.value_range, self.clip_limit = value_range, clip_limit
        self.tile_grid_size = tile_grid_size

    def call(self, inputs, training=None):
        if isinstance(inputs, dict):
            return self._call_dict(inputs, True)
        inputs = convert_to_tensor(inputs)
        dtype = inputs.dtype.as_numpy_dtype

        def equalize(x):
            single = x.ndim == 3
            out = self._images(x[None] if single else x, {})
            out = out.astype(np.float32).astype(dtype)
            return out[0] if single else out

        return numpy_function(equalize, [inputs], TensorSpec(inputs.shape, inputs.dtype))

    def _images(self, x, t):
        x = rescale(np.asarray(x, np.float32), self.value_range, (0, 255)).astype(np.float32)
        n, height, width, channels = x.shape
        grid_h, grid_w = self.tile_grid_size
        tile_h, tile_w = -(-height // grid_h), -(-width // grid_w)
        padded = np.pad(x, ((0, 0), (0, tile_h * grid_h - height),
                            (0, tile_w * grid_w - width), (0, 0)), mode="symmetric")
        tiles = padded.reshape(n, grid_h, tile_h, grid_w, tile_w, channels)
        tiles = np.clip(tiles.astype(np.int32), 0, 255).transpose(0, 1, 3, 5, 2, 4)
        tiles = tiles.reshape(n, grid_h, grid_w, channels, tile_h * tile_w)
        flat = tiles.reshape(-1, tile_h * tile_w)
        rows = np.arange(len(flat))[:, None] * 256
        hists = np.bincount((rows + flat).ravel(), minlength=len(flat) * 256)
        hists = hists.reshape(tiles.shape[:-1] + (256,)).astype(np.float32)
        if self.clip_limit > 0:
            limit = np.float32(self.clip_limit * tile_h * tile_w / 256.0)
            clipped = np.minimum(hists, limit)
            hists = clipped + (hists - clipped).sum(-1, keepdims=True) / np.float32(256)
        cdf = np.cumsum(hists, axis=-1, dtype=np.float32)
        cdf_min = cdf.min(axis=-1, keepdims=True)
        denominator = np.float32(tile_h * tile_w) - cdf_min
        denominator = np.where(denominator == 0, np.float32(1), denominator)
        maps = np.clip((cdf - cdf_min) * np.float32(255) / denominator, 0, 255)
        maps = np.pad(maps, ((0, 0), (1, 1), (1, 1), (0, 0), (0, 0)), mode="edge")

        def grid(size, tile, count):
            g = (np.arange(size, dtype=np.float32) - np.float32(tile / 2.0)) / np.float32(tile)
            g = g + np.float32(1)
            low = np.floor(g)
            return (np.clip(low, 0, count + 1).astype(int),
                    np.clip(low + 1, 0, count + 1).astype(int), g - low)

        y0, y1, wy = grid(tile_h * grid_h, tile_h, grid_h)
        x0, x1, wx = grid(tile_w * grid_w, tile_w, grid_w)
        pixels = np.clip(padded, 0, 255).astype(np.int32)
        b = np.arange(n)[:, None, None, None]
        c = np.arange(channels)[None, None, None, :]

        def read(ys, xs):
            return maps[b, ys[None, :, None, None], xs[None, None, :, None], c, pixels]

        wx, wy = wx[None, None, :, None], wy[None, :, None, None]
        top = read(y0, x0) * (1 - wx) + read(y0, x1) * wx
        bottom = read(y1, x0) * (1 - wx) + read(y1, x1) * wx
        out = (top * (1 - wy) + bottom * wy)[:, :height, :width, :]
        return rescale(out, (0, 255), self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "clip_limit": self.clip_limit, "tile_grid_size": self.tile_grid_size,
                "data_format": self.data_format}
