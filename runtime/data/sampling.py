"""tf.data's sampling: `sample_from_datasets`, `choose_from_datasets`, `rejection_resample`.

All three are a *directed interleave*: a stream of indices says which input gives the next
element. An index of an input that has ended ends the result (`stop_on_empty_dataset`) or is
passed over; the result ends when every input has ended or the indices run out.

`sample_from_datasets` draws its indices as TensorFlow composes them, so a seeded one gives
TensorFlow's order: `Dataset.random(seed)` (the Philox words of the seed pair of its creation)
read two words at a time, each pair the seed of a stateless categorical draw of one index
from the logits log(weights). `rejection_resample`'s draws come from NumPy's Philox generator
keyed by the same seeds: a seeded pipeline repeats itself, but not in TensorFlow's order.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..errors import InvalidArgumentError
from ..ops import philox
from ..ops.random_stateless import categorical_of_units
from ..shapes import TensorSpec
from . import structure as st
from .dataset import (
    INFINITE,
    TRANSFORMS,
    UNKNOWN,
    Dataset,
    EpochCounter,
    _shuffle_seeds,
    _Traced,
    epoch_words,
    logger,
)

_DRAWS = 1024  # random draws made at a time


def _common_spec(datasets: list) -> Any:
    """The element spec of all `datasets` (dims that differ become None); TypeError when
    their structures or dtypes differ."""
    first = datasets[0]._spec
    flat = st.flatten(first)
    for d in datasets[1:]:
        other = st.flatten(d._spec)
        same = len(other) == len(flat) and repr(st.pack(first, ["*"] * len(flat))) == \
            repr(st.pack(d._spec, ["*"] * len(other))) and all(
                a.dtype == b.dtype for a, b in zip(flat, other))
        if not same:
            listing = "\n".join(f"Dataset {i} element_spec={x._spec!r}" for i, x in enumerate(datasets))
            raise TypeError("Invalid `datasets`. `datasets` must have compatible element specs.\n"
                            + listing)
        flat = [st.common_spec(a, b) for a, b in zip(flat, other)]
    return st.pack(first, flat)


def _check_datasets(datasets: Any) -> list:
    if isinstance(datasets, Dataset):
        raise TypeError("Invalid `datasets`. `datasets` should be a list of `rt.data.Dataset`s, "
                        "got one Dataset; wrap it in a list.")
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    for i, d in enumerate(datasets):
        if not isinstance(d, Dataset):
            raise TypeError(f"Invalid `datasets`. Element {i} of `datasets` should be a "
                            f"`rt.data.Dataset`, got {type(d).__name__}.")
    return datasets


class _Directed(Dataset):
    """The elements of `datasets` in the order of the indices `selector(*extra_inputs)`
    yields (the extra inputs: the datasets of choices or weights it reads)."""

    def __init__(self, datasets: list, selector: Callable[..., Iterator[int]], stop: bool,
                 extra_inputs: tuple = (), seeds: Optional[_Seeds] = None):
        self._datasets, self._selector, self._stop = datasets, selector, bool(stop)
        self._seeds = seeds
        self._extra = list(extra_inputs)
        self._spec = _common_spec(datasets)
        self._card = INFINITE if any(d._card == INFINITE for d in datasets) else UNKNOWN

    def _inputs(self):
        return list(self._datasets) + self._extra

    def _after_values(self, values: dict) -> None:
        self._datasets = [d._with_values(values) for d in self._datasets]
        self._extra = [d._with_values(values) for d in self._extra]

    def _elements(self):
        sources = [d._open() for d in self._datasets]
        alive = [True] * len(sources)
        left = len(sources)
        try:
            for i in self._selector(*self._extra):
                if not 0 <= i < len(sources):
                    raise InvalidArgumentError(f"Selector index out of range: {i} >= {len(sources)}")
                if not alive[i]:
                    continue
                try:
                    element = next(sources[i])
                except StopIteration:
                    if self._stop:
                        return
                    alive[i] = False
                    left -= 1
                    if not left:
                        return
                    continue
                yield element
        finally:
            for s in sources:
                close = getattr(s, "close", None)
                if close is not None:
                    close()


class _Seeds:
    """The random stream of a random dataset, TensorFlow's `Dataset.random(seed)`: the (global,
    op) seed pair of its creation (random ones when neither seed is set), whose Philox words
    each iteration reads again, or, with `rerandomize`, those of seeds drawn for it."""

    def __init__(self, seed: Any, rerandomize: Optional[bool]):
        if hasattr(seed, "numpy"):
            seed = int(seed.numpy())
        self._seed = list(_shuffle_seeds(seed))
        self.rerandomize = bool(rerandomize)
        self._epochs = EpochCounter()      # `_seed` and `_epochs`: an iterator checkpoints them

    def words(self) -> Callable[[], int]:
        """The next iteration's words (uint32 values), one a call."""
        return epoch_words(self._seed, self.rerandomize, self._epochs)

    def generator(self) -> np.random.Generator:
        """NumPy's Philox generator keyed by the next iteration's seeds."""
        epoch = self._epochs.take() if self.rerandomize else 0
        key = [w % 2**64 for w in self._seed] + [epoch]
        return np.random.Generator(np.random.Philox(np.random.SeedSequence(key)))


def _units(words: Callable[[], int], count: int) -> np.ndarray:
    """The doubles in [0, 1) of `count` selections: each the first of the stateless stream
    whose seed pair is the next two words (TensorFlow's `Dataset.random(seed).batch(2)`)."""
    pairs = np.array([words() for _ in range(2 * count)], np.int64).reshape(count, 2)
    return philox.first_unit_float64(pairs)


def _logits(weights: np.ndarray) -> np.ndarray:
    """log(weights) in their dtype, as a row of logits (a weight of 0 is never drawn)."""
    with np.errstate(divide="ignore"):
        return np.log(weights)[None, :]


class _Random(Dataset):
    """`Dataset.random`: the words of the seeds' Philox stream as int64 scalars
    (TensorFlow's RandomDataset)."""

    def __init__(self, seed: Any, rerandomize: Optional[bool]):
        self._seeds = _Seeds(seed, rerandomize)
        self._spec = TensorSpec([], _dtypes.int64)
        self._card = INFINITE

    def _elements(self):
        words = self._seeds.words()
        while True:
            yield np.asarray(np.int64(words()))


def _weight_vector(weights: Any, n: int) -> np.ndarray:
    if hasattr(weights, "numpy"):
        w = np.asarray(weights.numpy())
        if w.shape not in ((n,), ()) and not (w.ndim == 1 and w.shape[0] == n):
            raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with "
                             f"`[len(datasets)]` but is {list(w.shape)}.")
    else:
        if len(weights) != n:
            raise ValueError(f"Invalid `weights`. `weights` should have the same length as "
                             f"`datasets` but got `len(weights)={len(weights)}` vs. "
                             f"`len(datasets)={n}`.")
        w = st.to_array(list(weights) if not isinstance(weights, np.ndarray) else weights,
                        "sample_from_datasets: weights")
    if w.dtype not in (np.float32, np.float64):
        raise TypeError(f"Invalid `weights`. `weights` type must be either `rt.float32` or "
                        f"`rt.float64` but is {_dtypes.as_dtype(w.dtype).name}.")
    return w


def _probabilities(w: np.ndarray) -> np.ndarray:
    w = np.asarray(w, dtype=np.float64)
    if not np.all(np.isfinite(w)) or np.any(w < 0) or not w.sum() > 0:
        raise InvalidArgumentError(f"sample_from_datasets: the weights must be finite, >= 0 and "
                                   f"not all 0, got {w.tolist()}.")
    return w / w.sum()


def sample_from_datasets(datasets: Any, weights: Any, seed: Any, stop_on_empty_dataset: bool,
                         rerandomize_each_iteration: Optional[bool]) -> Dataset:
    """`Dataset.sample_from_datasets` (see there)."""
    datasets = _check_datasets(datasets)
    seeds = _Seeds(seed, rerandomize_each_iteration)
    if isinstance(weights, Dataset):
        return _sample_by_dataset(datasets, weights, seeds, stop_on_empty_dataset)
    if weights is None:        # equal logits (TensorFlow's ones draw as log(1)'s zeros)
        w = np.ones(len(datasets), np.float32)
    else:
        w = _weight_vector(weights, len(datasets))
        if not hasattr(weights, "numpy"):      # as tf.data: inputs of weight 0 are dropped
            keep = [i for i in range(len(datasets)) if w[i] > 0]
            if not keep:
                return datasets[0].take(0)
            datasets, w = [datasets[i] for i in keep], w[keep]
    if len(datasets) == 1:
        return datasets[0]
    _common_spec(datasets)
    _probabilities(w)
    logits = _logits(w)

    def selector():
        words = seeds.words()
        while True:
            yield from categorical_of_units(logits, _units(words, _DRAWS)[None, :])[0].tolist()

    return _Directed(datasets, selector, stop_on_empty_dataset, seeds=seeds)


def _sample_by_dataset(datasets: list, weights: Dataset, seeds: _Seeds, stop: bool) -> Dataset:
    spec = weights._spec
    if not isinstance(spec, TensorSpec) or spec.dtype not in (_dtypes.float32, _dtypes.float64) \
            or not spec.shape.is_compatible_with([len(datasets)]):
        raise TypeError(f"Invalid `weights`. A dataset of weights must have elements of shape "
                        f"[{len(datasets)}] and dtype float32 or float64, got {spec!r}.")

    def selector(weights):
        words = seeds.words()
        for w in weights._open():
            _probabilities(w)
            yield int(categorical_of_units(_logits(np.asarray(w)), _units(words, 1)[None, :])[0, 0])

    return _Directed(datasets, selector, stop, (weights,), seeds)


def choose_from_datasets(datasets: Any, choice_dataset: Any, stop_on_empty_dataset: bool) -> Dataset:
    """`Dataset.choose_from_datasets` (see there)."""
    datasets = _check_datasets(datasets)
    if not isinstance(choice_dataset, Dataset):
        raise TypeError(f"Invalid `choice_dataset`. `choice_dataset` should be a `rt.data.Dataset` "
                        f"but is {type(choice_dataset)}.")
    spec = choice_dataset._spec
    if not isinstance(spec, TensorSpec) or spec.dtype is not _dtypes.int64 or spec.shape.rank != 0:
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar "
                        f"`rt.int64` tensors but are {spec!r}.")

    def selector(choice_dataset):
        for i in choice_dataset._open():
            yield int(i)

    return _Directed(datasets, selector, stop_on_empty_dataset, (choice_dataset,))


# -- rejection_resample -----------------------------------------------------------------------

_SMOOTHING = 10      # the starting count of each class when the distribution is estimated
_ESTIMATE_BATCH = 32  # classes counted at a time


def _acceptance(initial: np.ndarray, target: np.ndarray) -> tuple:
    """(per-class acceptance probabilities, probability of taking an element unfiltered):
    TensorFlow's mixing of rejection sampling with the original data (few rejections)."""
    ratio = target / (initial + np.finfo(np.float32).tiny)
    low, high = ratio.min(), ratio.max()
    accept = (ratio - low) / (high - low) if high > low else np.zeros_like(ratio)
    return accept, float(min(max(low, 0.0), 1.0))


def _distribution(value: Any, what: str) -> np.ndarray:
    a = np.asarray(value.numpy() if hasattr(value, "numpy") else value, dtype=np.float64)
    if a.ndim != 1 or not a.size:
        raise ValueError(f"rejection_resample: {what} must be a 1-D list of class probabilities, "
                         f"got shape {list(a.shape)}.")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"rejection_resample: {what} must hold probabilities >= 0, got {a.tolist()}.")
    return a


class _RejectionResample(Dataset):
    def __init__(self, dataset: Dataset, class_func: Callable, target_dist: Any, initial_dist: Any,
                 seed: Any):
        self._input = dataset
        self._fn = _Traced(class_func, dataset._spec, "rejection_resample")
        out = self._fn.output_spec
        if not isinstance(out, TensorSpec) or not out.dtype.is_integer or out.shape.rank not in (0, None):
            raise TypeError(f"rejection_resample: class_func must return an integer scalar (the "
                            f"class, in [0, num_classes)), but it returns {out!r:.200}.")
        self._target = _distribution(target_dist, "target_dist")
        self._initial = None if initial_dist is None else _distribution(initial_dist, "initial_dist")
        if self._initial is not None and self._initial.shape != self._target.shape:
            raise ValueError(f"rejection_resample: initial_dist has {self._initial.size} classes, "
                             f"target_dist {self._target.size}.")
        self._seeds = _Seeds(seed, None)
        spec = dataset._spec
        element = spec[0] if type(spec) is tuple and len(spec) == 1 else spec
        self._spec = (TensorSpec([], out.dtype), element)
        self._static = None
        if self._initial is not None:
            self._static = _acceptance(self._initial, self._target)
        self._mix = None if self._static is None else self._static[1]
        if self._mix == 1:
            self._card = dataset._card
        elif self._mix == 0:     # only the filtered pass: unknown, as tf.data's
            self._card = UNKNOWN
        else:
            self._card = INFINITE if dataset._card == INFINITE else UNKNOWN
        self._warned = False

    def _inputs(self):
        return [self._input]

    def _class_of(self, element) -> int:
        c = int(self._fn(element))
        if not 0 <= c < self._target.size:
            raise InvalidArgumentError(f"rejection_resample: class_func gave class {c}, outside "
                                       f"[0, {self._target.size}) (the classes of target_dist).")
        return c

    def _pair(self, c: int, element) -> tuple:
        dtype = self._spec[0].dtype.as_numpy_dtype
        if type(element) is tuple and len(element) == 1:
            element = element[0]
        return (np.asarray(c, dtype=dtype), element)

    def _estimated(self, source) -> Iterator[tuple]:
        """(element, class, initial distribution as estimated with its batch counted)."""
        counts = np.full(self._target.size, _SMOOTHING, dtype=np.int64)
        while True:
            batch = []
            for element in source:
                batch.append((element, self._class_of(element)))
                if len(batch) == _ESTIMATE_BATCH:
                    break
            if not batch:
                return
            counts += np.bincount([c for _, c in batch], minlength=counts.size)
            dist = counts / counts.sum()
            for element, c in batch:
                yield element, c, dist

    def _classified(self, source) -> Iterator[tuple]:
        if self._initial is None:
            yield from self._estimated(source)
            return
        for element in source:
            yield element, self._class_of(element), self._initial

    def _warn(self, accept: np.ndarray, initial: np.ndarray) -> None:
        rejected = float(np.sum((1 - accept) * initial))
        if rejected >= 0.5 and not self._warned:
            self._warned = True
            logger.warning("Proportion of examples rejected by sampler is high: %.3g (initial "
                           "distribution %s, acceptance %s)", rejected, np.round(initial, 3).tolist(),
                           np.round(accept, 3).tolist())

    def _filtered(self, rng) -> Iterator[tuple]:
        for element, c, initial in self._classified(self._input._open()):
            accept = self._static[0] if self._static is not None else _acceptance(initial, self._target)[0]
            self._warn(accept, initial)
            if rng.random() < accept[c]:
                yield self._pair(c, element)

    def _elements(self):
        rng = self._seeds.generator()
        if self._mix == 1:
            for element in self._input._open():
                yield self._pair(self._class_of(element), element)
            return
        filtered = self._filtered(rng)
        if self._mix == 0:
            yield from filtered
            return
        original = self._input._open()
        mixes = (self._mix for _ in iter(int, 1)) if self._static is not None else (
            _acceptance(initial, self._target)[1]
            for _, _, initial in self._estimated(self._input._open()))
        for m in mixes:
            try:
                if rng.random() < m:
                    element = next(original)
                    yield self._pair(self._class_of(element), element)
                else:
                    yield next(filtered)
            except StopIteration:
                return


def rejection_resample(dataset: Dataset, class_func: Callable, target_dist: Any, initial_dist: Any,
                       seed: Any) -> Dataset:
    """`Dataset.rejection_resample` (see there)."""
    return _RejectionResample(dataset, class_func, target_dist, initial_dist, seed)


TRANSFORMS["sample_from_datasets"] = sample_from_datasets
TRANSFORMS["random"] = _Random
TRANSFORMS["choose_from_datasets"] = choose_from_datasets
TRANSFORMS["rejection_resample"] = rejection_resample


# -- tf.data.experimental's forms -------------------------------------------------------------

@strict_keywords("rt.data.experimental.sample_from_datasets")
def experimental_sample_from_datasets(datasets: Any, weights: Any = None, seed: Any = None,
                                      stop_on_empty_dataset: bool = False) -> Dataset:
    """`rt.data.Dataset.sample_from_datasets` (without `rerandomize_each_iteration`)."""
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


@strict_keywords("rt.data.experimental.choose_from_datasets")
def experimental_choose_from_datasets(datasets: Any, choice_dataset: Dataset,
                                      stop_on_empty_dataset: bool = False) -> Dataset:
    """`rt.data.Dataset.choose_from_datasets`, whose default is to go on past an empty input."""
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


@strict_keywords("rt.data.experimental.rejection_resample")
def experimental_rejection_resample(class_func: Callable, target_dist: Any, initial_dist: Any = None,
                                    seed: Any = None) -> Callable[[Dataset], Dataset]:
    """`ds.apply(rejection_resample(...))` is `ds.rejection_resample(...)`."""
    return lambda dataset: dataset.rejection_resample(class_func, target_dist, initial_dist, seed)
