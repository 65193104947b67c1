"""`map_blocks`: a compiled function applied blockwise over dask arrays."""

from __future__ import annotations

import string

import dask
import dask.array as da
import numpy as np

from .. import nest
from ..arguments import check_keywords
from ..function import ConcreteFunction, Function
from ..saved_model import dumps
from ..shapes import TensorSpec
from .worker import digest_of, run_block

# the options of dask.array.blockwise that map_blocks does not set itself
_BLOCKWISE_OPTIONS = frozenset({"name", "token", "adjust_chunks", "align_arrays"})


def map_blocks(fn, *arrays, **kwargs) -> da.Array:
    """`fn` over the row blocks of `arrays` (dask arrays, or NumPy arrays), as a dask array.

    `fn` is an `rt.function` (traced for `[None, *rest]` of each array when it has no
    input_signature) or a concrete function. Its signature says which axes are free: a
    leading `None` lets the rows be chunked any way; the other axes are made whole. `fn`
    must return one tensor whose leading axis follows the rows. The keyword arguments
    `name`, `token`, `adjust_chunks` and `align_arrays` go to `dask.array.blockwise`; any
    other raises `TypeError`. Workers receive `fn` in its saved form.
    """
    check_keywords("rt.dask.map_blocks", kwargs, _BLOCKWISE_OPTIONS)
    arrays = [a if isinstance(a, da.Array) else da.from_array(np.asarray(a)) for a in arrays]
    if not arrays:
        raise ValueError("map_blocks needs at least one array.")
    concrete = _concrete(fn, arrays)
    specs = [s for s in nest.flatten(concrete.structured_input_signature) if isinstance(s, TensorSpec)]
    if len(specs) != len(arrays):
        raise ValueError(f"map_blocks: the function takes {len(specs)} tensors, {len(arrays)} "
                         "arrays were given.")
    rows = arrays[0].chunks[0]
    for i, (spec, array) in enumerate(zip(specs, arrays)):
        _check_input(i, spec, array, rows)
    arrays = [a.rechunk((rows, *[-1] * (a.ndim - 1))) for a in arrays]
    out = concrete.structured_outputs
    if not isinstance(out, TensorSpec) or out.shape.rank is None or out.shape.rank < 1:
        raise ValueError(f"map_blocks: the function must return one tensor with a leading row "
                         f"axis, it returns {out!r}.")
    dims = out.shape.as_tuple()
    if any(d is None for d in dims[1:]):
        raise ValueError(f"map_blocks: the output's axes after the first must be known, got "
                         f"{out.shape}.")
    payload = dumps(concrete)
    letters = iter(string.ascii_letters[1:])
    out_index = "a" + "".join(next(letters) for _ in dims[1:])
    pairs = []
    for a in arrays:
        pairs += [a, "a" + "".join(next(letters) for _ in range(a.ndim - 1))]
    return da.blockwise(
        run_block, out_index, dask.delayed(payload, pure=True), None, digest_of(payload), None,
        *pairs, new_axes=dict(zip(out_index[1:], dims[1:])), concatenate=True,
        dtype=out.dtype.as_numpy_dtype, meta=np.empty((0,) * len(dims), out.dtype.as_numpy_dtype),
        **kwargs)


def _concrete(fn, arrays) -> ConcreteFunction:
    if isinstance(fn, ConcreteFunction):
        return fn
    if isinstance(fn, Function):
        if fn.input_signature is not None:
            return fn.get_concrete_function()
        return fn.get_concrete_function(*[TensorSpec([None, *a.shape[1:]], a.dtype) for a in arrays])
    raise TypeError(f"map_blocks needs an rt.function or a concrete function, got {fn!r}.")


def _check_input(i, spec, array, rows):
    dims = spec.shape.as_tuple()
    if dims is None:
        return
    if len(dims) != array.ndim or np.dtype(array.dtype) != spec.dtype.as_numpy_dtype:
        raise ValueError(f"map_blocks: array {i} is {array.dtype} {list(array.shape)}, the "
                         f"function expects {spec!r}.")
    if array.shape[0] != sum(rows):
        raise ValueError(f"map_blocks: array {i} has {array.shape[0]} rows, array 0 has {sum(rows)}.")
    if dims[0] is not None and any(r != dims[0] for r in rows):
        raise ValueError(f"map_blocks: the function takes exactly {dims[0]} rows ({spec!r}) but "
                         f"the blocks have {sorted(set(rows))}; use None as the leading dim.")
    for axis, (d, n) in enumerate(zip(dims[1:], array.shape[1:]), 1):
        if d is not None and d != n:
            raise ValueError(f"map_blocks: array {i} has {n} on axis {axis}, the function "
                             f"expects {spec!r}.")
