"""The CIFAR batch files: pickled dicts of a (n, 3072) uint8 array and labels."""

from __future__ import annotations

import numpy as np

from . import sources


def load_batch(fpath: str, label_key: str = "labels"):
    """`(data, labels)` of one CIFAR batch file, data reshaped to (n, 3, 32, 32)."""
    with open(fpath, "rb") as stream:
        raw = sources.unpickle_arrays(stream, encoding="bytes")
    batch = {(k.decode("utf8") if isinstance(k, bytes) else k): v for k, v in raw.items()}
    data = np.asarray(batch["data"])
    return data.reshape(data.shape[0], 3, 32, 32), batch[label_key]


def channels_last(x: np.ndarray) -> np.ndarray:
    return x.transpose(0, 2, 3, 1)
