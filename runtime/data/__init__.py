"""`rt.data`: tf.data's input pipelines on NumPy (see docs/data.md).

    ds = rt.data.Dataset.from_tensor_slices((x, y)).shuffle(1000, seed=0).batch(32)
    for xb, yb in ds: ...
"""

from __future__ import annotations

import types as _types

from ..arguments import add_keyword_hints_to_classes as _add_keyword_hints_to_classes
from . import experimental_more as _more
from . import staged as _staged  # noqa: F401 - staged iteration hooks
from .csv import CsvDataset, make_csv_dataset
from .dataset import (
    AUTOTUNE,
    Dataset,
    DatasetSpec,
    Iterator,
    Options,
    OutOfRangeError,
    SliceSizeMismatchError,
    TextLineDataset,
    cardinality,
)
from .dataset import INFINITE as INFINITE_CARDINALITY
from .dataset import UNKNOWN as UNKNOWN_CARDINALITY
from .dataset import Counter as _Counter
from .dataset import dense_to_ragged_batch as _dense_to_ragged_batch
from .dataset import ignore_errors as _ignore_errors
from .dataset import scan as _scan
from .dataset import take_while as _take_while
from .dataset import unique as _unique
from .distribute_options import AutoShardPolicy, DistributeOptions
from .experimental_more import (
    FixedLengthRecordDataset,
    IteratorSpec,
    NumpyIterator,
    ThreadingOptions,
)
from .grouping import experimental_bucket_by_sequence_length as _bucket_by_sequence_length
from .grouping import experimental_group_by_window as _group_by_window
from .lookup_tables import DatasetInitializer as _DatasetInitializer
from .lookup_tables import index_table_from_dataset as _index_table_from_dataset
from .lookup_tables import table_from_dataset as _table_from_dataset
from .sampling import experimental_choose_from_datasets as _choose_from_datasets
from .sampling import experimental_rejection_resample as _rejection_resample
from .sampling import experimental_sample_from_datasets as _sample_from_datasets
from .snapshot import experimental_load as _load
from .snapshot import experimental_save as _save
from .tfrecord import TFRecordDataset

experimental = _types.SimpleNamespace(
    AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY, cardinality=cardinality, CsvDataset=CsvDataset,
    make_csv_dataset=make_csv_dataset, Counter=_Counter,
    scan=_scan, take_while=_take_while, unique=_unique,
    group_by_window=_group_by_window, bucket_by_sequence_length=_bucket_by_sequence_length,
    sample_from_datasets=_sample_from_datasets, choose_from_datasets=_choose_from_datasets,
    rejection_resample=_rejection_resample, ignore_errors=_ignore_errors, save=_save, load=_load,
    dense_to_ragged_batch=_dense_to_ragged_batch, AutoShardPolicy=AutoShardPolicy,
    DistributeOptions=DistributeOptions, DatasetInitializer=_DatasetInitializer,
    table_from_dataset=_table_from_dataset, index_table_from_dataset=_index_table_from_dataset,
    **{name: getattr(_more, name) for name in _more.__all__ if name not in (
        "FixedLengthRecordDataset", "IteratorSpec", "NumpyIterator")})
_more.install()  # Iterator.get_next_as_optional

__all__ = ["AUTOTUNE", "CsvDataset", "Dataset", "DatasetSpec", "FixedLengthRecordDataset",
           "INFINITE_CARDINALITY", "Iterator", "IteratorSpec", "NumpyIterator", "Options",
           "OutOfRangeError", "SliceSizeMismatchError", "TFRecordDataset", "TextLineDataset",
           "ThreadingOptions", "UNKNOWN_CARDINALITY", "experimental"]

_add_keyword_hints_to_classes(globals(), "runtime")  # a misspelt keyword: "did you mean"
