"""`tf.nn.embedding_lookup_sparse` and `safe_embedding_lookup_sparse`: the embeddings of a
SparseTensor's ids, combined per row (sum, mean or sqrtn, weighted by a SparseTensor of
weights), composed of ops (`rt.nn.embedding_lookup` and segment sums), so they stage and
differentiate in the embeddings and the weights."""

from __future__ import annotations

from .. import dtypes as _dtypes
from ..exports import export
from ..tensor import Tensor
from . import array_math as _math
from . import array_scatter as _scatter
from . import math_composed as _composed
from . import sparse_manip as _manip
from .core import convert_to_tensor
from .nn_conv import embedding_lookup
from .sparse import SparseTensor

_COMBINERS = ("mean", "sqrtn", "sum")


def _check(fn, sp_ids, sp_weights, combiner):
    if combiner not in _COMBINERS:
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"{fn}: `sp_ids` must be a SparseTensor, got {type(sp_ids).__name__}.")
    if sp_weights is not None and not isinstance(sp_weights, SparseTensor):
        raise TypeError(f"{fn}: `sp_weights` must be a SparseTensor or None, got "
                        f"{type(sp_weights).__name__}.")


@export("nn.embedding_lookup_sparse")
def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup=False) -> Tensor:
    """One embedding per row of `sp_ids` (a SparseTensor of ids, [rows, ...]): the rows of
    `params` at its ids (a list of shards as `embedding_lookup` divides them, each rescaled to
    `max_norm`), times `sp_weights`' values (1 without), combined by `combiner`: "sum", "mean"
    (the weighted sum over the weights' sum, the default) or "sqrtn" (over the square root of
    the weights' squared sum). The result has one row per row index up to the largest present
    (rows without ids are zeros): [max row + 1] + params.shape[1:]."""
    combiner = "mean" if combiner is None else combiner
    _check("embedding_lookup_sparse", sp_ids, sp_weights, combiner)
    segments = sp_ids.indices[:, 0]
    rows = _math.cast(_math.reduce_max(_math.concat(
        [segments, convert_to_tensor([-1], dtype=_dtypes.int64)], 0)) + 1, _dtypes.int32)
    found = embedding_lookup(params, sp_ids.values, max_norm=max_norm)
    if sp_weights is None:
        weights = _math.cast(_math.ones_like(segments), found.dtype)
    else:
        weights = _math.cast(convert_to_tensor(sp_weights.values), found.dtype)
    extra = found.shape.rank - 1 if found.shape.rank is not None else 1
    scaled = found * _math.reshape(weights, _math.concat([[-1], [1] * extra], 0)) \
        if extra else found * weights
    total = _scatter.unsorted_segment_sum(scaled, segments, rows)
    if combiner == "sum":
        return total
    norm = weights if combiner == "mean" else weights * weights
    norm = _scatter.unsorted_segment_sum(norm, segments, rows)
    if combiner == "sqrtn":
        norm = _math.sqrt(norm)
    return _composed.divide_no_nan(total, _math.reshape(norm, _math.concat([[-1], [1] * extra], 0))
                                 if extra else norm)


@export("nn.safe_embedding_lookup_sparse")
def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, max_norm=None, name=None,
                                 allow_fast_lookup=False) -> Tensor:
    """`embedding_lookup_sparse` made safe for any SparseTensor of ids [d0, ..., dn]: negative
    ids (and ids of weight <= 0) are dropped, a row left empty gets the embedding of
    `default_id` (zeros without one), and the result has every row: [d0, ..., dn-1] +
    params.shape[1:]."""
    _check("safe_embedding_lookup_sparse", sparse_ids, sparse_weights, combiner)
    shape = sparse_ids.dense_shape
    rank = sparse_ids.indices.shape[1] if sparse_ids.indices.shape.rank == 2 else None
    if rank is None:
        raise ValueError("safe_embedding_lookup_sparse: the rank of `sparse_ids` must be known.")
    outer = shape[:-1]
    if rank != 2:
        flat = _math.stack([_math.reduce_prod(outer), shape[-1]])
        sparse_ids = _manip.reshape(sparse_ids, flat)
        if sparse_weights is not None:
            sparse_weights = _manip.reshape(sparse_weights, flat)
    keep = sparse_ids.values >= 0
    if sparse_weights is not None:
        keep = _math.logical_and(keep, sparse_weights.values > 0)
        sparse_weights = _manip.retain(sparse_weights, keep)
    sparse_ids = _manip.retain(sparse_ids, keep)
    sparse_ids, empty = _manip.fill_empty_rows(
        sparse_ids, _math.cast(0 if default_id is None else default_id, sparse_ids.values.dtype))
    if sparse_weights is not None:
        sparse_weights, _ = _manip.fill_empty_rows(
            sparse_weights, _math.cast(1, sparse_weights.values.dtype))
    result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights,
                                     combiner=combiner, max_norm=max_norm)
    if default_id is None:
        extra = result.shape.rank - 1
        mask = _math.reshape(empty, _math.concat([[-1], [1] * extra], 0))
        result = _math.where(mask, _math.zeros_like(result), result)
    return _math.reshape(result, _math.concat([_math.cast(outer, _dtypes.int32),
                                               _math.shape(result)[1:]], 0))
