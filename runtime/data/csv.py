"""CSV files as datasets: `rt.data.experimental.CsvDataset` (one element per record, a tuple
of scalar columns) and `make_csv_dataset` (column names from the header, types inferred,
batches of `(OrderedDict of columns, label)`), as TensorFlow reads them.

Records are read and converted as `rt.io.decode_csv` does (runtime/ops/io_csv.py), a block
of rows at a time, so `shuffle` and `batch` after them work on NumPy blocks.
"""

from __future__ import annotations

import collections
import copy
import glob
import gzip
import itertools
import os
import zlib
from typing import Any, Callable, Iterator, Optional

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..errors import DataLossError, InvalidArgumentError
from ..ops import io_csv
from ..ops.io_tfrecord import open_for_reading
from ..shapes import TensorSpec
from . import structure as st
from .dataset import AUTOTUNE, BLOCK, UNKNOWN, Dataset, ignoring_errors, skipping_error

_CHUNK = 1 << 18  # bytes read at a time from a file (a file of several read in turn: 1/4)
_COMPRESSIONS = {None: "", "": "", "GZIP": "GZIP", "ZLIB": "ZLIB"}




def _line_batches(fh, buffer_size: int) -> Iterator[tuple[list, bool]]:
    """The lines of a binary stream a chunk at a time, without their line endings (LF or
    CRLF), and whether the chunk holds a double quote."""
    rest = b""
    while True:
        chunk = fh.read(buffer_size)
        if not chunk:
            break
        text = rest + chunk
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n")
        lines = text.split(b"\n")
        rest = lines.pop()
        if lines:
            yield lines, b'"' in text
    if rest:
        yield [rest[:-1] if rest.endswith(b"\r") else rest], b'"' in rest


def _record_batches(fh, buffer_size: int, use_quote: bool) -> Iterator[tuple[Any, list]]:
    """(first line numbers, records) of a CSV stream a chunk at a time; a quoted field may
    hold line breaks (its record then spans lines)."""
    number = 0
    pending: Optional[tuple[int, bytes]] = None  # a record whose quoted field goes on
    for lines, quoted in _line_batches(fh, buffer_size):
        if pending is None and not (use_quote and quoted):
            yield range(number + 1, number + 1 + len(lines)), lines
            number += len(lines)
            continue
        numbers, records = [], []
        for line in lines:
            number += 1
            first, text = (pending[0], pending[1] + b"\n" + line) if pending else (number, line)
            if use_quote and text.count(b'"') % 2:
                pending = (first, text)
                continue
            pending = None
            numbers.append(first)
            records.append(text)
        if records:
            yield numbers, records
    if pending is not None:
        yield [pending[0]], [pending[1]]


def _records(fh, buffer_size: int, use_quote: bool) -> Iterator[tuple[int, bytes]]:
    """(line number, record) of a CSV stream, one record at a time."""
    for numbers, records in _record_batches(fh, buffer_size, use_quote):
        yield from zip(numbers, records)


class _Reading:
    """How the records of one file become rows (the options of the CSV datasets)."""

    def __init__(self, columns: list, header: bool, delim: int, use_quote: bool, na: bytes,
                 select: Optional[list], exclude: Optional[list], compression: str,
                 buffer_size: int, ignore_errors: bool):
        self.columns, self.header, self.delim, self.use_quote = columns, header, delim, use_quote
        self.na, self.select, self.exclude, self.compression = na, select, exclude, compression
        self.buffer_size, self.ignore_errors = buffer_size, ignore_errors

    def rows(self, path: str) -> Iterator[tuple[list, list]]:
        """Batches `(wheres, rows)` of the file `path`: per record its `(path, line)` and the
        fields of the columns read. A corrupted GZIP or ZLIB stream is a DataLossError."""
        try:
            yield from self._rows(path)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise DataLossError(f"{path}: corrupted {self.compression} stream ({exc})") from None

    def _rows(self, path: str) -> Iterator[tuple[list, list]]:
        fh = open_for_reading(path, self.compression)
        try:
            skip = self.header
            for numbers, records in _record_batches(fh, self.buffer_size, self.use_quote):
                if skip:
                    numbers, records, skip = numbers[1:], records[1:], False
                if records:
                    yield from self._split(path, numbers, records)
            if skip:
                raise InvalidArgumentError(f"CsvDataset: Can't read header of file {path}: it is "
                                           "empty (header=True).")
        finally:
            fh.close()

    def _split(self, path: str, numbers: Any, records: list) -> Iterator[tuple[list, list]]:
        """The batch `(wheres, rows)` of records (a plain batch split at once; otherwise record
        by record, a bad record raising after the rows before it)."""
        joined = b"".join(records)
        if self.exclude is None and b"\r" not in joined and not (self.use_quote and b'"' in joined):
            rows = self._plain_rows(records)
            if rows is not None:
                yield list(zip(itertools.repeat(path), numbers)), rows
                return
        wheres, rows = [], []
        for line, record in zip(numbers, records):
            try:
                rows.append(self._fields(record))
                wheres.append((path, line))
            except io_csv.RecordError as exc:
                error = InvalidArgumentError(f"{exc} ({path}, line {line})")
                if not (self.ignore_errors or skipping_error(error)):
                    if rows:
                        yield wheres, rows
                    raise error from None
        if rows:
            yield wheres, rows

    def _plain_rows(self, records: list) -> Optional[list]:
        """The rows of records without quotes or CRs, split at once; None when one has too
        few or too many fields (then each record is read on its own)."""
        rows = [r.split(bytes([self.delim])) for r in records]
        if self.select is None:
            count = len(self.columns)
            return rows if all(len(f) == count for f in rows) else None
        if min(map(len, rows)) <= self.select[-1]:
            return None
        return [[f[c] for c in self.select] for f in rows]

    def _fields(self, record: bytes) -> list:
        fields = io_csv.split_fields(record, self.delim, self.use_quote) if record else [b""]
        count = len(self.columns)
        if self.exclude is None:
            return io_csv.pick_fields(fields, self.select, count, "")
        if len(fields) != count + len(self.exclude):
            raise io_csv.RecordError(f"Expect {count} fields but have "
                                     f"{len(fields) - len(self.exclude)} in record")
        skip = set(self.exclude)
        return [f for i, f in enumerate(fields) if i not in skip]

    def columns_of(self, wheres: list, fields: list) -> Iterator[list]:
        """The columns of rows: the arrays of the good rows before the first bad field, then
        its InvalidArgumentError (bad rows left out under `ignore_errors`)."""
        if self.ignore_errors or ignoring_errors():
            bad: dict = {}
            columns = io_csv.convert_rows(fields, self.columns, self.na, lambda r: "", bad)
            for r in sorted(bad):
                if not self.ignore_errors:  # an enclosing ignore_errors() is told of each
                    path, line = wheres[r]
                    skipping_error(InvalidArgumentError(f"{bad[r]} ({path}, line {line})"))
            if bad:
                keep = np.array([r not in bad for r in range(len(fields))])
                columns = [c[keep] for c in columns]
            yield columns
            return
        try:
            yield io_csv.convert_rows(fields, self.columns, self.na, lambda r: "")
        except io_csv.FieldError as exc:
            if exc.row:
                yield io_csv.convert_rows(fields[:exc.row], self.columns, self.na, lambda r: "")
            path, line = wheres[exc.row]
            raise InvalidArgumentError(f"{exc} ({path}, line {line})") from None


def _one_by_one(batches: Iterator[tuple[list, list]]) -> Iterator[tuple[list, list]]:
    """Batches of one row each."""
    for wheres, rows in batches:
        for where, row in zip(wheres, rows):
            yield [where], [row]


def _interleave(paths: list, rows: Callable, cycle_length: int) -> Iterator[Any]:
    """The rows of `cycle_length` files at a time, one row from each in turn; a finished
    file's place is taken by the next file, whose turn comes in the next round (the order
    of TensorFlow's `make_csv_dataset` with `num_parallel_reads`)."""
    pending = iter(paths)
    slots = [rows(p) for p in (next(pending, None) for _ in range(cycle_length)) if p is not None]
    while slots:
        i = 0
        while i < len(slots):
            row = next(slots[i], None)
            if row is not None:
                yield row
            else:
                nxt = next(pending, None)
                if nxt is None:
                    del slots[i]
                    continue
                slots[i] = rows(nxt)
            i += 1


class _CsvSource(Dataset):
    """Rows of CSV files, in blocks, each packed by `pack(columns)` into an element."""

    def __init__(self, files: Any, reading: _Reading, cycle_length: int = 1,
                 pack: Optional[Callable] = None, spec: Any = None):
        self._files, self._reading, self._cycle = files, reading, cycle_length
        self._pack = pack or tuple
        self._spec = spec if spec is not None else tuple(TensorSpec([], c.dtype)
                                                         for c in reading.columns)
        self._card = UNKNOWN

    def _inputs(self):
        return [self._files] if isinstance(self._files, Dataset) else []

    def _paths(self) -> list:
        if isinstance(self._files, Dataset):
            return [os.fsdecode(np.asarray(e).item()) for e in self._files._open()]
        return self._files

    def _batches(self) -> Iterator[tuple[list, list]]:
        paths, rows = self._paths(), self._reading.rows
        if self._cycle == 1:
            return itertools.chain.from_iterable(rows(p) for p in paths)
        smaller = copy.copy(self._reading)  # many files open at once: smaller reads
        smaller.buffer_size = max(self._reading.buffer_size // 4, 1)
        return _interleave(paths, lambda p: _one_by_one(smaller.rows(p)), self._cycle)

    def _blocks(self):
        batches = self._batches()
        wheres: list = []
        fields: list = []
        while True:
            try:
                batch = next(batches, None)
            except Exception:
                if fields:  # the rows before the bad record come first, as one at a time
                    yield from self._packed(wheres, fields)
                raise
            if batch is None:
                break
            wheres += batch[0]
            fields += batch[1]
            if len(fields) >= BLOCK:
                cut = len(fields) - len(fields) % BLOCK
                for at in range(0, cut, BLOCK):
                    yield from self._packed(wheres[at:at + BLOCK], fields[at:at + BLOCK])
                wheres, fields = wheres[cut:], fields[cut:]
        if fields:
            yield from self._packed(wheres, fields)

    def _packed(self, wheres: list, fields: list):
        for columns in self._reading.columns_of(wheres, fields):
            if len(columns[0]):
                yield self._pack(columns)


def _known_columns(record_defaults: Any, what: str) -> list:
    """The columns of `record_defaults`, whose values must be known when the dataset is made."""
    columns = io_csv.columns_of(record_defaults, what)
    for i, c in enumerate(columns):
        if isinstance(c.default, io_csv.Computed):
            raise TypeError(f"{what}: record_defaults[{i}] is a tensor computed in a traced "
                            "function; a dataset is built from values known when it is made.")
    return columns


def _file_list(filenames: Any, what: str) -> list:
    names = st.to_array(filenames, f"{what}: filenames")
    return [os.fsdecode(n) for n in np.atleast_1d(names).ravel()]


def _reading(columns, header, field_delim, use_quote_delim, na_value, select_cols, exclude_cols,
             compression_type, buffer_size, ignore_errors, what: str) -> _Reading:
    if select_cols is not None and exclude_cols is not None:
        raise InvalidArgumentError(f"{what}: give at most one of select_cols and exclude_cols.")
    select = io_csv.check_select(select_cols, len(columns), what)
    exclude = None if exclude_cols is None else sorted(int(c) for c in np.ravel(exclude_cols))
    kind = _COMPRESSIONS.get(compression_type) if isinstance(compression_type, (str, type(None))) \
        else None
    if kind is None:
        raise InvalidArgumentError(f"{what}: Unsupported compression_type: {compression_type!r}; "
                                   "expected None, '', 'GZIP' or 'ZLIB'.")
    size = _CHUNK if buffer_size is None else int(buffer_size)
    if size <= 0:
        raise InvalidArgumentError(f"{what}: buffer_size must be positive, got {buffer_size}.")
    return _Reading(columns, bool(header), io_csv.delimiter(field_delim, what),
                    bool(use_quote_delim), io_csv.as_bytes(na_value), select, exclude, kind,
                    size, ignore_errors)


class CsvDataset(_CsvSource):
    """The records of CSV files: one element per record, a tuple of scalar columns typed by
    `record_defaults` (per column a dtype or an empty tensor for a required column, or a
    one-value tensor: its default). Files are read when the dataset is iterated."""

    def __init__(self, filenames: Any, record_defaults: Any, compression_type: Optional[str] = None,
                 buffer_size: Optional[int] = None, header: bool = False, field_delim: str = ",",
                 use_quote_delim: bool = True, na_value: str = "", select_cols: Any = None,
                 exclude_cols: Any = None, name: Optional[str] = None):
        columns = _known_columns(record_defaults, "CsvDataset")
        files = filenames if isinstance(filenames, Dataset) else _file_list(filenames, "CsvDataset")
        super().__init__(files, _reading(columns, header, field_delim, use_quote_delim, na_value,
                                         select_cols, exclude_cols, compression_type, buffer_size,
                                         False, "CsvDataset"))


# -- make_csv_dataset -----------------------------------------------------------------------

def _glob(file_pattern: Any) -> list:
    patterns = list(file_pattern) if isinstance(file_pattern, (list, tuple)) else [file_pattern]
    if not patterns:
        raise ValueError("make_csv_dataset: `file_pattern` should not be empty.")
    names = []
    for p in patterns:
        names.extend(glob.glob(os.fsdecode(p)))
    if not names:
        raise ValueError(f"make_csv_dataset: No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _header_rows(paths: list, reading: _Reading, what: str) -> Iterator[tuple[str, int, list]]:
    """(path, line, fields) of every record of the files, header lines included."""
    for path in paths:
        fh = open_for_reading(path, reading.compression)
        try:
            for line, record in _records(fh, reading.buffer_size, reading.use_quote):
                try:
                    fields = io_csv.split_fields(record, reading.delim, reading.use_quote) \
                        if record else [b""]
                except io_csv.RecordError as exc:
                    raise ValueError(f"{what}: {path}, line {line}: {exc}.") from None
                yield path, line, fields
        finally:
            fh.close()


def _column_names(paths: list, reading: _Reading, encoding: str) -> list:
    names: list = []
    for i, path in enumerate(paths):
        first = next(_header_rows([path], reading, "make_csv_dataset"), None)
        if first is None:
            raise ValueError(f"make_csv_dataset: Failed when reading the header line of {path}. "
                             "Is it an empty file?")
        found = [f.decode(encoding) for f in first[2]]
        if i == 0:
            names = found
        elif found != names:
            raise ValueError("make_csv_dataset: All input CSV files should have the same column "
                             f"names in the header row. File {path} has {found}, not {names}.")
    return names


def _is_int(text: bytes, bits: int) -> bool:
    try:
        value = int(text)
    except ValueError:
        return False
    return -2 ** (bits - 1) <= value < 2 ** (bits - 1)


def _is_float(text: bytes, dtype: type) -> bool:
    try:
        with np.errstate(over="ignore"):
            return bool(dtype(float(text)) < np.inf)
    except ValueError:
        return False


_INFERENCE = [(_dtypes.int32, lambda s: _is_int(s, 32)), (_dtypes.int64, lambda s: _is_int(s, 64)),
              (_dtypes.float32, lambda s: _is_float(s, np.float32)),
              (_dtypes.float64, lambda s: _is_float(s, np.float64)),
              (_dtypes.string, lambda s: True)]


def _infer_type(text: bytes, na: bytes, previous: Optional[_dtypes.DType]) -> Optional[_dtypes.DType]:
    """The least permissive of int32, int64, float32, float64, string that reads `text` and
    every earlier value of the column (TensorFlow's inference; "nan" and "inf" are strings)."""
    if text in (b"", na):
        return previous
    order = [dt for dt, _ in _INFERENCE]
    start = 0 if previous is None else order.index(previous)
    for dt, fits in _INFERENCE[start:]:
        if fits(text):
            return dt
    return _dtypes.string


def _infer_columns(paths, reading, count, rows, select) -> list:
    found: list = [None] * (count if select is None else len(select))
    picks = range(count) if select is None else select
    records = _header_rows(paths, reading, "make_csv_dataset")
    number = 0
    current = None
    for path, line, fields in records:
        if path != current:
            current = path
            if reading.header:
                continue
        if rows is not None and number >= rows:
            break
        if len(fields) != count:
            raise ValueError(f"make_csv_dataset: Problem inferring types: CSV row {line} of {path} "
                             f"has {len(fields)} number of fields. Expected: {count}.")
        number += 1
        for j, c in enumerate(picks):
            found[j] = _infer_type(fields[c], reading.na, found[j])
    return [io_csv.Column(dt or _dtypes.string, b"" if (dt or _dtypes.string) is _dtypes.string
                          else np.zeros((), (dt or _dtypes.string).as_numpy_dtype)[()])
            for dt in found]


def _selected_indices(select_columns: Any, names: list) -> list:
    index = {n: i for i, n in enumerate(names)}
    out = []
    for v in select_columns:
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            if not 0 <= v < len(names):
                raise ValueError(f"make_csv_dataset: Column index {v} specified in "
                                 f"`select_columns` should be >= 0 and < {len(names)}, the "
                                 "number of columns.")
            out.append(int(v))
        elif v not in index:
            raise ValueError(f"make_csv_dataset: Column {v!r} specified in `select_columns` must "
                             f"be one of the columns: {names}.")
        else:
            out.append(index[v])
    if len(set(out)) != len(out):
        twice = sorted({names[i] for i in out if out.count(i) > 1})
        raise ValueError(f"make_csv_dataset: The `select_columns` argument contains duplicate "
                         f"columns: {twice}.")
    return sorted(out)


def _check_names(names: list) -> None:
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError("make_csv_dataset: Either `column_names` argument or CSV header row "
                         f"contains duplicate column names: {twice}.")


def _packer(names: list, label_name: Optional[str]) -> Callable:
    def pack(columns):
        features = collections.OrderedDict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    return pack


@strict_keywords("make_csv_dataset")
def make_csv_dataset(file_pattern: Any, batch_size: int, column_names: Optional[list] = None,
                     column_defaults: Optional[list] = None, label_name: Optional[str] = None,
                     select_columns: Optional[list] = None, field_delim: str = ",",
                     use_quote_delim: bool = True, na_value: str = "", header: bool = True,
                     num_epochs: Optional[int] = None, shuffle: bool = True,
                     shuffle_buffer_size: int = 10000, shuffle_seed: Optional[int] = None,
                     prefetch_buffer_size: Optional[int] = None,
                     num_parallel_reads: Optional[int] = None, sloppy: bool = False,
                     num_rows_for_inference: Optional[int] = 100,
                     compression_type: Optional[str] = None, ignore_errors: bool = False,
                     encoding: str = "utf-8") -> Dataset:
    """Batches of `(features, label)` read from CSV files: `features` an OrderedDict of the
    columns by name (from the header unless `column_names`), `label` the column `label_name`
    (without it, the OrderedDict alone). Types are inferred from the first
    `num_rows_for_inference` rows unless `column_defaults`. Shuffled, repeated `num_epochs`
    times (None: forever, dropping the last short batch) and batched as TensorFlow does."""
    paths = _glob(file_pattern)
    probe = _reading([io_csv.Column(_dtypes.string, b"")], header, field_delim, use_quote_delim,
                     na_value, None, None, compression_type, None, False, "make_csv_dataset")
    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset: Expected `column_names` or `header` arguments. "
                             "Neither is provided.")
        column_names = _column_names(paths, probe, encoding)
    names = [str(n) for n in column_names]
    _check_names(names)
    select = None if select_columns is None else _selected_indices(select_columns, names)
    if column_defaults is not None:
        columns = _known_columns(list(column_defaults), "make_csv_dataset: column_defaults")
    else:
        columns = _infer_columns(paths, probe, len(names), num_rows_for_inference, select)
    wanted = len(names) if select is None else len(select)
    if len(columns) != wanted:
        raise ValueError(f"make_csv_dataset: `column_defaults` has length {len(columns)} for "
                         f"{wanted} selected columns (`select_columns` or the column names).")
    if select is not None:
        names = [names[i] for i in select]
    if label_name is not None and label_name not in names:
        raise ValueError(f"make_csv_dataset: `label_name` provided must be one of the columns: "
                         f"{names}. Received: {label_name}.")
    reading = _reading(columns, header, field_delim, use_quote_delim, na_value, select, None,
                       compression_type, None, bool(ignore_errors), "make_csv_dataset")
    pack = _packer(names, label_name)
    spec = pack([TensorSpec([], c.dtype) for c in columns])
    files: Any = paths
    if shuffle:
        files = Dataset.from_tensor_slices(paths).shuffle(len(paths), seed=shuffle_seed)
    cycle = 1 if num_parallel_reads is None else int(num_parallel_reads)
    if cycle == AUTOTUNE:
        cycle = os.cpu_count() or 1
    ds: Dataset = _CsvSource(files, reading, max(cycle, 1), pack, spec)
    if shuffle:
        ds = ds.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    if num_epochs != 1:
        ds = ds.repeat(num_epochs)
    ds = ds.batch(batch_size, drop_remainder=num_epochs is None)
    if prefetch_buffer_size == 0:
        return ds
    return ds.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


__all__ = ["CsvDataset", "make_csv_dataset"]
