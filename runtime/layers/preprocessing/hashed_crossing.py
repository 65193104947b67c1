"""Keras's HashedCrossing layer: the features of each example crossed with TensorFlow's
`sparse.cross_hashed` (FarmHash's fingerprint of each string, an integer's own 64 bits,
combined in order by FingerprintCat64 from the key 0xDECAFCAFFE) modulo `num_bins`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes as _dtypes
from ...ops.core import convert_to_tensor
from ...ops.py_function import numpy_function
from ...shapes import TensorSpec
from ..base import Layer
from .farmhash import fingerprint64

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_KEY = 0xDECAFCAFFE  # tf.sparse.cross_hashed's default hash key


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def fingerprint_cat64(first: int, second: int) -> int:
    """TensorFlow's FingerprintCat64: two 64-bit fingerprints combined into one."""
    result = first ^ _MUL
    result ^= (_shift_mix((second * _MUL) & _MASK) * _MUL) & _MASK
    result = (result * _MUL) & _MASK
    result = (_shift_mix(result) * _MUL) & _MASK
    return _shift_mix(result)


def _feature_hash(value) -> int:
    if isinstance(value, (bytes, str)):
        return fingerprint64(value if isinstance(value, bytes) else value.encode("utf-8"))
    return int(value) & _MASK


def cross_hash(values, num_bins: int) -> int:
    """The bin of one example's crossed `values` (in order)."""
    hashed = _KEY
    for value in values:
        hashed = fingerprint_cat64(hashed, _feature_hash(value))
    return hashed % num_bins


class HashedCrossing(Layer):
    """Crosses two or more categorical features (integers or strings; each a scalar, a
    batch `(batch,)` or `(batch, 1)`) into `num_bins` bins, as `tf.sparse.cross_hashed`.
    `output_mode` "int" (int64 bin ids, the inputs' shape) or "one_hot" (float32)."""

    _convert_input_args = False

    def __init__(self, num_bins, output_mode: str = "int", sparse: bool = False, name=None,
                 dtype=None, **kwargs: Any) -> None:
        if output_mode not in ("int", "one_hot"):
            raise ValueError("Unknown value for `output_mode` argument of HashedCrossing. "
                             "Allowed values are: ('int', 'one_hot'). Received: "
                             f"output_mode={output_mode}")
        if sparse:
            raise NotImplementedError("HashedCrossing(sparse=True) is not implemented here.")
        if dtype is None:
            dtype = "int64" if output_mode == "int" else "float32"
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.num_bins, self.output_mode, self.sparse = num_bins, output_mode, False

    def call(self, inputs):
        if not isinstance(inputs, (tuple, list)) or len(inputs) < 2:
            raise ValueError("`HashedCrossing` should be called on at least two inputs. "
                             f"Received: inputs={inputs}")
        tensors = [convert_to_tensor(x) for x in inputs]
        for x in tensors:
            rank, dims = x.shape.rank, x.shape.as_list() if x.shape.rank is not None else []
            if rank is not None and (rank > 2 or (rank == 2 and dims[1] not in (1, None))):
                raise ValueError("All `HashedCrossing` inputs should have shape `()`, "
                                 f"`(batch_size)` or `(batch_size, 1)`. Received: inputs={inputs}")
            if not (x.dtype.is_integer or x.dtype == _dtypes.string):
                raise ValueError("All `HashedCrossing` inputs should have an integer or string "
                                 f"dtype. Received: inputs={inputs}")
        shape = tensors[0].shape
        out_shape = shape.as_list() if shape.rank is not None else None
        if self.output_mode == "one_hot" and out_shape is not None:
            out_shape = ([1] if not out_shape else out_shape[:1]) + [self.num_bins]
        dtype = self.dtype

        def cross(*arrays):
            arrays = [np.asarray(a) for a in arrays]
            flat = [a.reshape(-1) for a in arrays]
            bins = np.array([cross_hash(values, self.num_bins) for values in zip(*flat)],
                            np.int64)
            if self.output_mode == "int":
                return bins.reshape(arrays[0].shape).astype(_dtypes.as_dtype(dtype)
                                                            .as_numpy_dtype)
            return np.eye(self.num_bins, dtype=_dtypes.as_dtype(dtype).as_numpy_dtype)[bins]

        return numpy_function(cross, tensors, TensorSpec(out_shape, dtype))

    def get_config(self) -> dict:
        return {"num_bins": self.num_bins, "output_mode": self.output_mode,
                "sparse": self.sparse, "name": self.name,
                "dtype": _dtypes.as_dtype(self.dtype).name}
