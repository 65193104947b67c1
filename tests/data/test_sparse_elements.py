"""Datasets of SparseTensors against TensorFlow's documented results (the sparse_tensor
guide's from_tensor_slices, batch, unbatch and map outputs) and NumPy on the dense values."""

import numpy as np

import runtime as rt

INDICES = [(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)]   # the guide's sparse_data


def sparse_data():
    return rt.sparse.SparseTensor(indices=INDICES, values=[1, 1, 1, 1, 1, 1], dense_shape=(6, 4))


def entries(sp):
    return {tuple(i): v for i, v in zip(np.asarray(sp.indices).tolist(),
                                        np.asarray(sp.values).tolist())}


def test_slices_are_the_rows_as_tensorflow_prints_them():
    dataset = rt.data.Dataset.from_tensor_slices(sparse_data())
    spec = dataset.element_spec
    assert isinstance(spec, rt.SparseTensorSpec)
    assert spec.shape.as_list() == [4] and spec.dtype is rt.int32
    rows = list(dataset)
    assert all(isinstance(r, rt.SparseTensor) for r in rows)
    assert [np.asarray(r.dense_shape).tolist() for r in rows] == [[4]] * 6
    assert [entries(r) for r in rows] == [{(0,): 1, (1,): 1, (2,): 1}, {}, {}, {},
                                          {(3,): 1}, {(0,): 1, (1,): 1}]


def test_batch_unbatch_and_map_as_the_guide():
    dataset = rt.data.Dataset.from_tensor_slices(sparse_data())
    batched = dataset.batch(2)
    assert batched.element_spec.shape.as_list() == [None, 4]
    batches = list(batched)
    assert [entries(b) for b in batches] == [{(0, 0): 1, (0, 1): 1, (0, 2): 1}, {},
                                             {(0, 3): 1, (1, 0): 1, (1, 1): 1}]
    assert [np.asarray(b.dense_shape).tolist() for b in batches] == [[2, 4]] * 3
    dense = np.zeros((6, 4), np.int32)
    dense[tuple(np.array(INDICES).T)] = 1
    for i, b in enumerate(batches):
        np.testing.assert_array_equal(rt.sparse.to_dense(b), dense[2 * i:2 * i + 2])
    again = [entries(r) for r in batched.unbatch()]
    assert again == [entries(r) for r in dataset]
    doubled = [entries(r) for r in dataset.map(lambda x: x * 2)]
    assert doubled[0] == {(0,): 2, (1,): 2, (2,): 2} and doubled[4] == {(3,): 2}


def test_from_tensors_keeps_explicit_zeros_and_strings():
    sp = rt.sparse.SparseTensor([[0, 1], [1, 0]], [0.0, 2.5], [2, 3])
    (element,) = list(rt.data.Dataset.from_tensors(sp))
    assert np.asarray(element.indices).tolist() == [[0, 1], [1, 0]]
    assert np.asarray(element.values).tolist() == [0.0, 2.5]
    words = rt.sparse.SparseTensor([[0, 0], [1, 2]], [b"a", b"b"], [2, 3])
    rows = list(rt.data.Dataset.from_tensor_slices((words, rt.constant([1, 2]))))
    assert [entries(w) for w, _ in rows] == [{(0,): b"a"}, {(2,): b"b"}]
    assert [int(n) for _, n in rows] == [1, 2]


def test_padded_batch_refuses_sparse_elements_as_tensorflow():
    import pytest
    ds = rt.data.Dataset.from_tensor_slices(sparse_data())
    with pytest.raises(TypeError, match="only supported for datasets that produce tensor "
                                        "elements.*SparseTensorSpec"):
        ds.padded_batch(2)
    assert list(rt.data.Dataset.range(3).padded_batch(2).as_numpy_iterator())[0].tolist() == [0, 1]
