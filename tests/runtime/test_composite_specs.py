"""RaggedTensorSpec and SparseTensorSpec: rt.function traces ragged and sparse arguments by
their TypeSpec, as TensorFlow 2.21 does (trace counts checked there); values against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


def test_ragged_tensors_of_one_spec_share_a_trace():
    traces = []

    @rt.function
    def total(r):
        traces.append(1)
        return rt.reduce_sum(r.values)

    assert total(rt.ragged.constant([[1, 2], [3]])).numpy() == 6
    assert total(rt.ragged.constant([[1, 2, 5, 6], [3]])).numpy() == 17
    assert len(traces) == 1          # TensorFlow: same nrows, ragged rank and dtype -> 1 trace
    assert total(rt.ragged.constant([[1], [3], [4]])).numpy() == 8
    assert len(traces) == 2          # another row count: TensorFlow traces again
    assert "RaggedTensorSpec(TensorShape([2, None]), rt.int32, 1, rt.int64)" in \
        total.pretty_printed_concrete_signatures()


def test_sparse_tensors_share_a_trace_whatever_their_number_of_entries():
    traces = []

    @rt.function
    def dense(s):
        traces.append(1)
        return rt.sparse.to_dense(s)

    one = dense(rt.sparse.SparseTensor([[0, 0]], [1.0], [2, 3]))
    two = dense(rt.sparse.SparseTensor([[0, 0], [1, 2]], [1.0, 4.0], [2, 3]))
    assert len(traces) == 1
    expected = np.zeros([2, 3], np.float32)
    expected[0, 0], expected[1, 2] = 1.0, 4.0
    np.testing.assert_array_equal(two.numpy(), expected)
    np.testing.assert_array_equal(one.numpy(), np.where(expected == 1.0, 1.0, 0.0))


def test_input_signature_takes_ragged_and_sparse_specs():
    @rt.function(input_signature=[rt.RaggedTensorSpec([None, None], rt.int32)])
    def lengths(r):
        return r.row_lengths()

    assert lengths(rt.ragged.constant([[1, 2], [3]])).numpy().tolist() == [2, 1]
    assert lengths(rt.ragged.constant([[1], [3], [4, 5, 6]])).numpy().tolist() == [1, 1, 3]
    assert lengths.experimental_get_tracing_count() == 1
    assert lengths.input_signature == (rt.RaggedTensorSpec([None, None], rt.int32),)
    with pytest.raises((TypeError, ValueError)):
        lengths(rt.ragged.constant([[1.0], [2.0]]))

    @rt.function(input_signature=[rt.SparseTensorSpec([None, 3], rt.float32)])
    def row_sums(s):
        return rt.sparse.reduce_sum(s, axis=1)

    sp = rt.sparse.SparseTensor([[0, 1], [1, 2], [1, 0]], [1.0, 2.0, 5.0], [2, 3])
    np.testing.assert_allclose(row_sums(rt.sparse.reorder(sp)).numpy(), [1.0, 7.0])


def test_specs_from_values_and_equality():
    r = rt.ragged.constant([[1, 2], [3]])
    spec = rt.type_spec_from_value(r)
    assert spec == rt.RaggedTensorSpec([2, None], rt.int32, 1, rt.int64)
    assert spec.ragged_rank == 1 and spec.dtype is rt.int32 and spec.shape.as_list() == [2, None]
    assert rt.RaggedTensorSpec([None, None], rt.int32) == rt.RaggedTensorSpec([None, None], rt.int32, 1)
    assert spec.is_compatible_with(rt.ragged.constant([[7], [8, 9, 10]]))
    assert not spec.is_compatible_with(rt.ragged.constant([[7], [8], [9]]))
    s = rt.sparse.SparseTensor([[0, 0]], [1.0], [2, 3])
    assert rt.type_spec_from_value(s) == rt.SparseTensorSpec([2, 3], rt.float32)
    assert hash(rt.SparseTensorSpec([2, 3])) == hash(rt.SparseTensorSpec([2, 3], rt.float32))
    with pytest.raises(ValueError, match="ragged_rank"):
        rt.RaggedTensorSpec(None, rt.int32)
    with pytest.raises(ValueError, match="row_splits_dtype"):
        rt.RaggedTensorSpec([None, None], rt.int32, row_splits_dtype=rt.float32)


def test_gradients_flow_through_the_values_of_a_ragged_argument():
    @rt.function
    def squares(r):
        return rt.reduce_sum(r.values * r.values)

    v = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(v)
        y = squares(rt.RaggedTensor.from_row_splits(v, [0, 2, 3]))
    assert y.numpy() == pytest.approx(14.0)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 2 * np.float32([1, 2, 3]))


def test_cond_and_while_loop_carry_ragged_and_sparse_arguments():
    a = rt.ragged.constant([[1, 2], [3]])
    b = rt.ragged.constant([[4], [5, 6, 7]])

    @rt.function
    def pick(p, x, y):
        return rt.cond(p, lambda: x, lambda: y)

    assert pick(rt.constant(True), a, b).to_list() == [[1, 2], [3]]
    assert pick(rt.constant(False), a, b).to_list() == [[4], [5, 6, 7]]

    @rt.function
    def times_eight(r):
        return rt.while_loop(lambda i, _: i < 3, lambda i, x: (i + 1, x * 2), [rt.constant(0), r])[1]

    assert times_eight(a).to_list() == [[8, 16], [24]]
    assert times_eight(b).to_list() == [[32], [40, 48, 56]]
    assert times_eight.experimental_get_tracing_count() == 1   # one RaggedTensorSpec([2, None])

    @rt.function
    def same(p, s):
        return rt.cond(p, lambda: s, lambda: s)

    sp = rt.sparse.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    np.testing.assert_array_equal(rt.sparse.to_dense(same(rt.constant(True), sp)).numpy(),
                                  np.diag(np.float32([1, 2])))


def test_saved_functions_take_ragged_and_sparse_arguments(tmp_path):
    class Grower(rt.Module):
        def __init__(self):
            super().__init__()
            self.v = rt.Variable(100.0)

        @rt.function
        def grow(self, x):
            return x * self.v

        @rt.function
        def dense(self, s):
            return rt.sparse.to_dense(s) * self.v

    module = Grower()
    module.grow.get_concrete_function(rt.RaggedTensorSpec(shape=[None, None], dtype=rt.float32))
    module.dense.get_concrete_function(rt.SparseTensorSpec([None, None], rt.float32))
    rt.saved_model.save(module, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    grown = loaded.grow(rt.ragged.constant([[1.0, 4.0, 3.0], [2.0]]))
    assert grown.to_list() == [[100.0, 400.0, 300.0], [200.0]]   # TensorFlow's ragged guide
    sp = rt.sparse.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    np.testing.assert_array_equal(loaded.dense(sp).numpy(), [[0.0, 100.0], [200.0, 0.0]])
