"""`keras.applications.imagenet_utils`: the input scalings of the ImageNet models and the
decoding of their 1000-class predictions, as Keras 3's.

`preprocess_input(x, mode=)`: "tf" scales pixels from [0, 255] to [-1, 1]; "torch" to
[0, 1], then normalises each channel by ImageNet's mean and standard deviation; "caffe"
turns RGB into BGR and subtracts ImageNet's mean pixel. A NumPy array gives a NumPy array
(float32 for integer input), a tensor a tensor.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ... import dtypes as _dtypes
from ...ops import array_math
from ...ops.core import convert_to_tensor
from ...tensor import Tensor
from ..file_utils import get_file

CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX: dict | None = None
_MODES = ("caffe", "tf", "torch")
_CAFFE_MEAN = (103.939, 116.779, 123.68)  # B, G, R
_TORCH_MEAN, _TORCH_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def preprocess_input(x, data_format: str | None = None, mode: str = "caffe"):
    """`x` (pixels in [0, 255], channels last unless `data_format="channels_first"`)
    scaled as the ImageNet models of `mode` expect (see the module docstring)."""
    if mode not in _MODES:
        raise ValueError(f"preprocess_input: `mode` must be one of {_MODES}, got {mode!r}.")
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError("preprocess_input: `data_format` must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}.")
    first = data_format == "channels_first"
    if isinstance(x, np.ndarray):
        if not np.issubdtype(x.dtype, np.floating):
            x = x.astype(np.float32)
        return _scaled(x, mode, first, np)
    t = convert_to_tensor(x)
    if not t.dtype.is_floating:
        t = array_math.cast(t, _dtypes.float32)
    return _scaled(t, mode, first, None)


def _scaled(x, mode: str, channels_first: bool, numpy):
    if mode == "tf":
        return x / 127.5 - 1.0
    rank = len(x.shape)
    shape = [1] * rank
    axis = (0 if rank == 3 else 1) if channels_first else rank - 1
    shape[axis] = 3

    def channel_values(values) -> Any:
        array = np.reshape(np.asarray(values, np.float64), shape)
        dtype = x.dtype if numpy is not None else x.dtype.as_numpy_dtype
        return array.astype(dtype)
    if mode == "torch":
        return (x / 255.0 - channel_values(_TORCH_MEAN)) / channel_values(_TORCH_STD)
    flipped = np.flip(x, axis) if numpy is not None else array_math.reverse(x, [axis])
    return flipped - channel_values(_CAFFE_MEAN)


def decode_predictions(preds, top: int = 5) -> list[list[tuple[str, str, float]]]:
    """For each row of 1000 ImageNet class scores, the `top` (class id, name, score) tuples,
    best first; the class index is downloaded once (Keras's `imagenet_class_index.json`)."""
    global _CLASS_INDEX
    preds = np.asarray(preds.numpy() if isinstance(preds, Tensor) else preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         f"of shape (samples, 1000)). Received array with shape: {preds.shape}")
    if _CLASS_INDEX is None:
        path = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                        file_hash="c2c37ea517e94d9795004a39431a14cb")
        with open(path) as f:
            _CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        row = [tuple(_CLASS_INDEX[str(i)]) + (pred[i],) for i in best]
        row.sort(key=lambda item: item[2], reverse=True)
        results.append(row)
    return results


__all__ = ["preprocess_input", "decode_predictions", "CLASS_INDEX_PATH"]
