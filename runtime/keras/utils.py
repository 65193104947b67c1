"""`keras.utils`: `to_categorical`, `set_random_seed`, `get_file`, `pad_sequences`, the
dataset sources and image helpers (`image_dataset_from_directory`, `load_img`, ...),
`plot_model` / `model_to_dot`, `Progbar`, and the saving helpers Keras keeps here."""

from __future__ import annotations

import random as _random

import numpy as np

from ..layers.model_plot import model_to_dot, plot_model
from ..layers.progress import Progbar
from ..layers.serialization import (
    custom_object_scope,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from ..ops import random
from .audio_utils import audio_dataset_from_directory
from .dataset_sources import split_dataset, text_dataset_from_directory, timeseries_dataset_from_array
from .file_utils import get_file
from .image_utils import array_to_img, image_dataset_from_directory, img_to_array, load_img, save_img
from .sequence_utils import pad_sequences

CustomObjectScope = custom_object_scope


def to_categorical(y, num_classes: int | None = None, dtype="float32") -> np.ndarray:
    """One-hot rows for integer class labels `y` (a trailing axis of 1 is dropped);
    `num_classes` defaults to max(y) + 1."""
    labels = np.asarray(y)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    if labels.size and not np.issubdtype(labels.dtype, np.integer):
        if not np.all(np.equal(np.mod(labels, 1), 0)):
            raise ValueError("to_categorical needs integer class labels.")
        labels = labels.astype(np.int64)
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(f"to_categorical: labels must be in [0, {num_classes}), got values "
                         f"from {labels.min()} to {labels.max()}.")
    out = np.zeros(labels.shape + (num_classes,), dtype=np.dtype(dtype))
    np.put_along_axis(out, labels[..., None].astype(np.int64), 1, axis=-1)
    return out


def set_random_seed(seed: int) -> None:
    """Seeds Python's `random`, NumPy's global generator and the runtime's (`rt.random`)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"set_random_seed needs an integer seed, got {seed!r}.")
    _random.seed(int(seed))
    np.random.seed(int(seed) % (2 ** 32))
    random.set_seed(int(seed))


__all__ = ["to_categorical", "set_random_seed", "custom_object_scope", "CustomObjectScope",
           "get_registered_name", "get_registered_object", "register_keras_serializable",
           "plot_model", "model_to_dot", "Progbar", "get_file", "pad_sequences", "split_dataset",
           "text_dataset_from_directory", "timeseries_dataset_from_array",
           "image_dataset_from_directory", "load_img", "img_to_array", "array_to_img", "save_img",
           "audio_dataset_from_directory"]
