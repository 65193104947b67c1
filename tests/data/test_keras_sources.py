"""`keras.utils.text_dataset_from_directory`, `timeseries_dataset_from_array` and
`split_dataset` against Keras 3's results (recorded from runs of the same programs with Keras
3 / TensorFlow 2.21), NumPy's sliding windows and its RandomState (Keras's file shuffle), and
Python's `random` (Keras's split shuffle)."""

import os
import random

import numpy as np
import pytest

import runtime as rt

utils = rt.keras.utils


@pytest.fixture
def tree(tmp_path):
    """neg/ (5 files + sub/deep.txt), pos/ (4 + sub/deep.txt), .hidden/, a top-level file and
    files of other extensions."""
    root = tmp_path / "txt"
    for name, count in (("neg", 5), ("pos", 4), (".hidden", 1)):
        (root / name / "sub").mkdir(parents=True)
        for i in range(count):
            (root / name / f"f{i}.txt").write_text(f"{name} text {i} " + "x" * i)
        (root / name / "sub" / "deep.txt").write_text(f"{name} deep")
        (root / name / "skip.md").write_text("no")
    (root / "top.txt").write_text("top")
    return str(root)


def _elements(ds):
    out = []
    for e in ds:
        out.append(tuple(np.asarray(v).tolist() for v in e) if isinstance(e, tuple)
                   else np.asarray(e).tolist())
    return out


NEG = [b"neg text 0 ", b"neg text 1 x", b"neg text 2 xx", b"neg text 3 xxx", b"neg text 4 xxxx",
       b"neg deep"]
POS = [b"pos text 0 ", b"pos text 1 x", b"pos text 2 xx", b"pos text 3 xxx", b"pos deep"]


def test_text_dataset_lists_classes_and_files_as_keras(tree, capsys):
    ds = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=4)
    assert capsys.readouterr().out == "Found 11 files belonging to 2 classes.\n"
    assert ds.class_names == ["neg", "pos"]
    assert ds.element_spec == (rt.TensorSpec([None], rt.string), rt.TensorSpec([None], rt.int32))
    assert int(ds.cardinality()) == 3
    assert _elements(ds) == [(NEG[:4], [0] * 4), (NEG[4:] + POS[:2], [0, 0, 1, 1]),
                             (POS[2:], [1, 1, 1])]
    reordered = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=20,
                                                  class_names=["pos", "neg"], verbose=False)
    assert reordered.class_names == ["pos", "neg"]
    assert _elements(reordered) == [(POS + NEG, [0] * 5 + [1] * 6)]


def test_text_dataset_label_modes_and_max_length(tree):
    ds = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=None, verbose=False,
                                           label_mode="categorical", max_length=6)
    assert ds.element_spec == (rt.TensorSpec([], rt.string), rt.TensorSpec([2], rt.float32))
    assert _elements(ds)[:2] == [(b"neg te", [1.0, 0.0])] * 2
    assert _elements(ds)[-1] == (b"pos de", [0.0, 1.0])
    binary = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=3,
                                               label_mode="binary", verbose=False)
    assert binary.element_spec[1] == rt.TensorSpec([None, 1], rt.float32)
    assert _elements(binary)[0] == (NEG[:3], [[0.0], [0.0], [0.0]])
    texts = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=3, label_mode=None,
                                              verbose=False)
    assert texts.class_names is None and texts.element_spec == rt.TensorSpec([None], rt.string)


def test_text_dataset_without_labels_walks_the_whole_tree(tree, capsys):
    ds = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=3, labels=None)
    assert capsys.readouterr().out == "Found 14 files.\n"
    assert int(ds.cardinality()) == 5
    assert _elements(ds)[0] == [b"top", b".hidden text 0 ", b".hidden deep"]
    listed = utils.text_dataset_from_directory(tree, shuffle=False, batch_size=20,
                                               labels=[0, 1] * 7, verbose=False)
    assert listed.class_names == ["0", "1"]
    assert _elements(listed)[0][1] == [0, 1] * 7


def _keras_split(tree, seed, fraction):
    """Keras's pick: the sorted listing shuffled by RandomState(seed), the last part kept for
    validation."""
    paths = []
    for label in ("neg", "pos"):
        for root, _, names in sorted(os.walk(os.path.join(tree, label))):
            paths += [os.path.join(root, n) for n in sorted(names) if n.endswith(".txt")]
    np.random.RandomState(seed).shuffle(paths)
    n_val = int(fraction * len(paths))
    read = [open(p, "rb").read() for p in paths]
    return sorted(read[:-n_val]), sorted(read[-n_val:])


def test_text_dataset_validation_split_picks_keras_files(tree, capsys):
    train = utils.text_dataset_from_directory(tree, batch_size=20, validation_split=0.3,
                                              subset="training", seed=42)
    val = utils.text_dataset_from_directory(tree, batch_size=20, validation_split=0.3,
                                            subset="validation", seed=42)
    out = capsys.readouterr().out
    assert "Using 8 files for training.\n" in out and "Using 3 files for validation.\n" in out
    expected_train, expected_val = _keras_split(tree, 42, 0.3)
    assert sorted(_elements(train)[0][0]) == expected_train
    assert sorted(_elements(val)[0][0]) == expected_val == [b"neg text 3 xxx", b"pos text 0 ",
                                                             b"pos text 1 x"]  # Keras 3's pick
    both = utils.text_dataset_from_directory(tree, batch_size=20, validation_split=0.3,
                                             subset="both", seed=42, verbose=False)
    assert isinstance(both, list) and len(both) == 2
    assert sorted(_elements(both[1])[0][0]) == expected_val
    assert both[0].class_names == both[1].class_names == ["neg", "pos"]
    first, second = (utils.text_dataset_from_directory(tree, batch_size=20, validation_split=0.3,
                                                       subset="training", seed=42, verbose=False)
                     for _ in range(2))
    assert _elements(first) == _elements(second)  # one seed, one order


@pytest.mark.parametrize("kwargs, words", [
    ({"validation_split": 0.3, "subset": "training"}, "you must provide a `seed` argument"),
    ({"label_mode": "sparse"}, '`label_mode` argument must be one of "int"'),
    ({"class_names": ["x"]}, "did not match the names of the subdirectories"),
    ({"validation_split": 0.3}, "If `subset` is set, `validation_split` must be set"),
    ({"validation_split": 0.3, "subset": "test", "seed": 1}, '`subset` must be either "training"'),
    ({"validation_split": 1.5, "subset": "training", "seed": 1}, "must be between 0 and 1"),
    ({"labels": [0, 1]}, "len\\(labels\\) is 2 while we found 14 files"),
    ({"labels": "names"}, "`labels` argument should be a list/tuple"),
    ({"labels": [0] * 14, "class_names": ["a"]}, "You can only pass `class_names`"),
    ({"format": "grain"}, '`format` should be "tf"'),
])
def test_text_dataset_argument_errors(tree, kwargs, words):
    with pytest.raises(ValueError, match=words):
        utils.text_dataset_from_directory(tree, verbose=False, **kwargs)


def test_text_dataset_directory_errors(tree):
    with pytest.raises(ValueError, match='there must be exactly 2 class_names'):
        utils.text_dataset_from_directory(os.path.join(tree, "neg"), label_mode="binary",
                                          verbose=False)
    with pytest.raises(ValueError, match="No text files found in directory"):
        utils.text_dataset_from_directory(os.path.join(tree, "neg", "sub"), verbose=False)
    with pytest.raises(TypeError, match="batch_size"):
        utils.text_dataset_from_directory(tree, batchsize=2)


# ------------------------------------------------------------------------------ timeseries

def _windows(data, length, stride, rate, start=0, end=None):
    """NumPy's sliding windows: data[s + i * rate] for i < length, s every `stride` rows."""
    end = len(data) if end is None else end
    starts = range(start, end - (length - 1) * rate, stride)
    return starts, [data[[s + i * rate for i in range(length)]] for s in starts]


def test_timeseries_windows_and_targets_match_numpy():
    data = np.arange(40, dtype=np.float64).reshape(20, 2)
    targets = np.arange(20) * 10
    ds = utils.timeseries_dataset_from_array(data, targets, sequence_length=3, sequence_stride=2,
                                             sampling_rate=2, batch_size=4)
    assert ds.element_spec == (rt.TensorSpec([None, None, 2], rt.float64),
                               rt.TensorSpec([None], rt.int64))
    assert int(ds.cardinality()) == 2
    starts, windows = _windows(data, 3, 2, 2)
    batches = list(ds.as_numpy_iterator())
    np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), np.stack(windows))
    np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), targets[list(starts)])
    assert [b[1].tolist() for b in batches] == [[0, 20, 40, 60], [80, 100, 120, 140]]  # Keras


def test_timeseries_start_end_and_no_batching():
    data = np.arange(40, dtype=np.float64).reshape(20, 2)
    ds = utils.timeseries_dataset_from_array(data, None, sequence_length=5, batch_size=None,
                                             start_index=2, end_index=12)
    assert ds.element_spec == rt.TensorSpec([None, 2], rt.float64)
    assert int(ds.cardinality()) == 6
    _, windows = _windows(data, 5, 1, 1, 2, 12)
    np.testing.assert_array_equal(np.stack(list(ds.as_numpy_iterator())), np.stack(windows))
    assert list(utils.timeseries_dataset_from_array(data, None, 30).as_numpy_iterator()) == []


def test_timeseries_shuffle_gives_every_window_once():
    ds = utils.timeseries_dataset_from_array(list(range(10)), list(range(10)), sequence_length=4,
                                             batch_size=3, shuffle=True, seed=1)
    assert ds.element_spec == (rt.TensorSpec([None, None], rt.int32), rt.TensorSpec([None], rt.int32))
    assert int(ds.cardinality()) == 3
    pairs = sorted((tuple(w), t) for x, y in ds.as_numpy_iterator() for w, t in zip(x.tolist(), y.tolist()))
    assert pairs == [(tuple(range(s, s + 4)), s) for s in range(7)]


@pytest.mark.parametrize("kwargs, words", [
    ({"sampling_rate": 0}, "`sampling_rate` must be higher than 0"),
    ({"sequence_stride": 30}, "`sequence_stride` must be lower than the length of the data"),
    ({"start_index": 40}, "`start_index` must be lower than the length of the data"),
    ({"start_index": 5, "end_index": 3}, "`end_index` must be higher than `start_index`"),
    ({"end_index": 25}, "`end_index` must be lower than the length of the data"),
])
def test_timeseries_argument_errors(kwargs, words):
    with pytest.raises(ValueError, match=words):
        utils.timeseries_dataset_from_array(np.zeros((20, 2)), None, 3, **kwargs)


# ------------------------------------------------------------------------------ split_dataset

def test_split_dataset_of_arrays():
    left, right = utils.split_dataset(np.arange(10), left_size=0.8)
    assert left.element_spec == rt.TensorSpec([], rt.int32)  # a list of NumPy ints, as in TF
    assert int(left.cardinality()) == 8
    assert list(left.as_numpy_iterator()) == list(range(8))
    assert list(right.as_numpy_iterator()) == [8, 9]
    left, right = utils.split_dataset([np.arange(4), np.arange(4) * 2], left_size=1)
    assert [tuple(e) for e in left.as_numpy_iterator()] == [(0, 0)]
    assert [tuple(e) for e in right.as_numpy_iterator()] == [(1, 2), (2, 4), (3, 6)]


def test_split_dataset_shuffles_as_keras():
    x, y = np.arange(10), np.arange(10) * 2.0
    left, right = utils.split_dataset((x, y), right_size=3, shuffle=True, seed=7)
    assert left.element_spec == (rt.TensorSpec([], rt.int64), rt.TensorSpec([], rt.float64))
    order = list(range(10))
    random.Random(7).shuffle(order)  # Keras: random.seed(seed); random.shuffle(samples)
    got = [int(a) for a, _ in left.as_numpy_iterator()] + [int(a) for a, _ in right.as_numpy_iterator()]
    assert got == order[:7] + order[-3:]
    assert order[:7] == [8, 3, 1, 4, 7, 0, 9]  # Keras 3's left split


def test_split_dataset_of_a_batched_dataset_batches_both_halves():
    left, right = utils.split_dataset(rt.data.Dataset.range(10).batch(3), left_size=4)
    assert left.element_spec == rt.TensorSpec([None], rt.int64)
    assert [b.tolist() for b in left.as_numpy_iterator()] == [[0, 1, 2], [3]]
    assert [b.tolist() for b in right.as_numpy_iterator()] == [[4, 5, 6], [7, 8, 9]]
    named = rt.data.Dataset.from_tensor_slices({"a": np.arange(6), "b": np.array([b"x"] * 6)})
    left, right = utils.split_dataset(named, left_size=0.5)
    assert [e["a"] for e in right.as_numpy_iterator()] == [3, 4, 5]
    assert right.element_spec["b"] == rt.TensorSpec([], rt.string)


@pytest.mark.parametrize("dataset, kwargs, error, words", [
    (np.arange(10), {}, ValueError, "At least one of the `left_size` or `right_size`"),
    (np.arange(10), {"left_size": 0, "right_size": 0}, ValueError, "Both `left_size` and"),
    (np.arange(10), {"left_size": 10}, ValueError, "`left_size` should be either a positive"),
    (np.arange(10), {"left_size": 0.6, "right_size": 0.6}, ValueError, "greater than 1"),
    (np.arange(10), {"left_size": "a"}, TypeError, "Invalid `left_size` Type"),
    (np.arange(10), {"left_size": 6, "right_size": 6}, ValueError, "should be smaller than the 10"),
    (np.arange(10), {"left_size": 0.01}, ValueError, "Resulting left side dataset split will be empty"),
    ([np.arange(4), [1, 2]], {"left_size": 1}, ValueError, "Expected a list of `numpy.ndarray`"),
    ([np.arange(4), np.arange(3)], {"left_size": 1}, ValueError, "different lengths"),
    ("abc", {"left_size": 1}, TypeError, "must be either a `rt.data.Dataset`"),
])
def test_split_dataset_errors(dataset, kwargs, error, words):
    with pytest.raises(error, match=words):
        utils.split_dataset(dataset, **kwargs)


def test_sources_are_offered_where_keras_has_them():
    assert rt.keras.preprocessing.text_dataset_from_directory is utils.text_dataset_from_directory
    assert rt.keras.preprocessing.timeseries_dataset_from_array is \
        utils.timeseries_dataset_from_array


def test_split_dataset_keeps_nested_structures_and_shapes():
    rng = np.random.default_rng(0)
    f1, f2, labels = rng.random((100, 2)), rng.random((100, 10, 2)), rng.random((100, 1))
    nested = rt.data.Dataset.from_tensor_slices(((f1, f2), labels))
    left, right = utils.split_dataset(nested, left_size=0.2, right_size=0.8,
                                      preferred_backend="tensorflow")
    assert (int(left.cardinality()), int(right.cardinality())) == (20, 80)
    (x, y), lab = next(iter(right))
    assert (x.shape, y.shape, lab.shape) == ((2,), (10, 2), (1,))
    np.testing.assert_array_equal(y.numpy(), f2[20])
    ordered = rt.data.Dataset.from_tensor_slices({"y": f2, "x": f1, "labels": labels})
    left, _ = utils.split_dataset(ordered, left_size=5)
    first = next(iter(left))
    np.testing.assert_array_equal(first["x"].numpy(), f1[0])
    with pytest.raises(ValueError, match="torch"):
        utils.split_dataset(ordered, left_size=5, preferred_backend="torch")


def test_text_dataset_of_a_missing_directory_fails_as_keras(tmp_path, capsys):
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        utils.text_dataset_from_directory(tmp_path / "missing")
    with pytest.raises(ValueError, match="No text files found in directory"):
        utils.text_dataset_from_directory(tmp_path / "missing", labels=None)
    assert capsys.readouterr().out == "Found 0 files.\n"
