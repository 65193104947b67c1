"""`rt.io.decode_csv`, and the CSV record reading that rt.data's CSV sources share.

A record is split into fields as TensorFlow splits it (RFC 4180: a field starting with a
double quote runs to the closing quote, `""` inside it is one quote; an unquoted field holds
no quote, CR or LF), each field is converted to its column's dtype (float32, float64, int32,
int64 or string; ints and floats may carry spaces around them), and an empty field, or one
equal to `na_value`, takes the column's default (an error when the column has none).
Errors are TensorFlow's words in an `InvalidArgumentError`.

Eagerly `decode_csv` parses at once; inside `rt.function` (and `Dataset.map`) it is one
`numpy_function` call when the graph runs (string tensors: the NumPy tier only).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from .. import dtypes as _dtypes
from ..context import executing_eagerly
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..tensor import Tensor
from .core import convert_to_tensor
from .py_function import numpy_function

CSV_DTYPES = (_dtypes.float32, _dtypes.float64, _dtypes.int32, _dtypes.int64, _dtypes.string)
# the int, float and hex field patterns: compiled on the first numeric field read
# (`_compile_patterns`), since compiling regular expressions at import slows `import runtime`
_INT: Any = None
_FLOAT: Any = None
_HEX: Any = None


def _compile_patterns() -> None:
    global _INT, _FLOAT, _HEX
    _INT = re.compile(rb"\s*[+-]?\d+\s*")
    _FLOAT = re.compile(
        rb"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)\s*", re.IGNORECASE)
    _HEX = re.compile(rb"\s*([+-]?)0[xX]([0-9a-fA-F]*\.?[0-9a-fA-F]*(?:[pP][+-]?\d+)?)\s*")


_INT_RANGE = {_dtypes.int32: (-2 ** 31, 2 ** 31 - 1), _dtypes.int64: (-2 ** 63, 2 ** 63 - 1)}


class Column(NamedTuple):
    """One CSV column: its dtype and its default (None when the column is required)."""
    dtype: _dtypes.DType
    default: Any


class RecordError(ValueError):
    """A record that cannot be read (TensorFlow's message, without the record number)."""


def _csv_dtype(dtype: _dtypes.DType, where: str) -> _dtypes.DType:
    if dtype not in CSV_DTYPES:
        raise InvalidArgumentError(f"{where} has dtype {dtype.name}; a CSV column is one of "
                                   "float32, float64, int32, int64, string.")
    return dtype


class Computed(NamedTuple):
    """A record default computed when the function runs: its tensor (read then)."""
    tensor: Any


def columns_of(record_defaults: Any, what: str, dtypes_allowed: bool = True) -> list[Column]:
    """The columns described by `record_defaults`: per column a dtype (a required column,
    when `dtypes_allowed`), an empty tensor (required) or a one-value tensor (its default).
    A default computed inside a traced function has the default `Computed(tensor)`."""
    if isinstance(record_defaults, (str, bytes)) or not isinstance(record_defaults, Sequence):
        raise TypeError(f"{what}: `record_defaults` must be a list with one entry per column, "
                        f"got {record_defaults!r:.80}.")
    if not record_defaults:
        raise ValueError(f"{what}: `record_defaults` must name at least one column.")
    out = []
    for i, d in enumerate(record_defaults):
        where = f"{what}: record_defaults[{i}]"
        if isinstance(d, _dtypes.DType) or (isinstance(d, type) and issubclass(d, np.generic)):
            if not dtypes_allowed:
                raise TypeError(f"{where} is the dtype {d!r}; decode_csv takes a tensor per "
                                "column: an empty one such as rt.constant([], rt.int32) for a "
                                "required column, or a one-value list such as [0] for a default.")
            out.append(Column(_csv_dtype(_dtypes.as_dtype(d), where), None))
            continue
        a = _default_array(d, where)
        if a is None:
            if d.shape.rank is not None and d.shape.rank > 1:
                raise InvalidArgumentError(f"{where}: Each record default should be at most "
                                           f"rank 1; got shape {d.shape}.")
            out.append(Column(_csv_dtype(d.dtype, where), Computed(d)))
            continue
        dtype = _csv_dtype(_dtypes.as_dtype(a.dtype if a.dtype != object else _dtypes.string), where)
        out.append(Column(dtype, _one_default(a, i, where)))
    return out


def _one_default(a: np.ndarray, index: int, where: str) -> Any:
    """The default held by a record default's array (None when it is empty: required)."""
    if a.ndim > 1:
        raise InvalidArgumentError(f"{where}: Each record default should be at most rank 1; "
                                   f"got shape {list(a.shape)}.")
    if a.size > 1:
        raise InvalidArgumentError(f"{where}: There should only be 1 default per field but "
                                   f"field {index} has {a.size}.")
    return a.reshape(-1)[0] if a.size else None


def _default_array(value: Any, where: str) -> Optional[np.ndarray]:
    """A record default as an array, by the runtime's rules (Python int -> int32, float ->
    float32, str -> string); None for a tensor computed inside a traced function."""
    if isinstance(value, Tensor):
        known = value.numpy() if executing_eagerly() or not hasattr(value, "op") else \
            constant_value(value)
        return None if known is None else np.asarray(known)
    a = np.asarray(value)
    if a.dtype.kind in "USO":
        return np.asarray([as_bytes(v) for v in a.reshape(-1)], dtype=object).reshape(a.shape)
    if a.dtype == np.int64 and not isinstance(value, np.ndarray):
        a = a.astype(np.int32) if np.all(np.abs(a) < 2 ** 31) else a
    elif a.dtype == np.float64 and not isinstance(value, (np.ndarray, np.floating)):
        a = a.astype(np.float32)
    return a


def split_fields(record: bytes, delim: int, use_quote: bool) -> list[bytes]:
    """The fields of one record (an empty record has none), unquoted."""
    if not record:
        return []
    if not use_quote or 34 not in record:
        if b"\n" in record or b"\r" in record:
            raise RecordError("Unquoted fields cannot have quotes/CRLFs inside")
        return record.split(bytes([delim]))
    return _split_quoted(record, delim)


def _split_quoted(record: bytes, delim: int) -> list[bytes]:
    fields, i, n = [], 0, len(record)
    while True:
        if i < n and record[i] == 34:
            part, i = _quoted_field(record, i + 1, delim)
        else:
            end = record.find(bytes([delim]), i)
            end = n if end < 0 else end
            part = record[i:end]
            if 34 in part or 10 in part or 13 in part:
                raise RecordError("Unquoted fields cannot have quotes/CRLFs inside")
            i = end
        fields.append(part)
        if i >= n:
            return fields
        i += 1  # the delimiter
        if i == n:
            fields.append(b"")
            return fields


def _quoted_field(record: bytes, i: int, delim: int) -> tuple[bytes, int]:
    """The field of a quoted field whose text starts at `i`, and where it ends."""
    pieces = []
    n = len(record)
    while True:
        close = record.find(b'"', i)
        if close < 0:
            raise RecordError("Quoted field has to end with quote followed by delim or end")
        pieces.append(record[i:close])
        if close + 1 < n and record[close + 1] == 34:
            pieces.append(b'"')
            i = close + 2
            continue
        if close + 1 < n and record[close + 1] != delim:
            raise RecordError("Quote inside a string has to be escaped by another quote")
        return b"".join(pieces), close + 1


def convert_field(field: bytes, column: Column, index: int, record: str, na: bytes) -> Any:
    """`field` as a value of `column` (its default when empty or `na`)."""
    if not field or field == na:
        if column.default is None:
            raise RecordError(f"Field {index} is required but missing in record{record}!")
        return column.default
    dtype = column.dtype
    if dtype is _dtypes.string:
        return field
    if _HEX is None:
        _compile_patterns()
    if dtype.is_integer:
        if _INT.fullmatch(field):
            value = int(field)
            low, high = _INT_RANGE[dtype]
            if low <= value <= high:
                return value
        raise RecordError(f"Field {index} in record{record} is not a valid {dtype.name}: "
                          f"{field.decode('utf-8', 'replace')}")
    if _FLOAT.fullmatch(field):
        return float(field)
    hexa = _HEX.fullmatch(field)
    if hexa and hexa.group(2).strip(b"."):
        return float.fromhex((hexa.group(1) + b"0x" + hexa.group(2)).decode())
    name = "float" if dtype is _dtypes.float32 else "double"
    raise RecordError(f"Field {index} in record{record} is not a valid {name}: "
                      f"{field.decode('utf-8', 'replace')}")


class FieldError(RecordError):
    """A field that cannot be read, in row `row` of its column."""

    def __init__(self, row: int, message: str):
        super().__init__(message)
        self.row = row


def _numbers(fields: list, dtype: _dtypes.DType) -> Optional[np.ndarray]:
    """The numeric fields converted by NumPy at once, or None when one of them is not in the
    plain form TensorFlow and NumPy both read (then each is converted on its own)."""
    if not fields:
        return np.zeros([0], dtype.as_numpy_dtype)
    if b"_" in b"".join(fields):
        return None
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            wide = np.array(fields).astype(np.int64 if dtype.is_integer else np.float64)
    except (ValueError, OverflowError):
        return None
    if dtype is _dtypes.int32 and (wide.min() < -2 ** 31 or wide.max() > 2 ** 31 - 1):
        return None
    with np.errstate(over="ignore"):
        return wide.astype(dtype.as_numpy_dtype)


def convert_column(fields: list, column: Column, index: int, na: bytes, record: Any,
                   bad: Optional[dict] = None) -> np.ndarray:
    """The fields (bytes) of column `index` as an array of its dtype. A field that cannot be
    read raises FieldError naming `record(row)`, or, given the dict `bad`, is entered there
    (row -> message; the first bad field of a row is kept)."""
    numpy_dtype = object if column.dtype is _dtypes.string else column.dtype.as_numpy_dtype
    if b"" not in fields and na not in fields:
        if column.dtype is _dtypes.string:
            out = np.empty(len(fields), dtype=object)
            out[:] = fields
            return out
        fast = _numbers(fields, column.dtype)
        if fast is not None:
            return fast
    values = []
    for r, field in enumerate(fields):
        try:
            values.append(convert_field(field, column, index, record(r), na))
        except RecordError as exc:
            if bad is None:
                raise FieldError(r, str(exc)) from None
            bad.setdefault(r, str(exc))
            values.append(b"" if column.dtype is _dtypes.string else 0)
    with np.errstate(over="ignore"):
        out = np.empty(len(values), dtype=numpy_dtype)
        out[:] = values
    return out


def convert_rows(rows: list, columns: list[Column], na: bytes, record: Any,
                 bad: Optional[dict] = None) -> list[np.ndarray]:
    """Rows of fields (one per column) as one array per column. The first bad field in row
    order raises FieldError, unless the dict `bad` is given: then the rows with a bad field
    are entered there with the message (their values are placeholders)."""
    by_column = [list(c) for c in zip(*rows)] if rows else [[] for _ in columns]
    out, first = [], None
    for i, (fields, column) in enumerate(zip(by_column, columns)):
        try:
            out.append(convert_column(fields, column, i, na, record, bad))
        except FieldError as exc:
            if first is None or exc.row < first.row:
                first = exc
    if first is not None:
        raise first
    return out


def check_select(select_cols: Any, count: int, what: str) -> Optional[list[int]]:
    """`select_cols` as a list of strictly increasing, non-negative indices, one per column."""
    if select_cols is None:
        return None
    cols = [int(c) for c in np.asarray(select_cols).reshape(-1)]
    if any(b <= a for a, b in zip(cols, cols[1:])):
        raise ValueError(f"{what}: select_cols is not strictly increasing: {cols}.")
    if cols and cols[0] < 0:
        raise ValueError(f"{what}: select_cols must not be negative: {cols}.")
    if len(cols) != count:
        raise ValueError(f"{what}: Length of select_cols and record_defaults do not match: "
                         f"{len(cols)} select_cols for {count} record_defaults.")
    return cols


def pick_fields(fields: list[bytes], select: Optional[list[int]], count: int,
                record: str) -> list[bytes]:
    """The fields of the columns read (all of them, or those of `select`)."""
    if select is None:
        if len(fields) != count:
            raise RecordError(f"Expect {count} fields but have {len(fields)} in record{record}")
        return fields
    if select and select[-1] >= len(fields):
        have = sum(1 for c in select if c < len(fields))
        raise RecordError(f"Expect {count} fields but have {have} in record{record}")
    return [fields[c] for c in select]


def delimiter(field_delim: Any, what: str) -> int:
    """The byte of a one-character `field_delim` (InvalidArgumentError otherwise)."""
    delim = field_delim.encode() if isinstance(field_delim, str) else bytes(field_delim)
    if len(delim) != 1:
        raise InvalidArgumentError(f"{what}: field_delim should be only 1 char, got {field_delim!r}.")
    return delim[0]


def as_bytes(value: Any) -> bytes:
    """A str (UTF-8) or bytes-like value as bytes."""
    return value.encode() if isinstance(value, str) else bytes(value)


def _decode(records: np.ndarray, columns: list[Column], delim: int, use_quote: bool,
            na: bytes, select: Optional[list[int]]) -> list[np.ndarray]:
    rows: list = []
    broken = None
    for r, rec in enumerate(records.reshape(-1)):
        try:
            rows.append(pick_fields(split_fields(as_bytes(rec), delim, use_quote), select,
                                    len(columns), f" {r}"))
        except RecordError as exc:
            broken = exc  # reported unless an earlier record has a bad field
            break
    try:
        out = convert_rows(rows, columns, na, lambda r: f" {r}")
    except RecordError as exc:
        raise InvalidArgumentError(str(exc)) from None
    if broken is not None:
        raise InvalidArgumentError(str(broken))
    return [a.reshape(records.shape) for a in out]


@export("io.decode_csv")
def decode_csv(records, record_defaults, field_delim: str = ",", use_quote_delim: bool = True,
               name: Optional[str] = None, na_value: str = "",
               select_cols: Any = None) -> list[Tensor]:
    """The columns of the CSV records of the string tensor `records`: one tensor per entry of
    `record_defaults` (an empty tensor for a required column, a one-value one for its default),
    each of the shape of `records`."""
    columns = columns_of(record_defaults, "decode_csv", dtypes_allowed=False)
    delim = delimiter(field_delim, "decode_csv")
    select = check_select(select_cols, len(columns), "decode_csv")
    na = as_bytes(na_value)
    t = records if isinstance(records, Tensor) else convert_to_tensor(records, dtype=_dtypes.string)
    if t.dtype is not _dtypes.string:
        raise TypeError(f"decode_csv: `records` must be a string tensor, got {t.dtype.name}.")
    dtypes = [c.dtype for c in columns]
    computed = [i for i, c in enumerate(columns) if isinstance(c.default, Computed)]

    def parse(r, *values):
        known = list(columns)
        for i, v in zip(computed, values):
            a = np.asarray(v)
            known[i] = Column(columns[i].dtype, _one_default(a, i, f"decode_csv: record_defaults[{i}]"))
        return tuple(_decode(np.asarray(r, dtype=object), known, delim, bool(use_quote_delim),
                             na, select))
    if executing_eagerly():
        return [convert_to_tensor(a, dtype=d) for a, d in zip(parse(t.numpy()), dtypes)]
    out = numpy_function(parse, [t] + [columns[i].default.tensor for i in computed], dtypes,
                         stateful=False)
    out = list(out) if isinstance(out, (list, tuple)) else [out]
    for o in out:
        o.set_shape(t.shape)
    return out


__all__ = ["decode_csv"]
