"""rt.ragged / rt.RaggedTensor against plain Python lists, eagerly, staged and compiled."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

ROWS = [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]


def _pad(rows, default=0):
    width = max((len(r) for r in rows), default=0)
    return np.array([list(r) + [default] * (width - len(r)) for r in rows])


def test_constant_structure_and_repr():
    r = rt.ragged.constant(ROWS)
    assert isinstance(r, rt.RaggedTensor) and rt.ragged.RaggedTensor is rt.RaggedTensor
    assert repr(r) == "<rt.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>"
    assert r.dtype == rt.int32
    assert r.shape.as_tuple() == (4, None)
    assert int(r.nrows()) == 4
    np.testing.assert_array_equal(r.values.numpy(), np.arange(10))
    np.testing.assert_array_equal(r.flat_values.numpy(), np.arange(10))
    np.testing.assert_array_equal(r.row_splits.numpy(), [0, 4, 6, 9, 10])
    assert r.row_splits.dtype == rt.int64
    np.testing.assert_array_equal(r.row_lengths().numpy(), [4, 2, 3, 1])
    np.testing.assert_array_equal(r.value_rowids().numpy(), [0, 0, 0, 0, 1, 1, 2, 2, 2, 3])
    assert r.to_list() == ROWS
    assert rt.ragged.constant(ROWS, dtype=rt.float64).dtype == rt.float64


def test_numpy_is_object_array_of_rows():
    out = rt.ragged.constant(ROWS).numpy()
    assert out.dtype == object and out.shape == (4,)
    for got, want in zip(out, ROWS):
        np.testing.assert_array_equal(got, want)


def test_nested_and_ragged_rank():
    pylist = [[[1, 2], [3]], [], [[4, 5, 6]]]
    r = rt.ragged.constant(pylist)
    assert r.ragged_rank == 2 and r.shape.as_tuple() == (3, None, None)
    assert r.to_list() == pylist
    dense = r.to_tensor().numpy()
    want = np.zeros((3, 2, 3), np.int32)
    for i, row in enumerate(pylist):
        for j, inner in enumerate(row):
            want[i, j, :len(inner)] = inner
    np.testing.assert_array_equal(dense, want)
    assert r[0].to_list() == [[1, 2], [3]]
    uniform = rt.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
    assert uniform.ragged_rank == 1 and uniform.shape.as_tuple() == (2, None, 2)
    assert uniform.flat_values.shape.as_tuple() == (3, 2)


def test_constant_errors():
    with pytest.raises(ValueError, match="nesting depth"):
        rt.ragged.constant([[1, [2]], [3]])
    with pytest.raises(ValueError, match="ragged_rank"):
        rt.ragged.constant([[1], [2, 3]], ragged_rank=3)


def test_rt_constant_of_a_ragged_list_raises_value_error():
    with pytest.raises(ValueError, match="non-rectangular"):
        rt.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="non-rectangular"):
        rt.constant([[1, 2], [3]], dtype=rt.float32)


def test_factories():
    a = rt.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5])
    b = rt.RaggedTensor.from_row_lengths([3, 1, 4, 1, 5], [2, 0, 3])
    c = rt.RaggedTensor.from_value_rowids([3, 1, 4, 1, 5], [0, 0, 2, 2, 2])
    for r in (a, b, c):
        assert r.to_list() == [[3, 1], [], [4, 1, 5]]
    d = rt.RaggedTensor.from_value_rowids([3, 1], [0, 2], nrows=4)
    assert d.to_list() == [[3], [], [1], []]
    e = rt.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], padding=0)
    assert e.to_list() == [[1, 2], [3]]
    f = rt.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3])
    assert f.to_list() == [[1], [3, 0, 0]]


def test_factory_validation():
    with pytest.raises(InvalidArgumentError, match="start at 0"):
        rt.RaggedTensor.from_row_splits([1, 2], [1, 2])
    with pytest.raises(InvalidArgumentError, match="decrease"):
        rt.RaggedTensor.from_row_splits([1, 2], [0, 2, 1, 2])
    with pytest.raises(InvalidArgumentError, match="end at"):
        rt.RaggedTensor.from_row_splits([1, 2, 3], [0, 2])
    with pytest.raises(InvalidArgumentError, match="negative"):
        rt.RaggedTensor.from_row_lengths([1, 2], [3, -1])
    with pytest.raises(TypeError, match="row_splits"):
        rt.RaggedTensor.from_row_splits([1, 2], [0.0, 2.5])


def test_to_tensor_default_and_shape():
    r = rt.ragged.constant(ROWS)
    np.testing.assert_array_equal(r.to_tensor().numpy(), _pad(ROWS))
    np.testing.assert_array_equal(r.to_tensor(default_value=-1).numpy(), _pad(ROWS, -1))
    np.testing.assert_array_equal(r.to_tensor(shape=[5, 3]).numpy(),
                                  np.pad(_pad(ROWS), [[0, 1], [0, 0]])[:, :3])
    np.testing.assert_array_equal(r.bounding_shape().numpy(), [4, 4])


def test_getitem():
    r = rt.ragged.constant(ROWS)
    for i, row in enumerate(ROWS):
        np.testing.assert_array_equal(r[i].numpy(), row)
    np.testing.assert_array_equal(r[-1].numpy(), ROWS[-1])
    assert r[1:3].to_list() == ROWS[1:3]
    assert r[:].to_list() == ROWS
    assert int(r[2, 1]) == ROWS[2][1]
    with pytest.raises(IndexError):
        r[4]
    with pytest.raises(TypeError):
        r["a"]
    assert [row.numpy().tolist() for row in r] == ROWS


def test_arithmetic_and_map_flat_values():
    r = rt.ragged.constant(ROWS, dtype=rt.float32)
    assert (r + 1).to_list() == [[v + 1 for v in row] for row in ROWS]
    assert (2 - r).to_list() == [[2 - v for v in row] for row in ROWS]
    assert (r * r).to_list() == [[v * v for v in row] for row in ROWS]
    assert (r / 2).to_list() == [[v / 2 for v in row] for row in ROWS]
    assert (-r).to_list() == [[-v for v in row] for row in ROWS]
    assert rt.ragged.map_flat_values(rt.square, r).to_list() == [[v * v for v in row] for row in ROWS]
    assert rt.ragged.map_flat_values(rt.add, r, r).to_list() == [[2 * v for v in row] for row in ROWS]
    other = rt.ragged.constant([[1.0], [2, 3, 4], [5, 6], [7, 8, 9, 10]])
    with pytest.raises(InvalidArgumentError, match="row structures"):
        r + other
    with pytest.raises(InvalidArgumentError, match="does not broadcast"):
        r + np.ones(3, np.float32)   # 3 against rows of lengths 1..4, as TensorFlow refuses


def test_range_and_boolean_mask():
    assert rt.ragged.range([3, 5]).to_list() == [[0, 1, 2], [0, 1, 2, 3, 4]]
    assert rt.ragged.range([0, 5], [3, 8], 2).to_list() == [[0, 2], [5, 7]]
    masked = rt.ragged.boolean_mask([[1, 2], [3, 4]], [[True, False], [True, True]])
    assert masked.to_list() == [[1], [3, 4]]


def test_gradient_through_to_tensor():
    r = rt.ragged.constant(ROWS)
    v = rt.Variable(np.arange(10.0))
    weights = np.arange(16.0).reshape(4, 4)
    with rt.GradientTape() as tape:
        rr = rt.RaggedTensor.from_row_splits(v * 1.0, r.row_splits)
        y = rt.reduce_sum(rr.to_tensor(default_value=5.0) * weights)
    grad = tape.gradient(y, v).numpy()
    want = np.concatenate([weights[i, :len(row)] for i, row in enumerate(ROWS)])
    np.testing.assert_allclose(grad, want)


@pytest.mark.parametrize("jit", [False, True])
def test_staged_ragged_argument(jit):
    def f(x):
        return x.to_tensor(default_value=-1.0), x.row_lengths(), (x * 2.0 + 1.0).flat_values

    staged = rt.function(f, jit_compile=jit)
    r = rt.ragged.constant(ROWS, dtype=rt.float32)
    for got, want in zip(staged(r), f(r)):
        np.testing.assert_allclose(got.numpy(), want.numpy())


def test_staged_ragged_result():
    @rt.function
    def f(x):
        return x + 1

    out = f(rt.ragged.constant(ROWS))
    assert isinstance(out, rt.RaggedTensor)
    assert out.to_list() == [[v + 1 for v in row] for row in ROWS]


def test_row_operations_work_in_a_fresh_interpreter():
    """Indexing, boolean_mask, stack and to_sparse load the ragged row operations on first use
    (nothing else has loaded them in a new process)."""
    import subprocess
    import sys
    program = ("import sys\n"
               "import runtime as rt\n"
               "r = rt.ragged.constant([[1, 2], [3]])\n"
               "assert 'runtime.ops.ragged_ops' not in sys.modules\n"
               "assert int(r[0, 1]) == 2\n"
               "mask = rt.ragged.constant([[True, False], [True]])\n"
               "assert rt.ragged.boolean_mask(r, mask).to_list() == [[1], [3]]\n"
               "assert rt.ragged.stack([r, rt.ragged.constant([[4]])]).to_list() == "
               "[[[1, 2], [3]], [[4]]]\n"
               "assert r.to_sparse().values.numpy().tolist() == [1, 2, 3]\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
