"""`rt.feature_column`: TensorFlow's (deprecated) feature column descriptions.

Each function returns TensorFlow's named tuple for the column, with its checks, `name` and
`num_buckets`: `numeric_column`, `bucketized_column`, `categorical_column_with_vocabulary_list`,
`categorical_column_with_hash_bucket`, `categorical_column_with_identity`, `indicator_column`,
`embedding_column` and `crossed_column`. As in TensorFlow 2.21 with Keras 3, nothing here turns
them into tensors (Keras 3 has no `DenseFeatures` layer): describe the preprocessing with
Keras's preprocessing layers (`Normalization`, `Discretization`, `StringLookup`, `Hashing`,
`HashedCrossing`, `CategoryEncoding`, `Embedding`) instead.
"""

from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple, Optional

from . import dtypes as _dtypes


class NumericColumn(NamedTuple):
    """A real-valued feature of `shape` (per example)."""
    key: str
    shape: tuple = (1,)
    default_value: Any = None
    dtype: _dtypes.DType = _dtypes.float32
    normalizer_fn: Optional[Callable] = None

    @property
    def name(self) -> str:
        return self.key


class BucketizedColumn(NamedTuple):
    """A numeric column cut at `boundaries` into `len(boundaries) + 1` buckets."""
    source_column: NumericColumn
    boundaries: tuple

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * int(math.prod(self.source_column.shape))


class VocabularyListCategoricalColumn(NamedTuple):
    """A categorical feature by position in `vocabulary_list` (`num_oov_buckets` more for
    other values, else `default_value`)."""
    key: str
    vocabulary_list: tuple
    dtype: _dtypes.DType
    default_value: int = -1
    num_oov_buckets: int = 0

    @property
    def name(self) -> str:
        return self.key

    @property
    def num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets


class HashedCategoricalColumn(NamedTuple):
    """A categorical feature by the hash of its value, in `hash_bucket_size` buckets."""
    key: str
    hash_bucket_size: int
    dtype: _dtypes.DType = _dtypes.string

    @property
    def name(self) -> str:
        return self.key

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size


class IdentityCategoricalColumn(NamedTuple):
    """A categorical feature that is already an id in [0, num_buckets)."""
    key: str
    number_buckets: int
    default_value: Optional[int] = None

    @property
    def name(self) -> str:
        return self.key

    @property
    def num_buckets(self) -> int:
        return self.number_buckets


class CrossedColumn(NamedTuple):
    """The cross of several categorical features, hashed into `hash_bucket_size` buckets."""
    keys: tuple
    hash_bucket_size: int
    hash_key: Optional[int] = None

    @property
    def name(self) -> str:
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in self.keys))

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size


class IndicatorColumn(NamedTuple):
    """A categorical column as a multi-hot vector of its `num_buckets`."""
    categorical_column: Any

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"


class EmbeddingColumn(NamedTuple):
    """A categorical column as a learned `dimension`-long embedding."""
    categorical_column: Any
    dimension: int
    combiner: str = "mean"
    initializer: Any = None
    ckpt_to_load_from: Optional[str] = None
    tensor_name_in_ckpt: Optional[str] = None
    max_norm: Optional[float] = None
    trainable: bool = True
    use_safe_embedding_lookup: bool = True

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"


_CATEGORICAL = (VocabularyListCategoricalColumn, HashedCategoricalColumn,
                IdentityCategoricalColumn, CrossedColumn, BucketizedColumn)


def numeric_column(key: str, shape=(1,), default_value=None, dtype=_dtypes.float32,
                   normalizer_fn: Optional[Callable] = None) -> NumericColumn:
    """A real-valued column read from feature `key`."""
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)
    if any(d <= 0 for d in shape):
        raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype.name}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def bucketized_column(source_column, boundaries) -> BucketizedColumn:
    """`source_column` (a 1-D numeric column) cut at the sorted `boundaries`."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). "
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: "
                         f"{source_column}")
    boundaries = tuple(boundaries) if isinstance(boundaries, (list, tuple)) else None
    if not boundaries or any(b >= c for b, c in zip(boundaries, boundaries[1:])):
        raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, boundaries)


def categorical_column_with_vocabulary_list(key: str, vocabulary_list, dtype=None,
                                            default_value: int = -1,
                                            num_oov_buckets: int = 0
                                            ) -> VocabularyListCategoricalColumn:
    """Feature `key` as its position in `vocabulary_list` (strings or integers)."""
    vocabulary = tuple(v.item() if hasattr(v, "item") else v for v in vocabulary_list)
    if not vocabulary:
        raise ValueError(f"vocabulary_list {list(vocabulary)} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"Duplicate keys in vocabulary_list {list(vocabulary)}, "
                         f"column_name: {key}")
    strings = all(isinstance(v, (str, bytes)) for v in vocabulary)
    if not strings and not all(isinstance(v, int) for v in vocabulary):
        raise ValueError(f"Invalid vocabulary dtype: the vocabulary_list of {key} must hold "
                         "strings or integers.")
    found = _dtypes.string if strings else _dtypes.int64
    dtype = found if dtype is None else _dtypes.as_dtype(dtype)
    if (dtype == _dtypes.string) != strings:
        raise ValueError(f"Invalid dtype: expected {found.name}, got {dtype.name} for "
                         f"column_name: {key}")
    if num_oov_buckets < 0:
        raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets}.")
    if num_oov_buckets and default_value != -1:
        raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
    return VocabularyListCategoricalColumn(key, vocabulary, dtype, default_value,
                                           num_oov_buckets)


def categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                        dtype=_dtypes.string) -> HashedCategoricalColumn:
    """Feature `key` hashed into `hash_bucket_size` buckets."""
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    dtype = _dtypes.as_dtype(dtype)
    if dtype != _dtypes.string and not dtype.is_integer:
        raise ValueError(f"dtype must be string or integer. dtype: {dtype.name}, column_name: "
                         f"{key}")
    return HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


def categorical_column_with_identity(key: str, num_buckets: int,
                                     default_value: Optional[int] = None
                                     ) -> IdentityCategoricalColumn:
    """Feature `key`, an integer id in [0, num_buckets)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    return IdentityCategoricalColumn(key, int(num_buckets), default_value)


def indicator_column(categorical_column) -> IndicatorColumn:
    """A categorical column as a multi-hot vector."""
    if not isinstance(categorical_column, _CATEGORICAL):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: "
                         f"{categorical_column}")
    return IndicatorColumn(categorical_column)


def embedding_column(categorical_column, dimension: int, combiner: str = "mean",
                     initializer=None, ckpt_to_load_from: Optional[str] = None,
                     tensor_name_in_ckpt: Optional[str] = None, max_norm=None,
                     trainable: bool = True,
                     use_safe_embedding_lookup: bool = True) -> EmbeddingColumn:
    """A categorical column as a `dimension`-long embedding (combined with `combiner`)."""
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name:"
                         f" {categorical_column.name}")
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}.")
    if not isinstance(categorical_column, _CATEGORICAL):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: "
                         f"{categorical_column}")
    return EmbeddingColumn(categorical_column, int(dimension), combiner, initializer,
                           ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable,
                           use_safe_embedding_lookup)


def crossed_column(keys, hash_bucket_size: int, hash_key: Optional[int] = None
                   ) -> CrossedColumn:
    """The cross of two or more features (names or categorical columns), hashed into
    `hash_bucket_size` buckets."""
    if not isinstance(keys, (list, tuple)) or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    for key in keys:
        if not isinstance(key, (str, *_CATEGORICAL)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "
                             f"categorical column except HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for "
                             f"crossing. Hashing before crossing will increase probability of "
                             f"collision. Instead, use the feature name as a string. Given: "
                             f"{key}")
    return CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)
