"""`rt.data.TFRecordDataset`: the records of TFRecord files, as scalar string tensors."""

from __future__ import annotations

import os
from typing import Any, Iterator, Optional

import numpy as np

from .. import dtypes as _dtypes
from ..ops.io_tfrecord import _compression, read_records
from ..shapes import TensorSpec
from . import structure as st
from .dataset import UNKNOWN, Dataset


class TFRecordDataset(Dataset):
    """The records of one or more TFRecord files (a string, a list, a string tensor, or a
    dataset of file names), read lazily; both CRCs of every record are checked.

    `compression_type`: None / '' / 'GZIP' / 'ZLIB'. `buffer_size`: bytes read at a time.
    `num_parallel_reads`: that many files read in turn, one record from each."""

    def __init__(self, filenames: Any, compression_type: Optional[str] = None,
                 buffer_size: Optional[int] = None, num_parallel_reads: Optional[int] = None,
                 name: Optional[str] = None):
        self._kind = _compression(compression_type)
        if buffer_size is not None and (not isinstance(buffer_size, (int, np.integer))
                                        or buffer_size < 0):
            raise ValueError(f"TFRecordDataset: `buffer_size` must be a non-negative int, got "
                             f"{buffer_size!r}.")
        self._chunk = int(buffer_size) if buffer_size else 1 << 22
        if num_parallel_reads is not None and not isinstance(num_parallel_reads, (int, np.integer)):
            raise TypeError(f"TFRecordDataset: `num_parallel_reads` must be an int, got "
                            f"{num_parallel_reads!r}.")
        self._parallel = max(int(num_parallel_reads or 1), 1)
        if isinstance(filenames, Dataset):
            self._names_ds, self._names = filenames, None
        else:
            names = st.to_array(filenames, "TFRecordDataset: filenames")
            if names.dtype.kind not in "OSU":
                raise TypeError(f"TFRecordDataset: `filenames` must be strings, got {names.dtype}.")
            self._names_ds, self._names = None, [os.fsdecode(n) for n in np.atleast_1d(names).ravel()]
        self._spec = TensorSpec([], _dtypes.string)
        self._card = UNKNOWN

    def _file_names(self) -> list[str]:
        if self._names is not None:
            return self._names
        return [os.fsdecode(np.asarray(e)[()]) for e in self._names_ds._open()]

    def _one_file(self, name: str) -> Iterator[bytes]:
        for records in read_records(name, self._kind, self._chunk):
            yield from records

    def _blocks(self):
        """The records of each piece read, as one string array (batch slices it)."""
        return self._record_blocks() if self._parallel == 1 else None

    def _record_blocks(self):
        for name in self._file_names():
            for records in read_records(name, self._kind, self._chunk):
                block = np.empty(len(records), dtype=object)
                block[:] = records
                yield block

    def _elements(self):
        if self._parallel == 1:
            yield from super()._elements()
            return
        names = self._file_names()
        pending, active = list(names), []
        while pending or active:
            while pending and len(active) < self._parallel:
                active.append(self._one_file(pending.pop(0)))
            for it in list(active):
                try:
                    record = next(it)
                except StopIteration:
                    active.remove(it)
                    continue
                yield np.asarray(record, dtype=object)
