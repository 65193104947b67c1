"""`keras.preprocessing.sequence`: `pad_sequences`, and the helpers Keras 3 keeps from Keras 2
(deprecated there, still exported): `make_sampling_table`, `skipgrams` and
`TimeseriesGenerator`."""

from __future__ import annotations

import random as _random
from typing import Optional

import numpy as np

from ...layers.py_dataset import PyDataset
from ..sequence_utils import pad_sequences


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    """For word ranks 0..size-1, the probability of sampling the word of that rank, from a
    Zipf estimate of its frequency (word2vec's subsampling: min(1, sqrt(f) / f) with f =
    sampling_factor * rank * (log(rank) + gamma) + ... )."""
    gamma = 0.577
    rank = np.arange(size).astype(np.float64)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + gamma) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence, vocabulary_size: int, window_size: int = 4,
              negative_samples: float = 1.0, shuffle: bool = True, categorical: bool = False,
              sampling_table=None, seed: Optional[int] = None):
    """(couples, labels): the (word, context word) pairs within `window_size` of each other,
    labelled 1, and `negative_samples` times as many pairs of a word and a random index in
    [1, vocabulary_size), labelled 0 (one-hot labels with `categorical`); index 0 is skipped,
    and a word is kept with probability `sampling_table[word]` when a table is given."""
    couples, labels = [], []
    for i, word in enumerate(sequence):
        if not word:
            continue
        if sampling_table is not None:
            if sampling_table[word] < _random.random():
                continue
        start = max(0, i - window_size)
        end = min(len(sequence), i + window_size + 1)
        for j in range(start, end):
            if j != i and sequence[j]:
                couples.append([word, sequence[j]])
                labels.append([0, 1] if categorical else 1)
    if negative_samples > 0:
        count = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        _random.shuffle(words)
        couples += [[words[i % len(words)], _random.randint(1, vocabulary_size - 1)]
                    for i in range(count)]
        labels += [[1, 0] if categorical else 0] * count
    if shuffle:
        if seed is None:
            seed = _random.randint(0, 10 ** 7)
        _random.seed(seed)
        _random.shuffle(couples)
        _random.seed(seed)
        _random.shuffle(labels)
    return couples, labels


class TimeseriesGenerator(PyDataset):
    """Batches of windows of a time series: sample i of a batch is `data[row - length:row:
    sampling_rate]` and its target `targets[row]`, for rows from `start_index + length` to
    `end_index` (the last index by default) every `stride` steps, `batch_size` rows a batch
    (random rows with `shuffle`; windows reversed in time with `reverse`)."""

    def __init__(self, data, targets, length: int, sampling_rate: int = 1, stride: int = 1,
                 start_index: int = 0, end_index: Optional[int] = None, shuffle: bool = False,
                 reverse: bool = False, batch_size: int = 128, **kwargs) -> None:
        super().__init__(**kwargs)
        if len(data) != len(targets):
            raise ValueError(f"Data and targets have to be of same length. Data length is "
                             f"{len(data)} while target length is {len(targets)}")
        self.data, self.targets = data, targets
        self.length, self.sampling_rate, self.stride = length, sampling_rate, stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle, self.reverse, self.batch_size = shuffle, reverse, batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > end_index="
                             f"{self.end_index}` is disallowed, as no part of the sequence "
                             "would be left to be used as current step.")

    def __len__(self) -> int:
        span = self.batch_size * self.stride
        return (self.end_index - self.start_index + span) // span

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(first, min(first + self.batch_size * self.stride,
                                        self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate]
                            for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        if self.reverse:
            return samples[:, ::-1, ...], targets
        return samples, targets

    def get_config(self) -> dict:
        return {"data": np.asarray(self.data).tolist(),
                "targets": np.asarray(self.targets).tolist(), "length": self.length,
                "sampling_rate": self.sampling_rate, "stride": self.stride,
                "start_index": self.start_index - self.length, "end_index": self.end_index,
                "shuffle": self.shuffle, "reverse": self.reverse,
                "batch_size": self.batch_size}


__all__ = ["TimeseriesGenerator", "make_sampling_table", "pad_sequences", "skipgrams"]
