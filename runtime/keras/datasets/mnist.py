"""`keras.datasets.mnist`: 60,000 + 10,000 handwritten digits, 28x28 uint8."""

from __future__ import annotations

import numpy as np

from ...arguments import strict_keywords
from . import sources

_HASH = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


@strict_keywords("mnist.load_data")
def load_data(path: str = "mnist.npz"):
    """`(x_train, y_train), (x_test, y_test)`: uint8 arrays of shapes (60000, 28, 28), (60000,),
    (10000, 28, 28), (10000,); `path` names the cached copy."""
    local = sources.fetch(path, _HASH, remote_name="mnist.npz")
    with np.load(local, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])


__all__ = ["load_data"]
