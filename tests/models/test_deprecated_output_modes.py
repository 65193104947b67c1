"""Keras 3's deprecated `output_mode` names, still accepted ("binary" for "multi_hot",
"tf-idf" for "tf_idf"); the numbers were printed by Keras 3.15 for the same calls."""

import numpy as np
import pytest

from runtime import keras

L = keras.layers


def test_text_vectorization_binary_is_multi_hot():
    layer = L.TextVectorization(output_mode="binary", vocabulary=["a", "b", "c"])
    assert layer(np.array(["a c c", "b z"])).numpy().tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert layer.get_config()["output_mode"] == "multi_hot"


def test_lookups_take_binary_and_tf_dash_idf():
    tf_idf = L.StringLookup(output_mode="tf-idf", vocabulary=["a", "b"], idf_weights=[0.5, 2.0])
    np.testing.assert_allclose(tf_idf(np.array([["a", "b", "b", "z"]])).numpy(),
                               [[1.25, 0.5, 4.0]])
    binary = L.IntegerLookup(output_mode="binary", vocabulary=[5, 7])
    assert binary(np.array([[5, 9]])).numpy().tolist() == [[1, 1, 0]]
    assert binary.get_config()["output_mode"] == "multi_hot"


def test_category_encoding_takes_binary_only():
    layer = L.CategoryEncoding(num_tokens=3, output_mode="binary")
    assert layer(np.array([[0, 2, 2]])).numpy().tolist() == [[1.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="output_mode"):
        L.CategoryEncoding(num_tokens=3, output_mode="tf-idf")
