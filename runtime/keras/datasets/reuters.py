"""`keras.datasets.reuters`: 11,228 newswires as word-index sequences, 46 topics."""

from __future__ import annotations

import json
from typing import Optional

import numpy as np

from ...arguments import strict_keywords
from . import sources
from .sequences import as_objects, drop_long, limit_words, offset_words

_HASH = "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916"
_INDEX_HASH = "4d44cc38712099c9e383dc6e5f11a921"
_LABELS = ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing",
           "money-supply", "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass",
           "crude", "nat-gas", "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum",
           "oilseed", "gold", "tin", "strategic-metal", "livestock", "retail", "ipi",
           "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
           "dlr", "gas", "silver", "wpi", "hog", "lead")


@strict_keywords("reuters.load_data")
def load_data(path: str = "reuters.npz", num_words: Optional[int] = None, skip_top: int = 0,
              maxlen: Optional[int] = None, test_split: float = 0.2, seed: int = 113,
              start_char: Optional[int] = 1, oov_char: Optional[int] = 2, index_from: int = 3):
    """`(x_train, y_train), (x_test, y_test)`: the wires shuffled with `seed`, then the last
    `test_split` of them held out."""
    f = sources.load_npz(sources.fetch(path, _HASH, remote_name="reuters.npz"))
    xs, labels = sources.shuffled(seed, f["x"], f["y"])
    xs = offset_words(xs, start_char, index_from) if (start_char is not None or index_from) \
        else [list(s) for s in xs]
    if maxlen:
        xs, labels = drop_long(maxlen, xs, labels)
    xs = limit_words(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return ((as_objects(xs[:cut]), np.array(labels[:cut])),
            (as_objects(xs[cut:]), np.array(labels[cut:])))


@strict_keywords("reuters.get_word_index")
def get_word_index(path: str = "reuters_word_index.json") -> dict:
    """The word -> index dict (1 = most frequent; `load_data` shifts by `index_from`)."""
    local = sources.fetch(path, _INDEX_HASH, remote_name="reuters_word_index.json")
    with open(local) as stream:
        return json.load(stream)


def get_label_names() -> tuple:
    """The 46 topic names, in label order."""
    return _LABELS


__all__ = ["load_data", "get_word_index", "get_label_names"]
