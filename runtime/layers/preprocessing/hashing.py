"""Keras's Hashing layer, with TensorFlow's `to_hash_bucket_fast`: FarmHash's 64-bit
fingerprint of each string's UTF-8 bytes modulo the number of bins. Integers are hashed as
their decimal text, as Keras does."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.core import convert_to_tensor
from ..base import Layer
from ._common import run_numpy
from .farmhash import fingerprint64
from .lookup import _check_mode, _encoded_shape, encode


def _as_bytes(value) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, (int, np.integer)):
        return str(int(value)).encode()
    return str(value).encode("utf-8")


class Hashing(Layer):
    """Hashes strings (or integers, as their decimal text) into `num_bins` bins with
    TensorFlow's FarmHash fingerprint, as Keras 3 on TensorFlow does; with `mask_value`,
    that value maps to 0 and the others to 1..num_bins-1. `output_mode` int (int64),
    one_hot, multi_hot or count. `salt` (TensorFlow's SipHash) is not implemented."""

    _convert_input_args = False  # values are hashed as given (Keras does not cast them)

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode: str = "int",
                 sparse: bool = False, **kwargs: Any) -> None:
        if kwargs.get("dtype") is None and output_mode == "int":
            kwargs["dtype"] = "int64"  # Keras's default for the int ids
        super().__init__(**kwargs)
        if not isinstance(num_bins, int) or num_bins < 1 or (mask_value is not None
                                                              and num_bins < 2):
            raise ValueError(f"Hashing: `num_bins` must be a positive int (at least 2 with a "
                             f"mask_value), got num_bins={num_bins!r}.")
        if salt is not None:
            raise NotImplementedError("Hashing(salt=...) hashes with TensorFlow's keyed "
                                      "SipHash, which is not implemented here; use salt=None.")
        if sparse:
            raise NotImplementedError("Hashing(sparse=True) is not implemented here.")
        _check_mode(output_mode, "Hashing", ("int", "one_hot", "multi_hot", "count"))
        self.num_bins, self.mask_value, self.salt = num_bins, mask_value, None
        self.output_mode, self.sparse = output_mode, False

    def _hash(self, x: np.ndarray) -> np.ndarray:
        values = np.asarray(x, dtype=object)
        out = np.empty(values.shape, np.int64)
        bins = self.num_bins - (self.mask_value is not None)
        mask = None if self.mask_value is None else _as_bytes(self.mask_value)
        for pos, value in np.ndenumerate(values):
            data = _as_bytes(value)
            if mask is not None and data == mask:
                out[pos] = 0
            else:
                out[pos] = fingerprint64(data) % bins + (mask is not None)
        if self.output_mode == "int":
            return out
        return encode(out, self.output_mode, self.num_bins, np.float32)

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        shape = _encoded_shape(inputs.shape, self.output_mode, self.num_bins)
        dtype = "int64" if self.output_mode == "int" else self.dtype
        return run_numpy(self._hash, inputs, dtype, shape)
