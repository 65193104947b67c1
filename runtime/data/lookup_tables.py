"""`tf.data.experimental.DatasetInitializer`, `table_from_dataset` and
`index_table_from_dataset`: lookup tables (`rt.lookup`'s) filled from a dataset of (key,
value) scalar pairs, or of keys numbered in order, as TensorFlow's. The dataset is read when
the table is built.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..ops.lookup import StaticHashTable, StaticVocabularyTable, _Initializer, _key_list
from ..shapes import TensorSpec
from ..tensor import Tensor
from .dataset import Dataset
from .experimental_more import assert_cardinality

_BASE_ERROR = ("Datasets used to initialize lookup tables must produce elements in the form "
               "(key, value), where the keys and values are scalar tensors. ")


def _check_pairs(spec: Any) -> None:
    if not isinstance(spec, tuple) or len(spec) != 2:
        raise ValueError(_BASE_ERROR + f"However, the given dataset produces {spec!r}.")
    for part, what in zip(spec, ("key", "value")):
        if not isinstance(part, TensorSpec):
            raise ValueError(_BASE_ERROR + f"However, the given dataset produces non-Tensor "
                             f"{what}s of type {type(part).__name__}.")
        if part.shape.rank not in (None, 0):
            raise ValueError(_BASE_ERROR + f"However, the given dataset produces non-scalar "
                             f"{what} Tensors of rank {part.shape.rank}.")


class DatasetInitializer(_Initializer):
    """A table's contents from `dataset`, whose elements are (key, value) scalar pairs: pass
    it to `rt.lookup.StaticHashTable` (or `StaticVocabularyTable` for int64 values)."""

    def __init__(self, dataset: Dataset) -> None:
        if not isinstance(dataset, Dataset):
            raise TypeError(f"DatasetInitializer: `dataset` must be a tf.data.Dataset, got "
                            f"{type(dataset).__name__}.")
        spec = dataset.element_spec
        _check_pairs(spec)
        self.dataset = dataset
        self.key_dtype, self.value_dtype = spec[0].dtype, spec[1].dtype

    def _pairs(self) -> tuple[list, np.ndarray]:
        keys, values = [], []
        for key, value in self.dataset.as_numpy_iterator():
            keys.append(key)
            values.append(value)
        dtype = object if self.value_dtype == _dtypes.string else \
            self.value_dtype.as_numpy_dtype
        return _key_list(np.asarray(keys)), np.asarray(values, dtype=dtype)


def _fast_hash_only(hasher_spec: Any, fn: str) -> None:
    if hasher_spec is not None and getattr(hasher_spec, "hasher", None) != "fasthash":
        raise ValueError(f"{fn}: only the default `hasher_spec` (FastHashSpec, TensorFlow's "
                         f"FarmHash fingerprint) is offered, got {hasher_spec!r}.")


@strict_keywords("rt.data.experimental.table_from_dataset")
def table_from_dataset(dataset: Dataset = None, num_oov_buckets: int = 0, vocab_size=None,
                       default_value=None, hasher_spec: Any = None,
                       key_dtype=_dtypes.string, name: str | None = None):
    """A `StaticHashTable` filled from `dataset`'s (key, value) pairs (its first `vocab_size`
    ones, which must exist); missing keys look up as `default_value` (-1 for numeric values),
    or with `num_oov_buckets` as `size + fingerprint(key) % num_oov_buckets` (a
    `StaticVocabularyTable`, int64 values)."""
    fn = "table_from_dataset"
    if not isinstance(dataset, Dataset):
        raise TypeError(f"{fn}: `dataset` must be a tf.data.Dataset, got "
                        f"{type(dataset).__name__}.")
    spec = dataset.element_spec
    _check_pairs(spec)
    if default_value is None:
        default_value = -1
        if not (spec[1].dtype.is_integer or spec[1].dtype.is_floating):
            raise ValueError("`default_value` must be specified when creating a table from a "
                             f"dataset that produces values of type {spec[1].dtype.name}.")
    if num_oov_buckets < 0:
        raise ValueError("`num_oov_buckets` must be greater than or equal to 0, got "
                         f"{num_oov_buckets}.")
    if isinstance(vocab_size, Tensor):
        vocab_size = int(vocab_size.numpy())
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"`vocab_size` must be greater than 0, got {vocab_size}.")
    key_dtype = _dtypes.as_dtype(key_dtype)
    if not key_dtype.is_integer and key_dtype != _dtypes.string:
        raise TypeError("`key_dtype` must be either an integer or string type, but got "
                        f"{key_dtype.name}")
    _fast_hash_only(hasher_spec, fn)
    if vocab_size is not None:
        dataset = dataset.take(vocab_size).apply(assert_cardinality(vocab_size))
    initializer = DatasetInitializer(dataset)
    if num_oov_buckets:
        return StaticVocabularyTable(initializer, num_oov_buckets, lookup_key_dtype=key_dtype,
                                     name=name)
    return StaticHashTable(initializer, default_value, name=name)


@strict_keywords("rt.data.experimental.index_table_from_dataset")
def index_table_from_dataset(dataset: Dataset = None, num_oov_buckets: int = 0,
                             vocab_size=None, default_value=-1, hasher_spec: Any = None,
                             key_dtype=_dtypes.string, name: str | None = None):
    """A table from each of `dataset`'s scalar keys to its position (int64), as
    `table_from_dataset` of `dataset.enumerate()` with the pairs swapped."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"index_table_from_dataset: `dataset` must be a tf.data.Dataset, got "
                        f"{type(dataset).__name__}.")
    return table_from_dataset(dataset.enumerate().map(lambda index, key: (key, index)),
                              num_oov_buckets, vocab_size, default_value, hasher_spec,
                              key_dtype, name)


__all__ = ["DatasetInitializer", "table_from_dataset", "index_table_from_dataset"]
