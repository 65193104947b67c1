"""`keras.datasets.cifar10`: 50,000 + 10,000 32x32 colour images in 10 classes."""

from __future__ import annotations

import os

import numpy as np

from ...arguments import strict_keywords
from ..file_utils import get_file
from . import sources
from .cifar import channels_last, load_batch

_HASH = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"


@strict_keywords("cifar10.load_data")
def load_data():
    """`(x_train, y_train), (x_test, y_test)`: uint8 images (n, 32, 32, 3), labels (n, 1)."""
    root = get_file(fname="cifar-10-batches-py-target", extract=True, file_hash=_HASH,
                    origin=f"{sources.CIFAR_ORIGIN_FOLDER}cifar-10-python.tar.gz")
    folder = os.path.join(root, "cifar-10-batches-py")
    parts = [load_batch(os.path.join(folder, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([p[0] for p in parts]).astype(np.uint8)
    y_train = np.concatenate([np.asarray(p[1]) for p in parts]).astype(np.uint8)
    x_test, y_test = load_batch(os.path.join(folder, "test_batch"))
    return ((channels_last(x_train), y_train.reshape(-1, 1)),
            (channels_last(np.asarray(x_test, np.uint8)),
             np.asarray(y_test).astype(np.uint8).reshape(-1, 1)))


__all__ = ["load_data"]
