"""Edge values on the Numba tier: what the NumPy tier gives, bit for bit, or the error it raises.

Oracles: NumPy (signed zeros of np.sign / np.maximum / np.minimum, `g * (x > 0)` for ReluGrad),
plain Python (saturating casts, empty reductions' identities, bounds), and TensorFlow's
documented errors ("Integer division by zero", "indices[0] = -1 is not in [0, 3)").
"""

import numpy as np
import pytest

import runtime as rt
from tests.reliability.test_invalid_values import saturated  # the rule in plain Python


def numba(fn):
    return rt.function(fn, jit_compile=True)


def bits(value) -> np.ndarray:
    """The raw bits of a float array: -0.0 and 0.0 differ, NaNs compare equal."""
    array = np.asarray(value)
    return array.view({4: np.uint32, 8: np.uint64}[array.dtype.itemsize])


# -- signed zeros and NaN: sign, maximum, minimum, relu and its gradient ---------------------------

A = [-0.0, 0.0, -0.0, 0.0, np.nan, 1.0, -1.0, np.nan, np.inf, -np.inf]
B = [0.0, -0.0, -0.0, 0.0, 1.0, np.nan, -0.0, np.nan, -np.inf, np.inf]


def _zeros_program(a, b):
    return (rt.sign(a), rt.maximum(a, b), rt.minimum(a, b), rt.nn.relu(a),
            rt.sign(a * b) + 0.0 * b, rt.maximum(a * 1.0, b) * 1.0)   # fused forms


def _numpy_zeros(a, b):
    with np.errstate(all="ignore"):
        return (np.sign(a), np.maximum(a, b), np.minimum(a, b), np.maximum(a, 0),
                np.sign(a * b) + 0.0 * b, np.maximum(a * 1.0, b) * 1.0)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_and_nan_are_numpys_bit_for_bit(dtype):
    a, b = np.array(A, dtype), np.array(B, dtype)
    got = numba(_zeros_program)(rt.constant(a), rt.constant(b))
    for k, (value, expected) in enumerate(zip(got, _numpy_zeros(a, b))):
        np.testing.assert_array_equal(bits(value.numpy()), bits(expected), err_msg=f"output {k}")


def test_scalar_signed_zeros_are_numpys():
    fn = numba(lambda a, b: (rt.sign(a), rt.maximum(a, b), rt.minimum(a, b), rt.nn.relu(a)))
    for x, y in [(-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0), (np.nan, 1.0), (1.0, np.nan)]:
        a, b = np.float32(x), np.float32(y)
        got = fn(rt.constant(a), rt.constant(b))
        expected = (np.sign(a), np.maximum(a, b), np.minimum(a, b), np.maximum(a, np.float32(0)))
        for value, want in zip(got, expected):
            assert bits(value.numpy()) == bits(want), (x, y)


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # inf * 0, NumPy's warning
def test_relu_gradient_with_nan_and_inf_upstream_is_g_times_mask():
    """ReluGrad is `g * (x > 0)`: a NaN or inf upstream gradient at x <= 0 gives NaN on
    every tier, as TensorFlow's kernel does."""
    def grad(x, g):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.relu(x)
        return tape.gradient(y, x, output_gradients=g)

    x = np.array([0.0, -1.0, 1.0, 0.0, -0.0, 2.0], np.float32)
    g = np.array([np.nan, np.inf, np.nan, -np.inf, 1.0, -np.inf], np.float32)
    with np.errstate(invalid="ignore"):
        expected = g * (x > 0)
    for tier in (grad, rt.function(grad), numba(grad)):
        np.testing.assert_array_equal(bits(tier(rt.constant(x), rt.constant(g)).numpy()),
                                      bits(expected))


# -- saturating casts --------------------------------------------------------------------------------



SPECIAL = [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 0.5, -0.5, 255.9, 256.0, -1.0, 1e20,
           -1e20, 2147483520.0, -2147483648.0]


@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_float_to_int_casts_saturate(source):
    targets = [rt.int8, rt.uint8, rt.int32, rt.int64, rt.uint16]
    x = np.array(SPECIAL, source)
    fn = numba(lambda v: tuple(rt.cast(v, t) for t in targets)
               + tuple(rt.cast(v * 1.0, t) + 0 for t in targets))   # fused forms too
    got = fn(rt.constant(x))
    for value, target in zip(got, targets + targets):
        assert value.dtype is target
        assert value.numpy().tolist() == [saturated(float(v), target) for v in x], target


def test_scalar_float_to_int_casts_saturate():
    fn = numba(lambda v: (rt.cast(v, rt.int32), rt.cast(v, rt.uint8)))
    for value in [np.nan, np.inf, -np.inf, -5e9, -2.5, 300.0]:
        got = fn(rt.constant(np.float32(value)))
        assert [int(t.numpy()) for t in got] == [saturated(value, rt.int32),
                                                  saturated(value, rt.uint8)]


# -- integer division by zero -------------------------------------------------------------------------

def test_integer_division_by_zero_raises_and_floats_keep_ieee():
    fn = numba(lambda a, b: (a // b, a % b, (a + 1) // b * 2))   # plain and fused
    a, b = [7, -7, 7, -7], [2, 2, -2, -2]
    q, r, fused = fn(rt.constant(a), rt.constant(b))
    assert q.numpy().tolist() == [x // y for x, y in zip(a, b)]
    assert r.numpy().tolist() == [x % y for x, y in zip(a, b)]
    assert fused.numpy().tolist() == [(x + 1) // y * 2 for x, y in zip(a, b)]
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(rt.constant(a), rt.constant([1, 0, 1, 1]))
    scalar = numba(lambda a, b: (a // b, a % b))
    assert [int(t.numpy()) for t in scalar(rt.constant(-7), rt.constant(2))] == [-7 // 2, -7 % 2]
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        scalar(rt.constant(5), rt.constant(0))
    x, zeros = np.array([1.0, -1.0, 0.0], np.float32), np.zeros(3, np.float32)
    with np.errstate(all="ignore"):
        expected = (np.floor_divide(x, zeros), np.remainder(x, zeros))
    for value, want in zip(scalar(rt.constant(x), rt.constant(zeros)), expected):
        np.testing.assert_array_equal(value.numpy(), want)


def test_integer_division_by_zero_raises_in_a_loop_large_enough_for_threads(monkeypatch):
    """Numba drops an exception raised inside a parallel loop: a fused loop that may raise
    runs serially whatever its size (the threshold is lowered here to keep the test small)."""
    from runtime.backends.numba import fusion
    monkeypatch.setattr(fusion, "PARALLEL_MIN_SIZE", 1024)
    fn = numba(lambda a, b: ((a + 1) // b * 2, (a * 3) % (b + 1)))
    a, b = np.arange(4096, dtype=np.int32), np.ones(4096, np.int32)
    q, r = fn(rt.constant(a), rt.constant(b))
    np.testing.assert_array_equal(q.numpy(), (a + 1) // b * 2)
    np.testing.assert_array_equal(r.numpy(), (a * 3) % (b + 1))
    b[2048] = 0
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(rt.constant(a), rt.constant(b))


# -- indices out of range -----------------------------------------------------------------------------

def test_gather_refuses_negative_and_past_the_end_indices():
    fn = numba(lambda x, i, j: (rt.gather(x, i), rt.gather(x, j)))
    x = rt.constant([1.0, 2.0, 3.0])
    got = fn(x, rt.constant([2, 0]), rt.constant(1))
    assert got[0].numpy().tolist() == [3.0, 1.0] and got[1].numpy() == 2.0
    for vector, scalar, message in [([-1], 0, r"indices\[0\] = -1 is not in \[0, 3\)"),
                                    ([0, 3], 0, r"indices\[1\] = 3 is not in \[0, 3\)"),
                                    ([0], -1, r"indices = -1 is not in \[0, 3\)")]:
        with pytest.raises(rt.errors.InvalidArgumentError, match=message):
            fn(x, rt.constant(vector), rt.constant(scalar))


def test_basic_indexing_with_an_index_tensor_checks_its_axis():
    """x[i] with i out of range raises as on the NumPy tier (Numba read past the buffer);
    negative indices count from the end, as in Python and TensorFlow."""
    fn = numba(lambda x, i: (x[i], x[1, i], x[..., i], x[None, i % 2, 1:]))
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    got = fn(rt.constant(x), rt.constant(-1))
    expected = (x[-1], x[1, -1], x[..., -1], x[None, -1 % 2, 1:])
    for value, want in zip(got, expected):
        np.testing.assert_array_equal(value.numpy(), want)
    for bad in (2, -3, 3, -4):   # x[i] needs -2 <= i < 2, x[1, i] -3 <= i < 3
        with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds"):
            fn(rt.constant(x), rt.constant(bad))
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.function(lambda x, i: x[i])(rt.constant(x), rt.constant(2))   # the NumPy tier's


def test_a_literal_index_into_an_axis_of_unknown_size_is_checked():
    fn = rt.function(lambda x: (x[2], x[-3]), jit_compile=True,
                     input_signature=[rt.TensorSpec([None])])
    assert [float(t.numpy()) for t in fn(rt.constant([1.0, 2.0, 3.0]))] == [3.0, 1.0]
    with pytest.raises(rt.errors.InvalidArgumentError, match="out of bounds"):
        fn(rt.constant([1.0, 2.0]))


# -- reductions of no elements ------------------------------------------------------------------------

def test_reductions_of_no_elements_are_their_identities():
    def program(f, i, b):
        return (rt.reduce_max(f), rt.reduce_min(f, axis=1), rt.reduce_max(i, axis=0),
                rt.reduce_min(i), rt.reduce_prod(f, axis=1), rt.reduce_sum(i, axis=[0, 1]),
                rt.reduce_any(b, axis=1), rt.reduce_all(b, axis=1))

    f, i = np.zeros((2, 0), np.float32), np.zeros((0, 3), np.int32)
    b = np.zeros((2, 0), bool)
    int32 = np.iinfo(np.int32)
    expected = (-np.inf, [np.inf, np.inf], [int32.min] * 3, int32.max, [1.0, 1.0], 0,
                [False, False], [True, True])
    for tier in (rt.function(program), numba(program)):
        got = tier(rt.constant(f), rt.constant(i), rt.constant(b))
        for value, want in zip(got, expected):
            assert value.numpy().tolist() == want
