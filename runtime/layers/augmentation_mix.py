"""Keras 3's mixing and policy augmentation layers: MixUp, CutMix and RandomErasing, the
AugMix and RandAugment policies (chains of the other augmentation layers), and
MaxNumBoundingBoxes. Draws come from the layer's seeded NumPy generator when training;
MixUp and CutMix mix the labels of a dict input `{"images", "labels"}` by the images'
weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.core import convert_to_tensor
from ..ops.py_function import numpy_function
from ..shapes import TensorSpec
from .augmentation_color import (
    Augmentation,
    Equalization,
    RandomColorDegeneration,
    RandomPosterization,
    RandomSharpness,
    Solarization,
    factor_range,
)
from .augmentation_geometry import RandomShear
from .preprocessing.image import (
    AutoContrast,
    RandomBrightness,
    RandomContrast,
    RandomRotation,
    RandomTranslation,
)


def _box(n: int, h: int, w: int, ratio_x, ratio_y, rng) -> tuple:
    """Per image, the mask of a box of sides ratio * side at a uniform position, and its
    area fraction."""
    def bounds(length, ratio):
        crop = (ratio * length).astype(np.float32)
        start = rng.uniform(size=n).astype(np.float32) * (length - crop)
        return start, start + crop

    x0, x1 = bounds(w, ratio_x)
    y0, y1 = bounds(h, ratio_y)
    gy, gx = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32),
                         indexing="ij")

    def col(v):
        return v[:, None, None, None]

    mask = ((gx[None, :, :, None] >= col(x0)) & (gx[None, :, :, None] < col(x1))
            & (gy[None, :, :, None] >= col(y0)) & (gy[None, :, :, None] < col(y1)))
    return mask, (x1 - x0) * (y1 - y0) / (w * h)


class MixUp(Augmentation):
    """Blends each image (and label) with another of the batch (a random permutation):
    w x + (1 - w) x[perm], w drawn from Beta(alpha, alpha) per image."""

    _label_dtype = "float32"

    def __init__(self, alpha: float = 0.2, data_format=None, seed=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.alpha = alpha

    def _draw(self, x):
        n = len(x)
        return {"order": self.rng.permutation(n), "weight": self.rng.beta(self.alpha,
                                                                           self.alpha, n)}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        w = t["weight"][:, None, None, None]
        return w * x + (1.0 - w) * x[t["order"]]

    def _labels(self, y, t):
        y = np.asarray(y, np.float64)
        w = t["weight"].reshape(-1, *([1] * (y.ndim - 1)))
        return w * y + (1.0 - w) * y[t["order"]]

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha, "seed": self.seed}


class CutMix(Augmentation):
    """Pastes into each image a box of another image of the batch (a random permutation),
    of area fraction 1 - w, w drawn from Beta(a, a) with a drawn in `factor`; labels mix by
    the kept fraction. A single image (rank 3) is returned as it is."""

    _cast_at_inference, _label_dtype = True, "float32"

    def __init__(self, factor=1.0, seed=None, data_format=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = factor_range(factor, (0, 1), "CutMix")

    def _draw(self, x):
        n, h, w = x.shape[:3]
        if n == 1 and getattr(self, "_single", False):
            return {}
        alpha = self.rng.uniform(self.factor[0], self.factor[1]) + 1e-6
        ratio = np.sqrt(1.0 - self.rng.beta(alpha, alpha, n))
        mask, area = _box(n, h, w, ratio, ratio, self.rng)
        return {"order": self.rng.permutation(n), "mask": mask, "kept": 1.0 - area}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        if not t:
            return x
        return np.where(t["mask"], x[t["order"]], x)

    def _labels(self, y, t):
        if not t:
            return y
        y = np.asarray(y, np.float64)
        w = t["kept"].reshape(-1, *([1] * (y.ndim - 1)))
        return w * y + (1.0 - w) * y[t["order"]]

    def call(self, inputs, training=True):
        images = inputs["images"] if isinstance(inputs, dict) else inputs
        self._single = getattr(images, "ndim", len(np.shape(images))) == 3
        return super().call(inputs, training)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "seed": self.seed}


class RandomErasing(Augmentation):
    """Erases, with a probability drawn in `factor`, a box of each image whose sides are
    sqrt(s) of the image's (s drawn in `scale` for each side), filling it with `fill_value`
    (None: Gaussian noise times the top of `value_range`), clipped to `value_range`."""

    _cast_at_inference = True

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255),
                 seed=None, data_format=None, **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.factor = factor_range(factor, (0, 1), "RandomErasing")
        self.scale = factor_range(scale, (0, 1), "RandomErasing", "scale")
        if fill_value is not None and not (
                isinstance(fill_value, (int, float))
                or (isinstance(fill_value, (tuple, list)) and len(fill_value) == 3)):
            raise ValueError("RandomErasing: the `fill_value` argument should be a number "
                             f"(or a list of three numbers). Received: fill_value={fill_value}")
        self.fill_value, self.value_range = fill_value, value_range

    def _draw(self, x):
        n, h, w = x.shape[:3]
        sides = np.sqrt(self.rng.uniform(self.scale[0], self.scale[1], (n, 2)))
        mask, _ = _box(n, h, w, sides[:, 0], sides[:, 1], self.rng)
        probability = self.rng.uniform(self.factor[0], self.factor[1], n)
        apply = self.rng.uniform(size=n) < probability
        if self.fill_value is None:
            fill = self.rng.standard_normal(x.shape) * self.value_range[1]
        else:
            fill = np.broadcast_to(np.asarray(self.fill_value, np.float64), x.shape)
        return {"mask": mask, "apply": apply,
                "fill": np.clip(fill, self.value_range[0], self.value_range[1])}

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        erased = np.where(t["mask"], t["fill"], x)
        return np.where(t["apply"][:, None, None, None], erased, x)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor, "scale": self.scale,
                "fill_value": self.fill_value, "value_range": self.value_range,
                "seed": self.seed}


def _policy_layers(factor, value_range, interpolation, seed, all_ops=True) -> dict:
    """The augmentation layers AugMix and RandAugment choose from, by Keras's names."""
    steps = {
        "random_shear": RandomShear(x_factor=factor, y_factor=factor,
                                    interpolation=interpolation, seed=seed),
        "random_translation": RandomTranslation(factor, factor, interpolation=interpolation,
                                                seed=seed),
        "random_rotation": RandomRotation(factor, interpolation=interpolation, seed=seed),
        "random_posterization": RandomPosterization(max(1, int(8 * factor[1])),
                                                    value_range=value_range, seed=seed),
        "solarization": Solarization(factor, factor, value_range=value_range, seed=seed),
        "auto_contrast": AutoContrast(value_range=value_range),
        "equalization": Equalization(value_range=value_range),
    }
    if all_ops:
        steps.update({
            "random_brightness": RandomBrightness(factor, value_range=value_range, seed=seed),
            "random_color_degeneration": RandomColorDegeneration(
                factor, value_range=value_range, seed=seed),
            "random_contrast": RandomContrast(factor, value_range=value_range, seed=seed),
            "random_sharpness": RandomSharpness(factor, value_range=value_range, seed=seed),
        })
    return steps


def _apply(layer, x: np.ndarray) -> np.ndarray:
    """One policy step on a float64 batch."""
    if isinstance(layer, AutoContrast):
        return layer._stretch(x)
    if isinstance(layer, Equalization):
        return layer._images(x, {})
    return np.asarray(layer._augment(x), np.float64)


class _Policy(Augmentation):
    _cast_at_inference = True

    def _share_stream(self) -> None:
        for layer in self._steps.values():
            layer._stream = self._stream


class AugMix(_Policy):
    """AugMix: `num_chains` chains of up to `chain_depth` operations each (each step one of
    the augmentation layers, or none, chosen at random), mixed by Dirichlet(alpha) weights,
    then blended with the original by a Beta(alpha, alpha) weight and clipped to
    `value_range`. `all_ops=False` leaves out brightness, colour degeneration, contrast and
    sharpness."""

    def __init__(self, value_range=(0, 255), num_chains: int = 3, chain_depth: int = 3,
                 factor=0.3, alpha: float = 1.0, all_ops: bool = True,
                 interpolation: str = "bilinear", seed=None, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.value_range, self.num_chains, self.chain_depth = value_range, num_chains, chain_depth
        self.factor = factor_range(factor, (0, 1), "AugMix")
        self.alpha, self.all_ops, self.interpolation = alpha, all_ops, interpolation
        self._steps = _policy_layers(self.factor, value_range, interpolation, seed, all_ops)
        self._share_stream()

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        gamma = self.rng.gamma(self.alpha, size=self.num_chains)
        chain_weights = gamma / gamma.sum()
        keep = self.rng.beta(self.alpha, self.alpha)
        names = list(self._steps) + [None]
        mixed = np.zeros_like(x)
        for weight in chain_weights:
            chain = x.copy()
            for _ in range(self.chain_depth):
                name = names[self.rng.integers(len(names))]
                if name is not None:
                    chain = _apply(self._steps[name], chain)
            mixed += chain * weight
        return np.clip(keep * x + (1 - keep) * mixed, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "num_chains": self.num_chains, "chain_depth": self.chain_depth,
                "factor": self.factor, "alpha": self.alpha, "all_ops": self.all_ops,
                "interpolation": self.interpolation, "seed": self.seed}


class RandAugment(_Policy):
    """RandAugment: `num_ops` operations applied in turn to the batch, each chosen at random
    among shear, translation, rotation, brightness, colour degeneration, contrast,
    sharpness, posterization, solarization, auto-contrast and equalization, all with
    `factor`."""

    def __init__(self, value_range=(0, 255), num_ops: int = 2, factor=0.5,
                 interpolation: str = "bilinear", seed=None, data_format=None,
                 **kwargs: Any) -> None:
        super().__init__(seed, data_format, **kwargs)
        self.value_range, self.num_ops = value_range, num_ops
        self.factor = factor_range(factor, (0, 1), "RandAugment")
        self.interpolation = interpolation
        steps = _policy_layers(self.factor, value_range, interpolation, seed)
        order = ("random_shear", "random_translation", "random_rotation", "random_brightness",
                 "random_color_degeneration", "random_contrast", "random_sharpness",
                 "random_posterization", "solarization", "auto_contrast", "equalization")
        self._steps = {name: steps[name] for name in order}
        self._share_stream()

    def _images(self, x, t):
        x = np.asarray(x, np.float64)
        names = list(self._steps)
        for index in self.rng.integers(0, len(names), self.num_ops):
            x = _apply(self._steps[names[index]], x)
        return x

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": self.value_range,
                "num_ops": self.num_ops, "factor": self.factor,
                "interpolation": self.interpolation, "seed": self.seed}


class MaxNumBoundingBoxes(Augmentation):
    """Pads (with `fill_value`) or truncates the boxes and labels of a dict input's
    `bounding_boxes` to `max_number` per image; images pass through unchanged."""

    def __init__(self, max_number, fill_value=-1, **kwargs: Any) -> None:
        super().__init__(None, kwargs.pop("data_format", None), **kwargs)
        self.max_number, self.fill_value = int(max_number), int(fill_value)

    def _augment(self, x):
        return x

    def call(self, inputs, training=True):
        if not isinstance(inputs, dict):
            return self._identity(convert_to_tensor(inputs))
        unknown = sorted(set(inputs) - {"images", "labels", "bounding_boxes",
                                        "segmentation_masks"})
        if unknown:
            raise KeyError(f"MaxNumBoundingBoxes: unsupported keys {unknown}.")
        out = dict(inputs)
        if "bounding_boxes" in inputs:
            boxes = inputs["bounding_boxes"]
            extra = sorted(set(boxes) - {"boxes", "labels"})
            if extra:
                raise KeyError(f"There are unsupported keys in `bounding_boxes`: {extra}. "
                               "Only `boxes` and `labels` are supported.")
            out["bounding_boxes"] = {key: self._fit(convert_to_tensor(value), key == "boxes")
                                     for key, value in boxes.items()}
        return out

    def _fit(self, value, boxes: bool):
        def fit(v):
            kept = v[:, :self.max_number]
            pad = [(0, 0), (0, self.max_number - kept.shape[1])] + [(0, 0)] * (v.ndim - 2)
            return np.pad(kept, pad, constant_values=self.fill_value).astype(v.dtype)

        shape = value.shape.as_list() if value.shape.rank is not None else None
        if shape is not None:
            shape[1] = self.max_number
        return numpy_function(fit, [value], TensorSpec(shape, value.dtype))

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("fill_value", None)  # Keras's config leaves it out
        return {**config, "data_format": self.data_format, "max_number": self.max_number}
