"""Keras 3's geometric augmentation layers: RandomShear, RandomPerspective and
RandomElasticTransform, in NumPy over the samplers of preprocessing.image (TensorFlow's
projective transform: half-sample reflection, bilinear reads with `fill_value` outside).
Like the colour layers they draw from the layer's seeded generator when training and are the
identity (in the layer's dtype) at inference."""

from __future__ import annotations

from typing import Any

import numpy as np

from .augmentation_color import (
    Augmentation,
    RandomGaussianBlur,
    depthwise_same,
    factor_range,
    unit_pair,
)
from .preprocessing.image import _FILL_MODES, _map_coordinates, _sample

_INTERPOLATIONS = ("nearest", "bilinear")


def projective_transform(images: np.ndarray, matrices: np.ndarray, interpolation: str,
                         fill_mode: str, fill_value: float) -> np.ndarray:
    """Output pixel (x, y) of image k reads the input at ((a0 x + a1 y + a2) / d,
    (b0 x + b1 y + b2) / d), d = c0 x + c1 y + 1, from `matrices[k]` = [a0, a1, a2, b0, b1,
    b2, c0, c1] (TensorFlow's ImageProjectiveTransformV3)."""
    x = np.asarray(images, np.float64)
    n, h, w, _ = x.shape
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64),
                         indexing="ij")
    out = np.empty_like(x)
    for k in range(n):
        a0, a1, a2, b0, b1, b2, c0, c1 = matrices[k]
        d = c0 * xs + c1 * ys + 1.0
        sx = _map_coordinates((a0 * xs + a1 * ys + a2) / d, w, fill_mode)
        sy = _map_coordinates((b0 * xs + b1 * ys + b2) / d, h, fill_mode)
        out[k] = _sample(x[k], sx, sy, interpolation, fill_value)
    return out


def homography(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The 8 projective coefficients taking each of the four `end` points (x, y) to its
    `start` point, one row per image ([B, 4, 2] each)."""
    rows = []
    for k in range(len(start)):
        a, b = [], []
        for (xs, ys), (xe, ye) in zip(start[k], end[k]):
            a.append([xe, ye, 1, 0, 0, 0, -xe * xs, -ye * xs])
            a.append([0, 0, 0, xe, ye, 1, -xe * ys, -ye * ys])
            b += [xs, ys]
        rows.append(np.linalg.solve(np.asarray(a, np.float64), np.asarray(b, np.float64)))
    return np.asarray(rows)


def _check_interpolation(interpolation: str, layer: str) -> str:
    if interpolation not in _INTERPOLATIONS:
        raise NotImplementedError(f"{layer}: unknown `interpolation` {interpolation}. Expected "
                                  f"one of {_INTERPOLATIONS}.")
    return interpolation


class _Geometric(Augmentation):
    _cast_at_inference = True


class RandomShear(_Geometric):
    """Shears each image about its top-left corner: output (x, y) reads the input at
    (x + sx y, sy x + y), sx and sy drawn in `x_factor` and `y_factor` (within [0, 1]; one
    number f: [-f, f]), both negated for a random half of the images."""

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation: str = "bilinear",
                 fill_mode: str = "reflect", fill_value: float = 0.0, data_format=None,
                 seed=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.x_factor = self._factor(x_factor, "x_factor")
        self.y_factor = self._factor(y_factor, "y_factor")
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"RandomShear: unknown `fill_mode` {fill_mode}. "
                                      f"Expected one of {_FILL_MODES}.")
        self.fill_mode, self.fill_value = fill_mode, fill_value
        self.interpolation = _check_interpolation(interpolation, "RandomShear")

    @staticmethod
    def _factor(factor, name: str) -> tuple:
        return unit_pair(factor, "RandomShear: the `factor` argument should be a number (or a "
                         f"list of two numbers) in the range [0, 1.0]. Received: {name}={factor}",
                         lambda f: -abs(f))

    def _draw(self, x):
        n = len(x)
        sign = np.where(self.rng.uniform(size=n) > 0.5, -1.0, 1.0)
        shear_y = self.rng.uniform(self.y_factor[0], self.y_factor[1], n)
        shear_x = self.rng.uniform(self.x_factor[0], self.x_factor[1], n)
        return {"shear": np.stack([shear_x * sign, shear_y * sign], axis=1)}

    def _images(self, x, t):
        sx, sy = t["shear"][:, 0], t["shear"][:, 1]
        one, zero = np.ones(len(sx)), np.zeros(len(sx))
        matrices = np.stack([one, sx, zero, sy, one, zero, zero, zero], axis=1)
        return projective_transform(x, matrices, self.interpolation, self.fill_mode,
                                    self.fill_value)

    def get_config(self) -> dict:
        return {**super().get_config(), "x_factor": self.x_factor, "y_factor": self.y_factor,
                "fill_mode": self.fill_mode, "interpolation": self.interpolation,
                "seed": self.seed, "fill_value": self.fill_value,
                "data_format": self.data_format}


class RandomPerspective(_Geometric):
    """Warps each image, with a probability drawn in `factor`, so that its corners move by
    up to `scale` / 2 of their coordinates (each corner c to c + c * u, u drawn in
    [-scale / 2, scale / 2]); outside the image is `fill_value`."""

    def __init__(self, factor=1.0, scale: float = 1.0, interpolation: str = "bilinear",
                 fill_value: float = 0.0, seed=None, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = factor_range(factor, (0, 1), "RandomPerspective")
        if scale < 0.0 or scale > 1.0:
            raise ValueError("RandomPerspective: the `scale` argument should be a number in "
                             f"the range [0,1]. Received: scale={scale}")
        self.scale, self.fill_value = scale, fill_value
        self.interpolation = _check_interpolation(interpolation, "RandomPerspective")

    def _draw(self, x):
        n, h, w = x.shape[:3]
        probability = self.rng.uniform(self.factor[0], self.factor[1], n)
        apply = self.rng.uniform(size=n) < probability
        shift = self.rng.uniform(-0.5 * self.scale, 0.5 * self.scale, (n, 4, 2))
        start = np.repeat(np.asarray([[[0.0, 0.0], [w - 1, 0.0], [0.0, h - 1],
                                       [w - 1, h - 1]]]), n, axis=0)
        return {"apply": apply, "start": start, "end": start + start * shift}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        matrices = homography(t["start"], t["end"])
        warped = projective_transform(x, matrices, self.interpolation, "constant",
                                      self.fill_value)
        return np.where(t["apply"][:, None, None, None], warped, x)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value,
                "seed": self.seed}


_MAP_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def _map_index(i: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Integer sample indices mapped inside [0, n) by keras.ops.image.map_coordinates's
    fill modes (constant leaves them, to be filled)."""
    if mode == "nearest":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return np.mod(i, n)
    if mode == "mirror":  # d c b | a b c d | c b a
        if n == 1:
            return np.zeros_like(i)
        period = 2 * (n - 1)
        i = np.mod(i, period)
        return np.where(i >= n, period - i, i)
    if mode == "reflect":  # d c b a | a b c d | d c b a
        i = np.mod(i, 2 * n)
        return np.where(i >= n, 2 * n - 1 - i, i)
    return i


def map_coordinates(image: np.ndarray, ys: np.ndarray, xs: np.ndarray, order: int,
                    fill_mode: str, fill_value: float) -> np.ndarray:
    """One channel (H, W) sampled at (ys, xs): nearest (order 0, rounding half away from
    zero) or linear (order 1), as keras.ops.image.map_coordinates."""
    h, w = image.shape

    def read(yi, xi):
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        yi, xi = _map_index(yi, h, fill_mode), _map_index(xi, w, fill_mode)
        values = image[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return values if fill_mode != "constant" else np.where(inside, values, fill_value)

    if order == 0:
        def nearest(c):
            return (np.sign(c) * np.floor(np.abs(c) + 0.5)).astype(np.int64)
        return read(nearest(ys), nearest(xs))
    y0, x0 = np.floor(ys).astype(np.int64), np.floor(xs).astype(np.int64)
    fy, fx = ys - y0, xs - x0
    return ((1 - fy) * ((1 - fx) * read(y0, x0) + fx * read(y0, x0 + 1))
            + fy * ((1 - fx) * read(y0 + 1, x0) + fx * read(y0 + 1, x0 + 1)))


class RandomElasticTransform(_Geometric):
    """Displaces the pixels of each image (with a probability drawn in `factor`) by a smooth
    random field: Gaussian noise blurred by a Gaussian of sigma = 0.05 f min(H, W), scaled by
    alpha = 0.1 f max(H, W), f drawn in `scale` for the batch, the image read there with
    `fill_mode`, clipped to `value_range`. As in Keras 3.15 the horizontal and vertical
    displacements are equal (drawn from one seed)."""

    def __init__(self, factor=1.0, scale=1.0, interpolation: str = "bilinear",
                 fill_mode: str = "reflect", fill_value: float = 0.0, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = factor_range(factor, (0, 1), "RandomElasticTransform")
        self.scale = factor_range(scale, (0, 1), "RandomElasticTransform", "scale")
        self.interpolation = _check_interpolation(interpolation, "RandomElasticTransform")
        if fill_mode not in _MAP_MODES:
            raise NotImplementedError(f"RandomElasticTransform: unknown `fill_mode` "
                                      f"{fill_mode}. Expected one of {set(_MAP_MODES)}.")
        self.fill_mode, self.fill_value, self.value_range = fill_mode, fill_value, value_range

    def _draw(self, x):
        n, h, w = x.shape[:3]
        if self.scale[1] == 0 or self.factor[1] == 0:
            return {}
        probability = self.rng.uniform(self.factor[0], self.factor[1], n)
        apply = self.rng.uniform(size=n) < probability
        distortion = self.rng.uniform(self.scale[0], self.scale[1])
        return {"apply": apply, "distortion": distortion,
                "noise": self.rng.standard_normal((n, h, w))}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        if not t:
            return x
        n, h, w, c = x.shape
        alpha = max(h, w) * 0.1 * t["distortion"]
        sigma = min(h, w) * 0.05 * t["distortion"]
        size = 6 * int(sigma) | 1
        kernel = RandomGaussianBlur.kernel((size, size), (sigma, sigma))
        field = depthwise_same((t["noise"] * sigma)[..., None], kernel)[..., 0]
        ys, xs = np.meshgrid(np.arange(h, dtype=np.float64), np.arange(w, dtype=np.float64),
                             indexing="ij")
        order = _INTERPOLATIONS.index(self.interpolation)
        out = np.empty_like(x)
        for b in range(n):
            sy, sx = ys + alpha * field[b], xs + alpha * field[b]
            for ch in range(c):
                out[b, ..., ch] = map_coordinates(x[b, ..., ch], sy, sx, order,
                                                  self.fill_mode, self.fill_value)
        out = np.where(t["apply"][:, None, None, None], out, x)
        return np.clip(out, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "interpolation": self.interpolation, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "value_range": self.value_range,
                "seed": self.seed}
