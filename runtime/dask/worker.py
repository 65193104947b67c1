"""What runs on Dask workers: saved functions loaded once per process, then called."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from .. import saved_model

_cache: dict = {}
_lock = threading.Lock()


def digest_of(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def loaded_function(payload: bytes, digest: str):
    """The saved function in `payload` (bytes from saved_model.dumps), loaded once per digest."""
    found = _cache.get(digest)
    if found is None:
        with _lock:
            found = _cache.get(digest)
            if found is None:
                if digest_of(payload) != digest:
                    raise ValueError("The shipped function does not match its content hash.")
                found = _cache[digest] = saved_model.loads(payload).signatures["serving_default"]
    return found


def run_block(payload: bytes, digest: str, *blocks):
    """One output block of map_blocks."""
    return np.asarray(loaded_function(payload, digest)(*blocks))


def shard_gradients(payload: bytes, digest: str, x, y, weights):
    """(loss, gradients, rows) of one shard, given the current variable values."""
    loss, grads = loaded_function(payload, digest)(x, y, tuple(weights))
    return np.asarray(loss), [np.asarray(g) for g in grads], len(x)
