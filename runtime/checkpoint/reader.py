"""`rt.train.load_checkpoint`: a reader of one checkpoint's keys, shapes, dtypes and values,
as TensorFlow's `CheckpointReader`.

    reader = rt.train.load_checkpoint("./ckpts/")      # a prefix, or a directory: its latest
    reader.get_variable_to_shape_map()   # {'net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE': [1, 5], ...}
    reader.get_tensor('net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE')     # a NumPy array
"""

from __future__ import annotations

import difflib
import os

import numpy as np

from .. import dtypes
from ..arguments import strict_keywords
from ..errors import NotFoundError
from . import format as _format
from .checkpoint import OBJECT_GRAPH_KEY, _resolve, load_variable


class CheckpointReader:
    """The keys, shapes, dtypes and values of one checkpoint (made by `load_checkpoint`).
    Keys are those of `rt.train.list_variables`, `_CHECKPOINTABLE_OBJECT_GRAPH` among them."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        document = _format.read_index(prefix)
        self._entries = {entry["value"]["key"]: entry["value"]
                         for entry in document["nodes"] if "value" in entry}

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """{key: shape as a list of ints} for every saved value (the object graph: [])."""
        shapes = {key: list(entry["shape"]) for key, entry in self._entries.items()}
        shapes[OBJECT_GRAPH_KEY] = []
        return shapes

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        """{key: rt.DType} for every saved value (the object graph: `rt.string`)."""
        found = {key: dtypes.as_dtype(entry["dtype"]) for key, entry in self._entries.items()}
        found[OBJECT_GRAPH_KEY] = dtypes.string
        return found

    def has_tensor(self, tensor_str: str) -> bool:
        """True when the checkpoint holds a value under this key."""
        return tensor_str in self._entries or tensor_str == OBJECT_GRAPH_KEY

    def get_tensor(self, tensor_str: str) -> np.ndarray | np.generic | bytes:
        """The value saved under this key: a NumPy array (a NumPy scalar for a scalar, bytes
        for a scalar string, as TensorFlow's reader). `rt.errors.NotFoundError` when absent."""
        if not self.has_tensor(tensor_str):
            close = difflib.get_close_matches(tensor_str, list(self._entries), n=3)
            raise NotFoundError(f"Key {tensor_str} not found in checkpoint"
                                + (f"; did you mean {', '.join(map(repr, close))}?" if close
                                   else "; get_variable_to_shape_map() lists its keys."))
        value = load_variable(self._prefix, tensor_str)
        return value.item() if value.dtype == object and value.ndim == 0 else \
            value[()] if value.ndim == 0 else value

    def __repr__(self) -> str:
        return f"<CheckpointReader {self._prefix!r}>"


@strict_keywords("load_checkpoint")
def load_checkpoint(ckpt_dir_or_file: str | os.PathLike) -> CheckpointReader:
    """A `CheckpointReader` of a checkpoint: a prefix, or a directory (its latest checkpoint).
    `rt.errors.NotFoundError` when there is none."""
    prefix = _resolve(ckpt_dir_or_file)
    if not _format.exists(prefix):
        raise NotFoundError(f"Unsuccessful load_checkpoint: no checkpoint at '{prefix}' (no "
                            f"'{_format.index_path(prefix)}' file).")
    return CheckpointReader(prefix)
