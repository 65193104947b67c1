"""Keras 3's `PyDataset` (also `keras.utils.Sequence`): batches by index, which `fit`,
`evaluate` and `predict` read as they read a dataset.

    class Batches(keras.utils.PyDataset):
        def __len__(self):
            return 10                       # batches an epoch
        def __getitem__(self, index):
            return x[index * 32:(index + 1) * 32], y[index * 32:(index + 1) * 32]

    model.fit(Batches(), epochs=3)

Each epoch reads every batch once, in a shuffled order when `fit(shuffle=True)` (Keras's
default), and calls `on_epoch_begin()` before and `on_epoch_end()` after. The batches are read
in the calling thread: `workers`, `use_multiprocessing` and `max_queue_size` are kept as
attributes (Keras reads batches ahead in threads or processes with them).
"""

from __future__ import annotations

from typing import Iterator, Optional

import numpy as np


class PyDataset:
    """A source of batches by index: subclasses define `__len__` (the batches an epoch; or
    the `num_batches` property, None for an endless one) and `__getitem__(index)` (a batch:
    x, (x, y) or (x, y, sample_weight))."""

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False,
                 max_queue_size: int = 10) -> None:
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    workers = property(lambda self: getattr(self, "_workers", 1),
                       lambda self, value: setattr(self, "_workers", value))
    use_multiprocessing = property(lambda self: getattr(self, "_use_multiprocessing", False),
                                   lambda self, value: setattr(self, "_use_multiprocessing", value))
    max_queue_size = property(lambda self: getattr(self, "_max_queue_size", 10),
                              lambda self, value: setattr(self, "_max_queue_size", value))

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index), "
                                  "returning the batch at that index.")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (the batches an "
                                  "epoch) or the num_batches property.")

    @property
    def num_batches(self) -> Optional[int]:
        """The batches an epoch (`len(self)`); None for an endless source."""
        return len(self)

    def on_epoch_begin(self) -> None:
        """Called before each epoch."""

    def on_epoch_end(self) -> None:
        """Called after each epoch (to reshuffle the samples, ...)."""


def epoch_batches(source: PyDataset, shuffle: bool, rng) -> Iterator:
    """The batches of one epoch of `source` (in an order `rng` shuffles when `shuffle`), with
    its epoch hooks around them; an endless source (num_batches None) yields from index 0 on."""
    count = source.num_batches
    source.on_epoch_begin()
    if count is None:
        index = 0
        while True:
            yield source[index]
            index += 1
    order = rng.permutation(count) if shuffle else np.arange(count)
    for index in order:
        yield source[int(index)]
    source.on_epoch_end()
