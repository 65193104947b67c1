"""The word-index preprocessing that `imdb` and `reuters` share (Keras's order of steps)."""

from __future__ import annotations

from typing import Optional

import numpy as np


def offset_words(seqs, start_char: Optional[int], index_from: int) -> list:
    """Each sequence's word indices shifted by `index_from`, `start_char` put first."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in s] for s in seqs]
    return [[w + index_from for w in s] for s in seqs]


def drop_long(maxlen: int, seqs: list, labels) -> tuple[list, list]:
    """The (sequence, label) pairs whose sequence is shorter than `maxlen`."""
    kept = [(s, y) for s, y in zip(seqs, labels) if len(s) < maxlen]
    return [s for s, _ in kept], [y for _, y in kept]


def limit_words(seqs: list, num_words: Optional[int], skip_top: int,
                oov_char: Optional[int]) -> list:
    """Words outside [skip_top, num_words) become `oov_char` (or are dropped when it is None)."""
    if not num_words:
        num_words = max(max(s) for s in seqs)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in s] for s in seqs]
    return [[w for w in s if skip_top <= w < num_words] for s in seqs]


def as_objects(seqs: list) -> np.ndarray:
    """A 1-D object array holding the lists (never a 2-D array when they are equally long)."""
    out = np.empty(len(seqs), dtype=object)
    out[:] = seqs
    return out
