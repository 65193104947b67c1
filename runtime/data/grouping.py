"""tf.data's grouping: `Dataset.group_by_window` and `Dataset.bucket_by_sequence_length`.

Elements are put in groups by key; a group that reaches its window size is handed, as a
dataset (a *window*), to the reduce function, and the elements of the dataset it returns come
out before the next input element is read. At the end of the input the groups left over are
reduced in increasing order of key (as TensorFlow's ordered map of groups gives them).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..errors import InvalidArgumentError
from ..shapes import TensorShape, TensorSpec, as_shape
from . import structure as st
from .dataset import (
    INFINITE,
    TRANSFORMS,
    UNKNOWN,
    Dataset,
    _Elements,
    _flatten_shapes,
    _int_arg,
    _Traced,
    _Unary,
)


def _int64_scalar(fn: _Traced, what: str) -> _Traced:
    out = fn.output_spec
    if not isinstance(out, TensorSpec) or out.dtype is not _dtypes.int64 or out.shape.rank not in (0, None):
        raise ValueError(f"group_by_window: {what} must return an int64 scalar, but it returns "
                         f"{out!r:.200}; cast the result (rt.cast(..., rt.int64)).")
    return fn


def _window_size(value: Any, what: str) -> int:
    size = _int_arg(value, what, "group_by_window")
    if size <= 0:
        raise InvalidArgumentError(f"group_by_window: Window size must be greater than zero, but "
                                   f"got {size} ({what}).")
    return size


class _GroupByWindow(_Unary):
    """Groups by `key(element) -> int`; a group of `size(key)` elements is reduced by
    `reduce(key, window) -> Dataset`, whose elements match `spec`."""

    def __init__(self, input_dataset: Dataset, key: Callable, size: Callable, reduce: Callable,
                 spec: Any):
        super().__init__(input_dataset)
        self._key, self._size, self._reduce = key, size, reduce
        self._spec = spec
        self._card = INFINITE if input_dataset._card == INFINITE else UNKNOWN   # as tf.data

    def _window(self, key: int, elements: list):
        out = self._reduce(key, _Elements(elements, self._input._spec))
        if not isinstance(out, Dataset):
            raise TypeError(f"group_by_window: reduce_func must return a Dataset, got "
                            f"{type(out).__name__}.")
        if not st.specs_compatible(out._spec, self._spec):
            raise TypeError(f"group_by_window: reduce_func returned a dataset of {out._spec!r:.200} "
                            f"for key {key}, but {self._spec!r:.200} for an empty window; every "
                            "window must give the same element structure and dtypes.")
        return out._open()

    def _elements(self):
        groups: dict = {}
        sizes: dict = {}
        for element in self._input._open():
            k = self._key(element)
            group = groups.setdefault(k, [])
            group.append(element)
            if k not in sizes:
                sizes[k] = self._size(k)
            if len(group) >= sizes[k]:
                yield from self._window(k, groups.pop(k))
        for k in sorted(groups):
            yield from self._window(k, groups.pop(k))


def _key_tensor(key: int) -> Any:
    return st.to_tensor(np.asarray(key, dtype=np.int64))


def group_by_window(dataset: Dataset, key_func: Callable, reduce_func: Callable,
                    window_size: Any, window_size_func: Optional[Callable]) -> Dataset:
    """`Dataset.group_by_window` (see there)."""
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Either the `window_size` argument or the `window_size_func` argument "
                         "must be specified (exactly one of them).")
    if not callable(reduce_func):
        raise TypeError(f"group_by_window: reduce_func must be callable, got "
                        f"{type(reduce_func).__name__}.")
    key_fn = _int64_scalar(_Traced(key_func, dataset._spec, "group_by_window"), "key_func")
    if window_size_func is None:
        fixed = _window_size(window_size, "window_size")

        def size(_key):
            return fixed
    else:
        size_fn = _int64_scalar(_Traced(window_size_func, TensorSpec([], _dtypes.int64),
                                        "group_by_window"), "window_size_func")

        def size(key):
            return _window_size(int(size_fn(np.asarray(key, np.int64))), "window_size_func")

    def reduce(key, window):
        return reduce_func(_key_tensor(key), window)

    probe = reduce(0, _Elements([], dataset._spec))
    if not isinstance(probe, Dataset):
        raise TypeError(f"group_by_window: reduce_func must return a Dataset, got "
                        f"{type(probe).__name__}.")
    return _GroupByWindow(dataset, lambda e: int(key_fn(e)), size, reduce, probe._spec)


def _bucket_sizes(bucket_boundaries: Any, bucket_batch_sizes: Any) -> tuple:
    boundaries = [_int_arg(b, "bucket_boundaries", "bucket_by_sequence_length")
                  for b in list(bucket_boundaries)]
    sizes = [_int_arg(b, "bucket_batch_sizes", "bucket_by_sequence_length")
             for b in list(bucket_batch_sizes)]
    if len(sizes) != len(boundaries) + 1:
        raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                         f"`len(bucket_batch_sizes)={len(sizes)}` and "
                         f"`len(bucket_boundaries)={len(boundaries)}`.")
    if any(s <= 0 for s in sizes):
        raise InvalidArgumentError(f"bucket_by_sequence_length: every bucket batch size must be "
                                   f"greater than zero, got {sizes}.")
    return boundaries, sizes


def _filled_shapes(shapes: list, filler: Optional[int]) -> list:
    """The padded shapes with their unknown dimensions set to `filler` (None: kept)."""
    out = []
    for shape in shapes:
        dims = shape.as_list() if shape.rank is not None else None
        if dims is None:
            out.append(shape)
        else:
            out.append(TensorShape([filler if d is None else d for d in dims]))
    return out


def bucket_by_sequence_length(dataset: Dataset, element_length_func: Callable, bucket_boundaries: Any,
                              bucket_batch_sizes: Any, padded_shapes: Any, padding_values: Any,
                              pad_to_bucket_boundary: bool, no_padding: bool,
                              drop_remainder: bool) -> Dataset:
    """`Dataset.bucket_by_sequence_length` (see there): group_by_window keyed by bucket."""
    boundaries, sizes = _bucket_sizes(bucket_boundaries, bucket_batch_sizes)
    length_fn = _Traced(element_length_func, dataset._spec, "bucket_by_sequence_length")
    out = length_fn.output_spec
    if not isinstance(out, TensorSpec) or not out.dtype.is_integer or out.shape.rank not in (0, None):
        raise ValueError(f"bucket_by_sequence_length: element_length_func must return an integer "
                         f"scalar, but it returns {out!r:.200}.")
    lows = np.asarray([np.iinfo(np.int32).min] + boundaries, dtype=np.int64)
    highs = np.asarray(boundaries + [np.iinfo(np.int32).max], dtype=np.int64)

    def key(element):
        """The first bucket `i` with lows[i] <= length < highs[i] (tf.data's rule, which
        also decides for boundaries out of order)."""
        n = int(length_fn(element))
        fits = np.flatnonzero((lows <= n) & (n < highs))
        if not fits.size:
            raise InvalidArgumentError(f"bucket_by_sequence_length: an element of length {n} "
                                       f"fits no bucket of the boundaries {boundaries}.")
        return int(fits[0])

    flat_spec = st.flatten(dataset._spec)
    if padded_shapes is None:
        shapes = [s.shape for s in flat_spec]
    else:
        shapes = [as_shape(p) for p in _flatten_shapes(padded_shapes, dataset._spec)]

    def batched(bucket: int, window: Dataset) -> Dataset:
        if no_padding:
            return window.batch(sizes[bucket], drop_remainder=drop_remainder)
        filler = None
        if pad_to_bucket_boundary:
            if bucket >= len(boundaries):
                raise InvalidArgumentError(
                    "When pad_to_bucket_boundary=True, elements must have length < "
                    f"max(bucket_boundaries) = {max(boundaries, default=None)}; an element is "
                    "longer.")
            filler = boundaries[bucket] - 1
        padded = st.pack(dataset._spec, _filled_shapes(shapes, filler))
        return window.padded_batch(sizes[bucket], padded_shapes=padded,
                                   padding_values=padding_values, drop_remainder=drop_remainder)

    if no_padding:
        spec = st.map_structure(lambda s: TensorSpec(TensorShape([None]).concatenate(s.shape),
                                                     s.dtype), dataset._spec)
    else:
        spec = st.pack(dataset._spec, [TensorSpec(TensorShape([None]).concatenate(shape), s.dtype)
                                       for shape, s in zip(shapes, flat_spec)])
    return _GroupByWindow(dataset, key, lambda bucket: sizes[bucket], batched, spec)


TRANSFORMS["group_by_window"] = group_by_window
TRANSFORMS["bucket_by_sequence_length"] = bucket_by_sequence_length


# -- tf.data.experimental's forms, for `ds.apply(...)` --------------------------------------

@strict_keywords("rt.data.experimental.group_by_window")
def experimental_group_by_window(key_func: Callable, reduce_func: Callable, window_size: Any = None,
                                 window_size_func: Optional[Callable] = None
                                 ) -> Callable[[Dataset], Dataset]:
    """`ds.apply(group_by_window(...))` is `ds.group_by_window(...)`."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size,
                                                   window_size_func)


@strict_keywords("rt.data.experimental.bucket_by_sequence_length")
def experimental_bucket_by_sequence_length(
        element_length_func: Callable, bucket_boundaries: Any, bucket_batch_sizes: Any,
        padded_shapes: Any = None, padding_values: Any = None, pad_to_bucket_boundary: bool = False,
        no_padding: bool = False, drop_remainder: bool = False) -> Callable[[Dataset], Dataset]:
    """`ds.apply(bucket_by_sequence_length(...))` is `ds.bucket_by_sequence_length(...)`."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes, padding_values,
        pad_to_bucket_boundary, no_padding, drop_remainder)
