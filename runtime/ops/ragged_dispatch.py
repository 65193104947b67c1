"""rt APIs called on RaggedTensors: elementwise ops apply to the flat values (binary ones
broadcast a dense operand over the rows), reductions reduce along ragged axes, and `concat`,
`stack`, `tile`, `reverse`, `gather`, `shape`, `map_fn`, string and embedding ops take ragged
values, as in TensorFlow; zero-preserving unary ops and `shape`, `size`, `rank` take
SparseTensors. Registered through `dispatch.handle_composites` when a published API first
refuses a composite value (`import runtime` stays fast, the names keep their identity); a call
on plain tensors never reaches these handlers.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, List, Union

import numpy as np

from .. import dtypes as _dtypes
from ..exports import NAMESPACES
from ..shapes import TensorSpec
from ..tensor import Tensor
from . import array_math, dispatch
from . import array_scatter as _scatter
from . import ragged_ops as _ops
from . import ragged_shape as _shape
from .ragged import RaggedTensor
from .sparse import SparseTensor

Dense = Union[Tensor, np.ndarray, np.generic, numbers.Number, str, bytes, list, tuple]
RaggedOrDense = Union[RaggedTensor, Dense]

_FLAT_UNARY = dispatch._UNARY + (
    "strings.substr", "strings.to_hash_bucket_fast", "strings.to_hash_bucket",
    "strings.to_hash_bucket_strong", "strings.regex_replace", "strings.regex_full_match",
    "strings.as_string", "strings.split", "strings.unicode_decode", "strings.unicode_split",
    "strings.bytes_split", "clip_by_value", "nn.leaky_relu",
    "math.log_sigmoid", "math.reciprocal_no_nan", "math.bessel_i0", "math.bessel_i1",
    "math.is_finite", "math.is_nan", "math.is_inf", "math.rint", "math.ndtri", "math.erfinv")


def _flat_unary(api_func: Callable, x: RaggedTensor) -> RaggedTensor:
    return x.with_flat_values(api_func(x.flat_values))


def _flat_binary(api_func: Callable, x, y) -> RaggedTensor:
    return _ops.broadcast_binary(api_func, x, y)


def _reduction(kind: str) -> Callable:
    def handler(input_tensor: RaggedTensor, axis=None, keepdims=False, name=None):
        return _ops.reduce(kind, input_tensor, axis, keepdims)
    return handler


def _concat(values: List[RaggedOrDense], axis, name=None):
    return _ops.concat(list(values), axis)


def _stack(values: List[RaggedOrDense], axis=0, name=None):
    return _ops.stack(list(values), axis)


def _tile(input: RaggedTensor, multiples, name=None):  # noqa: A002 - TF's name
    return _ops.tile(input, multiples)


def _reverse(tensor: RaggedTensor, axis, name=None):
    return _ops.reverse(tensor, axis)


def _expand_dims(input: RaggedTensor, axis, name=None):  # noqa: A002
    return _ops.expand_dims(input, int(axis))


def _shape_of(input: RaggedTensor, out_type=None, name=None):  # noqa: A002
    return _shape.shape_of(input)


def _size(input: RaggedTensor, out_type=_dtypes.int32, name=None):  # noqa: A002
    return array_math.size(input.flat_values, out_type=out_type)


def _rank(input: RaggedTensor, name=None):  # noqa: A002
    return array_math.constant(input.shape.rank, dtype=_dtypes.int32)


def _gather_params(params: RaggedTensor, indices, validate_indices=None, axis=None,
                   batch_dims=0, name=None):
    if axis not in (None, 0) or batch_dims != 0:
        raise NotImplementedError("rt.gather of a RaggedTensor supports axis=0, batch_dims=0.")
    if isinstance(indices, RaggedTensor):
        return indices.with_flat_values(_ops.gather_rows(params, indices.flat_values))
    idx = array_math.cast(indices if isinstance(indices, Tensor) else np.asarray(indices), _dtypes.int64)
    if idx.shape.rank == 0:
        return params[idx]
    return _ops.gather_rows(params, idx)


def _gather_indices(params: Dense, indices: RaggedTensor, validate_indices=None, axis=None,
                    batch_dims=0, name=None):
    return indices.with_flat_values(_cf_gather(params, indices.flat_values, axis, batch_dims))


def _cf_gather(params, indices, axis, batch_dims):
    return _scatter.gather(params, indices, axis=axis, batch_dims=batch_dims)


def _embedding_lookup(params, ids: RaggedTensor, max_norm=None, name=None):
    lookup = dispatch.undispatched(_public("nn", "embedding_lookup"))
    return ids.with_flat_values(lookup(params, ids.flat_values, max_norm=max_norm))


def _strings_join(inputs: List[RaggedOrDense], separator="", name=None):
    join = dispatch.undispatched(_public("strings", "join"))
    first = next(v for v in inputs if isinstance(v, RaggedTensor))
    flats = []
    for v in inputs:
        if isinstance(v, RaggedTensor):
            _ops._check_same(first, v)
            flats.append(v.flat_values)
        else:
            flats.append(_ops._dense_like(first, v))
    return first.with_flat_values(join(flats, separator=separator))


def _add_n(inputs: List[RaggedOrDense], name=None):
    out = inputs[0]
    for v in inputs[1:]:
        out = _ops.broadcast_binary(array_math.add, out, v)
    return out


def _where(condition: RaggedTensor, x: RaggedOrDense = None, y: RaggedOrDense = None, name=None):
    if x is None and y is None:
        raise NotImplementedError("rt.where(condition) of a RaggedTensor (the indices) is not "
                                  "supported; give x and y.")

    def pick(c, a):
        return a

    xs = _ops.broadcast_binary(pick, condition, x)
    ys = _ops.broadcast_binary(pick, condition, y)
    return condition.with_flat_values(array_math.where(condition.flat_values, xs.flat_values,
                                                       ys.flat_values))


def _boolean_mask(tensor: RaggedOrDense, mask: RaggedOrDense, axis=None, name=None):
    if axis not in (None, 0):
        raise NotImplementedError("rt.boolean_mask of a RaggedTensor supports axis=0 only.")
    return _ops.boolean_mask(tensor, mask)


def _zeros(shape: _shape.DynamicRaggedShape, dtype=_dtypes.float32, name=None):
    return _shape.filled(shape, 0, dtype)


def _ones(shape: _shape.DynamicRaggedShape, dtype=_dtypes.float32, name=None):
    return _shape.filled(shape, 1, dtype)


def _fill(dims: _shape.DynamicRaggedShape, value, name=None):
    return _shape.filled(dims, value)


def _reshape(tensor: RaggedOrDense, shape: _shape.DynamicRaggedShape, name=None):
    return _shape.reshape_to(tensor, shape)


def _map_fn(fn, elems: Union[RaggedTensor, SparseTensor], dtype=None,
            parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
            name=None, fn_output_signature=None):
    return _ops.map_rows(fn, elems, fn_output_signature if fn_output_signature is not None else dtype)


def _unicode_encode(input: RaggedTensor, output_encoding, errors="replace",  # noqa: A002
                    replacement_char=0xFFFD, name=None):
    encode = dispatch.undispatched(_public("strings", "unicode_encode"))
    rows = _ops.innermost(input)
    per_row = _ops.map_rows(lambda row: encode(row, output_encoding, errors=errors,
                                               replacement_char=replacement_char),
                            rows, TensorSpec([], _dtypes.string))
    return _ops.replace_innermost(input, per_row)


def _reduce_join(inputs: RaggedTensor, axis=None, keepdims=False, separator="", name=None):
    return _ops.reduce_join(inputs, axis, keepdims, separator,
                            dispatch.undispatched(_public("strings", "join")),
                            dispatch.undispatched(_public("strings", "reduce_join")))


# TensorFlow's unary ops that map 0 to 0, which it applies to a SparseTensor's values
_SPARSE_UNARY = ("abs", "negative", "sign", "sqrt", "square", "sin", "tan", "asin", "atan",
                 "tanh", "asinh", "atanh", "erf", "identity", "cast")


def _sparse_unary(api_func: Callable, x: SparseTensor) -> SparseTensor:
    return SparseTensor(x.indices, api_func(x.values), x.dense_shape)


def _sparse_shape(input: SparseTensor, out_type=None, name=None):  # noqa: A002
    return array_math.cast(input.dense_shape, out_type or _dtypes.int32)


def _sparse_size(input: SparseTensor, out_type=_dtypes.int32, name=None):  # noqa: A002
    return array_math.cast(array_math.reduce_prod(input.dense_shape), out_type)


def _sparse_rank(input: SparseTensor, name=None):  # noqa: A002
    return array_math.size(input.dense_shape, out_type=_dtypes.int32)


def _public(space: str, name: str) -> Any:
    return NAMESPACES[space][name]


def _register() -> None:
    handle = dispatch.handle_composites
    dispatch._register_elementwise(_FLAT_UNARY, (RaggedTensor,), _flat_unary, publish=False)
    dispatch._register_elementwise(dispatch._BINARY, (RaggedOrDense, RaggedOrDense), _flat_binary,
                                   publish=False)
    dispatch._register_elementwise(_SPARSE_UNARY, (SparseTensor,), _sparse_unary, publish=False)
    for kind in ("sum", "max", "min", "prod", "mean", "any", "all"):
        handle(_public("", f"reduce_{kind}"))(_reduction(kind))
    for kind in ("variance", "std"):
        handle(_public("math", f"reduce_{kind}"))(_reduction(kind))
    for name, handler in (("shape", _sparse_shape), ("size", _sparse_size), ("rank", _sparse_rank)):
        handle(_public("", name))(handler)
    for space, name, handler in (
            ("", "concat", _concat), ("", "stack", _stack),
            ("", "tile", _tile), ("", "reverse", _reverse), ("", "expand_dims", _expand_dims),
            ("", "shape", _shape_of), ("", "size", _size), ("", "rank", _rank),
            ("", "gather", _gather_params), ("", "gather", _gather_indices),
            ("nn", "embedding_lookup", _embedding_lookup), ("strings", "join", _strings_join),
            ("strings", "unicode_encode", _unicode_encode), ("strings", "reduce_join", _reduce_join),
            ("math", "add_n", _add_n), ("", "where", _where), ("", "boolean_mask", _boolean_mask),
            ("", "zeros", _zeros), ("", "ones", _ones), ("", "fill", _fill),
            ("", "reshape", _reshape)):
        handle(_public(space, name))(handler)


# map_fn over the rows of a SparseTensor needs no RaggedTensor first: registered at import
dispatch.dispatch_for_api(_public("", "map_fn"))(_map_fn)


dispatch.register_on_first_composite(_register)
