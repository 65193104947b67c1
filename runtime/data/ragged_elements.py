"""RaggedTensors as dataset elements. Inside the pipeline a RaggedTensor holds NumPy arrays
(its values, possibly a nested RaggedTensor, and its row splits). Batching puts the elements'
rows one after the other under a new outer row partition (one more ragged dimension, as
tf.data does); unbatching cuts an element into its rows; `from_tensor_slices` of a ragged
value is its unbatching.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import InvalidArgumentError
from ..ops.ragged import RaggedTensor
from ..shapes import TensorShape, TensorSpec


class RaggedRowSpec(TensorSpec):
    """The spec of a row of a RaggedTensor (TensorFlow's RaggedTensorSpec of ragged_rank 0):
    a dense tensor whose first dimension differs between elements, so batching such rows
    makes a RaggedTensor."""


def has_ragged(structure: Any) -> bool:
    """True when a RaggedTensor (or a RaggedRowSpec) is among the components of `structure`
    (dicts and tuples)."""
    if isinstance(structure, (RaggedTensor, RaggedRowSpec)):
        return True
    if isinstance(structure, dict):
        return any(has_ragged(v) for v in structure.values())
    if isinstance(structure, tuple):
        return any(has_ragged(v) for v in structure)
    return False


def _map(fn: Callable, *structures: Any) -> Any:
    """fn over the components (RaggedTensors are components) of structures of one shape."""
    first = structures[0]
    if isinstance(first, dict):
        return type(first)((k, _map(fn, *(s[k] for s in structures))) for k in first)
    if isinstance(first, tuple) and not isinstance(first, RaggedTensor):
        items = [_map(fn, *(s[i] for s in structures)) for i in range(len(first))]
        return type(first)(*items) if hasattr(first, "_fields") else type(first)(items)
    return fn(*structures)


def _ragged(values: Any, splits: Any) -> RaggedTensor:
    return RaggedTensor.__nest_from_fields__({"values": values, "row_splits": splits})


def _nrows(r: RaggedTensor) -> int:
    return len(r.row_splits) - 1


def _slice(values: Any, lo: int, hi: int) -> Any:
    """values[lo:hi] along the first axis, for an array or a RaggedTensor of arrays."""
    if isinstance(values, RaggedTensor):
        splits = np.asarray(values.row_splits)
        return _ragged(_slice(values.values, int(splits[lo]), int(splits[hi])),
                       splits[lo:hi + 1] - splits[lo])
    return values[lo:hi]


def _concat(items: list) -> Any:
    """The rows of each item one after the other (arrays, or RaggedTensors of arrays)."""
    if isinstance(items[0], RaggedTensor):
        splits, offset = [np.asarray(items[0].row_splits)], int(np.asarray(items[0].row_splits)[-1])
        for it in items[1:]:
            s = np.asarray(it.row_splits)
            splits.append(s[1:] + offset)
            offset += int(s[-1])
        return _ragged(_concat([it.values for it in items]), np.concatenate(splits))
    return np.concatenate([np.asarray(it) for it in items])


def _component(spec: Any, *parts: Any) -> Any:
    if isinstance(spec, RaggedRowSpec):
        arrays = [np.asarray(p) for p in parts]
        splits = np.concatenate([[0], np.cumsum([len(a) for a in arrays])]).astype(np.int64)
        return _ragged(np.concatenate(arrays), splits)
    if isinstance(parts[0], RaggedTensor):
        lengths = [_nrows(p) for p in parts]
        splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.asarray(parts[0].row_splits).dtype)
        return _ragged(_concat(list(parts)), splits)
    arrays = [np.asarray(p) for p in parts]
    if len({a.shape for a in arrays}) > 1:
        raise InvalidArgumentError(f"batch: cannot batch components of different shapes "
                                   f"{sorted({a.shape for a in arrays})}; use ragged_batch.")
    return np.stack(arrays)


def stack(elements: list, spec: Any) -> Any:
    """A batch of elements (of the element spec `spec`) holding RaggedTensors or rows."""
    return _map(_component, spec, *elements)


def rows(element: Any) -> list:
    """The rows of a batched element holding RaggedTensors."""
    def count(c):
        return _nrows(c) if isinstance(c, RaggedTensor) else len(c)

    counts: list = []
    _map(lambda c: counts.append(count(c)), element)
    if len(set(counts)) > 1:
        raise ValueError(f"unbatch: the components have different numbers of rows: {counts}.")
    n = counts[0] if counts else 0

    def row(c, i):
        if isinstance(c, RaggedTensor):
            splits = np.asarray(c.row_splits)
            return _slice(c.values, int(splits[i]), int(splits[i + 1]))
        return c[i]
    return [_map(lambda c, i=i: row(c, i), element) for i in range(n)]


def _relax(template: Any) -> Any:
    """A RaggedTensor template whose number of values is unknown at every level (elements of
    one dataset differ in it)."""
    if isinstance(template, RaggedTensor):
        splits = template.row_splits
        return _ragged(_relax(template.values), TensorSpec([None], splits.dtype))
    shape = template.shape
    return TensorSpec(TensorShape([None]).concatenate(shape[1:]) if shape.rank else shape, template.dtype)


def batch_spec(spec: Any, lead: int | None) -> Any:
    def one(s):
        outer = TensorSpec([None if lead is None else lead + 1], np.int64)
        if isinstance(s, RaggedTensor):
            return _ragged(_relax(s), outer)
        if isinstance(s, RaggedRowSpec):
            inner = s.shape[1:] if s.shape.rank is not None else None
            values = TensorSpec(TensorShape([None]).concatenate(inner) if inner is not None else None, s.dtype)
            return _ragged(values, outer)
        return TensorSpec(TensorShape([lead]).concatenate(s.shape), s.dtype)
    return _map(one, spec)


def unbatch_spec(spec: Any) -> Any:
    def one(s):
        if isinstance(s, RaggedTensor):
            inner = s.values
            if isinstance(inner, TensorSpec):
                shape = TensorShape([None]).concatenate(inner.shape[1:]) if inner.shape.rank is not None else None
                return RaggedRowSpec(shape, inner.dtype)
            return _relax(inner)
        return TensorSpec(s.shape[1:] if s.shape.rank is not None else TensorShape(None), s.dtype)
    return _map(one, spec)


def type_specs(spec: Any) -> Any:
    """The element spec as a user sees it: RaggedTensorSpecs for the RaggedTensor components."""
    return _map(lambda s: s._type_spec if isinstance(s, RaggedTensor) else s, spec)
