"""pad_sequences against Keras 3's docstring examples and documented rules."""

import numpy as np
import pytest

import runtime as rt

pad = rt.keras.utils.pad_sequences
SEQS = [[1], [2, 3], [4, 5, 6]]


def test_docstring_examples():
    np.testing.assert_array_equal(pad(SEQS), [[0, 0, 1], [0, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(pad(SEQS, value=-1), [[-1, -1, 1], [-1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(pad(SEQS, padding="post"), [[1, 0, 0], [2, 3, 0], [4, 5, 6]])
    np.testing.assert_array_equal(pad(SEQS, maxlen=2), [[0, 1], [2, 3], [5, 6]])
    assert pad(SEQS).dtype == np.int32


def test_truncating_post_and_same_function_under_preprocessing():
    got = rt.keras.preprocessing.sequence.pad_sequences(SEQS, maxlen=2, truncating="post")
    np.testing.assert_array_equal(got, [[0, 1], [2, 3], [4, 5]])
    assert rt.keras.preprocessing.sequence.pad_sequences is pad


def test_dtype_float_value_and_empty_sequences():
    got = pad([[], [1.5, 2.5]], dtype="float32", value=np.nan, maxlen=3)
    assert got.dtype == np.float32 and got.shape == (2, 3)
    assert np.isnan(got[0]).all() and np.isnan(got[1, 0])
    np.testing.assert_array_equal(got[1, 1:], [1.5, 2.5])


def test_steps_with_a_shape():
    got = pad([[[1, 2]], [[3, 4], [5, 6]]], padding="post")
    assert got.shape == (2, 2, 2)
    np.testing.assert_array_equal(got[0], [[1, 2], [0, 0]])
    with pytest.raises(ValueError, match="shape"):
        pad([[[1, 2]], [[3, 4, 5]]])


def test_strings():
    got = pad([["a"], ["b", "c"]], dtype=object, value="")
    assert got.tolist() == [["", "a"], ["b", "c"]]
    got = pad([["hi"], ["a", "bb"]], dtype="<U2", value="-", padding="post")
    assert got.tolist() == [["hi", "-"], ["a", "bb"]]
    with pytest.raises(ValueError, match="dtype=object"):
        pad([["a"]], value="x")


def test_bad_arguments():
    with pytest.raises(ValueError, match="padding"):
        pad(SEQS, padding="middle")
    with pytest.raises(ValueError, match="truncating"):
        pad(SEQS, truncating="middle")
    with pytest.raises(ValueError, match="iterables"):
        pad([1, 2])
    with pytest.raises(TypeError, match="padding"):
        pad(SEQS, paddding="post")
