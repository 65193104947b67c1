"""`rt.data.Dataset`: tf.data's input pipelines over NumPy.

A dataset is a recipe: iterating it (`for x in ds`, `iter(ds)`) runs the recipe from the
start. Inside, elements are nests of NumPy arrays; iterators hand them out as eager tensors.
Sources that hold arrays also produce *blocks* (many elements stacked along a new first
axis): `map` with an elementwise function, `shuffle` and `batch` then work a block at a
time with NumPy instead of one Python step per element. The results are the same as the
element-at-a-time path; only the speed differs.
"""

from __future__ import annotations

import collections
import copy
import glob
import inspect
import itertools
import logging
import os
import threading
from typing import Any, Callable, Optional
from typing import Iterator as _PyIterator

import numpy as np

from .. import context, html_repr, nest
from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    OutOfRangeError,
    PermissionDeniedError,
)
from ..function import function as rt_function
from ..ops import philox as _philox
from ..ops.extension_type import as_templates, as_type_specs, batch_template, unbatch_template
from ..ops.io_tfrecord import _compression, open_for_reading
from ..ops.ragged import RaggedTensor
from ..ops.random import SEEDS
from ..ops.variables import Variable
from ..shapes import TensorShape, TensorSpec, as_shape
from ..tensor import SymbolicTensor
from . import cache_file, threads
from . import ragged_elements as _ragged_elements
from . import sparse_elements as _sparse_elements
from . import structure as st
from .distribute_options import DistributeOptions

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2
BLOCK = 1024
STAGED: dict = {}  # the staged forms of iteration, filled in by runtime/data/staged.py
# transformations written in their own modules (grouping.py, sampling.py, snapshot.py), which
# register themselves here: the methods below call them by name
TRANSFORMS: dict = {}
logger = logging.getLogger("runtime.data")
_IGNORING = threading.local()


def ignoring_errors() -> bool:
    """True while an `ignore_errors()` dataset on this thread is pulling an element."""
    return bool(getattr(_IGNORING, "handlers", None))


def skipping_error(error: BaseException) -> bool:
    """True (and `error` reported to it) when an enclosing `ignore_errors()` is pulling an
    element on this thread: the caller then drops the element and goes on."""
    handlers = getattr(_IGNORING, "handlers", None)
    if not handlers or not isinstance(error, Exception):
        return False
    handlers[-1](error)
    return True




class SliceSizeMismatchError(ValueError):
    """`from_tensor_slices` of components whose first dimensions differ."""


def _positive_int(value: Any, name: str, what: str, allow: tuple = ()) -> int:
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}: {name} must be an integer, got {value!r:.60}.")
    value = int(value)
    if value <= 0 and value not in allow:
        also = "".join(f" or {_SPECIAL_SIZES.get(v, v)}" for v in allow)
        raise InvalidArgumentError(f"{what}: {name} must be greater than zero{also}, got {value}.")
    return value


_SPECIAL_SIZES = {AUTOTUNE: "rt.data.AUTOTUNE (-1)",
                  UNKNOWN: "rt.data.UNKNOWN_CARDINALITY (-2: a buffer of the whole dataset)"}


def _symbolic_int(value: Any, what: str) -> Any:
    """`value`, checked to be an integer scalar when it is a symbolic tensor."""
    if isinstance(value, SymbolicTensor) and (not value.dtype.is_integer or value.shape.rank not in (0, None)):
        raise TypeError(f"{what}: expected an integer scalar, got a {value.dtype.name} tensor of "
                        f"shape {value.shape}.")
    return value


def _count_arg(dataset: "Dataset", value: Any, name: str, what: str) -> Any:
    """An integer argument, or a symbolic integer scalar kept for when the graph runs."""
    if dataset._defer(_symbolic_int(value, what)):
        return value
    return _int_arg(value, name, what)


def _int_arg(value: Any, name: str, what: str) -> int:
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what}: {name} must be an integer, got {value!r:.60}.")
    return int(value)


def _blocks_of_elements(blocks: _PyIterator) -> _PyIterator:
    """The elements of a stream of blocks."""
    for block in blocks:
        flat = st.flatten(block)
        strings = any(a.dtype.kind == "O" for a in flat)
        row = unbatch_template(block)
        for i in range(len(flat[0])):
            yield st.pack(row, [st.row(a, i) for a in flat] if strings else [a[i] for a in flat])


def _rechunk(blocks: _PyIterator, size: int, drop_remainder: bool) -> _PyIterator:
    """Blocks of exactly `size` rows (the last may be shorter unless `drop_remainder`)."""
    pieces: list = []
    have = 0
    row = None
    for block in blocks:
        if row is None:  # every block has the dataset's structure: read it from the first
            row = unbatch_template(block)
            single = not st.is_structure(row)
            full = batch_template(row, size)
        flat = [block] if single else st.flatten(block)
        n = len(flat[0])
        start = 0
        while start < n:
            take = min(size - have, n - start)
            pieces.append([a[start:start + take] for a in flat])
            have += take
            start += take
            if have == size:
                joined = _join(pieces)
                yield joined[0] if single else st.pack(full, joined)
                pieces, have = [], 0
    if pieces and not drop_remainder:
        yield st.pack(batch_template(row, have), _join(pieces))


def _join(pieces: list) -> list:
    if len(pieces) == 1:
        return [np.asarray(a) for a in pieces[0]]
    return [np.concatenate(parts) for parts in zip(*pieces)]


class Dataset:
    """A sequence of elements (nests of tensors) built from sources and transformations.

    Iterate it eagerly (`for x in ds`, `iter`/`next`, `as_numpy_iterator()`), pass it to an
    `rt.function` (traced by its `element_spec`, iterated when the function runs), or to
    `Model.fit`."""

    _spec: Any = None
    _card: int = UNKNOWN

    # -- what subclasses provide ------------------------------------------------------------
    def _elements(self) -> _PyIterator:
        """The elements as nests of NumPy arrays."""
        blocks = self._blocks()
        if blocks is None:
            raise NotImplementedError
        return _blocks_of_elements(blocks)

    def _blocks(self) -> Optional[_PyIterator]:
        """The elements stacked in blocks along a new first axis, or None when this dataset
        works one element at a time."""
        return None

    def _inputs(self) -> list:
        return []

    # -- datasets built inside a compiled function from its tensors (`range(n)`) -------------
    _params: tuple = ()  # the symbolic tensors among this dataset's own arguments

    def _defer(self, value: Any) -> bool:
        """True (and `value` kept for when the graph runs) when `value` is symbolic."""
        if isinstance(value, SymbolicTensor):
            self._params = self._params + (value,)
            return True
        return False

    def _graph_inputs(self) -> list:
        """The symbolic tensors the recipe needs (its own and its inputs'), each once."""
        found: dict = {}
        for t in self._params:
            found.setdefault(id(t), t)
        for d in self._inputs():
            for t in d._graph_inputs():
                found.setdefault(id(t), t)
        return list(found.values())

    def _with_values(self, values: dict) -> "Dataset":
        """This recipe with its symbolic tensors replaced by their values (`id(tensor) ->
        array`, given when the graph runs); the dataset itself when it has none."""
        if not self._graph_inputs():
            return self
        clone = copy.copy(self)
        for name, attr in list(vars(clone).items()):
            if isinstance(attr, SymbolicTensor):
                setattr(clone, name, np.asarray(values[id(attr)])[()])
            elif isinstance(attr, Dataset):
                setattr(clone, name, attr._with_values(values))
        clone._after_values(values)
        clone._params = ()
        return clone

    def _after_values(self, values: dict) -> None:
        """Hook of `_with_values` for arguments held in lists or tuples."""

    # -- properties ---------------------------------------------------------------------------
    @property
    def element_spec(self) -> Any:
        """The structure of one element: a nest of `TensorSpec`s (and of the `Spec`s of
        extension type values)."""
        specs = _sparse_elements.decode_all(as_type_specs(self._spec))
        return _ragged_elements.type_specs(specs) if _ragged_elements.has_ragged(specs) else specs

    def cardinality(self) -> Any:
        """The number of elements as an int64 scalar tensor; `rt.data.INFINITE_CARDINALITY`
        (-1) or `rt.data.UNKNOWN_CARDINALITY` (-2) when infinite or not known."""
        return st.to_tensor(np.asarray(self._card, np.int64))

    def __len__(self) -> int:
        if self._card == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._card == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._card

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<{_tf_class_name(self)} element_spec={self.element_spec!r}>"

    def _repr_html_(self) -> str:
        """Jupyter's view: the class, the number of elements and the element spec."""
        return html_repr.dataset_html(self, self._card)

    # -- iteration ----------------------------------------------------------------------------
    def __iter__(self) -> "Iterator":
        if context.current_graph() is not None:
            return STAGED["iterator"](self)
        return Iterator(self)

    def as_numpy_iterator(self) -> _PyIterator:
        """An iterator of the elements as NumPy values (scalars as NumPy scalars)."""
        if context.current_graph() is not None:
            raise RuntimeError("as_numpy_iterator() is only available when eager execution is "
                               "enabled; iterate the dataset (`for x in ds`) inside functions.")
        if any(isinstance(s, DatasetSpec) for s in st.flatten(self._spec)):
            raise TypeError("as_numpy_iterator() is not supported for datasets whose elements are "
                            f"datasets ({self._spec!r:.200}); iterate it, or flat_map the "
                            "windows into tensors (`ds.flat_map(lambda w: w.batch(size))`).")
        return _NumpyIterator(self)

    def _open(self) -> _PyIterator:
        """A fresh Python iterator of NumPy elements (used by iterators and staged loops)."""
        return self._elements()

    # trace key: a dataset passed to an rt.function is traced by its element_spec
    def _trace_key(self) -> tuple:
        return ("rt.data.Dataset", st.spec_key(self._spec))

    def _stand_in(self):
        return STAGED["argument"](self)

    # -- sources -----------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """One element per slice along the first axis of every component of `tensors` (the
        rows of a RaggedTensor)."""
        if _ragged_elements.has_ragged(tensors):
            return _Unbatch(_Tensors(tensors))
        return _TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: Optional[str] = None) -> "Dataset":
        """A dataset of one element, `tensors`."""
        return _Tensors(tensors)

    @staticmethod
    def range(*args: Any, output_type: Any = _dtypes.int64, name: Optional[str] = None) -> "Dataset":
        """`range(stop)`, `range(start, stop)`, `range(start, stop, step)` as int64 scalars."""
        return _Range(args, output_type)

    @staticmethod
    def random(seed: Optional[int] = None, rerandomize_each_iteration: Optional[bool] = None,
               name: Optional[str] = None) -> "Dataset":
        """An endless dataset of pseudorandom int64 scalars in [0, 2**32): TensorFlow's numbers
        for the same global and op seeds; the same ones each iteration unless
        `rerandomize_each_iteration`."""
        return TRANSFORMS["random"](seed, rerandomize_each_iteration)

    @staticmethod
    def counter(start: Any = 0, step: Any = 1, dtype: Any = _dtypes.int64,
                name: Optional[str] = None) -> "Dataset":
        """An endless dataset of the scalars `start`, `start + step`, ... of `dtype`."""
        np_type = _dtypes.as_dtype(dtype).as_numpy_dtype
        first, stride = np.asarray(start, np_type), np.asarray(step, np_type)
        return Dataset.from_tensors(np.int64(0)).repeat().scan(
            first, lambda state, _: (state + stride, state))

    @staticmethod
    def zip(*datasets: Any, name: Optional[str] = None) -> "Dataset":
        """Elements of several datasets side by side (a nest of datasets), as Python's zip."""
        if len(datasets) == 1 and not isinstance(datasets[0], Dataset):
            datasets = datasets[0]
        return _Zip(datasets)

    @staticmethod
    def from_generator(generator: Callable, output_types: Any = None, output_shapes: Any = None,
                       args: Any = None, output_signature: Any = None,
                       name: Optional[str] = None) -> "Dataset":
        """Elements yielded by `generator(*args)` (called anew for each iteration), checked
        against `output_signature` (a nest of `TensorSpec`s) or `output_types`/`output_shapes`."""
        return _Generator(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def from_dask(collection: Any) -> "Dataset":
        """Rows of a Dask array (or a Dask DataFrame's columns as a dict) read one partition
        at a time, so data larger than memory streams through."""
        return _Dask(collection)

    @staticmethod
    def list_files(file_pattern: Any, shuffle: Optional[bool] = None, seed: Optional[int] = None,
                   name: Optional[str] = None) -> "Dataset":
        """The file names matching a glob pattern (or list of patterns), as strings."""
        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
        names = sorted({f for p in patterns for f in glob.glob(os.fsdecode(p))})
        if not names:
            raise InvalidArgumentError(f"list_files: no file matches {file_pattern!r}.")
        ds = _TensorSlices(np.array([n.encode() for n in names], dtype=object))
        return ds.shuffle(len(names), seed=seed) if shuffle is not False else ds

    # -- transformations -----------------------------------------------------------------------
    def map(self, map_func: Callable, num_parallel_calls: Optional[int] = None,
            deterministic: Optional[bool] = None, name: Optional[str] = None) -> "Dataset":
        """`map_func(element)` for each element (`map_func(*element)` for a tuple), traced once
        as an `rt.function` (autograph-converted). With `num_parallel_calls` the calls run on
        a thread pool; in order unless `deterministic=False`."""
        return _Map(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":
        """The elements for which `predicate(element)` is a true scalar bool."""
        return _Filter(self, predicate)

    def batch(self, batch_size: Any, drop_remainder: bool = False,
              num_parallel_calls: Optional[int] = None, deterministic: Optional[bool] = None,
              name: Optional[str] = None) -> "Dataset":
        """Consecutive elements stacked into batches of `batch_size`."""
        result = _Batch(self, batch_size, drop_remainder)
        result._parallel = num_parallel_calls
        return result

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: bool = False, name: Optional[str] = None) -> "Dataset":
        """Like `batch`, padding each component to a common shape (the longest in the batch,
        or `padded_shapes`) with `padding_values` (0, or b"" for strings). Elements must be
        tensors: a sparse, ragged or extension type component raises TypeError, as in
        TensorFlow."""
        for spec in nest.flatten(self.element_spec, expand_composites=False):
            if not isinstance(spec, TensorSpec):
                raise TypeError("`padded_batch` is only supported for datasets that produce "
                                "tensor elements but type spec of elements in the input dataset "
                                f"is not a subclass of TensorSpec: `{spec!r}`.")
        return _PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    def ragged_batch(self, batch_size: Any, drop_remainder: bool = False,
                     row_splits_dtype: Any = _dtypes.int64, name: Optional[str] = None) -> "Dataset":
        """Like `batch`, but components whose first dimension differs between elements become
        RaggedTensors (ragged_rank 1) instead of failing; scalars are stacked."""
        return _RaggedBatch(self, batch_size, drop_remainder, row_splits_dtype)

    def unbatch(self, name: Optional[str] = None) -> "Dataset":
        """Splits each element along its first axis into several elements."""
        return _Unbatch(self)

    def shuffle(self, buffer_size: Any = None, seed: Optional[int] = None,
                reshuffle_each_iteration: bool = True, name: Optional[str] = None) -> "Dataset":
        """Elements in random order, drawn from a buffer of `buffer_size` elements that is
        refilled from the input (every element exactly once per iteration)."""
        return _Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: Optional[str] = None) -> "Dataset":
        """The dataset `count` times (forever when None or -1)."""
        return _Repeat(self, count)

    def take(self, count: Any, name: Optional[str] = None) -> "Dataset":
        """The first `count` elements (all when -1)."""
        return _Take(self, count)

    def skip(self, count: Any, name: Optional[str] = None) -> "Dataset":
        """All but the first `count` elements (none when -1)."""
        return _Skip(self, count)

    def enumerate(self, start: Any = 0, name: Optional[str] = None) -> "Dataset":
        """`(index, element)` pairs, the index an int64 counting from `start`."""
        return _Zip((_Range((start, np.iinfo(np.int64).max), _dtypes.int64), self))

    def prefetch(self, buffer_size: Any, name: Optional[str] = None) -> "Dataset":
        """Produces up to `buffer_size` elements ahead on a background thread."""
        return _Prefetch(self, buffer_size)

    def cache(self, filename: str = "", name: Optional[str] = None) -> "Dataset":
        """Keeps the elements of the first complete iteration in memory (or in the file
        `filename`) and replays them afterwards."""
        return _Cache(self, filename)

    def concatenate(self, dataset: "Dataset", name: Optional[str] = None) -> "Dataset":
        """The elements of this dataset, then those of `dataset`."""
        return _Concatenate(self, dataset)

    def flat_map(self, map_func: Callable, name: Optional[str] = None) -> "Dataset":
        """`map_func(element)` returns a dataset; their elements one after the other."""
        result = _Interleave(self, map_func, 1, 1, None, True)
        result._tf_kind = "_FlatMapDataset"
        return result

    def interleave(self, map_func: Callable, cycle_length: Optional[int] = None,
                   block_length: Optional[int] = None, num_parallel_calls: Optional[int] = None,
                   deterministic: Optional[bool] = None, name: Optional[str] = None) -> "Dataset":
        """Elements of the datasets `map_func` returns, `block_length` at a time from
        `cycle_length` of them in turn."""
        return _Interleave(self, map_func, cycle_length, block_length, num_parallel_calls,
                           deterministic is not False)

    def scan(self, initial_state: Any, scan_func: Callable, name: Optional[str] = None) -> "Dataset":
        """A running state: `scan_func(state, element)` returns `(new_state, output)`, and the
        outputs are the elements (traced once; again once if the state's shape changes)."""
        return _Scan(self, initial_state, scan_func)

    def take_while(self, predicate: Callable, name: Optional[str] = None) -> "Dataset":
        """The elements up to (not including) the first for which `predicate` is false."""
        return _TakeWhile(self, predicate)

    def unique(self, name: Optional[str] = None) -> "Dataset":
        """Each distinct element once, in order of first appearance (elements of one int32,
        int64 or string component)."""
        return _Unique(self)

    def shard(self, num_shards: Any, index: Any, name: Optional[str] = None) -> "Dataset":
        """Every `num_shards`-th element, starting with element `index`."""
        return _Shard(self, num_shards, index)

    def rebatch(self, batch_size: Any, drop_remainder: bool = False,
                name: Optional[str] = None) -> "Dataset":
        """The rows of the batches regrouped into batches of `batch_size` (a list of sizes is
        used in turn), as `unbatch().batch(batch_size)` without splitting into elements."""
        return _Rebatch(self, batch_size, drop_remainder)

    def window(self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: bool = False,
               name: Optional[str] = None) -> "Dataset":
        """Windows of `size` elements, a new one every `shift` elements (default `size`),
        taking every `stride`-th element; each window is a nest of datasets (one per
        component, `DatasetSpec` elements). Windows cut short by the end are kept unless
        `drop_remainder`. `flat_map(lambda w: w.batch(size))` turns them into tensors."""
        return _Window(self, size, shift, stride, drop_remainder)

    def group_by_window(self, key_func: Callable, reduce_func: Callable, window_size: Any = None,
                        window_size_func: Optional[Callable] = None,
                        name: Optional[str] = None) -> "Dataset":
        """Groups elements by `key_func(element)` (an int64 scalar); each time a group holds
        `window_size` elements (or `window_size_func(key)`), `reduce_func(key, window)` (a
        window is a dataset) gives the elements that come out. At the end the groups left
        are reduced, in increasing order of key."""
        return TRANSFORMS["group_by_window"](self, key_func, reduce_func, window_size,
                                             window_size_func)

    def bucket_by_sequence_length(self, element_length_func: Callable, bucket_boundaries: Any,
                                  bucket_batch_sizes: Any, padded_shapes: Any = None,
                                  padding_values: Any = None, pad_to_bucket_boundary: bool = False,
                                  no_padding: bool = False, drop_remainder: bool = False,
                                  name: Optional[str] = None) -> "Dataset":
        """Batches elements of similar length together: an element of length `n` goes to the
        bucket `i` with `bucket_boundaries[i - 1] <= n < bucket_boundaries[i]`, batched by
        `bucket_batch_sizes[i]` and padded as `padded_batch` pads (to the bucket's boundary
        minus one with `pad_to_bucket_boundary`; not at all with `no_padding`)."""
        return TRANSFORMS["bucket_by_sequence_length"](
            self, element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
            padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)

    def rejection_resample(self, class_func: Callable, target_dist: Any, initial_dist: Any = None,
                           seed: Optional[int] = None, name: Optional[str] = None) -> "Dataset":
        """Resamples the elements so that their classes (`class_func(element)`, an integer
        scalar) follow `target_dist`; the elements are `(class, element)` pairs. Without
        `initial_dist` the classes' distribution is estimated as the data goes by."""
        return TRANSFORMS["rejection_resample"](self, class_func, target_dist, initial_dist, seed)

    def ignore_errors(self, log_warning: bool = False, name: Optional[str] = None) -> "Dataset":
        """The elements whose production raised no error: an element whose map or filter
        function fails (or a text file that cannot be opened) is dropped, with a warning on
        the `runtime.data` logger when `log_warning`."""
        return _IgnoreErrors(self, log_warning)

    def snapshot(self, path: Any, compression: Optional[str] = "AUTO",
                 reader_func: Optional[Callable] = None, shard_func: Optional[Callable] = None,
                 name: Optional[str] = None) -> "Dataset":
        """The same elements; the first complete iteration writes them into a folder of its
        own under `path` (as `save` does: `compression` 'AUTO' (none), 'GZIP', 'ZLIB' or
        None; `shard_func` picks each element's file) and later iterations read them back
        from there (combined by `reader_func`, as in `load`). An iteration cut short writes
        nothing. A snapshot is read back by the dataset that wrote it only: another program
        recomputes its own (TensorFlow also reuses one across programs, keyed by the
        pipeline's fingerprint)."""
        return TRANSFORMS["snapshot"](self, path, compression, reader_func, shard_func)

    def save(self, path: Any, compression: Optional[str] = None, shard_func: Optional[Callable] = None,
             checkpoint_args: Any = None) -> None:
        """Writes the elements to the directory `path` (see docs/data.md for the format), to be
        read back by `rt.data.Dataset.load(path)`. `compression`: None, 'GZIP' or 'ZLIB';
        `shard_func(element)`, an int64 scalar, picks each element's shard file."""
        TRANSFORMS["save"](self, path, compression, shard_func, checkpoint_args)

    @staticmethod
    def load(path: Any, element_spec: Any = None, compression: Optional[str] = None,
             reader_func: Optional[Callable] = None, wait: bool = False) -> "Dataset":
        """The dataset `save` wrote to `path`; `reader_func(datasets)` combines the shards'
        datasets (default: an interleave of them). Reading executes nothing from the files."""
        return TRANSFORMS["load"](path, element_spec, compression, reader_func, wait)

    @staticmethod
    def sample_from_datasets(datasets: Any, weights: Any = None, seed: Optional[int] = None,
                             stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration: Optional[bool] = None) -> "Dataset":
        """Elements drawn at random from `datasets`, dataset `i` with probability `weights[i]`
        (uniform by default; a dataset of weight vectors gives one per element). An empty
        dataset ends the result with `stop_on_empty_dataset`, else it is left out."""
        return TRANSFORMS["sample_from_datasets"](datasets, weights, seed, stop_on_empty_dataset,
                                                  rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets: Any, choice_dataset: "Dataset",
                             stop_on_empty_dataset: bool = True) -> "Dataset":
        """The next element of `datasets[i]` for each `i` of `choice_dataset` (int64 scalars)."""
        return TRANSFORMS["choose_from_datasets"](datasets, choice_dataset, stop_on_empty_dataset)

    def apply(self, transformation_func: Callable[["Dataset"], "Dataset"]) -> "Dataset":
        """`transformation_func(self)`."""
        return transformation_func(self)

    def reduce(self, initial_state: Any, reduce_func: Callable) -> Any:
        """Folds the elements: `state = reduce_func(state, element)` from `initial_state`."""
        return STAGED["reduce"](self, initial_state, reduce_func)

    def with_options(self, options: Any, name: Optional[str] = None) -> "Dataset":
        """Accepted for compatibility; options do not change this implementation."""
        return self

    def options(self) -> "Options":
        return Options()


class Options:
    """tf.data options; accepted, without effect here."""

    def __init__(self):
        self.experimental_deterministic = None
        self.deterministic = None
        self.experimental_distribute = DistributeOptions()


class DatasetSpec:
    """The spec of a dataset as a value, such as the elements of a `window`: the element
    spec of the dataset it describes."""

    def __init__(self, element_spec: Any, dataset_shape: Any = ()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    @property
    def shape(self) -> TensorShape:
        return self._dataset_shape

    @property
    def dtype(self) -> Any:
        return _dtypes.variant

    @staticmethod
    def from_value(value: "Dataset") -> "DatasetSpec":
        """The spec of `value`, a dataset."""
        return DatasetSpec(value.element_spec)

    def is_compatible_with(self, other: Any) -> bool:
        other_spec = other.element_spec if isinstance(other, (Dataset, DatasetSpec)) else None
        return other_spec is not None and st.specs_compatible(self._element_spec, other_spec)

    def _key(self) -> tuple:
        return (st.spec_key(self._element_spec), self._dataset_shape.as_tuple())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DatasetSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


# -- iterators ------------------------------------------------------------------------------

class Iterator:
    """An iterator over a dataset's elements (eager tensors). `next(it)`, `it.get_next()`;
    passed to an `rt.function` it is traced by its `element_spec` and `next(it)` inside the
    function pulls the next element when the function runs."""

    def __init__(self, dataset: Dataset):
        self._dataset = dataset
        self._lock = threading.Lock()
        self._produced = 0      # elements handed out: the position a checkpoint saves
        self._skip = 0          # elements to pass over before the next one (after a restore)
        self._shuffles = _randomised(dataset)
        self._opened = [(d._epochs.value, list(d._seed)) for d in self._shuffles]
        self._state: Any = None
        self._source = dataset._open()
        self._to_tensors = st.tensors_of(dataset._spec)

    @property
    def element_spec(self) -> Any:
        return self._dataset.element_spec

    # -- checkpoints: `rt.train.Checkpoint(iterator=it)` saves and restores the position -------
    def _state_vector(self) -> np.ndarray:
        """[version, elements produced, shuffles, then per shuffle: its epoch when this
        iterator opened, its seed length, its seed words]."""
        words = [1, self._produced, len(self._opened)]
        for epoch, seed in self._opened:
            # seeds are 64-bit words (an unseeded shuffle's reach 2**64): stored two's
            # complement; the Philox stream reads them modulo 2**64 either way
            words += [epoch, len(seed)] + [(w + 2**63) % 2**64 - 2**63 for w in seed]
        return np.asarray(words, dtype=np.int64)

    def _trackable_children(self) -> list:
        """The checkpointed state: one int64 vector variable, written with the position now."""
        with context.init_scope():
            if self._state is None:
                self._state = Variable(self._state_vector(), trainable=False,
                                       shape=TensorShape([None]), name="iterator_state")
            else:
                self._state.assign(self._state_vector())
        return [("ITERATOR_STATE", self._state)]

    def _checkpoint_restored(self) -> None:
        """After `Checkpoint.restore`: continue from the saved position. The dataset is
        opened again with the saved shuffle seeds and epochs, and the elements before the
        position are produced again and dropped (a deterministic pipeline gives the same ones)."""
        saved = np.asarray(self._state.numpy()).tolist()
        if saved == self._state_vector().tolist():
            return
        opened = _parse_state(saved, len(self._shuffles))
        with self._lock:
            for shuffle, (epoch, seed) in zip(self._shuffles, opened):
                shuffle._seed = list(seed)
                shuffle._epochs.value = epoch
            self.close()
            self._opened = opened
            self._source = self._dataset._open()
            self._produced = self._skip = saved[1]

    def __iter__(self) -> "Iterator":
        if context.current_graph() is not None:
            return STAGED["iterator"](self)
        return self

    def _next_arrays(self) -> Any:
        with self._lock:
            while self._skip:
                next(self._source)
                self._skip -= 1
            value = next(self._source)
            self._produced += 1
            return value

    def __next__(self) -> Any:
        if context.current_graph() is not None:
            return STAGED["next"](self)
        return self._to_tensors(self._next_arrays())

    def next(self) -> Any:
        """The next element, as `next(iterator)` (TensorFlow's iterators have this method)."""
        return self.__next__()

    def get_next(self) -> Any:
        """The next element; raises `OutOfRangeError` (a `StopIteration`) at the end."""
        try:
            return next(self)
        except OutOfRangeError:
            raise
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    def _open(self) -> "Iterator":
        return self

    def _trace_key(self) -> tuple:
        return ("rt.data.Iterator", st.spec_key(self.element_spec))

    def _stand_in(self):
        return STAGED["argument"](self)

    def close(self) -> None:
        close = getattr(self._source, "close", None)
        if close is not None:
            close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def _randomised(dataset: Dataset) -> list:
    """The random stages of a dataset's recipe (each once): shuffles, and the seeds of the
    sampling datasets (`_seeds`); each has a `_seed` list and an `_epochs` counter, which an
    iterator's checkpoint records."""
    found: list = []
    stack = [dataset]
    while stack:
        d = stack.pop()
        holder = d if isinstance(d, _Shuffle) else getattr(d, "_seeds", None)
        if holder is not None and not any(holder is f for f in found):
            found.append(holder)
        stack.extend(reversed(d._inputs()))
    return found


def _parse_state(words: list, shuffles: int) -> list:
    """The (epoch, seed) pairs of a saved iterator state; ValueError when it does not fit."""
    def fail(why):
        return ValueError(f"Cannot restore the iterator: the checkpoint's iterator state {why}; "
                          "restore into an iterator of the same dataset recipe.")
    if len(words) < 3 or words[0] != 1 or words[1] < 0:
        raise fail("is not one this runtime writes")
    if words[2] != shuffles:
        raise fail(f"has {words[2]} random stage(s) (shuffles, sampling), the dataset has "
                   f"{shuffles}")
    out, at = [], 3
    for _ in range(shuffles):
        if at + 2 > len(words) or at + 2 + words[at + 1] > len(words):
            raise fail("is cut short")
        n = words[at + 1]
        out.append((words[at], words[at + 2:at + 2 + n]))
        at += 2 + n
    return out


class _NumpyIterator:
    def __init__(self, dataset: Dataset):
        self._source = dataset._open()

    def __iter__(self):
        return self

    def __next__(self):
        return st.to_numpy(next(self._source))

    def __del__(self):
        close = getattr(self._source, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass


# -- sources --------------------------------------------------------------------------------

def _slice_count(sizes: list) -> Optional[int]:
    """The common first dimension of the components (None while unknown)."""
    known = [s for s in sizes if s is not None]
    if len(set(known)) > 1:
        raise SliceSizeMismatchError(
            "from_tensor_slices: all components must have the same size in their first "
            f"dimension, but they have sizes {known[0]} and "
            f"{next(s for s in known if s != known[0])} (sizes: {sizes}).")
    return known[0] if len(known) == len(sizes) else None


def _symbolic_slice_spec(tensor: SymbolicTensor) -> TensorSpec:
    if tensor.shape.rank == 0:
        raise ValueError("from_tensor_slices: every component needs at least one dimension to "
                         f"slice; got a scalar of dtype {tensor.dtype.name}.")
    shape = TensorShape(None) if tensor.shape.rank is None else tensor.shape[1:]
    return TensorSpec(shape, tensor.dtype)


class _TensorSlices(Dataset):
    def __init__(self, tensors: Any):
        if isinstance(tensors, Dataset):
            raise TypeError("from_tensor_slices: tensors is a Dataset; use it directly.")
        leaves = [x if self._defer(x) else st.to_array(x, "from_tensor_slices: tensors")
                  for x in st.flatten(tensors)]
        specs = [_symbolic_slice_spec(a) if isinstance(a, SymbolicTensor) else None for a in leaves]
        for a in leaves:
            if not isinstance(a, SymbolicTensor) and a.ndim == 0:
                raise ValueError("from_tensor_slices: every component needs at least one "
                                 f"dimension to slice; got a scalar of dtype {a.dtype}.")
        self._structure = tensors
        self._row = unbatch_template(tensors)  # a batchable extension type's batch shape: one dim less
        self._leaves = leaves
        self._spec = st.pack(self._row, [spec or st.spec_of_array(a, 1) for a, spec in zip(leaves, specs)])
        self._n = _slice_count([None if isinstance(a, SymbolicTensor) and a.shape.rank is None
                                else a.shape[0] for a in leaves])
        self._card = UNKNOWN if self._n is None else self._n

    def _after_values(self, values: dict) -> None:
        self._leaves = [np.asarray(values[id(a)]) if isinstance(a, SymbolicTensor) else a
                        for a in self._leaves]
        self._n = _slice_count([a.shape[0] for a in self._leaves])


    def _blocks(self):
        return self._block_gen()

    def _block_gen(self):
        for start in range(0, self._n, BLOCK):
            yield st.pack(self._structure, [np.asarray(a[start:start + BLOCK]) for a in self._leaves])

    def _elements(self):
        leaves, structure = self._leaves, self._structure
        if len(leaves) == 1 and not st.is_structure(structure):
            a = leaves[0]
            for i in range(self._n):
                yield st.row(a, i)
            return
        for i in range(self._n):
            yield st.pack(self._row, [st.row(a, i) for a in leaves])


class _Tensors(Dataset):
    def __init__(self, tensors: Any):
        leaves = [x if self._defer(x) else st.to_array(x, "from_tensors: tensors")
                  for x in st.flatten(tensors)]
        self._element = st.pack(tensors, leaves)
        self._spec = st.pack(tensors, [TensorSpec(a.shape, a.dtype) if isinstance(a, SymbolicTensor)
                                       else st.spec_of_array(a) for a in leaves])
        self._card = 1

    def _after_values(self, values: dict) -> None:
        leaves = [np.asarray(values[id(a)]) if isinstance(a, SymbolicTensor) else a
                  for a in st.flatten(self._element)]
        self._element = st.pack(self._element, leaves)

    def _elements(self):
        yield self._element


class _Range(Dataset):
    def __init__(self, args: tuple, output_type: Any):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range() takes 1 to 3 positional arguments ({len(args)} given).")
        self._dtype = _dtypes.as_dtype(output_type)
        self._spec = TensorSpec([], self._dtype)
        self._args = tuple(args)
        if any([self._defer(_symbolic_int(a, "range")) for a in args]):
            self._card = UNKNOWN    # a range of a function's tensors: known when it runs
            return
        self._after_values({})

    def _after_values(self, values: dict) -> None:
        args = [np.asarray(values[id(a)])[()] if isinstance(a, SymbolicTensor) else a
                for a in self._args]
        names = ("start", "stop", "step") if len(args) > 1 else ("stop",)
        ints = [_int_arg(a, n, "range") for a, n in zip(args, names)]
        start, stop, step = ([0] + ints + [1]) if len(ints) == 1 else (ints + [1])[:3]
        if step == 0:
            raise InvalidArgumentError("range: step must not be 0.")
        self._range = (start, stop, step)
        self._card = len(range(start, stop, step))

    def _blocks(self):
        return self._gen()

    def _gen(self):
        start, stop, step = self._range
        r = range(start, stop, step)
        for i in range(0, len(r), BLOCK):
            part = r[i:i + BLOCK]
            yield np.arange(part.start, part.stop, part.step, dtype=np.int64).astype(self._dtype.as_numpy_dtype)

    def _elements(self):
        np_type = self._dtype._np.type
        for v in range(*self._range):
            yield np.asarray(np_type(v))


class _Zip(Dataset):
    def __init__(self, datasets: Any):
        leaves = st.flatten(datasets)
        for d in leaves:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip: every argument must be a Dataset, got {type(d).__name__}.")
        self._structure = datasets
        self._datasets = leaves
        self._spec = st.pack(datasets, [d._spec for d in leaves])
        cards = [d._card for d in leaves]
        finite = [c for c in cards if c >= 0]
        if finite:
            self._card = min(finite)
        elif UNKNOWN in cards:
            self._card = UNKNOWN
        else:
            self._card = INFINITE

    def _inputs(self):
        return list(self._datasets)

    def _after_values(self, values: dict) -> None:
        self._datasets = [d._with_values(values) for d in self._datasets]
        self._structure = st.pack(self._structure, self._datasets)

    def _elements(self):
        sources = [d._open() for d in self._datasets]
        try:
            while True:
                parts = []
                for s in sources:
                    try:
                        parts.append(next(s))
                    except StopIteration:
                        return
                yield st.pack(self._structure, parts)
        finally:
            for s in sources:
                close = getattr(s, "close", None)
                if close is not None:
                    close()


def _signature_of(output_types, output_shapes, output_signature, what: str):
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError(f"{what}: give output_signature or output_types/output_shapes, not both.")
        output_signature = as_templates(output_signature)  # TypeSpecs of composite values
        for s in st.flatten(output_signature):
            if not isinstance(s, TensorSpec):
                raise TypeError(f"{what}: output_signature must be a nest of TensorSpecs, got {s!r}.")
        return output_signature
    if output_types is None:
        raise TypeError(f"{what}: output_signature (or output_types) is required.")
    types_flat = st.flatten(output_types)
    if output_shapes is None:
        shapes_flat = [TensorShape(None)] * len(types_flat)
    else:
        def is_shape_leaf(x):
            return isinstance(x, TensorShape) or x is None or (
                isinstance(x, (list, tuple)) and all(d is None or isinstance(d, int) for d in x))
        shapes_flat = []

        def walk(t, s):
            if isinstance(t, dict):
                for k in sorted(t, key=repr):
                    walk(t[k], s[k])
            elif isinstance(t, tuple):
                for a, b in zip(t, s):
                    walk(a, b)
            else:
                shapes_flat.append(as_shape(list(s) if isinstance(s, tuple) else s)
                                   if is_shape_leaf(s) else as_shape(s))
        walk(output_types, output_shapes)
    return st.pack(output_types, [TensorSpec(s, _dtypes.as_dtype(t)) for t, s in zip(types_flat, shapes_flat)])


class _Generator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: generator must be a callable that returns an "
                            f"iterable, got {type(generator).__name__}.")
        self._generator = generator
        self._args = () if args is None else tuple(
            a.numpy() if hasattr(a, "numpy") else a for a in (args if isinstance(args, (list, tuple)) else (args,)))
        self._spec = _signature_of(output_types, output_shapes, output_signature, "from_generator")
        self._flat_spec = st.flatten(self._spec)
        self._card = UNKNOWN

    def _convert(self, value, index):
        spec_structure = self._spec
        if not st.is_structure(spec_structure):
            flat_values = [value]
        else:
            if isinstance(spec_structure, tuple) and isinstance(value, list):
                value = tuple(value)
            try:
                flat_values = st.flatten(value)
                if len(flat_values) != len(self._flat_spec):
                    raise ValueError
            except ValueError:
                raise TypeError(f"from_generator: element {index} of the generator, {value!r:.80}, "
                                f"does not match the structure of {self._spec!r}.") from None
        out = []
        for v, spec in zip(flat_values, self._flat_spec):
            try:
                if spec.dtype is _dtypes.string:
                    a = st.to_array(v)
                    if a.dtype != object:
                        a = np.asarray(a).astype(bytes).astype(object)
                else:
                    a = np.asarray(v.numpy() if hasattr(v, "numpy") else v, dtype=spec.dtype.as_numpy_dtype)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"from_generator: element {index} of the generator: {v!r:.60} is "
                                f"not a valid {spec.dtype.name} value ({exc}).") from None
            if not spec.shape.is_compatible_with(TensorShape(a.shape)):
                raise InvalidArgumentError(
                    f"from_generator: element {index} of the generator has shape {list(a.shape)}, "
                    f"which is not compatible with the expected shape {spec.shape}.")
            out.append(a)
        return st.pack(self._spec, out)

    def _elements(self):
        iterable = self._generator(*self._args)
        for i, value in enumerate(iterable):
            yield self._convert(value, i)


class _Dask(Dataset):
    def __init__(self, collection):
        self._columns = None
        if hasattr(collection, "partitions") and hasattr(collection, "columns"):
            self._columns = list(collection.columns)
            self._parts = collection.to_delayed()
            meta = collection._meta
            self._spec = {c: TensorSpec([], _dtypes.as_dtype(meta[c].to_numpy().dtype
                                                             if meta[c].dtype != object else object))
                          for c in self._columns}
            self._card = UNKNOWN
        elif hasattr(collection, "chunks") and hasattr(collection, "blocks"):
            self._array = collection
            self._spec = TensorSpec(collection.shape[1:], _dtypes.as_dtype(collection.dtype))
            self._card = int(collection.shape[0]) if collection.shape[0] == collection.shape[0] else UNKNOWN
        else:
            raise TypeError(f"from_dask: expected a Dask array or DataFrame, got {type(collection).__name__}.")

    def _blocks(self):
        return self._gen()

    def _gen(self):
        if self._columns is None:
            arr = self._array
            for i in range(arr.numblocks[0]):
                part = np.asarray(arr.blocks[i].compute())
                if len(part):
                    yield part
            return
        for delayed in self._parts:
            frame = delayed.compute()
            if len(frame):
                yield {c: np.asarray(frame[c].to_numpy()) for c in self._columns}


class TextLineDataset(Dataset):
    """The lines of one or more text files (without their `\\n` or `\\r\\n` endings), as string
    scalars, read lazily. `compression_type`: None / '' / 'GZIP' / 'ZLIB'; `buffer_size`: the
    bytes read at a time; `num_parallel_reads`: that many files read in turn, a line from each.
    A file that cannot be opened raises `rt.errors.NotFoundError` when it is reached."""

    def __init__(self, filenames: Any, compression_type: Optional[str] = None,
                 buffer_size: Optional[int] = None, num_parallel_reads: Optional[int] = None,
                 name: Optional[str] = None):
        self._kind = _compression(compression_type)
        self._chunk = 1 << 16 if buffer_size is None else _positive_int(
            buffer_size, "buffer_size", "TextLineDataset")
        self._parallel = 1 if num_parallel_reads is None else _positive_int(
            num_parallel_reads, "num_parallel_reads", "TextLineDataset", allow=(AUTOTUNE,))
        if self._parallel == AUTOTUNE:
            self._parallel = threads.default_parallelism()
        if isinstance(filenames, Dataset):
            self._names_ds = filenames
            self._names = None
        else:
            names = st.to_array(filenames, "TextLineDataset: filenames")
            self._names = [os.fsdecode(n) for n in np.atleast_1d(names).ravel()]
        self._spec = TensorSpec([], _dtypes.string)
        self._card = UNKNOWN

    def _file_names(self) -> list:
        if self._names is not None:
            return self._names
        return [os.fsdecode(np.asarray(e)[()]) for e in self._names_ds._open()]

    def _lines(self, name: str) -> _PyIterator:
        """The lines of one file; a file that cannot be opened is passed over under
        `ignore_errors()`, else raises (as tf.data: when it is read, not when named)."""
        try:
            if os.path.isdir(name):
                raise IsADirectoryError(21, "Is a directory")
            f = open_for_reading(name, self._kind)
        except OSError as exc:
            error = exc if isinstance(exc, NotFoundError) else _file_error(name, exc, "TextLineDataset")
            if skipping_error(error):
                return
            raise error from None
        try:
            rest = b""
            while True:
                data = f.read(self._chunk)
                if not data:
                    break
                pieces = (rest + data).split(b"\n")
                rest = pieces.pop()
                for line in pieces:     # as TensorFlow's line reader: every \r dropped
                    yield np.asarray(line.replace(b"\r", b""), dtype=object)
            if rest:
                yield np.asarray(rest.replace(b"\r", b""), dtype=object)
        finally:
            f.close()

    def _elements(self):
        names = self._file_names()
        if self._parallel == 1:
            for name in names:
                yield from self._lines(name)
            return
        pending, active = list(names), []
        while pending or active:
            while pending and len(active) < self._parallel:
                active.append(self._lines(pending.pop(0)))
            for it in list(active):
                try:
                    line = next(it)
                except StopIteration:
                    active.remove(it)
                    continue
                yield line


def _file_error(name: str, exc: OSError, what: str) -> Exception:
    """TensorFlow's error for a file that cannot be opened: `NotFoundError` when missing."""
    if isinstance(exc, FileNotFoundError):
        return NotFoundError(f"{name}; No such file or directory ({what})")
    if isinstance(exc, IsADirectoryError):
        return FailedPreconditionError(f"{name}; Is a directory ({what})")
    if isinstance(exc, PermissionError):
        return PermissionDeniedError(f"{name}; Permission denied ({what})")
    return InvalidArgumentError(f"{what}: cannot read {name}: {exc.strerror or exc}")


# -- transformations ------------------------------------------------------------------------

# The class names TensorFlow's datasets print, where the name of this runtime's class differs
# by more than the "Dataset" suffix of the internal ones (`_Map` prints `_MapDataset`)
_TF_CLASS_NAMES = {"_TensorSlices": "_TensorSliceDataset", "_Tensors": "_TensorDataset",
                   "_Cache": "CacheDataset", "_Generator": "_FlatMapDataset",
                   "_Directed": "_DirectedInterleaveDataset", "_RaggedBatch": "_BatchDataset",
                   "TextLineDataset": "TextLineDatasetV2", "TFRecordDataset": "TFRecordDatasetV2",
                   "CsvDataset": "CsvDatasetV2", "FixedLengthRecordDataset":
                   "FixedLengthRecordDatasetV2"}


def _tf_class_name(dataset: Dataset) -> str:
    """The class name TensorFlow's repr shows for `dataset` (a subclass of a user's keeps its
    own name)."""
    cls = type(dataset)
    name = cls.__name__
    if not cls.__module__.startswith("runtime.data"):
        return name
    if name in _TF_CLASS_NAMES:
        return _TF_CLASS_NAMES[name]
    if name in ("_Map", "_Batch") and getattr(dataset, "_parallel", None) is not None:
        return f"_Parallel{name[1:]}Dataset"
    if name == "_Interleave":
        return getattr(dataset, "_tf_kind", "_InterleaveDataset")
    return f"{name}Dataset" if name.startswith("_") else name


class _Unary(Dataset):
    def __init__(self, input_dataset: Dataset):
        if not isinstance(input_dataset, Dataset):
            raise TypeError("expected a Dataset")
        self._input = input_dataset
        self._spec = input_dataset._spec
        self._card = input_dataset._card

    def _inputs(self):
        return [self._input]


def _is_vectorizable(graph, rank: int) -> bool:
    """True when every op of a traced per-element function is elementwise over operands of
    the element's rank (constants of lower or equal rank broadcast from the right), so the
    function applied to a block of elements gives each element's result."""
    for op in graph.operations:
        opdef = op.opdef
        if opdef.is_constant:
            if any(t.shape.rank is None or t.shape.rank > rank for t in op.outputs):
                return False
            continue
        if not opdef.is_elementwise or opdef.stateful:
            return False
        if any(t.shape.rank != rank for t in op.outputs):
            return False
    produced = {id(t) for op in graph.operations if not op.opdef.is_constant for t in op.outputs}
    produced |= {id(t) for t in graph.inputs}
    return all(id(t) in produced and t.shape.rank == rank for t in graph.outputs)


def _positional(func: Callable, count: int) -> Callable:
    """`func` as a function of `count` named positional parameters, so that an input
    signature fits it when it takes `*args` or `**kwargs` (a Keras layer, whose `__call__`
    takes keyword options, mapped over a dataset)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        params = ()
    if not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return func

    def call(*args):
        return func(*args)
    names = [f"x{i}" for i in range(count)]
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    call.__name__ = getattr(func, "__name__", type(func).__name__)
    return call


#: set by `rt.data.experimental.enable_debug_mode()`: user functions then run eagerly, one
#: element at a time on the calling thread
DEBUG_MODE = [False]


class _Traced:
    """A user function traced once for an element structure, and called on elements (run
    eagerly in debug mode)."""

    def __init__(self, func: Callable, spec: Any, what: str):
        if not callable(func):
            raise TypeError(f"{what}: the function must be callable, got {type(func).__name__}.")
        self.func, self.what, self.spec = func, what, spec
        self.unpack = type(spec) is tuple
        self.signature = [_sparse_elements.decode_all(s)   # a SparseTensor's is its spec
                          for s in (list(spec) if self.unpack else [spec])]
        self.function = rt_function(_positional(func, len(self.signature)),
                                    input_signature=self.signature, autograph=True)
        self.concrete = self.function.get_concrete_function(*self.signature)
        self.graph = self.concrete.graph
        outputs = self.concrete.structured_outputs
        self.output_spec = _output_spec(outputs, what)
        self._batched: Any = None

    def __call__(self, element):
        args = [st.to_tensors(e) for e in element] if self.unpack else [st.to_tensors(element)]
        if DEBUG_MODE[0]:
            return _result_arrays(_positional(self.func, len(self.signature))(*args))
        return _result_arrays(self.function(*args))

    def vectorized(self):
        """A function of blocks, or None when the function is not elementwise (or in debug
        mode). The one trace serves both: an elementwise graph (every op elementwise,
        constants broadcasting from the right) computes each row of a block as it computes
        one element."""
        if DEBUG_MODE[0]:
            return None
        if self._batched is None:
            flat = st.flatten(self.spec)
            ranks = {s.shape.rank for s in flat}
            self._batched = (len(ranks) == 1 and None not in ranks and not self.graph.variables
                             and len(self.graph.inputs) == len(flat)
                             and _is_vectorizable(self.graph, ranks.pop()))
        if not self._batched:
            return None
        concrete, unpack = self.concrete, self.unpack

        def call(block):
            values = nest.flatten(list(block) if unpack else [block])
            return _result_arrays(concrete.run([np.asarray(v) for v in values]))
        return call


def _output_spec(outputs, what):
    if outputs is None:
        raise TypeError(f"{what}: the function returned None; it must return a tensor or a "
                        "nest of tensors.")

    def leaf(x):
        if isinstance(x, TensorSpec):
            return TensorSpec(x.shape, x.dtype)
        if hasattr(x, "shape") and hasattr(x, "dtype"):
            return TensorSpec(x.shape, x.dtype)
        if x is None:
            raise TypeError(f"{what}: the function returned None inside its result.")
        a = st.to_array(x, f"{what}: a value the function returned")
        return st.spec_of_array(a)
    if isinstance(outputs, list):
        outputs = tuple(outputs)
    return st.map_structure(leaf, outputs)


def _result_arrays(result):
    if isinstance(result, list):
        result = tuple(result)
    return st.map_structure(lambda t: t._value if hasattr(t, "_value") else st.to_array(t), result)


class _Map(_Unary):
    def __init__(self, input_dataset, map_func, num_parallel_calls, deterministic):
        super().__init__(input_dataset)
        self._fn = _Traced(map_func, input_dataset._spec, "map")
        self._spec = self._fn.output_spec
        if num_parallel_calls is not None:
            num_parallel_calls = _positive_int(num_parallel_calls, "num_parallel_calls", "map",
                                               allow=(AUTOTUNE,))
            if num_parallel_calls == AUTOTUNE:
                num_parallel_calls = threads.default_parallelism()
        self._parallel = num_parallel_calls
        self._deterministic = deterministic is not False

    def _blocks(self):
        if (self._parallel and self._parallel > 1) or ignoring_errors() or DEBUG_MODE[0]:
            return None
        inner = self._input._blocks()
        if inner is None:
            return None
        call = self._fn.vectorized()
        if call is None:
            inner.close()
            return None
        return (call(block) for block in inner)

    def _elements(self):
        if self._parallel and self._parallel > 1 and not DEBUG_MODE[0]:
            if ignoring_errors():   # failures come back as values, judged on this thread
                return _failures_skipped(threads.parallel_mapped(
                    self._input._open(), _FailureCatching(self._fn), self._parallel,
                    self._deterministic))
            return threads.parallel_mapped(self._input._open(), self._fn, self._parallel,
                                           self._deterministic)
        blocks = self._blocks()
        if blocks is not None:
            return _blocks_of_elements(blocks)
        fn = self._fn
        if ignoring_errors():
            return _calls_skipping_errors(fn, self._input._open())
        return (fn(e) for e in self._input._open())


class _Failed:
    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


class _FailureCatching:
    """`fn` returning a `_Failed` in place of raising (run on a worker thread)."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def __call__(self, element):
        try:
            return self.fn(element)
        except Exception as exc:
            return _Failed(exc)


def _failures_skipped(results: _PyIterator) -> _PyIterator:
    """The results, the failures dropped when an enclosing `ignore_errors()` takes them."""
    for out in results:
        if isinstance(out, _Failed):
            if skipping_error(out.error):
                continue
            raise out.error
        yield out


def _calls_skipping_errors(fn: Callable, source: _PyIterator) -> _PyIterator:
    """`fn(e)` for each element; an element whose call fails is dropped when an enclosing
    `ignore_errors()` takes the error."""
    for e in source:
        try:
            out = fn(e)
        except Exception as exc:
            if skipping_error(exc):
                continue
            raise
        yield out


class _Filter(_Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = _Traced(predicate, input_dataset._spec, "filter")
        out = self._fn.output_spec
        if not isinstance(out, TensorSpec) or out.dtype is not _dtypes.bool_ or out.shape.rank not in (0, None):
            raise ValueError(f"filter: the predicate must return a scalar bool tensor, but it "
                             f"returns {out!r}.")
        self._card = UNKNOWN if input_dataset._card != INFINITE else INFINITE

    def _elements(self):
        fn = self._fn
        for e in self._input._open():
            try:
                keep = bool(fn(e))
            except Exception as exc:
                if skipping_error(exc):
                    continue
                raise
            if keep:
                yield e


class _Batch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._size = _positive_int(batch_size, "batch_size", "batch")
        self._drop = bool(drop_remainder)
        lead = self._size if self._drop else None
        self._ragged = _ragged_elements.has_ragged(input_dataset._spec)
        if self._ragged:  # RaggedTensor components gain a ragged dimension
            self._spec = _ragged_elements.batch_spec(input_dataset._spec, lead)
        else:
            self._spec = batch_template(st.map_structure(
                lambda s: TensorSpec(TensorShape([lead]).concatenate(s.shape), s.dtype), input_dataset._spec), lead)
        c = input_dataset._card
        if c >= 0:
            self._card = c // self._size if self._drop else -(-c // self._size)

    def _elements(self):
        if self._ragged:
            return self._stack_ragged()
        blocks = self._input._blocks()
        if blocks is not None:
            return _rechunk(blocks, self._size, self._drop)
        return self._stack()

    def _stack_ragged(self):
        buf = []
        for e in self._input._open():
            buf.append(e)
            if len(buf) == self._size:
                yield _ragged_elements.stack(buf, self._input._spec)
                buf = []
        if buf and not self._drop:
            yield _ragged_elements.stack(buf, self._input._spec)

    def _stack(self):
        buf = []
        for e in self._input._open():
            buf.append(e)
            if len(buf) == self._size:
                batch = _stacked_or_skipped(buf)
                if batch is not None:
                    yield batch
                buf = []
        if buf and not self._drop:
            batch = _stacked_or_skipped(buf)
            if batch is not None:
                yield batch


def element_groups(elements: _PyIterator, size: int, drop_remainder: bool) -> _PyIterator:
    """Lists of `size` consecutive elements; a shorter last one unless `drop_remainder`."""
    group = []
    for element in elements:
        group.append(element)
        if len(group) == size:
            yield group
            group = []
    if group and not drop_remainder:
        yield group


def dense_to_ragged_batch(batch_size: Any, drop_remainder: bool = False,
                          row_splits_dtype: Any = _dtypes.int64) -> Callable:
    """`rt.data.experimental.dense_to_ragged_batch`: for `Dataset.apply`, `ragged_batch`."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def _stacked_or_skipped(elements: list) -> Any:
    """The elements stacked; None when they cannot be (shapes differ) and an enclosing
    `ignore_errors()` takes the error, which drops the batch as tf.data does."""
    try:
        return _stack_elements(elements, "batch")
    except InvalidArgumentError as exc:
        if skipping_error(exc):
            return None
        raise


def _stack_elements(elements: list, what: str):
    flat = [st.flatten(e) for e in elements]
    out = []
    for i, parts in enumerate(zip(*flat)):
        shapes = {p.shape for p in parts}
        if len(shapes) > 1:
            raise InvalidArgumentError(
                f"{what}: cannot batch elements of different shapes: component {i} has shapes "
                f"{sorted(map(list, shapes))}; use padded_batch, or ragged elements are not supported.")
        out.append(np.stack(parts))
    return st.pack(batch_template(elements[0], len(elements)), out)


class _RaggedBatch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder, row_splits_dtype):
        super().__init__(input_dataset)
        self._size = _positive_int(batch_size, "batch_size", "ragged_batch")
        self._drop = bool(drop_remainder)
        self._splits_dtype = _dtypes.as_dtype(row_splits_dtype)
        lead = self._size if self._drop else None
        self._ragged = RaggedTensor

        def spec(s):
            if s.shape.rank == 0:
                return TensorSpec([lead], s.dtype)
            inner = s.shape.as_list()[1:] if s.shape.rank is not None else None
            return RaggedTensor.__nest_from_fields__({
                "values": TensorSpec([None] + inner if inner is not None else None, s.dtype),
                "row_splits": TensorSpec([None if lead is None else lead + 1], self._splits_dtype)})
        self._spec = st.map_structure(spec, input_dataset._spec)
        c = input_dataset._card
        if c >= 0:
            self._card = c // self._size if self._drop else -(-c // self._size)

    def _elements(self):
        return map(self._batch, element_groups(self._input._open(), self._size, self._drop))

    def _batch(self, elements: list) -> Any:
        flat = [st.flatten(e) for e in elements]
        out = []
        for parts in zip(*flat):
            parts = [np.asarray(p) for p in parts]
            if parts[0].ndim == 0:
                out.append(np.stack(parts))
                continue
            lengths = [len(p) for p in parts]
            splits = np.concatenate([[0], np.cumsum(lengths)]).astype(self._splits_dtype.as_numpy_dtype)
            out.append(self._ragged.__nest_from_fields__(
                {"values": np.concatenate(parts), "row_splits": splits}))
        return st.pack(elements[0], out)


class _PaddedBatch(_Unary):
    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        super().__init__(input_dataset)
        self._size = _positive_int(batch_size, "batch_size", "padded_batch")
        self._drop = bool(drop_remainder)
        flat_spec = st.flatten(input_dataset._spec)
        if padded_shapes is None:
            shapes = [s.shape for s in flat_spec]
        else:
            shapes = [as_shape(p) for p in _flatten_shapes(padded_shapes, input_dataset._spec)]
        self._shapes = shapes
        if padding_values is None:
            pads = [b"" if s.dtype is _dtypes.string else 0 for s in flat_spec]
        else:
            pads = st.flatten(padding_values) if st.is_structure(padding_values) else [padding_values] * len(flat_spec)
            pads = [p.numpy() if hasattr(p, "numpy") else p for p in pads]
        self._pads = pads
        lead = self._size if self._drop else None
        self._spec = st.pack(input_dataset._spec, [
            TensorSpec(TensorShape([lead]).concatenate(shape), s.dtype) for shape, s in zip(shapes, flat_spec)])
        c = input_dataset._card
        if c >= 0:
            self._card = c // self._size if self._drop else -(-c // self._size)

    def _pad(self, elements):
        flat = [st.flatten(e) for e in elements]
        out = []
        for i, parts in enumerate(zip(*flat)):
            ndim = parts[0].ndim
            longest = [max(p.shape[d] for p in parts) for d in range(ndim)]
            want = self._shapes[i].as_tuple()
            target = []
            for d in range(ndim):
                w = None if want is None else want[d]
                if w is not None and w < longest[d]:
                    raise InvalidArgumentError(f"padded_batch: component {i} has size {longest[d]} "
                                               f"in dimension {d}, more than the padded shape {w}.")
                target.append(longest[d] if w is None else w)
            dtype = parts[0].dtype
            batch = np.full([len(parts)] + target, self._pads[i], dtype=dtype)
            for j, p in enumerate(parts):
                # a 0-d (string) array is stored as its item, not as an object inside the cell
                batch[(j,) + tuple(slice(0, n) for n in p.shape)] = p[()] if p.ndim == 0 else p
            out.append(batch)
        return st.pack(elements[0], out)

    def _elements(self):
        return map(self._pad, element_groups(self._input._open(), self._size, self._drop))


def _flatten_shapes(shapes, spec):
    if isinstance(spec, dict):
        return [x for k in sorted(spec, key=repr) for x in _flatten_shapes(shapes[k], spec[k])]
    if isinstance(spec, tuple):
        return [x for s, sp in zip(shapes, spec) for x in _flatten_shapes(s, sp)]
    if isinstance(shapes, tuple):
        shapes = list(shapes)
    return [shapes]


class _Unbatch(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        self._ragged = _ragged_elements.has_ragged(input_dataset._spec)
        if self._ragged:  # a RaggedTensor component is cut into its rows
            self._spec = _ragged_elements.unbatch_spec(input_dataset._spec)
            self._card = UNKNOWN if input_dataset._card != INFINITE else INFINITE
            return
        for s in st.flatten(input_dataset._spec):
            if s.shape.rank == 0:
                raise ValueError("unbatch: every component of the elements needs at least one "
                                 f"dimension; got {input_dataset._spec!r}.")
        self._spec = unbatch_template(st.map_structure(
            lambda s: TensorSpec(s.shape[1:] if s.shape.rank is not None else TensorShape(None), s.dtype),
            input_dataset._spec))
        self._card = UNKNOWN if input_dataset._card != INFINITE else INFINITE

    def _blocks(self):
        return None if self._ragged else self._input._open()

    def _elements(self):
        if not self._ragged:
            return super()._elements()
        return (row for element in self._input._open() for row in _ragged_elements.rows(element))


class EpochCounter:
    """The number of times a randomised dataset has been opened (its next epoch's number)."""

    def __init__(self) -> None:
        self.value = 0
        self._lock = threading.Lock()

    def take(self) -> int:
        """The current epoch's number; the counter moves on."""
        with self._lock:
            self.value += 1
            return self.value - 1


_END = object()   # the end of a shuffle's input


class _PhiloxWords:
    """TensorFlow's `SingleSampleAdapter<PhiloxRandom>(seed, seed2)`: the 32-bit words of the
    Philox stream whose key is `seed` and whose counter's high half is `seed2`, in order."""

    def __init__(self, seed: int, seed2: int) -> None:
        seed, seed2 = seed & 0xFFFFFFFFFFFFFFFF, seed2 & 0xFFFFFFFFFFFFFFFF
        self._key = (seed & 0xFFFFFFFF, seed >> 32)
        self._counter = (0, 0, seed2 & 0xFFFFFFFF, seed2 >> 32)
        self._block = 0
        self._words: list = []

    def __call__(self) -> int:
        if not self._words:
            self._words = _philox.blocks(np, self._key, self._counter, self._block,
                                         256).reshape(-1).tolist()[::-1]
            self._block += 256
        return self._words.pop()


def _shuffle_seeds(seed) -> tuple[int, int]:
    """TensorFlow's (seed, seed2) of a shuffle made now: the global seed and the op seed
    (drawn from the global seed's sequence when not given), or random ones when neither is
    set (TensorFlow's RandomSeeds)."""
    pair = SEEDS.seed_pair(None if seed is None else int(seed))
    if pair is None:
        words = np.random.SeedSequence().generate_state(2, np.uint64)
        return int(words[0]), int(words[1])
    return pair


def epoch_words(seed, redraw: bool, epochs: EpochCounter) -> _PhiloxWords:
    """The words of an iteration of a random dataset seeded by the pair `seed`: iteration k
    of one that draws anew (TensorFlow's RandomSeedGenerator) uses words 2k and 2k+1 of the
    pair's stream as its seeds; otherwise every iteration reads the pair's own stream."""
    if not redraw:
        return _PhiloxWords(*seed)
    epoch = epochs.take()
    seeds = _PhiloxWords(*seed)
    drawn = [seeds() for _ in range(2 * epoch + 2)]
    return _PhiloxWords(drawn[-2], drawn[-1])


class _Shuffle(_Unary):
    """TensorFlow's shuffle, element for element: a ring buffer of `buffer_size` slots is
    filled, then each output is the element at a random offset from the oldest slot (the
    offset a Philox word modulo the elements held), whose place takes the oldest element, and
    the next input element is read in. Iteration k of a reshuffling dataset draws its two
    seeds as words 2k and 2k+1 of the stream of (seed, seed2) (TensorFlow's
    RandomSeedGenerator); without reshuffling every iteration uses (seed, seed2) itself."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(input_dataset)
        if buffer_size is None:
            raise TypeError("shuffle() missing required argument 'buffer_size' (the number of "
                            "elements to draw from; the dataset's size gives a full shuffle).")
        self._buffer = _positive_int(buffer_size, "buffer_size", "shuffle", allow=(UNKNOWN,))
        if self._buffer == UNKNOWN:   # tf.data: a buffer as large as the dataset
            self._buffer = np.iinfo(np.int64).max
        self._seed = _shuffle_seeds(seed)
        self._reshuffle = bool(reshuffle_each_iteration)
        self._epochs = EpochCounter()   # shared with the copies bound in a compiled function

    def _words(self) -> _PhiloxWords:
        return epoch_words(self._seed, self._reshuffle, self._epochs)

    def _elements(self):
        return self._shuffle_elements(self._input._open(), self._words())

    def _blocks(self):
        return None   # element by element, as TensorFlow draws them

    def _shuffle_elements(self, source, words: _PhiloxWords):
        size = self._buffer
        ring: dict = {}
        start = end = 0
        source = iter(source)
        exhausted = False
        while True:
            while not exhausted and end - start < size:
                element = next(source, _END)
                if element is _END:
                    exhausted = True
                    break
                ring[end % size] = element
                end += 1
            if end == start:
                return
            index = (start + words() % (end - start)) % size
            oldest = start % size
            out = ring[index]
            ring[index] = ring[oldest]
            del ring[oldest]
            start += 1
            yield out


class _Repeat(_Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = -1 if count is None else _count_arg(self, count, "count", "repeat")
        c = input_dataset._card
        if self._params:
            self._card = INFINITE if c == INFINITE else UNKNOWN
            return
        if self._count < 0:
            self._card = 0 if c == 0 else (INFINITE if c != UNKNOWN else INFINITE)
        elif c >= 0:
            self._card = c * self._count
        else:
            self._card = c if self._count != 0 else 0

    def _elements(self):
        n = 0
        while self._count < 0 or n < self._count:
            seen = False
            for e in self._input._open():
                seen = True
                yield e
            n += 1
            if not seen:
                return


class _Take(_Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count_arg(self, count, "count", "take")
        c = input_dataset._card
        if self._params:
            self._card = UNKNOWN
            return
        if self._count < 0:
            self._card = c
        elif c >= 0:
            self._card = min(c, self._count)
        elif c == INFINITE:
            self._card = self._count
        else:
            self._card = UNKNOWN

    def _elements(self):
        if self._count == 0:
            return
        source = self._input._open()
        try:
            for i, e in enumerate(source):
                yield e
                if i + 1 == self._count:
                    return
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()


class _Skip(_Unary):
    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = _count_arg(self, count, "count", "skip")
        c = input_dataset._card
        if self._params:
            self._card = UNKNOWN
            return
        if self._count < 0:
            self._card = 0 if c != INFINITE else INFINITE
        elif c >= 0:
            self._card = max(0, c - self._count)

    def _elements(self):
        if self._count < 0:
            for _ in self._input._open():
                pass
            return
        for i, e in enumerate(self._input._open()):
            if i >= self._count:
                yield e


class _Prefetch(_Unary):
    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        size = _int_arg(buffer_size, "buffer_size", "prefetch")
        if size == AUTOTUNE:
            size = 2
        if size < 0:
            raise InvalidArgumentError(f"prefetch: buffer_size must be >= 0, or rt.data.AUTOTUNE "
                                       f"(-1) to tune it, got {size}.")
        self._size = size

    def _elements(self):
        if self._size == 0:
            return self._input._open()
        handlers = list(getattr(_IGNORING, "handlers", None) or ())
        if not handlers:
            return threads.prefetched(self._input._open, self._size)

        def open_ignoring():   # on the producer thread, under the enclosing ignore_errors()
            _IGNORING.handlers = handlers
            return self._input._open()
        return threads.prefetched(open_ignoring, self._size)


class _Cache(_Unary):
    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._filename = os.fsdecode(filename) if filename else ""
        self._stored: Optional[list] = None
        self._lock = threading.Lock()

    def _elements(self):
        if self._stored is None and self._filename and os.path.exists(self._filename + ".npz"):
            n, flat = cache_file.read(self._filename + ".npz")
            # (an object column's items stay 0-d object arrays: bytes keep their trailing NULs)
            self._stored = [st.pack(self._spec, [np.asarray(a[k], dtype=a.dtype) for a in flat])
                            for k in range(n)]
        if self._stored is not None:
            yield from self._stored
            return
        seen = []
        for e in self._input._open():
            seen.append(e)
            yield e
        with self._lock:
            self._stored = seen
            if self._filename and seen:
                columns = [np.stack(parts) for parts in zip(*[st.flatten(e) for e in seen])]
                cache_file.write(self._filename + ".npz", len(seen), columns)


class _Concatenate(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate: dataset must be a Dataset, got {type(second).__name__}.")
        a, b = st.flatten(first._spec), st.flatten(second._spec)
        if not st.specs_compatible(first._spec, second._spec) and (
                len(a) != len(b) or any(x.dtype != y.dtype for x, y in zip(a, b))):
            raise TypeError(f"concatenate: the datasets have incompatible element specs "
                            f"{first._spec!r} and {second._spec!r}.")
        self._first, self._second = first, second
        self._spec = st.pack(first._spec, [st.common_spec(x, y) for x, y in zip(a, b)])
        c1, c2 = first._card, second._card
        if INFINITE in (c1, c2):
            self._card = INFINITE
        elif UNKNOWN in (c1, c2):
            self._card = UNKNOWN
        else:
            self._card = c1 + c2

    def _inputs(self):
        return [self._first, self._second]

    def _elements(self):
        yield from self._first._open()
        yield from self._second._open()


class _Interleave(_Unary):
    def __init__(self, input_dataset, map_func, cycle_length, block_length, num_parallel_calls,
                 deterministic):
        super().__init__(input_dataset)
        if not callable(map_func):
            raise TypeError("interleave: map_func must be callable.")
        self._func = map_func
        if num_parallel_calls is not None:
            self._tf_kind = "_ParallelInterleaveDataset"
        self._unpack = type(input_dataset._spec) is tuple
        self._cycle = threads.default_parallelism() if cycle_length in (None, AUTOTUNE) else \
            _positive_int(cycle_length, "cycle_length", "interleave")
        self._block = 1 if block_length is None else _positive_int(block_length, "block_length", "interleave")
        first = self._probe()
        self._spec = first._spec if first is not None else input_dataset._spec
        self._card = UNKNOWN if input_dataset._card != INFINITE else INFINITE

    def _call(self, element) -> Dataset:
        tensors = st.to_tensors(element)
        out = self._func(*tensors) if self._unpack else self._func(tensors)
        if not isinstance(out, Dataset):
            raise TypeError(f"interleave/flat_map: map_func must return a Dataset, got "
                            f"{type(out).__name__}.")
        return out

    def _probe(self):
        for e in self._input._open():
            return self._call(e)
        return None

    def _next_opened(self, source) -> Optional[_PyIterator]:
        """The opened dataset of the next input element (None at the end); an element whose
        function fails is passed over under `ignore_errors()`."""
        for element in source:
            try:
                return self._call(element)._open()
            except Exception as exc:
                if not skipping_error(exc):
                    raise
        return None

    def _elements(self):
        source = self._input._open()
        active: list = []
        exhausted = False
        while True:
            while not exhausted and len(active) < self._cycle:
                opened = self._next_opened(source)
                if opened is None:
                    exhausted = True
                else:
                    active.append(opened)
            if not active:
                return
            i = 0
            while i < len(active):
                it = active[i]
                ended = False
                for _ in range(self._block):
                    try:
                        yield next(it)
                    except StopIteration:
                        ended = True
                        break
                if ended:
                    replacement = None
                    if not exhausted:
                        replacement = self._next_opened(source)
                        exhausted = replacement is None
                    if replacement is None:
                        active.pop(i)
                        continue
                    active[i] = replacement
                i += 1


class _Scan(_Unary):
    def __init__(self, input_dataset, initial_state, scan_func):
        super().__init__(input_dataset)
        if initial_state is None:
            raise TypeError("scan: initial_state is None; give the first state, a tensor or a "
                            "nest of tensors.")
        if isinstance(initial_state, list):
            initial_state = tuple(initial_state)
        self._state = st.map_structure(lambda v: st.to_array(v, "scan: initial_state"), initial_state)
        state_spec = st.map_structure(st.spec_of_array, self._state)
        fn = _Traced(scan_func, (state_spec, input_dataset._spec), "scan")
        relaxed = _scan_state(state_spec, fn.output_spec)
        if st.spec_key(relaxed) != st.spec_key(state_spec):   # the state's shape changes: as
            fn = _Traced(scan_func, (relaxed, input_dataset._spec), "scan")   # tf.data, relax it
            relaxed = _scan_state(relaxed, fn.output_spec)
        self._fn = fn
        self._spec = fn.output_spec[1]

    def _elements(self):
        state, fn = self._state, self._fn
        for element in self._input._open():
            state, out = fn((state, element))
            yield out


def _scan_state(state_spec, output_spec):
    """The state spec that fits both the initial state and the new state `scan_func`
    returns; TypeError when their structures or dtypes differ."""
    if not isinstance(output_spec, tuple) or len(output_spec) != 2:
        raise TypeError("scan: scan_func must return a pair (new_state, output_element), got "
                        f"{output_spec!r:.200}.")
    new = output_spec[0]
    old_flat, new_flat = st.flatten(state_spec), st.flatten(new)
    if len(old_flat) != len(new_flat) or repr(st.pack(state_spec, ["*"] * len(old_flat))) != \
            repr(st.pack(new, ["*"] * len(new_flat))):
        raise TypeError(f"scan: the new state {new!r:.200} returned by scan_func does not have the "
                        f"structure of the initial state {state_spec!r:.200}.")
    for a, b in zip(old_flat, new_flat):
        if a.dtype != b.dtype:
            raise TypeError(f"scan: the new state must have the dtypes of the initial state: "
                            f"expected {a.dtype.name}, got {b.dtype.name}; cast the new state "
                            "or give an initial state of that dtype.")
    return st.pack(state_spec, [st.common_spec(a, b) for a, b in zip(old_flat, new_flat)])


def _predicate(predicate, spec, what):
    fn = _Traced(predicate, spec, what)
    out = fn.output_spec
    if not isinstance(out, TensorSpec) or out.dtype is not _dtypes.bool_ or out.shape.rank not in (0, None):
        raise ValueError(f"{what}: the predicate must return a scalar bool tensor, but it "
                         f"returns {out!r}.")
    return fn


class _TakeWhile(_Unary):
    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._fn = _predicate(predicate, input_dataset._spec, "take_while")
        self._card = UNKNOWN

    def _elements(self):
        fn = self._fn
        for e in self._input._open():
            if not bool(fn(e)):
                return
            yield e


class _Unique(_Unary):
    def __init__(self, input_dataset):
        super().__init__(input_dataset)
        spec = input_dataset._spec
        if st.is_structure(spec):
            raise InvalidArgumentError(f"unique: only datasets whose elements have a single "
                                       f"component are supported, got {spec!r:.200}.")
        if spec.dtype not in (_dtypes.int32, _dtypes.int64, _dtypes.string):
            raise TypeError(f"unique: elements of dtype {spec.dtype.name} are not supported; only "
                            "int32, int64 and string are (cast the elements first).")
        self._card = UNKNOWN

    def _elements(self):
        seen: set = set()
        for e in self._input._open():
            a = np.asarray(e)
            key = (a.shape, tuple(a.ravel().tolist()) if a.dtype.kind == "O" else a.tobytes())
            if key not in seen:
                seen.add(key)
                yield e


class _IgnoreErrors(_Unary):
    def __init__(self, input_dataset, log_warning):
        super().__init__(input_dataset)
        if not isinstance(log_warning, (bool, np.bool_)):
            raise TypeError(f"ignore_errors: log_warning must be a bool, got {log_warning!r:.60}.")
        self._log = bool(log_warning)
        self._card = UNKNOWN     # tf.data's, even of an infinite input

    def _report(self, error: Exception) -> None:
        if self._log:
            logger.warning("ignore_errors: dropped an element: %s: %s", type(error).__name__, error)

    def _pull(self, step: Callable) -> Any:
        """`step()` with this dataset's error handler in force on this thread."""
        handlers = getattr(_IGNORING, "handlers", None)
        if handlers is None:
            handlers = _IGNORING.handlers = []
        handlers.append(self._report)
        try:
            return step()
        finally:
            handlers.pop()

    def _elements(self):
        try:
            source = self._pull(self._input._open)
        except Exception as exc:
            self._report(exc)
            return
        while True:
            try:
                element = self._pull(lambda: next(source))
            except StopIteration:
                return
            except Exception as exc:    # the input's generator has ended with it
                self._report(exc)
                continue
            yield element


class _Shard(_Unary):
    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        n = _int_arg(num_shards, "num_shards", "shard")
        i = _int_arg(index, "index", "shard")
        if n <= 0:
            raise InvalidArgumentError(f"shard: num_shards must be greater than zero, got {n}.")
        if not 0 <= i < n:
            raise InvalidArgumentError(f"shard: index must be between 0 and {n - 1} "
                                       f"(num_shards - 1), got {i}.")
        self._n, self._i = n, i
        c = input_dataset._card
        if c >= 0:
            self._card = c // n + (1 if i < c % n else 0)

    def _elements(self):
        n, i = self._n, self._i
        for k, e in enumerate(self._input._open()):
            if k % n == i:
                yield e


class _Rebatch(_Unary):
    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        if hasattr(batch_size, "numpy"):
            batch_size = batch_size.numpy()
        sizes = np.asarray(batch_size).ravel().tolist() if isinstance(
            batch_size, (list, tuple, np.ndarray)) else [batch_size]
        if not sizes:
            raise InvalidArgumentError("rebatch: batch_size is an empty list; give a size or a "
                                       "list of sizes.")
        self._sizes = [_positive_int(b, "batch_size", "rebatch") for b in sizes]
        self._drop = bool(drop_remainder)
        for s in st.flatten(input_dataset._spec):
            if s.shape.rank == 0:
                raise ValueError("rebatch: the elements must be batches (every component of "
                                 "rank >= 1), got scalar components; batch the dataset first.")
        lead = self._sizes[0] if self._drop and len(set(self._sizes)) == 1 else None
        self._spec = st.map_structure(
            lambda s: TensorSpec(TensorShape([lead]).concatenate(s.shape[1:]) if s.shape.rank
                                 is not None else TensorShape(None), s.dtype), input_dataset._spec)
        self._card = INFINITE if input_dataset._card == INFINITE else UNKNOWN

    def _elements(self):
        sizes = itertools.cycle(self._sizes)
        want = next(sizes)
        pieces: list = []
        have, template = 0, None
        for batch in self._input._open():
            template = batch
            flat = [np.asarray(a) for a in st.flatten(batch)]
            n, start = len(flat[0]), 0
            while start < n:
                take = min(want - have, n - start)
                pieces.append([a[start:start + take] for a in flat])
                have, start = have + take, start + take
                if have == want:
                    yield st.pack(template, _join(pieces))
                    pieces, have, want = [], 0, next(sizes)
        if pieces and not self._drop:
            yield st.pack(template, _join(pieces))


class _Elements(Dataset):
    """A dataset of the given elements (a window's component)."""

    def __init__(self, elements: list, spec: Any):
        self._items, self._spec, self._card = elements, spec, len(elements)

    def _elements(self):
        return iter(self._items)


class _Window(_Unary):
    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size = _positive_int(size, "size", "window")
        self._shift = self._size if shift is None else _positive_int(shift, "shift", "window")
        self._stride = _positive_int(stride, "stride", "window")
        self._drop = bool(drop_remainder)
        self._spec = st.map_structure(DatasetSpec, input_dataset._spec)
        c = input_dataset._card
        if c >= 0 and self._drop:
            rest = c - ((self._size - 1) * self._stride + 1)
            self._card = 0 if rest < 0 else rest // self._shift + 1
        elif c >= 0:
            self._card = -(-c // self._shift)

    def _window(self, buf, base, start, end):
        """The window of elements `start, start + stride, ...` below index `end`."""
        taken = [buf[k - base] for k in range(start, end, self._stride)][:self._size]
        flat = [st.flatten(e) for e in taken]
        spec = self._input._spec
        return st.pack(spec, [_Elements([parts[c] for parts in flat], leaf)
                              for c, leaf in enumerate(st.flatten(spec))])

    def _elements(self):
        span = (self._size - 1) * self._stride + 1
        buf: collections.deque = collections.deque()
        base = pos = start = 0          # buf holds elements base .. pos - 1
        for e in self._input._open():
            if pos >= start:
                buf.append(e)
            else:
                base += 1
            pos += 1
            while pos - start >= span:
                yield self._window(buf, base, start, start + span)
                start += self._shift
                while buf and base < start:
                    buf.popleft()
                    base += 1
        while not self._drop and start < pos:
            yield self._window(buf, base, start, pos)
            start += self._shift
            while buf and base < start:
                buf.popleft()
                base += 1


def cardinality(dataset: Dataset) -> Any:
    """`dataset.cardinality()`: the number of elements, or INFINITE (-1) / UNKNOWN (-2)."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"cardinality: expected a Dataset, got {type(dataset).__name__}.")
    return dataset.cardinality()


# -- tf.data.experimental's transformation functions, for `ds.apply(...)` ----------------------

@strict_keywords("rt.data.experimental.scan")
def scan(initial_state: Any, scan_func: Callable) -> Callable[[Dataset], Dataset]:
    """`ds.apply(scan(initial_state, scan_func))` is `ds.scan(initial_state, scan_func)`."""
    return lambda dataset: dataset.scan(initial_state, scan_func)


@strict_keywords("rt.data.experimental.Counter")
def Counter(start: Any = 0, step: Any = 1, dtype: Any = _dtypes.int64) -> Dataset:  # noqa: N802
    """tf.data.experimental.Counter: `Dataset.counter(start, step, dtype)`."""
    return Dataset.counter(start, step, dtype)


@strict_keywords("rt.data.experimental.take_while")
def take_while(predicate: Callable) -> Callable[[Dataset], Dataset]:
    """`ds.apply(take_while(predicate))` is `ds.take_while(predicate)`."""
    return lambda dataset: dataset.take_while(predicate)


@strict_keywords("rt.data.experimental.unique")
def unique() -> Callable[[Dataset], Dataset]:
    """`ds.apply(unique())` is `ds.unique()`."""
    return lambda dataset: dataset.unique()


@strict_keywords("rt.data.experimental.ignore_errors")
def ignore_errors(log_warning: bool = False) -> Callable[[Dataset], Dataset]:
    """`ds.apply(ignore_errors())` is `ds.ignore_errors()`."""
    return lambda dataset: dataset.ignore_errors(log_warning)
