"""What the preprocessing layers share: running a NumPy function on tensors (eagerly and
staged, one `PyFunc` op of the NumPy tier), reading `adapt`'s data, and the seeded
generators of the augmentation layers."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from ... import dtypes as _dtypes
from ... import tensor as _tensor
from ...ops.py_function import numpy_function
from ...shapes import TensorSpec


def run_numpy(fn: Callable, inputs, dtype, shape=None) -> Any:
    """`fn(array)` on the value of `inputs`: at once eagerly, at every run when staged."""
    spec = TensorSpec(shape, _dtypes.as_dtype(dtype))
    return numpy_function(fn, [inputs], spec)


def as_numpy(value) -> np.ndarray:
    """A NumPy array of `value` (a tensor, a RaggedTensor's padding-free rows kept as objects,
    a list, an array)."""
    if hasattr(value, "to_list"):
        return np.asarray(value.to_list(), dtype=object)
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


class TokenRows(list):
    """A batch of token lists (TextVectorization's), each row one document for `adapt`."""


def adapt_batches(data, layer: str) -> Iterator[np.ndarray]:
    """The batches `adapt` reads: one array, or the elements of a dataset (an element of rank
    0 counts as a batch of one) or of an iterable of batches."""
    if isinstance(data, (np.ndarray, list, tuple)) or _tensor.is_tensor(data):
        yield as_numpy(data)
        return
    if hasattr(data, "element_spec") or (hasattr(data, "__iter__")
                                         and not isinstance(data, (str, bytes, dict))):
        for batch in data:
            if isinstance(batch, tuple):
                raise ValueError(f"{layer}.adapt: the dataset's elements must be the inputs "
                                 "alone, not (inputs, labels) tuples; map them first, e.g. "
                                 "`ds.map(lambda x, y: x)`.")
            yield batch if isinstance(batch, TokenRows) else as_numpy(batch)
        return
    raise TypeError(f"{layer}.adapt: unsupported data of type {type(data).__name__}; pass a "
                    "NumPy array, a tensor, a list, an rt.data.Dataset or an iterable of "
                    "batches.")


class SeedStream:
    """A NumPy generator seeded by the layer's `seed` (fresh entropy without one): each
    training call draws new values."""

    def __init__(self, seed: int | None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)


def check_factor(factor, argument: str, layer: str, low_limit: float | None = None
                 ) -> tuple[float, float]:
    """`(lower, upper)` of a factor given as one number (symmetric) or a pair."""
    if isinstance(factor, (int, float)) and not isinstance(factor, bool):
        pair = (-float(factor), float(factor))
    elif isinstance(factor, (list, tuple)) and len(factor) == 2:
        pair = (float(factor[0]), float(factor[1]))
    else:
        raise ValueError(f"{layer}: `{argument}` must be a number or a pair (lower, upper), "
                         f"got {argument}={factor!r}.")
    if pair[0] > pair[1]:
        raise ValueError(f"{layer}: `{argument}`'s lower bound must not exceed its upper "
                         f"bound, got {argument}={factor!r}.")
    if low_limit is not None and pair[0] < low_limit:
        raise ValueError(f"{layer}: `{argument}` must not go below {low_limit}, got "
                         f"{argument}={factor!r}.")
    return pair
