"""`keras.datasets.cifar100`: 50,000 + 10,000 32x32 colour images, 100 fine / 20 coarse classes."""

from __future__ import annotations

import os

import numpy as np

from ...arguments import strict_keywords
from ..file_utils import get_file
from . import sources
from .cifar import channels_last, load_batch

_HASH = "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7"


@strict_keywords("cifar100.load_data")
def load_data(label_mode: str = "fine"):
    """`(x_train, y_train), (x_test, y_test)`: uint8 images (n, 32, 32, 3) and int64 labels
    (n, 1) of the "fine" or "coarse" classes."""
    if label_mode not in ("fine", "coarse"):
        raise ValueError('`label_mode` must be one of `"fine"`, `"coarse"`. '
                         f"Received: label_mode={label_mode}.")
    root = get_file(fname="cifar-100-python-target", extract=True, file_hash=_HASH,
                    origin=f"{sources.CIFAR_ORIGIN_FOLDER}cifar-100-python.tar.gz")
    folder = os.path.join(root, "cifar-100-python")
    out = []
    for part in ("train", "test"):
        x, y = load_batch(os.path.join(folder, part), label_key=f"{label_mode}_labels")
        out.append((channels_last(x), np.reshape(y, (len(y), 1))))
    return tuple(out)


__all__ = ["load_data"]
