"""keras.datasets loaders on small fixture files in Keras's layouts, served from file:// URLs.

The expected values follow Keras 3's documented recipe in plain NumPy: a
`np.random.RandomState(seed)` shuffle of the indices, then the split and word-index steps.
"""

import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile

import numpy as np
import pytest

import runtime as rt
from runtime.keras.datasets import sources

ds = rt.keras.datasets


def _sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def origin(tmp_path, monkeypatch):
    """A folder served as ORIGIN_FOLDER, and the cache under KERAS_HOME."""
    folder = tmp_path / "origin"
    folder.mkdir()
    monkeypatch.setattr(sources, "ORIGIN_FOLDER", "file://" + str(folder) + "/")
    monkeypatch.setattr(sources, "CIFAR_ORIGIN_FOLDER", "file://" + str(folder) + "/")
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    return folder


def test_mnist(origin, monkeypatch, tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"x_train": rng.integers(0, 256, (4, 28, 28), dtype=np.uint8),
              "y_train": np.array([5, 0, 4, 1], np.uint8),
              "x_test": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
              "y_test": np.array([7, 2], np.uint8)}
    np.savez(origin / "mnist.npz", **arrays)
    monkeypatch.setattr(ds.mnist, "_HASH", _sha(origin / "mnist.npz"))
    (x_train, y_train), (x_test, y_test) = ds.mnist.load_data()
    for got, key in ((x_train, "x_train"), (y_train, "y_train"), (x_test, "x_test"),
                     (y_test, "y_test")):
        np.testing.assert_array_equal(got, arrays[key])
        assert got.dtype == np.uint8
    assert os.path.exists(tmp_path / "home" / "datasets" / "mnist.npz")


def test_a_wrong_file_is_refused_by_keras_hash(origin):
    np.savez(origin / "mnist.npz", x_train=np.zeros(1))
    with pytest.raises(ValueError, match="hash does not match"):
        ds.mnist.load_data()


def _idx_gz(path, header, data):
    with gzip.open(path, "wb") as out:
        out.write(header + data.tobytes())


def test_fashion_mnist(origin, tmp_path):
    x = np.arange(3 * 28 * 28, dtype=np.uint8).reshape(3, 28, 28)
    y = np.array([9, 0, 3], np.uint8)
    _idx_gz(origin / "train-labels-idx1-ubyte.gz", b"\0" * 8, y)
    _idx_gz(origin / "train-images-idx3-ubyte.gz", b"\0" * 16, x)
    _idx_gz(origin / "t10k-labels-idx1-ubyte.gz", b"\0" * 8, y[:1])
    _idx_gz(origin / "t10k-images-idx3-ubyte.gz", b"\0" * 16, x[:1])
    (x_train, y_train), (x_test, y_test) = ds.fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, x)
    np.testing.assert_array_equal(y_train, y)
    assert x_test.shape == (1, 28, 28) and y_test.tolist() == [9]
    assert os.path.isdir(tmp_path / "home" / "datasets" / "fashion-mnist")


def _cifar_tar(path, top, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, obj in members.items():
            data = pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_cifar10_channels_last(origin, monkeypatch):
    rng = np.random.default_rng(1)
    batches = {}
    for i in range(1, 6):
        batches[f"data_batch_{i}"] = {b"data": rng.integers(0, 256, (2, 3072), dtype=np.uint8),
                                      b"labels": [i, i + 1]}
    batches["test_batch"] = {b"data": rng.integers(0, 256, (1, 3072), dtype=np.uint8),
                             b"labels": [9]}
    _cifar_tar(origin / "cifar-10-python.tar.gz", "cifar-10-batches-py", batches)
    monkeypatch.setattr(ds.cifar10, "_HASH", _sha(origin / "cifar-10-python.tar.gz"))
    (x_train, y_train), (x_test, y_test) = ds.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_train.dtype == np.uint8
    first = batches["data_batch_1"][b"data"][0].reshape(3, 32, 32).transpose(1, 2, 0)
    np.testing.assert_array_equal(x_train[0], first)
    assert y_train[:, 0].tolist() == [1, 2, 2, 3, 3, 4, 4, 5, 5, 6]
    assert x_test.shape == (1, 32, 32, 3) and y_test.tolist() == [[9]]


def test_cifar100_label_modes(origin, monkeypatch):
    data = np.arange(2 * 3072, dtype=np.uint8).reshape(2, 3072) % 251
    part = {b"data": data, b"fine_labels": [42, 7], b"coarse_labels": [3, 1]}
    _cifar_tar(origin / "cifar-100-python.tar.gz", "cifar-100-python",
               {"train": part, "test": part})
    monkeypatch.setattr(ds.cifar100, "_HASH", _sha(origin / "cifar-100-python.tar.gz"))
    (x_train, y_train), _ = ds.cifar100.load_data()
    assert x_train.shape == (2, 32, 32, 3) and y_train.tolist() == [[42], [7]]
    assert ds.cifar100.load_data(label_mode="coarse")[1][1].tolist() == [[3], [1]]
    with pytest.raises(ValueError, match="label_mode"):
        ds.cifar100.load_data(label_mode="medium")


def test_cifar_pickle_with_foreign_globals_is_refused(tmp_path):
    path = tmp_path / "evil"
    path.write_bytes(pickle.dumps({b"data": os.getcwd}))
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        ds.cifar.load_batch(str(path))


def _ragged(seqs):
    out = np.empty(len(seqs), dtype=object)
    out[:] = [list(s) for s in seqs]
    return out


def _keras_words(seqs, num_words, skip_top=0, start=1, oov=2, index_from=3):
    seqs = [[start] + [w + index_from for w in s] for s in seqs]
    top = num_words or max(max(s) for s in seqs)
    return [[w if skip_top <= w < top else oov for w in s] for s in seqs]


IMDB_TRAIN = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], [1], [2, 2]]
IMDB_TEST = [[3, 4], [5, 6, 7], [8]]


@pytest.fixture
def imdb(origin, monkeypatch):
    np.savez(origin / "imdb.npz", x_train=_ragged(IMDB_TRAIN), y_train=np.array([0, 1, 0, 1, 1]),
             x_test=_ragged(IMDB_TEST), y_test=np.array([1, 0, 0]))
    monkeypatch.setattr(ds.imdb, "_HASH", _sha(origin / "imdb.npz"))
    (origin / "imdb_word_index.json").write_text(json.dumps({"the": 1, "and": 2}))
    monkeypatch.setattr(ds.imdb, "_INDEX_HASH",
                        hashlib.md5((origin / "imdb_word_index.json").read_bytes()).hexdigest())
    return origin


def test_imdb_shuffle_and_word_indices(imdb):
    rng = np.random.RandomState(113)
    train_order, test_order = np.arange(5), np.arange(3)
    rng.shuffle(train_order)
    rng.shuffle(test_order)
    (x_train, y_train), (x_test, y_test) = ds.imdb.load_data(num_words=10)
    assert x_train.dtype == object and x_train.shape == (5,)
    expect = _keras_words([IMDB_TRAIN[i] for i in train_order] +
                          [IMDB_TEST[i] for i in test_order], 10)
    assert [list(s) for s in x_train] + [list(s) for s in x_test] == expect
    assert y_train.tolist() == np.array([0, 1, 0, 1, 1])[train_order].tolist()
    assert y_test.tolist() == np.array([1, 0, 0])[test_order].tolist()
    assert ds.imdb.get_word_index() == {"the": 1, "and": 2}


def test_imdb_maxlen_skip_top_and_no_oov(imdb):
    (x_train, _), (x_test, _) = ds.imdb.load_data(maxlen=4, skip_top=5, oov_char=None,
                                                   start_char=None, index_from=0, seed=0)
    rng = np.random.RandomState(0)
    train_order, test_order = np.arange(5), np.arange(3)
    rng.shuffle(train_order)
    rng.shuffle(test_order)
    kept = [s for s in (IMDB_TRAIN[i] for i in train_order) if len(s) < 4]
    assert [list(s) for s in x_train] == [[w for w in s if w >= 5] for s in kept]
    assert len(x_test) == 3
    with pytest.raises(ValueError, match="maxlen"):
        ds.imdb.load_data(maxlen=1)


def test_reuters_split_and_labels(origin, monkeypatch):
    seqs = [[i, i + 1] for i in range(10)]
    np.savez(origin / "reuters.npz", x=_ragged(seqs), y=np.arange(10))
    monkeypatch.setattr(ds.reuters, "_HASH", _sha(origin / "reuters.npz"))
    (x_train, y_train), (x_test, y_test) = ds.reuters.load_data(test_split=0.3, seed=5)
    order = np.arange(10)
    np.random.RandomState(5).shuffle(order)
    assert y_train.tolist() == order[:7].tolist() and y_test.tolist() == order[7:].tolist()
    expect = _keras_words([seqs[i] for i in order], None)
    assert [list(s) for s in x_train] + [list(s) for s in x_test] == expect
    names = ds.reuters.get_label_names()
    assert len(names) == 46 and names[:3] == ("cocoa", "grain", "veg-oil")


@pytest.mark.parametrize("name, n, features", [("boston_housing", 20, 13),
                                                ("california_housing", 700, 8)])
def test_housing_shuffle_and_split(origin, monkeypatch, name, n, features):
    x = np.arange(n * features, dtype=np.float64).reshape(n, features)
    y = np.arange(n, dtype=np.float32)
    np.savez(origin / f"{name}.npz", x=x, y=y)
    module = getattr(ds, name)
    monkeypatch.setattr(module, "_HASH", _sha(origin / f"{name}.npz"))
    (x_train, y_train), (x_test, y_test) = module.load_data(test_split=0.25, seed=7)
    order = np.arange(n)
    np.random.RandomState(7).shuffle(order)
    cut = int(n * 0.75)
    np.testing.assert_array_equal(x_train, x[order[:cut]])
    np.testing.assert_array_equal(y_test, y[order[cut:]])
    assert y_train.dtype == np.float32 and x_test.shape == (n - cut, features)
    with pytest.raises(ValueError, match="test_split"):
        module.load_data(test_split=1.0)


def test_california_small_version(origin, monkeypatch):
    x = np.arange(700 * 8, dtype=np.float64).reshape(700, 8)
    np.savez(origin / "california_housing.npz", x=x, y=np.arange(700.0))
    monkeypatch.setattr(ds.california_housing, "_HASH", _sha(origin / "california_housing.npz"))
    (x_train, y_train), (x_test, _) = ds.california_housing.load_data(version="small")
    assert len(x_train) + len(x_test) == 600 and len(x_train) == 480
    assert y_train.max() < 600
    with pytest.raises(ValueError, match="version"):
        ds.california_housing.load_data(version="medium")
