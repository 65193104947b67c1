"""`keras.utils`: `to_categorical`, `set_random_seed`, `get_file`, `pad_sequences`, the
dataset sources and image helpers (`image_dataset_from_directory`, `load_img`, ...),
`plot_model` / `model_to_dot`, `Progbar`, and the saving helpers Keras keeps here."""

from __future__ import annotations

import json as _json
import random as _random
import types as _types

import numpy as np

from ..layers.functional import InputLayer, KerasTensor
from ..layers.global_settings import (
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from ..layers.model_plot import model_to_dot, plot_model
from ..layers.progress import Progbar
from ..layers.py_dataset import PyDataset
from ..layers.serialization import (
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from ..ops import random
from . import bounding_boxes
from . import random as keras_random
from .audio_utils import audio_dataset_from_directory
from .backend import clear_session, is_keras_tensor, standardize_dtype
from .dataset_sources import split_dataset, text_dataset_from_directory, timeseries_dataset_from_array
from .feature_space import FeatureSpace
from .file_utils import get_file
from .image_utils import array_to_img, image_dataset_from_directory, img_to_array, load_img, save_img
from .ops_nn import normalize as _ops_normalize
from .saving import deserialize_keras_object, serialize_keras_object
from .sequence_utils import pad_sequences

CustomObjectScope = custom_object_scope
Sequence = PyDataset  # Keras 3's name for it too


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
    """Seeds Python's `random`, NumPy's global generator and the runtime's (`rt.random`), and
    has the next `keras.random` draw without a seed make a new global SeedGenerator."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"set_random_seed needs an integer seed, got {seed!r}.")
    _random.seed(int(seed))
    np.random.seed(int(seed) % (2 ** 32))
    random.set_seed(int(seed))
    keras_random.reset_global_seed_generator()


def normalize(x, axis: int = -1, order: int = 2):
    """`x` divided by its `order`-norm along `axis` (a NumPy array stays one; zero-norm
    slices are left unchanged)."""
    if not isinstance(x, np.ndarray):
        return _ops_normalize(x, axis=axis, order=order)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def pack_x_y_sample_weight(x, y=None, sample_weight=None) -> tuple:
    """`(x,)`, `(x, y)` or `(x, y, sample_weight)`, leaving out the trailing Nones (a tuple
    or list `x` alone is wrapped, so it stays one input)."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def unpack_x_y_sample_weight(data) -> tuple:
    """`(x, y, sample_weight)` of a batch given as x, (x,), (x, y) or (x, y, sample_weight),
    the missing ones None."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     f"`(x, y, sample_weight)`, found: {data}")


class Config:
    """A dict whose keys are also attributes (`config.lr`); `freeze()` makes it read-only."""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    def freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        return self._frozen

    def _writable(self, key) -> None:
        if self._frozen:
            raise ValueError(f"Cannot set attribute {key!r} of a frozen Config; call "
                             "unfreeze() first.")

    def __getattr__(self, name):
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        raise AttributeError(f"Config has no attribute {name!r}; it holds {sorted(config)}.")

    def __setattr__(self, name, value):
        self._writable(name)
        self._config[name] = value

    def __delattr__(self, name):
        self._writable(name)
        del self._config[name]

    def __getitem__(self, key):
        return self._config[key]

    def __setitem__(self, key, value):
        self._writable(key)
        self._config[key] = value

    def __delitem__(self, key):
        self._writable(key)
        del self._config[key]

    def __contains__(self, key) -> bool:
        return key in self._config

    def __iter__(self):
        return iter(self._config)

    def __len__(self) -> int:
        return len(self._config)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def get(self, key, default=None):
        return self._config.get(key, default)

    def update(self, *args, **kwargs) -> None:
        self._writable("update")
        self._config.update(*args, **kwargs)

    def pop(self, *args):
        self._writable("pop")
        return self._config.pop(*args)

    def as_dict(self) -> dict:
        return dict(self._config)

    def to_json(self) -> str:
        return _json.dumps(self._config)

    def __repr__(self) -> str:
        return f"<Config {self._config}>"


legacy = _types.SimpleNamespace(serialize_keras_object=serialize_keras_object,
                                deserialize_keras_object=deserialize_keras_object)

__all__ = ["to_categorical", "set_random_seed", "custom_object_scope", "CustomObjectScope",
           "get_registered_name", "get_registered_object", "register_keras_serializable",
           "plot_model", "model_to_dot", "Progbar", "get_file", "pad_sequences", "split_dataset",
           "text_dataset_from_directory", "timeseries_dataset_from_array",
           "image_dataset_from_directory", "load_img", "img_to_array", "array_to_img", "save_img",
           "audio_dataset_from_directory", "Config", "clear_session", "deserialize_keras_object",
           "get_custom_objects", "is_keras_tensor", "legacy", "normalize",
           "pack_x_y_sample_weight", "serialize_keras_object", "standardize_dtype",
           "unpack_x_y_sample_weight", "PyDataset", "Sequence", "disable_interactive_logging",
           "enable_interactive_logging", "is_interactive_logging_enabled", "get_source_inputs",
           "bounding_boxes", "FeatureSpace"]


def get_source_inputs(tensor) -> list:
    """The `Input` tensors a Keras tensor is computed from, in the order first reached (a
    value that is not a Keras tensor is returned as it is, as Keras does)."""
    if not isinstance(tensor, KerasTensor):
        return tensor
    sources: list = []
    stack, seen = [tensor], set()
    while stack:
        current = stack.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        history = current._keras_history
        if history is None or isinstance(history[0].layer, InputLayer):
            sources.append(current)
            continue
        stack[:0] = history[0].inbound_tensors
    return sources
