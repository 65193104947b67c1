"""`keras.datasets.imdb`: 25,000 + 25,000 movie reviews as word-index sequences, labels 0/1."""

from __future__ import annotations

import json
from typing import Optional

import numpy as np

from ...arguments import strict_keywords
from . import sources
from .sequences import as_objects, drop_long, limit_words, offset_words

_HASH = "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f"
_INDEX_HASH = "bfafd718b763782e994055a2d397834f"


@strict_keywords("imdb.load_data")
def load_data(path: str = "imdb.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, seed: int = 113, start_char: Optional[int] = 1,
              oov_char: Optional[int] = 2, index_from: int = 3):
    """`(x_train, y_train), (x_test, y_test)`: object arrays of lists of word indices (most
    frequent word = 1 + index_from) and int64 labels, each split shuffled with `seed`."""
    f = sources.load_npz(sources.fetch(path, _HASH, remote_name="imdb.npz"))
    rng = np.random.RandomState(seed)
    parts = []
    for x_key, y_key in (("x_train", "y_train"), ("x_test", "y_test")):
        order = np.arange(len(f[x_key]))
        rng.shuffle(order)
        parts.append((offset_words(f[x_key][order], start_char, index_from), f[y_key][order]))
    (x_train, y_train), (x_test, y_test) = parts
    if maxlen:
        x_train, y_train = drop_long(maxlen, x_train, y_train)
        x_test, y_test = drop_long(maxlen, x_test, y_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no "
                             "sequence was kept. Increase maxlen.")
    xs = limit_words(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([np.asarray(y_train), np.asarray(y_test)])
    cut = len(x_train)
    return (as_objects(xs[:cut]), labels[:cut]), (as_objects(xs[cut:]), labels[cut:])


@strict_keywords("imdb.get_word_index")
def get_word_index(path: str = "imdb_word_index.json") -> dict:
    """The word -> index dict (1 = most frequent; `load_data` shifts by `index_from`)."""
    local = sources.fetch(path, _INDEX_HASH, remote_name="imdb_word_index.json")
    with open(local) as stream:
        return json.load(stream)


__all__ = ["load_data", "get_word_index"]
