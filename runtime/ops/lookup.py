"""`rt.lookup`: tf.lookup's static tables, mapping keys to values.

`KeyValueTensorInitializer` (keys and values given) and `TextFileInitializer` (a vocabulary
file: a column or whole line as the key, a column or the line number as the value) fill a
`StaticHashTable` (missing keys give `default_value`) or a `StaticVocabularyTable` (int64 ids;
a missing key goes to one of `num_oov_buckets` buckets after the vocabulary, by the FarmHash
fingerprint of its text, as TensorFlow's `to_hash_bucket_fast` chooses). `lookup` works on
dense, ragged and sparse keys, eagerly and inside compiled functions and `Dataset.map` (one
`PyFunc` op of the NumPy tier). Tables are immutable: `MutableHashTable` and `DenseHashTable`
are not offered.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..exports import export
from ..shapes import TensorSpec
from ..tensor import Tensor
from .core import convert_to_tensor
from .farmhash import fingerprint64
from .py_function import numpy_function


@export("lookup.TextFileIndex")
class TextFileIndex:
    """Where a `TextFileInitializer` reads a key or value: `WHOLE_LINE` (the line's text) or
    `LINE_NUMBER` (its number, from 0); a column number (>= 0) splits the line by the
    delimiter."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class _Initializer:
    """Keys and values for a table, with their dtypes."""

    key_dtype: _dtypes.DType
    value_dtype: _dtypes.DType

    def _pairs(self) -> tuple[list, np.ndarray]:
        raise NotImplementedError


@export("lookup.KeyValueTensorInitializer")
class KeyValueTensorInitializer(_Initializer):
    """A table's contents from `keys` and `values` (tensors, arrays or lists of one length;
    `key_dtype` / `value_dtype` convert Python values)."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None,
                 name: str | None = None) -> None:
        keys = convert_to_tensor(keys, dtype=key_dtype)
        values = convert_to_tensor(values, dtype=value_dtype)
        if keys.shape.rank != 1 or values.shape.rank != 1 or \
                keys.shape[0] != values.shape[0]:
            raise ValueError(f"KeyValueTensorInitializer: `keys` and `values` must be vectors of "
                             f"one length, got shapes {keys.shape} and {values.shape}.")
        self._keys, self._values = keys, values
        self.key_dtype, self.value_dtype = keys.dtype, values.dtype
        self._name = name or "key_value_init"

    def _pairs(self) -> tuple[list, np.ndarray]:
        return _key_list(np.asarray(self._keys.numpy())), np.asarray(self._values.numpy())


@export("lookup.TextFileInitializer")
class TextFileInitializer(_Initializer):
    """A table's contents from a text file, a line an entry: the key is column `key_index`
    of the line split by `delimiter`, or `TextFileIndex.WHOLE_LINE` (-2, a string) or
    `LINE_NUMBER` (-1, int64); the value likewise from `value_index` (a line number plus
    `value_index_offset`). `vocab_size` reads only that many lines (a ValueError when the
    file has fewer)."""

    def __init__(self, filename, key_dtype, key_index: int, value_dtype, value_index: int,
                 vocab_size: int | None = None, delimiter: str = "\t",
                 name: str | None = None, value_index_offset: int = 0) -> None:
        if not filename:
            raise ValueError("TextFileInitializer: the `filename` argument is required.")
        self.key_dtype, self.value_dtype = _dtypes.as_dtype(key_dtype), \
            _dtypes.as_dtype(value_dtype)
        for kind, index, dtype in (("key", key_index, self.key_dtype),
                                   ("value", value_index, self.value_dtype)):
            _check_index(kind, index, dtype)
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"TextFileInitializer: `vocab_size` should be > 0, received: "
                             f"{vocab_size}.")
        self._filename = filename.numpy().decode() if isinstance(filename, Tensor) else \
            str(filename)
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._offset = int(value_index_offset)
        self._name = name or "text_file_init"

    def _pairs(self) -> tuple[list, np.ndarray]:
        with open(self._filename, encoding="utf-8") as f:
            lines = f.read().splitlines()
        if self._vocab_size is not None:
            if len(lines) < self._vocab_size:
                raise ValueError(f"TextFileInitializer: vocab_size={self._vocab_size} but "
                                 f"{self._filename} has {len(lines)} lines.")
            lines = lines[:self._vocab_size]
        keys = [self._field(line, n, self._key_index, self.key_dtype, 0)
                for n, line in enumerate(lines)]
        values = [self._field(line, n, self._value_index, self.value_dtype, self._offset)
                  for n, line in enumerate(lines)]
        array = np.array(values, dtype=object) if self.value_dtype == _dtypes.string else \
            np.array(values, dtype=self.value_dtype.as_numpy_dtype)
        return keys, array

    def _field(self, line: str, number: int, index: int, dtype, offset: int):
        if index == TextFileIndex.LINE_NUMBER:
            return number + offset
        text = line if index == TextFileIndex.WHOLE_LINE else \
            _column(line, self._delimiter, index, self._filename, number)
        if dtype == _dtypes.string:
            return text.encode("utf-8")
        return float(text) if dtype.is_floating else int(text)


def _check_index(kind: str, index: int, dtype) -> None:
    if index < -2:
        raise ValueError(f"TextFileInitializer: `{kind}_index` should be >= -2, received: "
                         f"{index}.")
    if index == TextFileIndex.LINE_NUMBER and dtype != _dtypes.int64:
        raise ValueError(f"TextFileInitializer: `{kind}_dtype` must be int64 if `{kind}_index` "
                         f"is LINE_NUMBER (-1), received {dtype.name}.")
    if index == TextFileIndex.WHOLE_LINE and dtype != _dtypes.string and dtype.is_floating:
        raise ValueError(f"TextFileInitializer: `{kind}_dtype` must be a string or integer if "
                         f"`{kind}_index` is WHOLE_LINE (-2), received {dtype.name}.")


def _column(line: str, delimiter: str, index: int, filename: str, number: int) -> str:
    fields = line.split(delimiter)
    if index >= len(fields):
        raise ValueError(f"TextFileInitializer: line {number} of {filename} has {len(fields)} "
                         f"fields; column {index} was asked for.")
    return fields[index]


def _key_list(keys: np.ndarray) -> list:
    """Keys as the Python values a lookup's NumPy keys compare equal to (bytes, ints)."""
    return [k if isinstance(k, bytes) else k.item() if hasattr(k, "item") else k
            for k in keys.tolist()]


class _StaticTable:
    """What both static tables share: the dtypes, `lookup` over dense, ragged and sparse
    keys (the table's key dtype, else a TypeError), `size` and `__getitem__`."""

    key_dtype: _dtypes.DType
    value_dtype: _dtypes.DType

    def _find(self, keys: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def lookup(self, keys, name: str | None = None):
        """The values of `keys` (a Tensor, RaggedTensor or SparseTensor: the same kind of
        result)."""
        flat = keys.values if hasattr(keys, "with_values") else \
            convert_to_tensor(keys, dtype=self.key_dtype if not isinstance(keys, Tensor)
                              else None)
        if flat.dtype != self.key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self.key_dtype.name}, "
                            f"received: {flat.dtype.name}.")
        found = numpy_function(self._find, [flat], TensorSpec(flat.shape, self.value_dtype),
                               stateful=False, name=name)
        return keys.with_values(found) if hasattr(keys, "with_values") else found

    def __getitem__(self, keys):
        return self.lookup(keys)

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.key_dtype.name} -> {self.value_dtype.name}, "
                f"{int(self.size())} entries>")


@export("lookup.StaticHashTable")
class StaticHashTable(_StaticTable):
    """An immutable table filled by `initializer`; keys it lacks look up as
    `default_value` (of the table's value dtype)."""

    def __init__(self, initializer: _Initializer, default_value, name: str | None = None,
                 experimental_is_anonymous: bool = False) -> None:
        if not isinstance(initializer, _Initializer):
            raise TypeError(f"StaticHashTable: `initializer` must be a "
                            f"KeyValueTensorInitializer or TextFileInitializer, got "
                            f"{type(initializer).__name__}.")
        self.key_dtype, self.value_dtype = initializer.key_dtype, initializer.value_dtype
        self._default = convert_to_tensor(default_value, dtype=self.value_dtype)
        keys, values = initializer._pairs()
        self._keys, self._values = keys, values
        self._table = dict(zip(keys, values.tolist()))
        self._name = name or "hash_table"

    @property
    def name(self) -> str:
        return self._name

    @property
    def default_value(self) -> Tensor:
        return self._default

    @property
    def resource_handle(self) -> None:
        """None: a table here is a Python object, not a resource tensor."""
        return None

    def size(self, name: str | None = None) -> Tensor:
        """The number of entries (int64)."""
        return convert_to_tensor(np.int64(len(self._table)))

    def export(self, name: str | None = None) -> tuple[Tensor, Tensor]:
        """The keys and the values, as two tensors."""
        keys = np.array(list(self._table), dtype=object if self.key_dtype == _dtypes.string
                        else self.key_dtype.as_numpy_dtype)
        values = np.array(list(self._table.values()), dtype=self._values.dtype)
        return convert_to_tensor(keys, dtype=self.key_dtype), \
            convert_to_tensor(values, dtype=self.value_dtype)

    def _find(self, keys: np.ndarray) -> np.ndarray:
        default = np.asarray(self._default.numpy()).item()
        table = self._table
        found = [table.get(k, default) for k in _key_list(np.asarray(keys).reshape(-1))]
        dtype = object if self.value_dtype == _dtypes.string else \
            self.value_dtype.as_numpy_dtype
        return np.array(found, dtype=dtype).reshape(np.shape(keys))


@export("lookup.StaticVocabularyTable")
class StaticVocabularyTable(_StaticTable):
    """Keys to int64 ids: the initializer's ids for its keys (a string or int64 vocabulary
    with int64 values), and for any other key `vocabulary size + fingerprint(key) %
    num_oov_buckets` (the FarmHash fingerprint of its text, as TensorFlow). Without an
    initializer every key is hashed."""

    def __init__(self, initializer: _Initializer | None, num_oov_buckets: int,
                 lookup_key_dtype=None, name: str | None = None,
                 experimental_is_anonymous: bool = False) -> None:
        if num_oov_buckets <= 0:
            raise ValueError("StaticVocabularyTable: `num_oov_buckets` must be > 0; use "
                             "StaticHashTable.")
        self._buckets = int(num_oov_buckets)
        self._table: StaticHashTable | None = None
        if initializer is not None:
            key_dtype = initializer.key_dtype
            if key_dtype not in (_dtypes.int64, _dtypes.string):
                raise TypeError(f"Invalid `key_dtype`, expected one of (int64, string), but "
                                f"got {key_dtype.name}.")
            lookup = _dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype is not None \
                else key_dtype
            if lookup.is_integer != key_dtype.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if lookup.is_integer else 'non-integer'} but got "
                                f"{key_dtype.name}.")
            if initializer.value_dtype != _dtypes.int64:
                raise TypeError(f"Invalid `value_dtype`, expected int64 but got "
                                f"{initializer.value_dtype.name}.")
            self._table = StaticHashTable(initializer, -1)
        else:
            lookup = _dtypes.string if lookup_key_dtype is None else \
                _dtypes.as_dtype(lookup_key_dtype)
        if not (lookup.is_integer or lookup == _dtypes.string):
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got "
                            f"{lookup.name}.")
        self.key_dtype, self.value_dtype = lookup, _dtypes.int64
        self._name = name or "hash_bucket"

    @property
    def name(self) -> str:
        return self._name

    @property
    def resource_handle(self) -> None:
        return None

    def size(self, name: str | None = None) -> Tensor:
        """The vocabulary's size plus the buckets (int64)."""
        known = len(self._table._table) if self._table is not None else 0
        return convert_to_tensor(np.int64(known + self._buckets))

    def _find(self, keys: np.ndarray) -> np.ndarray:
        flat = _key_list(np.asarray(keys).reshape(-1))
        table = self._table._table if self._table is not None else {}
        known = len(table)
        out = np.empty(len(flat), np.int64)
        for i, key in enumerate(flat):
            found = table.get(key)
            if found is None:
                text = key if isinstance(key, bytes) else str(key).encode()
                found = known + fingerprint64(text) % self._buckets
            out[i] = found
        return out.reshape(np.shape(keys))
