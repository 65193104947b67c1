"""An element of a string tensor indexed inside a traced function is a scalar string tensor
(TensorFlow: shape (), dtype string), so it batches in a dataset as the tf.data guide's
parse_example pipeline does."""

import numpy as np

import runtime as rt


@rt.function
def first(x):
    return x[0]


@rt.function
def first_of_each(x):
    return x[:, 0]


def test_indexing_a_string_tensor_in_a_function_gives_a_scalar_tensor():
    result = first(rt.constant([b"a", b"bc"]))
    assert result.shape == rt.TensorShape([]) and result.dtype == rt.string
    assert result.numpy() == b"a"
    column = first_of_each(rt.constant([[b"a", b"x"], [b"b", b"y"]]))
    assert column.shape == rt.TensorShape([2]) and column.numpy().tolist() == [b"a", b"b"]


def test_mapped_string_scalars_batch():
    rows = [[b"a", b"1"], [b"b", b"2"], [b"c", b"3"]]
    dataset = rt.data.Dataset.from_tensor_slices(rows).map(lambda row: (row[0], row[1]))
    letters, digits = next(iter(dataset.batch(3)))
    assert letters.shape == rt.TensorShape([3])
    assert letters.numpy().tolist() == [r[0] for r in rows]
    assert np.asarray(digits).tolist() == [r[1] for r in rows]
