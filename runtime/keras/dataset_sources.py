"""`keras.utils` dataset sources: `text_dataset_from_directory`, `timeseries_dataset_from_array`
and `split_dataset`, with Keras 3's rules (file order, seeded shuffles, splits, label modes,
shapes and dtypes), returning `rt.data.Dataset`s.

`index_directory` lists a directory the way Keras does for every `*_dataset_from_directory`:
class subdirectories in alphanumeric order, files sorted within each (walked recursively),
then shuffled by `np.random.RandomState(seed)`, so a seed picks the same files as Keras.
"""

from __future__ import annotations

import os
import random as _random
from typing import Any, Optional, Sequence

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..data import AUTOTUNE, Dataset
from ..data import structure as st
from ..data.dataset import BLOCK, _Batch
from ..shapes import TensorShape, TensorSpec

LABEL_MODES = ("int", "categorical", "binary", None)
_FORMAT_ERROR = ('`format` should be "tf" (rt.data datasets; Keras\'s other format, "grain", is not '
                 "offered). Received: format={}")


# -- listing a directory ----------------------------------------------------------------------

def _class_dirs(directory: str, class_names: Optional[Sequence[str]]) -> list:
    found = [d.rstrip("/") for d in sorted(os.listdir(directory))
             if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")]
    if class_names is None:
        return found
    if not set(class_names) <= set(found):
        raise ValueError("The `class_names` passed did not match the names of the "
                         f"subdirectories of the target directory. Expected: {found} (or a "
                         f"subset of it), but received: class_names={list(class_names)}")
    return list(class_names)


def _files_under(directory: str, follow_links: bool, formats: tuple) -> list:
    """The paths of the files of `directory` and its subdirectories with an allowed
    extension, by folder then name (each path starts with `directory`)."""
    walk = sorted(os.walk(directory, followlinks=follow_links), key=lambda entry: entry[0])
    return [os.path.join(root, name) for root, _, files in walk for name in sorted(files)
            if name.lower().endswith(formats)]


def index_directory(directory: str, labels: Any, formats: tuple, class_names: Any = None,
                    shuffle: bool = True, seed: Optional[int] = None, follow_links: bool = False,
                    verbose: bool = True) -> tuple[list, Any, Optional[list]]:
    """(file paths, integer labels or None, class names) of the files of `directory` whose
    extension is one of `formats`, as Keras lists them (see the module's docstring)."""
    if labels == "inferred":
        subdirs = _class_dirs(directory, class_names)
    else:
        if class_names is not None:
            raise ValueError("When `labels=None` (no labels), argument `class_names` cannot be "
                             "specified." if labels is None else "When argument `labels` is "
                             "specified, argument `class_names` cannot be specified (the "
                             "`class_names` will be the sorted list of labels).")
        subdirs = [""]
    paths, found_labels = [], []
    for index, sub in enumerate(subdirs):
        found = _files_under(os.path.join(directory, sub) if sub else directory, follow_links,
                             formats)
        paths += found
        found_labels += [index] * len(found)
    if labels == "inferred":
        out_labels: Any = np.asarray(found_labels, dtype=np.int32)
        names: Optional[list] = list(subdirs)
    elif labels is None:
        out_labels, names = None, None
    else:
        if len(labels) != len(paths):
            raise ValueError("Expected the lengths of `labels` to match the number of files in "
                             f"the target directory. len(labels) is {len(labels)} while we found "
                             f"{len(paths)} files in directory {directory}.")
        out_labels = list(labels)
        names = [str(label) for label in sorted(set(out_labels))]
    if verbose:
        print(f"Found {len(paths)} files." if out_labels is None else
              f"Found {len(paths)} files belonging to {len(names or [])} classes.")
    if shuffle:
        seed = np.random.randint(1_000_000) if seed is None else seed
        np.random.RandomState(seed).shuffle(paths)
        if out_labels is not None:
            np.random.RandomState(seed).shuffle(out_labels)
    return paths, out_labels, names


def check_validation_split(validation_split: Any, subset: Any, shuffle: bool, seed: Any) -> None:
    """Keras's checks of `validation_split` and `subset`."""
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"`validation_split` must be between 0 and 1, received: {validation_split}")
    if (validation_split or subset) and not (validation_split and subset):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if subset not in ("training", "validation", "both", None):
        raise ValueError('`subset` must be either "training", "validation" or "both", '
                         f"received: {subset}")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide a "
                         "`seed` argument, to make sure that there is no overlap between the "
                         "training and validation subset.")


def split_for(paths: list, labels: Any, validation_split: Any, subset: Optional[str]) -> tuple:
    """The training (all but the last `validation_split`) or validation (the last) files."""
    if not validation_split:
        return paths, labels
    n_val = int(validation_split * len(paths))
    if subset == "training":
        print(f"Using {len(paths) - n_val} files for training.")
        cut = slice(None, -n_val)  # as Keras: nothing when no file goes to validation
    else:
        print(f"Using {n_val} files for validation.")
        cut = slice(-n_val, None)
    return paths[cut], None if labels is None else labels[cut]


def check_labels(labels: Any, label_mode: Any, class_names: Any, kind: str) -> None:
    """Keras's checks of `labels`, `label_mode` and `class_names` for a directory of `kind`
    ("text", "image", "audio") files: ValueError in Keras's words."""
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError("`labels` argument should be a list/tuple of integer labels, of the "
                             f"same size as the number of {kind} files in the target directory; "
                             'pass labels="inferred" to infer them from the subdirectory names, '
                             f"or labels=None. Received: labels={labels!r:.80}")
        if class_names:
            raise ValueError('You can only pass `class_names` if `labels="inferred"`. Received: '
                             f"labels={labels!r:.80}, and class_names={class_names}")
    if label_mode not in LABEL_MODES:
        raise ValueError('`label_mode` argument must be one of "int", "categorical", "binary", '
                         f"or None. Received: label_mode={label_mode}")


def label_array(labels: Any, label_mode: Optional[str], num_classes: int) -> np.ndarray:
    """The labels as Keras hands them out: int32, float32 `[1]` (binary) or one-hot float32."""
    ints = np.asarray(labels)
    if label_mode == "binary":
        return ints.astype(np.float32)[:, None]
    if label_mode == "categorical":
        return np.eye(num_classes, dtype=np.float32)[ints.astype(np.int64)].reshape(-1, num_classes)
    return ints if isinstance(labels, np.ndarray) else st.to_array(list(labels), "labels")


# -- text_dataset_from_directory --------------------------------------------------------------

class _ReadText(Dataset):
    """The contents of the files named by a dataset of paths (or of `(path, label)` pairs),
    cut to `max_length` bytes, read when iterated."""

    def __init__(self, paths: Dataset, labelled: bool, max_length: Optional[int]):
        self._input, self._labelled, self._max = paths, labelled, max_length
        text = TensorSpec([], _dtypes.string)
        self._spec = (text, paths.element_spec[1]) if labelled else text
        self._card = paths._card

    def _inputs(self):
        return [self._input]

    def _read(self, path: np.ndarray) -> np.ndarray:
        with open(os.fsdecode(path.item()), "rb") as f:
            content = f.read() if self._max is None else f.read(max(int(self._max), 0))
        return np.asarray(content, dtype=object)

    def _elements(self):
        for element in self._input._open():
            yield (self._read(element[0]), element[1]) if self._labelled else self._read(element)


def _text_dataset(paths: list, labels: Any, label_mode: Optional[str], num_classes: int,
                  max_length: Optional[int], shuffle: bool, buffer_size: int, seed: Any,
                  batch_size: Optional[int]) -> Dataset:
    files = np.asarray([os.fsencode(p) for p in paths], dtype=object)
    if label_mode:
        ds = Dataset.from_tensor_slices((files, label_array(labels, label_mode, num_classes)))
    else:
        ds = Dataset.from_tensor_slices(files)
    if shuffle:
        ds = ds.shuffle(buffer_size, seed=seed)
    ds = _ReadText(ds, bool(label_mode), max_length)
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds.prefetch(AUTOTUNE)


@strict_keywords("text_dataset_from_directory")
def text_dataset_from_directory(directory: str, labels: Any = "inferred",
                                label_mode: Optional[str] = "int", class_names: Any = None,
                                batch_size: Optional[int] = 32, max_length: Optional[int] = None,
                                shuffle: bool = True, seed: Optional[int] = None,
                                validation_split: Optional[float] = None,
                                subset: Optional[str] = None, follow_links: bool = False,
                                format: str = "tf", verbose: bool = True) -> Any:  # noqa: A002
    """A dataset of `(text, label)` batches from the `.txt` files of `directory`, one class
    per subdirectory (`labels="inferred"`), as Keras 3 builds it; `.class_names` on it.
    `subset="both"` returns `[training, validation]`."""
    check_labels(labels, label_mode, class_names, "text")
    if format != "tf":
        raise ValueError(_FORMAT_ERROR.format(format))
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_validation_split(validation_split, subset, shuffle, seed)
    seed = np.random.randint(1_000_000) if seed is None else seed
    paths, found, names = index_directory(os.fspath(directory), labels, (".txt",), class_names,
                                          shuffle, seed, follow_links, verbose)
    if label_mode == "binary" and len(names or []) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={names}")
    buffer_size = batch_size * 8 if batch_size is not None else 1024
    classes = len(names) if names else 0
    subsets = ["training", "validation"] if subset == "both" else [subset]
    out = []
    for part in subsets:
        p, lab = split_for(paths, found, validation_split, part)
        if not p:
            which = f"{part} " if subset == "both" else ""
            raise ValueError(f"No {which}text files found in directory {directory}. "
                             "Allowed format: .txt")
        ds = _text_dataset(p, lab, label_mode, classes, max_length,
                           shuffle and part != "validation" if subset == "both" else shuffle,
                           buffer_size, seed, batch_size)
        ds.class_names = names  # type: ignore[attr-defined]
        out.append(ds)
    return out if subset == "both" else out[0]


# -- timeseries_dataset_from_array ------------------------------------------------------------

class _Windows(Dataset):
    """Windows `data[p + i * rate for i < length]` at the start positions `starts`, with the
    target `targets[p]` when targets are given, a block of windows at a time."""

    def __init__(self, data: np.ndarray, targets: Optional[np.ndarray], starts: np.ndarray,
                 length: int, rate: int):
        self._data, self._targets, self._starts = data, targets, starts
        self._steps = np.arange(length, dtype=np.int64) * rate
        # the window's length is left unknown in the spec, as TensorFlow's gather leaves it
        window = TensorSpec(TensorShape([None, *data.shape[1:]]), st.spec_of_array(data).dtype)
        self._spec = window if targets is None else (window, st.spec_of_array(targets, 1))
        self._card = len(starts)

    def _blocks(self):
        for at in range(0, len(self._starts), BLOCK):
            starts = self._starts[at:at + BLOCK].astype(np.int64)
            windows = np.asarray(self._data[starts[:, None] + self._steps])
            yield windows if self._targets is None else (windows, np.asarray(self._targets[starts]))


def _series(value: Any, what: str) -> np.ndarray:
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        value = value.to_numpy()
    array = st.to_array(value, f"timeseries_dataset_from_array: {what}")
    if array.ndim == 0:
        raise ValueError(f"timeseries_dataset_from_array: `{what}` must have a time axis, got a "
                         "scalar.")
    return array


def _check_positions(n: int, start_index: Any, end_index: Any, sampling_rate: int,
                     sequence_stride: int) -> None:
    if start_index:
        if start_index < 0:
            raise ValueError(f"`start_index` must be 0 or greater. Received: start_index={start_index}")
        if start_index >= n:
            raise ValueError("`start_index` must be lower than the length of the data. Received: "
                             f"start_index={start_index}, for data of length {n}")
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError("`end_index` must be higher than `start_index`. Received: "
                             f"start_index={start_index}, and end_index={end_index}")
        if end_index >= n:
            raise ValueError("`end_index` must be lower than the length of the data. Received: "
                             f"end_index={end_index}, for data of length {n}")
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    for name, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
        if value >= n:
            raise ValueError(f"`{name}` must be lower than the length of the data. Received: "
                             f"{name}={value}, for data of length {n}")


@strict_keywords("timeseries_dataset_from_array")
def timeseries_dataset_from_array(data: Any, targets: Any, sequence_length: int,
                                  sequence_stride: int = 1, sampling_rate: int = 1,
                                  batch_size: Optional[int] = 128, shuffle: bool = False,
                                  seed: Optional[int] = None, start_index: Optional[int] = None,
                                  end_index: Optional[int] = None,
                                  format: str = "tf") -> Dataset:  # noqa: A002
    """Batches of sliding windows over the rows of `data` (`sequence_length` rows
    `sampling_rate` apart, a window every `sequence_stride` rows from `start_index` to
    `end_index`), each with the target `targets[start]` when `targets` is given."""
    array = _series(data, "data")
    _check_positions(len(array), start_index, end_index, sampling_rate, sequence_stride)
    if format != "tf":
        raise ValueError(_FORMAT_ERROR.format(format))
    start = start_index or 0
    end = len(array) if end_index is None else end_index
    array = array[start:end]
    target_array = None if targets is None else _series(targets, "targets")[start:end]
    count = end - start - (sequence_length - 1) * sampling_rate
    if target_array is not None:
        count = min(count, len(target_array))
    starts = np.arange(0, max(count, 0), sequence_stride,
                       dtype=np.int32 if count < 2 ** 31 - 1 else np.int64)
    if shuffle:
        seed = np.random.randint(1_000_000) if seed is None else seed
        np.random.RandomState(seed).shuffle(starts)
    ds: Dataset = _Windows(array, target_array, starts, int(sequence_length), int(sampling_rate))
    if batch_size is not None:
        if shuffle:
            ds = ds.shuffle(batch_size * 8, seed=seed)
        return ds.batch(batch_size)
    return ds.shuffle(1024, seed=seed) if shuffle else ds


# -- split_dataset ----------------------------------------------------------------------------

def _samples(dataset: Any) -> tuple[list, Any]:
    """The samples of `dataset` as a list, and the batch size to batch the splits with."""
    if isinstance(dataset, Dataset):
        batch = dataset._size if isinstance(dataset, _Batch) else None
        source = dataset.unbatch() if batch is not None else dataset
        return list(source.as_numpy_iterator()), batch
    if isinstance(dataset, np.ndarray):
        return list(dataset), None  # rows as NumPy values: a list, converted as TF converts it
    if isinstance(dataset, (list, tuple)):
        kind = type(dataset).__name__
        if not dataset:
            raise ValueError(f"Received an empty {kind} dataset. Please provide a non-empty "
                             f"{kind} of arrays.")
        for i, element in enumerate(dataset):
            if not isinstance(element, np.ndarray):
                raise ValueError(f"Expected a {kind} of `numpy.ndarray` objects, received: "
                                 f"{type(element)} at index {i}.")
            if element.shape[0] != dataset[0].shape[0]:
                raise ValueError(f"Received a {kind} of NumPy arrays with different lengths. "
                                 f"Mismatch found at index {i}, expected shape="
                                 f"{dataset[0].shape} received shape={element.shape}.")
        return list(zip(*dataset)), None
    raise TypeError("The `dataset` argument must be either a `rt.data.Dataset` object, or a "
                    f"list/tuple of arrays. Received: dataset={dataset!r:.80} of type "
                    f"{type(dataset)}")


def _check_shapes(samples: list) -> None:
    if not samples:
        raise ValueError("Received an empty dataset. Argument `dataset` must be a non-empty "
                         "list/tuple of `numpy.ndarray` objects or `rt.data.Dataset` objects.")
    if isinstance(samples[0], (tuple, dict)):
        return
    first = np.shape(samples[0])
    for i, sample in enumerate(samples[1:]):
        if np.shape(sample) != first:
            raise ValueError(f"All `dataset` samples must have same shape, Expected shape: "
                             f"{first} Received shape: {np.shape(sample)} at index {i}.")


def _split_sizes(left: Any, right: Any, total: int) -> tuple[int, int]:
    """Keras's rules: an int is a count, a float in (0, 1) a fraction (rounded); a missing side
    is the complement of the other."""
    for name, value in (("left_size", left), ("right_size", right)):
        if value is not None and type(value) not in (int, float):
            raise TypeError(f"Invalid `{name}` Type. Expected: int or float or None, Received: "
                            f"type({name})={type(value)}.")
    if left == 0 and right == 0:
        raise ValueError("Both `left_size` and `right_size` are zero. At least one of the split "
                         "sizes must be non-zero.")
    for name, value in (("left_size", left), ("right_size", right)):
        if (type(value) is int and not 0 < value < total) or \
                (type(value) is float and not 0 < value < 1):
            raise ValueError(f"`{name}` should be either a positive integer smaller than {total}, "
                             f"or a float within the range `[0, 1]`. Received: {name}={value}")
    if type(left) is float and type(right) is float and left + right > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must be "
                         "less than or equal to 1.")
    left_n = round(left * total) if type(left) is float else left
    right_n = round(right * total) if type(right) is float else right
    left_n = total - right_n if left_n is None else left_n
    right_n = total - left_n if right_n is None else right_n
    if left_n + right_n > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the "
                         f"{total}. Received: left_size + right_size = {left_n + right_n} and "
                         f"total_length = {total}")
    for side, n in (("left", left_n), ("right", right_n)):
        if n == 0:
            raise ValueError(f"With `dataset` of length={total}, `left_size`={left_n} and "
                             f"`right_size`={right_n}. Resulting {side} side dataset split will "
                             "be empty. Adjust any of the aforementioned parameters")
    return int(left_n), int(right_n)


def _stacked(samples: list, from_array: bool) -> Any:
    if from_array:
        return samples  # the rows of an array: converted as a list (as Keras hands it to TF)
    template = samples[0]
    if isinstance(template, list):
        template = tuple(template)
    flat = [st.flatten(tuple(s) if isinstance(s, list) else s) for s in samples]
    columns = [st.strings_as_objects(np.asarray([row[i] for row in flat]))
               for i in range(len(flat[0]))]
    return st.pack(template, columns)


@strict_keywords("split_dataset")
def split_dataset(dataset: Any, left_size: Any = None, right_size: Any = None,
                  shuffle: bool = False, seed: Optional[int] = None,
                  preferred_backend: Optional[str] = None) -> tuple[Dataset, Dataset]:
    """`(left, right)` datasets: the first `left_size` and the last `right_size` samples of
    `dataset` (an `rt.data.Dataset`, an array, or a list/tuple of arrays of one length),
    shuffled first by Python's `random` with `seed` when `shuffle`, as Keras splits them.
    As in Keras, every `preferred_backend` but "torch" gives `rt.data` datasets."""
    if preferred_backend == "torch":
        raise ValueError("split_dataset: preferred_backend='torch' (torch datasets) is not "
                         "offered; leave it None to get rt.data datasets.")
    if right_size is None and left_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. "
                         "Received: left_size=None and right_size=None")
    samples, batch = _samples(dataset)
    _check_shapes(samples)
    if shuffle:
        seed = _random.randint(0, int(1e6)) if seed is None else seed
        _random.Random(seed).shuffle(samples)
    left_n, right_n = _split_sizes(left_size, right_size, len(samples))
    halves = []
    for part in (samples[:left_n], samples[-right_n:]):
        ds = Dataset.from_tensor_slices(_stacked(part, isinstance(dataset, np.ndarray)))
        halves.append((ds.batch(batch) if batch is not None else ds).prefetch(AUTOTUNE))
    return halves[0], halves[1]


__all__ = ["index_directory", "split_dataset", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
