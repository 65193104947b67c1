"""`keras.datasets.boston_housing`: 506 houses, 13 features, median value in k$."""

from __future__ import annotations

import numpy as np

from ...arguments import strict_keywords
from . import sources

_HASH = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


@strict_keywords("boston_housing.load_data")
def load_data(path: str = "boston_housing.npz", test_split: float = 0.2, seed: int = 113):
    """`(x_train, y_train), (x_test, y_test)`: rows shuffled with `seed`, the last
    `test_split` held out."""
    sources.check_test_split(test_split)
    with np.load(sources.fetch(path, _HASH, remote_name="boston_housing.npz"),
                 allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    x, y = sources.shuffled(seed, x, y)
    return sources.split(x, y, test_split)


__all__ = ["load_data"]
