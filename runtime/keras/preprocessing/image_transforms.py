"""The one-image NumPy transforms of Keras's legacy `keras.preprocessing.image` (what
`ImageDataGenerator` applies), and its `Iterator` base class.

    x = image_utils.img_to_array(load_img("cat.png"))            # [h, w, 3] float32
    rotated = apply_affine_transform(x, theta=30, row_axis=0, col_axis=1, channel_axis=2)
    shifted = random_shift(x, 0.1, 0.1, row_axis=0, col_axis=1, channel_axis=2)

As in Keras, the defaults read an image channels first (`row_axis=1, col_axis=2,
channel_axis=0`); the random transforms draw from NumPy's global generator
(`np.random.uniform`), in Keras's order, so after `np.random.seed(s)` they give Keras's
results. The affine transforms resample with SciPy's `ndimage.affine_transform` (about the
image centre; spline `order`, `fill_mode` and `cval` as SciPy's), brightness with Pillow's
`ImageEnhance.Brightness`: both are imported when first needed.
"""

from __future__ import annotations

import threading

import numpy as np

from ...arguments import strict_keywords
from ...layers.py_dataset import PyDataset
from ..image_utils import array_to_img, img_to_array


class Iterator(PyDataset):
    """Keras's base class of batches of `n` samples (`ImageDataGenerator.flow` style):
    subclasses define `_get_batches_of_transformed_samples(index_array)`. `next()` runs
    over the epochs forever (indices reshuffled at each epoch's start when `shuffle`),
    `[i]` is batch i of the current order and `len()` the batches of an epoch. With a `seed`
    the order is NumPy's global generator seeded by seed + batches seen, as Keras's."""

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    @strict_keywords("Iterator")
    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: int | None,
                 workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10) -> None:
        super().__init__(workers=workers, use_multiprocessing=use_multiprocessing,
                         max_queue_size=max_queue_size)
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array: np.ndarray | None = None
        self.index_generator = self._flow_index()

    def _set_index_array(self) -> None:
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __getitem__(self, idx: int):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        return self._get_batches_of_transformed_samples(
            self.index_array[self.batch_size * idx:self.batch_size * (idx + 1)])

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self) -> None:
        self._set_index_array()

    def reset(self) -> None:
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while True:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            start = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
            self.total_batches_seen += 1
            yield self.index_array[start:start + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray):
        """The batch of the samples at `index_array`: subclasses define it."""
        raise NotImplementedError(f"{type(self).__name__} must define "
                                  "_get_batches_of_transformed_samples(index_array).")


def _affine_matrix(theta: float, tx: float, ty: float, shear: float, zx: float,
                   zy: float) -> np.ndarray | None:
    """Rotation (degrees), shift, shear (degrees) and zoom composed in that order, in
    Keras's (row, column, 1) convention; None for the identity."""
    matrix = None
    parts = []
    if theta != 0:
        t = np.deg2rad(theta)
        parts.append(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0],
                               [0, 0, 1]]))
    if tx != 0 or ty != 0:
        parts.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        parts.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        parts.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    for part in parts:
        matrix = part if matrix is None else np.dot(matrix, part)
    return matrix


@strict_keywords("apply_affine_transform")
def apply_affine_transform(x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1,
                           col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
                           order=1) -> np.ndarray:
    """The 3-D image `x` rotated by `theta` degrees, shifted by `tx` rows and `ty`
    columns, sheared by `shear` degrees and zoomed by `zx`, `zy` (a zoom above 1 shrinks
    the content), about its centre; each channel resampled by SciPy's
    `ndimage.affine_transform` (spline `order`; `fill_mode` "constant" (with `cval`),
    "nearest", "reflect" or "wrap"). `x` comes back unchanged for the identity."""
    if np.unique([row_axis, col_axis, channel_axis]).size != 3:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    axes = {row_axis, col_axis, channel_axis}
    if axes != {0, 1, 2}:
        raise ValueError(f"Invalid axis' indices: {axes - {0, 1, 2}}")
    x = np.asarray(x)
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in (0, 2):
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrix = _affine_matrix(theta, tx, ty, shear, zx, zy)
    if matrix is None:
        return x
    try:
        from scipy import ndimage
    except ImportError:
        raise ImportError("apply_affine_transform (and the random rotations, shifts, shears "
                          "and zooms) resample with SciPy: pip install scipy (or "
                          "'autograph-rt[images]').") from None
    h, w = x.shape[row_axis], x.shape[col_axis]
    oh, ow = h / 2 - 0.5, w / 2 - 0.5
    matrix = np.array([[1, 0, oh], [0, 1, ow], [0, 0, 1]]) @ matrix @ \
        np.array([[1, 0, -oh], [0, 1, -ow], [0, 0, 1]])
    planes = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:  # Keras's matrix is in (x, y); the planes are (row, column)
        matrix[:, [0, 1]] = matrix[:, [1, 0]]
        matrix[[0, 1]] = matrix[[1, 0]]
    out = np.stack([ndimage.affine_transform(plane, matrix[:2, :2], matrix[:2, 2],
                                             order=order, mode=fill_mode, cval=cval)
                    for plane in planes], axis=0)
    return np.rollaxis(out, 0, channel_axis + 1)


def _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval, interpolation_order,
                   **params) -> np.ndarray:
    return apply_affine_transform(x, row_axis=row_axis, col_axis=col_axis,
                                  channel_axis=channel_axis, fill_mode=fill_mode, cval=cval,
                                  order=interpolation_order, **params)


@strict_keywords("random_rotation")
def random_rotation(x, rg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                    cval=0.0, interpolation_order=1) -> np.ndarray:
    """`x` rotated by an angle drawn uniformly from [-rg, rg] degrees."""
    theta = np.random.uniform(-rg, rg)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, theta=theta)


@strict_keywords("random_shift")
def random_shift(x, wrg, hrg, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1) -> np.ndarray:
    """`x` shifted by fractions of its height (from [-hrg, hrg]) and width (from
    [-wrg, wrg]), drawn uniformly in that order."""
    x = np.asarray(x)
    h, w = x.shape[row_axis], x.shape[col_axis]
    tx = np.random.uniform(-hrg, hrg) * h
    ty = np.random.uniform(-wrg, wrg) * w
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, tx=tx, ty=ty)


@strict_keywords("random_shear")
def random_shear(x, intensity, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                 cval=0.0, interpolation_order=1) -> np.ndarray:
    """`x` sheared by an angle drawn uniformly from [-intensity, intensity] degrees."""
    shear = np.random.uniform(-intensity, intensity)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, shear=shear)


@strict_keywords("random_zoom")
def random_zoom(x, zoom_range, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest",
                cval=0.0, interpolation_order=1) -> np.ndarray:
    """`x` zoomed by factors zx, zy drawn uniformly from `zoom_range` (two floats; (1, 1)
    draws nothing)."""
    if len(zoom_range) != 2:
        raise ValueError("`zoom_range` should be a tuple or list of two floats. "
                         f"Received: {zoom_range}")
    if zoom_range[0] == 1 and zoom_range[1] == 1:
        zx, zy = 1, 1
    else:
        zx, zy = np.random.uniform(zoom_range[0], zoom_range[1], 2)
    return _random_affine(x, row_axis, col_axis, channel_axis, fill_mode, cval,
                          interpolation_order, zx=zx, zy=zy)


@strict_keywords("apply_channel_shift")
def apply_channel_shift(x, intensity, channel_axis=0) -> np.ndarray:
    """`intensity` added to every channel of the 3-D `x`, clipped to x's own [min, max]."""
    planes = np.rollaxis(np.asarray(x), channel_axis, 0)
    low, high = np.min(planes), np.max(planes)
    out = np.stack([np.clip(plane + intensity, low, high) for plane in planes], axis=0)
    return np.rollaxis(out, 0, channel_axis + 1)


@strict_keywords("random_channel_shift")
def random_channel_shift(x, intensity_range, channel_axis=0) -> np.ndarray:
    """apply_channel_shift by an intensity drawn uniformly from [-intensity_range,
    intensity_range]."""
    intensity = np.random.uniform(-intensity_range, intensity_range)
    return apply_channel_shift(x, intensity, channel_axis=channel_axis)


@strict_keywords("apply_brightness_shift")
def apply_brightness_shift(x, brightness, scale=True) -> np.ndarray:
    """The channels-last 3-D image `x` (1, 3 or 4 channels) brightened by the factor
    `brightness` with Pillow's `ImageEnhance.Brightness` (uint8 pixels times the factor,
    rounded and clipped), as a float32 array in [0, 255]. With `scale` (or when x has
    values outside [0, 255]) x is first stretched onto [0, 255]; `scale=False` maps such a
    result back onto x's range."""
    try:
        from PIL import ImageEnhance
    except ImportError:
        raise ImportError("apply_brightness_shift uses Pillow's ImageEnhance: pip install "
                          "Pillow (or 'autograph-rt[images]').") from None
    x = np.asarray(x)
    low, high = np.min(x), np.max(x)
    outside = bool(low < 0 or high > 255)
    image = ImageEnhance.Brightness(array_to_img(x, scale=outside or scale)).enhance(brightness)
    out = img_to_array(image)
    if not scale and outside:
        out = out / 255 * (high - low) + low
    return out


@strict_keywords("random_brightness")
def random_brightness(x, brightness_range, scale=True) -> np.ndarray:
    """apply_brightness_shift by a factor drawn uniformly from `brightness_range` (two
    floats)."""
    if len(brightness_range) != 2:
        raise ValueError("`brightness_range should be tuple or list of two floats. "
                         f"Received: {brightness_range}")
    factor = np.random.uniform(brightness_range[0], brightness_range[1])
    return apply_brightness_shift(x, factor, scale)


__all__ = ["Iterator", "apply_affine_transform", "apply_brightness_shift",
           "apply_channel_shift", "random_brightness", "random_channel_shift",
           "random_rotation", "random_shear", "random_shift", "random_zoom"]
