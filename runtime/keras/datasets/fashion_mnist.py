"""`keras.datasets.fashion_mnist`: Zalando's 28x28 clothing images, MNIST's layout."""

from __future__ import annotations

import gzip
import os

import numpy as np

from ...arguments import strict_keywords
from ..file_utils import get_file
from . import sources

_FILES = ("train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz",
          "t10k-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz")


def _idx(path: str, offset: int) -> np.ndarray:
    with gzip.open(path, "rb") as stream:
        return np.frombuffer(stream.read(), np.uint8, offset=offset)


@strict_keywords("fashion_mnist.load_data")
def load_data():
    """`(x_train, y_train), (x_test, y_test)`: uint8, (60000, 28, 28) and (10000, 28, 28)."""
    folder = os.path.join("datasets", "fashion-mnist")
    paths = [get_file(name, origin=sources.ORIGIN_FOLDER + name, cache_subdir=folder)
             for name in _FILES]
    y_train, y_test = _idx(paths[0], 8), _idx(paths[2], 8)
    x_train = _idx(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _idx(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


__all__ = ["load_data"]
