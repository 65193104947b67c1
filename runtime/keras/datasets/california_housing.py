"""`keras.datasets.california_housing`: 20,640 districts (or the first 600), 8 features."""

from __future__ import annotations

import numpy as np

from ...arguments import strict_keywords
from . import sources

_HASH = "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f"


@strict_keywords("california_housing.load_data")
def load_data(version: str = "large", path: str = "california_housing.npz",
              test_split: float = 0.2, seed: int = 113):
    """`(x_train, y_train), (x_test, y_test)`: rows (all, or the first 600 for
    `version="small"`) shuffled with `seed`, the last `test_split` held out."""
    sources.check_test_split(test_split)
    if version not in ("small", "large"):
        raise ValueError("Argument `version` must be one of 'small', 'large'. "
                         f"Received: version={version}")
    with np.load(sources.fetch(path, _HASH, remote_name="california_housing.npz"),
                 allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    x, y = sources.shuffled(seed, x, y)
    return sources.split(x, y, test_split)


__all__ = ["load_data"]
