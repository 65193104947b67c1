"""`keras.preprocessing.image.ImageDataGenerator`: Keras's deprecated (still shipped) batches of
randomly transformed images, from arrays (`flow`) or from a directory of class folders
(`flow_from_directory`).

    gen = ImageDataGenerator(rescale=1 / 255, rotation_range=20, horizontal_flip=True)
    images, labels = next(gen.flow_from_directory("flower_photos"))   # (32, 256, 256, 3) float32

Keras's behaviour: classes are the sorted sub-folders, files sorted in each, one-hot labels by
default; each image gets `preprocessing_function`, then its random affine transform (rotation,
shifts, shear, zoom: SciPy's `ndimage.affine_transform` about the image center), channel shift,
flips and brightness, then `standardize` (rescale, sample- and feature-wise centering and
scaling, ZCA). Random draws come from a NumPy generator seeded by `seed`, so they repeat for a
seed but differ from Keras's draws.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Iterator

import numpy as np

from ...arguments import strict_keywords
from ..backend import floatx, image_data_format
from ..image_utils import array_to_img, img_to_array, load_img
from .image_transforms import Iterator as _KerasIterator

_FORMATS = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")
_CLASS_MODES = ("categorical", "binary", "sparse", "input", None)
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


def _pair(value: Any, name: str) -> tuple[float, float]:
    if isinstance(value, (int, float)):
        return 1.0 - value, 1.0 + value
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return float(value[0]), float(value[1])
    raise ValueError(f"`{name}` should be a float or a tuple or list of two floats. "
                     f"Received: {value!r}")


def _shift(rng: np.random.Generator, value: Any, size: int) -> float:
    """A shift drawn as Keras draws it: uniform in [-value, value] for a float, else one of
    `range(value)` or of the listed values with a random sign; a fraction of `size` when
    every value is below 1."""
    if not np.any(value):
        return 0.0
    if isinstance(value, (float, np.floating)):
        shift = float(rng.uniform(-value, value))
    else:
        choices = np.arange(value) if isinstance(value, (int, np.integer)) else np.asarray(value)
        shift = float(rng.choice(choices)) * float(rng.choice([-1, 1]))
    return shift * size if np.max(value) < 1 else shift


def affine_matrix(theta: float, tx: float, ty: float, shear: float, zx: float, zy: float):
    """The 3 x 3 matrix (rows, columns, 1) of a rotation by `theta` degrees, a shift, a shear
    of `shear` degrees and a zoom, composed in that order; None for the identity."""
    parts = []
    if theta:
        t = np.deg2rad(theta)
        parts.append(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]]))
    if tx or ty:
        parts.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], dtype=float))
    if shear:
        s = np.deg2rad(shear)
        parts.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        parts.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]], dtype=float))
    if not parts:
        return None
    matrix = parts[0]
    for part in parts[1:]:
        matrix = matrix @ part
    return matrix


def apply_affine(x: np.ndarray, matrix: np.ndarray, channel_axis: int, fill_mode: str,
                 cval: float, order: int) -> np.ndarray:
    """`x` (one image, channels first or last) resampled through `matrix` about its center."""
    try:
        from scipy import ndimage
    except ImportError:  # pragma: no cover - scipy comes with the test and jit extras
        raise ImportError("ImageDataGenerator's rotations, shifts, shears and zooms use SciPy: "
                          "pip install 'autograph-rt[images]'.") from None
    planes = np.moveaxis(x, channel_axis, 0)
    rows, cols = planes.shape[1:]
    center = np.array([[1, 0, rows / 2 - 0.5], [0, 1, cols / 2 - 0.5], [0, 0, 1]])
    uncenter = np.array([[1, 0, -(rows / 2 - 0.5)], [0, 1, -(cols / 2 - 0.5)], [0, 0, 1]])
    full = center @ matrix @ uncenter
    full[:, [0, 1]] = full[:, [1, 0]]   # Keras builds the matrix in (x, y) = (column, row)
    full[[0, 1]] = full[[1, 0]]         # coordinates: swapped to the array's (row, column)
    out = np.stack([ndimage.affine_transform(p, full[:2, :2], full[:2, 2], order=order,
                                             mode=fill_mode, cval=cval) for p in planes])
    return np.moveaxis(out, 0, channel_axis)


class ImageDataGenerator:
    """Random image transforms and normalisation, applied batch by batch (see the module)."""

    @strict_keywords("ImageDataGenerator")
    def __init__(self, featurewise_center: bool = False, samplewise_center: bool = False,
                 featurewise_std_normalization: bool = False,
                 samplewise_std_normalization: bool = False, zca_whitening: bool = False,
                 zca_epsilon: float = 1e-6, rotation_range: float = 0,
                 width_shift_range: Any = 0.0, height_shift_range: Any = 0.0,
                 brightness_range: Any = None, shear_range: float = 0.0, zoom_range: Any = 0.0,
                 channel_shift_range: float = 0.0, fill_mode: str = "nearest", cval: float = 0.0,
                 horizontal_flip: bool = False, vertical_flip: bool = False,
                 rescale: float | None = None, preprocessing_function: Callable | None = None,
                 data_format: str | None = None, validation_split: float = 0.0,
                 interpolation_order: int = 1, dtype: Any = None) -> None:
        data_format = data_format or image_data_format()
        if data_format not in ("channels_last", "channels_first"):
            raise ValueError('`data_format` should be "channels_last" or "channels_first". '
                             f"Received: {data_format!r}")
        if fill_mode not in ("constant", "nearest", "reflect", "wrap"):
            raise ValueError('fill_mode must be one of "constant", "nearest", "reflect", '
                             f'"wrap"; received {fill_mode!r}.')
        if validation_split and not 0 < validation_split < 1:
            raise ValueError("`validation_split` must be strictly between 0 and 1. "
                             f"Received: {validation_split}")
        if brightness_range is not None and (
                not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2):
            raise ValueError("`brightness_range` should be a tuple or list of two floats. "
                             f"Received: {brightness_range!r}")
        self.data_format = data_format
        self.channel_axis = 3 if data_format == "channels_last" else 1
        self.row_axis, self.col_axis = (1, 2) if data_format == "channels_last" else (2, 3)
        self.featurewise_center = featurewise_center or featurewise_std_normalization \
            or zca_whitening
        self.featurewise_std_normalization = featurewise_std_normalization and not zca_whitening
        self.samplewise_center = samplewise_center or samplewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening, self.zca_epsilon = zca_whitening, zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range, self.height_shift_range = width_shift_range, height_shift_range
        self.brightness_range = brightness_range
        self.shear_range = shear_range
        self.zoom_range = _pair(zoom_range, "zoom_range")
        self.channel_shift_range = channel_shift_range
        self.fill_mode, self.cval = fill_mode, cval
        self.horizontal_flip, self.vertical_flip = horizontal_flip, vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self._validation_split = validation_split
        self.interpolation_order = interpolation_order
        self.dtype = np.dtype(dtype or floatx()).name
        self.mean: np.ndarray | None = None
        self.std: np.ndarray | None = None
        self.zca_whitening_matrix: np.ndarray | None = None
        self._rng = np.random.default_rng()

    # -- one image ---------------------------------------------------------------------------
    @strict_keywords("ImageDataGenerator.get_random_transform")
    def get_random_transform(self, img_shape: tuple, seed: int | None = None) -> dict:
        """Random parameters of one image's transform (the keys `apply_transform` reads)."""
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        rows, cols = img_shape[self.row_axis - 1], img_shape[self.col_axis - 1]
        theta = float(rng.uniform(-self.rotation_range, self.rotation_range)) \
            if self.rotation_range else 0.0
        tx = _shift(rng, self.height_shift_range, rows)
        ty = _shift(rng, self.width_shift_range, cols)
        shear = float(rng.uniform(-self.shear_range, self.shear_range)) if self.shear_range else 0.0
        zx, zy = (1.0, 1.0) if self.zoom_range == (1.0, 1.0) else \
            tuple(float(z) for z in rng.uniform(*self.zoom_range, 2))
        return {"theta": theta, "tx": tx, "ty": ty, "shear": shear, "zx": zx, "zy": zy,
                "flip_horizontal": bool(self.horizontal_flip and rng.random() < 0.5),
                "flip_vertical": bool(self.vertical_flip and rng.random() < 0.5),
                "channel_shift_intensity": float(rng.uniform(-self.channel_shift_range,
                                                             self.channel_shift_range))
                if self.channel_shift_range else None,
                "brightness": float(rng.uniform(*self.brightness_range))
                if self.brightness_range is not None else None}

    @strict_keywords("ImageDataGenerator.apply_transform")
    def apply_transform(self, x: np.ndarray, transform_parameters: dict) -> np.ndarray:
        """One image (rank 3) transformed by the given parameters, same shape."""
        p = transform_parameters
        channel = self.channel_axis - 1
        matrix = affine_matrix(p.get("theta", 0), p.get("tx", 0), p.get("ty", 0),
                               p.get("shear", 0), p.get("zx", 1), p.get("zy", 1))
        if matrix is not None:
            x = apply_affine(x, matrix, channel, self.fill_mode, self.cval,
                             self.interpolation_order)
        if p.get("channel_shift_intensity") is not None:
            x = np.clip(x + p["channel_shift_intensity"], np.min(x), np.max(x))
        if p.get("flip_horizontal"):
            x = np.flip(x, self.col_axis - 1)
        if p.get("flip_vertical"):
            x = np.flip(x, self.row_axis - 1)
        if p.get("brightness") is not None:
            x = np.clip(x * p["brightness"], 0, 255)
        return np.ascontiguousarray(x)

    @strict_keywords("ImageDataGenerator.random_transform")
    def random_transform(self, x: np.ndarray, seed: int | None = None) -> np.ndarray:
        """One image with a random transform applied."""
        return self.apply_transform(x, self.get_random_transform(np.shape(x), seed))

    @strict_keywords("ImageDataGenerator.standardize")
    def standardize(self, x: np.ndarray) -> np.ndarray:
        """Preprocessing function, rescale, then the centering and scaling asked for."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        x = np.asarray(x, dtype=self.dtype)
        if self.rescale:
            x = x * np.asarray(self.rescale, self.dtype)
        if self.samplewise_center:
            x = x - np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x = x / (np.std(x, keepdims=True) + 1e-6)
        if self.featurewise_center and self.mean is not None:
            x = x - self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x = x / (self.std + 1e-6)
        if self.zca_whitening and self.zca_whitening_matrix is not None:
            flat = x.reshape(-1, int(np.prod(x.shape[-3:])))
            x = (flat @ self.zca_whitening_matrix).reshape(x.shape)
        return x.astype(self.dtype, copy=False)

    @strict_keywords("ImageDataGenerator.fit")
    def fit(self, x: Any, augment: bool = False, rounds: int = 1, seed: int | None = None) -> None:
        """Computes the feature-wise mean, std and ZCA matrix from sample images (rank 4)."""
        x = np.array(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: "
                             f"{x.shape}")
        if self.rescale:
            x = x * self.rescale
        if augment:
            rng = np.random.default_rng(seed)
            x = np.stack([self.apply_transform(image, self.get_random_transform(
                image.shape, int(rng.integers(2 ** 31)))) for _ in range(rounds) for image in x])
        axes = (0, self.row_axis, self.col_axis)
        shape = [1, 1, 1]
        shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.mean(x, axis=axes).reshape(shape)
            x = x - self.mean
        if self.featurewise_std_normalization:
            self.std = np.std(x, axis=axes).reshape(shape)
            x = x / (self.std + 1e-6)
        if self.zca_whitening:
            flat = x.reshape(len(x), -1)
            u, s, _ = np.linalg.svd(flat.T, full_matrices=False)
            self.zca_whitening_matrix = (u * (np.sqrt(len(x)) / (s + self.zca_epsilon))) @ u.T

    # -- batches -----------------------------------------------------------------------------
    @strict_keywords("ImageDataGenerator.flow")
    def flow(self, x: Any, y: Any = None, batch_size: int = 32, shuffle: bool = True,
             sample_weight: Any = None, seed: int | None = None, save_to_dir: str | None = None,
             save_prefix: str = "", save_format: str = "png", ignore_class_split: bool = False,
             subset: str | None = None) -> "NumpyArrayIterator":
        """Batches `(x, y)` (or `x`, or `(x, y, sample_weight)`) of transformed images."""
        return NumpyArrayIterator(self, x, y, batch_size, shuffle, sample_weight, seed,
                                  (save_to_dir, save_prefix, save_format), subset,
                                  ignore_class_split)

    @strict_keywords("ImageDataGenerator.flow_from_directory")
    def flow_from_directory(self, directory: str, target_size: tuple = (256, 256),
                            color_mode: str = "rgb", classes: list | None = None,
                            class_mode: str | None = "categorical", batch_size: int = 32,
                            shuffle: bool = True, seed: int | None = None,
                            save_to_dir: str | None = None, save_prefix: str = "",
                            save_format: str = "png", follow_links: bool = False,
                            subset: str | None = None, interpolation: str = "nearest",
                            keep_aspect_ratio: bool = False) -> "DirectoryIterator":
        """Batches of the images under `directory`'s class folders, loaded at `target_size`."""
        return DirectoryIterator(self, directory, target_size, color_mode, classes, class_mode,
                                 batch_size, shuffle, seed, (save_to_dir, save_prefix,
                                                             save_format),
                                 follow_links, subset, interpolation, keep_aspect_ratio)

    def _split(self, subset: str | None) -> tuple[float, float] | None:
        if subset is None:
            return None
        if subset not in ("training", "validation"):
            raise ValueError(f'Invalid subset name: {subset!r}; expected "training" or '
                             '"validation".')
        if not self._validation_split:
            raise ValueError(f"subset={subset!r} needs the ImageDataGenerator's "
                             "validation_split.")
        return (0.0, self._validation_split) if subset == "validation" \
            else (self._validation_split, 1.0)


class _BatchIterator(_KerasIterator):
    """Batches of `n` samples (indices shuffled each epoch when asked): `next()` runs forever,
    `len()` is the batches of one epoch and `[i]` is batch `i` of the current order. A
    `keras.preprocessing.image.Iterator` (so a PyDataset: `fit` reads an epoch of batches)
    that draws its order from its own NumPy generator seeded by `seed`."""

    def __init__(self, n: int, batch_size: int, shuffle: bool, seed: int | None,
                 save: tuple) -> None:
        self.n, self.batch_size, self.shuffle, self.seed = n, int(batch_size), shuffle, seed
        self.batch_index = 0
        self.total_batches_seen = 0
        self._order_rng = np.random.default_rng(seed)
        self.index_array: np.ndarray | None = None
        self._lock = threading.Lock()
        self._save_to_dir, self._save_prefix, self._save_format = save

    def _new_order(self) -> np.ndarray:
        self.index_array = self._order_rng.permutation(self.n) if self.shuffle \
            else np.arange(self.n)
        return self.index_array

    def __len__(self) -> int:
        return (self.n + self.batch_size - 1) // self.batch_size

    def __getitem__(self, idx: int):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length "
                             f"{len(self)}")
        order = self._new_order() if self.index_array is None else self.index_array
        self.total_batches_seen += 1
        return self._batch(order[self.batch_size * idx:self.batch_size * (idx + 1)])

    def on_epoch_end(self) -> None:
        self._new_order()

    def reset(self) -> None:
        self.batch_index = 0

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        with self._lock:
            order = self._new_order() if self.batch_index == 0 or self.index_array is None \
                else self.index_array
            start = (self.batch_index * self.batch_size) % max(self.n, 1)
            self.batch_index = self.batch_index + 1 if self.n > start + self.batch_size else 0
            self.total_batches_seen += 1
            indices = order[start:start + self.batch_size]
        return self._batch(indices)

    def _transform(self, generator: ImageDataGenerator, x: np.ndarray, index: int) -> np.ndarray:
        seed = None if self.seed is None else self.seed * 1_000_003 + \
            self.total_batches_seen * 9973 + int(index)
        x = generator.apply_transform(x, generator.get_random_transform(x.shape, seed))
        return generator.standardize(x)

    def _save(self, batch_x: np.ndarray, indices: np.ndarray, data_format: str) -> None:
        if not self._save_to_dir:
            return
        for image, j in zip(batch_x, indices):
            name = f"{self._save_prefix}_{j}_{np.random.randint(10 ** 7)}.{self._save_format}"
            array_to_img(image, data_format, scale=True).save(
                os.path.join(self._save_to_dir, name))

    def _batch(self, indices: np.ndarray):
        raise NotImplementedError

    def _get_batches_of_transformed_samples(self, index_array: np.ndarray):
        return self._batch(index_array)


class NumpyArrayIterator(_BatchIterator):
    """`ImageDataGenerator.flow`'s batches of an array of images (rank 4)."""

    def __init__(self, generator: ImageDataGenerator, x: Any, y: Any, batch_size: int,
                 shuffle: bool, sample_weight: Any, seed: int | None, save: tuple,
                 subset: str | None, ignore_class_split: bool = False) -> None:
        x = np.asarray(x, dtype=generator.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input data in `NumpyArrayIterator` should have rank 4. You "
                             f"passed an array with shape {x.shape}")
        y = None if y is None else np.asarray(y)
        weights = None if sample_weight is None else np.asarray(sample_weight)
        for name, other in (("y", y), ("sample_weight", weights)):
            if other is not None and len(other) != len(x):
                raise ValueError(f"`x` (images tensor) and `{name}` should have the same "
                                 f"length. Found: x.shape = {x.shape}, {name}.shape = "
                                 f"{other.shape}")
        split = generator._split(subset)
        if split is not None:
            lo, hi = (int(f * len(x)) for f in split)
            cut = int(generator._validation_split * len(x))
            if y is not None and not ignore_class_split and \
                    set(np.unique(y[:cut]).tolist()) != set(np.unique(y[cut:]).tolist()):
                raise ValueError("Training and validation subsets have different number of "
                                 "classes after the split. If your numpy arrays are sorted by "
                                 "the label, you might want to shuffle them (or pass "
                                 "ignore_class_split=True).")
            x, y = x[lo:hi], None if y is None else y[lo:hi]
            weights = None if weights is None else weights[lo:hi]
        self.x, self.y, self.sample_weight = x, y, weights
        self.image_data_generator = generator
        self.data_format = generator.data_format
        super().__init__(len(x), batch_size, shuffle, seed, save)

    def _batch(self, indices: np.ndarray):
        batch_x = np.stack([self._transform(self.image_data_generator, self.x[j], j)
                            for j in indices]) if len(indices) else self.x[:0]
        self._save(batch_x, indices, self.data_format)
        if self.y is None:
            return batch_x
        if self.sample_weight is None:
            return batch_x, self.y[indices]
        return batch_x, self.y[indices], self.sample_weight[indices]


class DirectoryIterator(_BatchIterator):
    """`ImageDataGenerator.flow_from_directory`'s batches: `classes` (the label of every
    file), `class_indices` ({folder: label}), `filenames` (relative paths), `filepaths`,
    `samples`, `num_classes`, `image_shape`."""

    def __init__(self, generator: ImageDataGenerator, directory: str, target_size: tuple,
                 color_mode: str, classes: list | None, class_mode: str | None,
                 batch_size: int, shuffle: bool, seed: int | None, save: tuple,
                 follow_links: bool, subset: str | None, interpolation: str,
                 keep_aspect_ratio: bool) -> None:
        if color_mode not in _CHANNELS:
            raise ValueError(f'Invalid color mode: {color_mode!r}; expected "rgb", "rgba", or '
                             '"grayscale".')
        if class_mode not in _CLASS_MODES:
            raise ValueError(f"Invalid class_mode: {class_mode!r}; expected one of "
                             f"{list(_CLASS_MODES)}")
        directory = os.fspath(directory)
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"flow_from_directory: no directory {directory!r}.")
        self.image_data_generator = generator
        self.directory = directory
        self.target_size = tuple(int(s) for s in target_size)
        self.color_mode, self.class_mode = color_mode, class_mode
        self.data_format = generator.data_format
        self.dtype = generator.dtype
        channels = _CHANNELS[color_mode]
        self.image_shape = self.target_size + (channels,) \
            if self.data_format == "channels_last" else (channels,) + self.target_size
        self.interpolation, self.keep_aspect_ratio = interpolation, keep_aspect_ratio
        names = list(classes) if classes else sorted(
            d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        self.num_classes = len(names)
        self.class_indices = {name: i for i, name in enumerate(names)}
        split = generator._split(subset)
        labels, self.filenames = [], []
        for name in names:
            files = _image_files(os.path.join(directory, name), follow_links)
            if split is not None:
                files = files[int(split[0] * len(files)):int(split[1] * len(files))]
            labels += [self.class_indices[name]] * len(files)
            self.filenames += [os.path.join(name, f) for f in files]
        self.classes = np.asarray(labels, dtype="int32")
        self.samples = len(self.filenames)
        self.filepaths = [os.path.join(directory, f) for f in self.filenames]
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        super().__init__(self.samples, batch_size, shuffle, seed, save)

    @property
    def labels(self) -> np.ndarray:
        return self.classes

    def _batch(self, indices: np.ndarray):
        batch_x = np.zeros((len(indices),) + self.image_shape, dtype=self.dtype)
        for i, j in enumerate(indices):
            image = load_img(self.filepaths[j], color_mode=self.color_mode,
                             target_size=self.target_size, interpolation=self.interpolation,
                             keep_aspect_ratio=self.keep_aspect_ratio)
            x = img_to_array(image, data_format=self.data_format)
            batch_x[i] = self._transform(self.image_data_generator, x, j)
        self._save(batch_x, indices, self.data_format)
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode in ("binary", "sparse"):
            return batch_x, self.classes[indices].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(indices), self.num_classes), dtype=self.dtype)
            batch_y[np.arange(len(indices)), self.classes[indices]] = 1.0
            return batch_x, batch_y
        return batch_x


def _image_files(folder: str, follow_links: bool) -> list[str]:
    """The image files under `folder` (walked, sorted), relative to it."""
    found = []
    for root, _, files in sorted(os.walk(folder, followlinks=follow_links)):
        for name in sorted(files):
            if name.lower().endswith(_FORMATS):
                found.append(os.path.relpath(os.path.join(root, name), folder))
    return found
