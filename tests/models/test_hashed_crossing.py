"""keras.layers.HashedCrossing: bins as Keras 3.15 on TensorFlow 2.21 prints them (values
recorded with `keras.layers.HashedCrossing(num_bins=...)((a, b))` there), and the crossing
as tf.sparse.cross_hashed defines it (FingerprintCat64 of FarmHash fingerprints)."""

import numpy as np
import pytest

import runtime as rt
from runtime.layers.preprocessing.farmhash import fingerprint64
from runtime.layers.preprocessing.hashed_crossing import fingerprint_cat64

L = rt.keras.layers
A = np.array([1, 2, 3, 42])
B = np.array([b"A", b"B", b"C", b"xyz"])


def test_bins_are_keras():
    np.testing.assert_array_equal(L.HashedCrossing(num_bins=100)((A, B)), [97, 13, 78, 76])
    np.testing.assert_array_equal(L.HashedCrossing(num_bins=100)((A, A * 3)), [51, 36, 80, 99])
    np.testing.assert_array_equal(L.HashedCrossing(num_bins=7)((A, B, A)), [0, 2, 2, 4])
    column = L.HashedCrossing(num_bins=100)((np.array([[1], [2]]), np.array([[b"a"], [b"b"]])))
    assert column.shape == (2, 1) and column.dtype == rt.int64
    np.testing.assert_array_equal(column, [[45], [49]])
    assert int(L.HashedCrossing(num_bins=100)((np.int64(3), b"q"))) == 43
    strings = L.HashedCrossing(num_bins=100)((np.array(["A"]), np.array(["B"])))
    want = fingerprint_cat64(fingerprint_cat64(0xDECAFCAFFE, fingerprint64(b"A")),
                             fingerprint64(b"B")) % 100
    assert int(strings[0]) == want


def test_one_hot_and_config():
    layer = L.HashedCrossing(num_bins=5, output_mode="one_hot")
    out = layer((A, B))
    assert out.dtype == rt.float32
    np.testing.assert_array_equal(out, np.eye(5)[[2, 3, 3, 1]])
    assert layer((np.int64(3), b"q")).shape == (1, 5)
    config = layer.get_config()
    config.pop("name")
    assert config == {"num_bins": 5, "output_mode": "one_hot", "sparse": False,
                      "dtype": "float32"}
    assert L.HashedCrossing(num_bins=7).get_config()["dtype"] == "int64"


def test_staged_call_matches_eager():
    layer = L.HashedCrossing(num_bins=100)
    fn = rt.function(lambda a, b: layer((a, b)))
    np.testing.assert_array_equal(fn(rt.constant(A), rt.constant(B)), [97, 13, 78, 76])


def test_errors_are_keras():
    with pytest.raises(ValueError, match="at least two inputs"):
        L.HashedCrossing(num_bins=10)((A,))
    with pytest.raises(ValueError, match=r"shape `\(\)`, `\(batch_size\)`"):
        L.HashedCrossing(num_bins=10)((np.zeros((2, 2), "int64"),) * 2)
    with pytest.raises(ValueError, match="integer or string dtype"):
        L.HashedCrossing(num_bins=10)((np.zeros(2, "float32"), np.zeros(2, "int64")))
    with pytest.raises(ValueError, match="output_mode"):
        L.HashedCrossing(num_bins=7, output_mode="multi_hot")
