"""The two host ops that iterate a dataset inside a compiled function (see runtime/data/).

    DatasetIteratorOpen(*tensors, source=...)   -> handle (variant): `source._open()`, a
                                                   Python iterator opened when the op runs
                                                   (`tensors`: those of the function the
                                                   dataset was built from, bound first)
    DatasetIteratorGetNext(handle, specs=..., flatten=..., strict=...)
                                                -> has_value, *components

Both have an IO effect: the graph passes never fold, merge or drop them, and they run in
program order at every call. At the end of the data GetNext returns `has_value=False` and
zeros of the declared shapes, or raises `OutOfRangeError` when `strict` (a staged `next()`).
The Numba tier runs their NumPy kernels in object mode.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..errors import OutOfRangeError
from ..opdef import Effect, define
from ..shapes import TensorShape
from .py_function import _emit


def _open_kernel(*values, source):
    if values:   # a dataset built in the function from its tensors: bind their values
        tensors = source._graph_inputs()
        source = source._with_values({id(t): v for t, v in zip(tensors, values)})
    return (source._open(),)


def _open_infer(*_inputs, **_attrs):
    return TensorShape([]), _dtypes.variant


def _empty(spec):
    shape = [d or 0 for d in (spec.shape.as_tuple() or ())]
    if spec.dtype is _dtypes.string:
        return np.full(shape, b"", object)
    return np.zeros(shape, spec.dtype.as_numpy_dtype)


def _next_kernel(handle, *, specs, flatten, strict):
    pull = getattr(handle, "_next_arrays", None)
    try:
        element = pull() if pull is not None else next(handle)
    except StopIteration:
        if strict:
            raise OutOfRangeError("End of sequence: the iterator has no more elements.") from None
        return (np.asarray(False),) + tuple(_empty(s) for s in specs)
    return (np.asarray(True),) + tuple(np.asarray(a) for a in flatten(element))


def _next_infer(handle, *, specs, flatten, strict):
    return [(TensorShape([]), _dtypes.bool_)] + [(s.shape, s.dtype) for s in specs]


# both hold Python objects (the dataset, its element structure): never saved
ITERATOR_OPEN = define("DatasetIteratorOpen", _open_infer, _open_kernel, emit=_emit,
                       effects=Effect.IO, differentiable=False, num_outputs=1, savable=False)
ITERATOR_GET_NEXT = define("DatasetIteratorGetNext", _next_infer, _next_kernel, emit=_emit,
                           effects=Effect.IO, differentiable=False, num_outputs=None,
                           savable=False)
