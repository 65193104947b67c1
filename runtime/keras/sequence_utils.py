"""`keras.utils.pad_sequences` (also `keras.preprocessing.sequence.pad_sequences`)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..arguments import strict_keywords


def _sample_shape(sequences) -> tuple[list[int], tuple]:
    """The lengths of the sequences and the shape of one step (from the first non-empty one)."""
    lengths, shape = [], None
    for seq in sequences:
        try:
            lengths.append(len(seq))
        except TypeError as exc:
            raise ValueError("pad_sequences: `sequences` must be a list of iterables. Found "
                             f"non-iterable: {seq!r}") from exc
        if shape is None and len(seq):
            shape = np.asarray(seq).shape[1:]
    return lengths, shape or ()


def _is_text(dtype) -> bool:
    kind = np.dtype(dtype).kind if dtype is not object else "O"
    return kind in ("U", "S")


@strict_keywords("pad_sequences")
def pad_sequences(sequences, maxlen: Optional[int] = None, dtype: Any = "int32",
                  padding: str = "pre", truncating: str = "pre", value: Any = 0.0) -> np.ndarray:
    """A `(len(sequences), maxlen, *step_shape)` array: each sequence cut to `maxlen` steps
    (dropping its start for `truncating="pre"`, its end for "post") and filled with `value`
    before it (`padding="pre"`) or after it ("post"). `maxlen` defaults to the longest."""
    if not hasattr(sequences, "__len__"):
        raise ValueError("pad_sequences: `sequences` must be a list of sequences (it has no len).")
    if padding not in ("pre", "post"):
        raise ValueError(f'pad_sequences: padding must be "pre" or "post", got {padding!r}.')
    if truncating not in ("pre", "post"):
        raise ValueError(f'pad_sequences: truncating must be "pre" or "post", got {truncating!r}.')
    lengths, step_shape = _sample_shape(sequences)
    if maxlen is None:
        maxlen = max(lengths, default=0)
    if isinstance(value, str) and dtype is not object and not _is_text(dtype):
        raise ValueError(f"pad_sequences: dtype {dtype} does not hold the string value "
                         f"{value!r}; set dtype=object for variable length strings.")
    out = np.full((len(sequences), maxlen) + tuple(step_shape), value, dtype=dtype)
    for row, seq in enumerate(sequences):
        if not len(seq) or maxlen == 0:
            continue
        kept = np.asarray(seq[-maxlen:] if truncating == "pre" else seq[:maxlen], dtype=dtype)
        if kept.shape[1:] != tuple(step_shape):
            raise ValueError(f"pad_sequences: the steps of sequence {row} have shape "
                             f"{kept.shape[1:]}, expected {tuple(step_shape)} (as the first "
                             "non-empty sequence's).")
        if padding == "post":
            out[row, :len(kept)] = kept
        else:
            out[row, maxlen - len(kept):] = kept
    return out


__all__ = ["pad_sequences"]
