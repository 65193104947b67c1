"""Values both tiers must get right (NumPy or plain Python is the oracle): probes that found
silently wrong results on one tier, each run with jit_compile=False and True."""

import threading

import numpy as np
import pytest

import runtime as rt
from runtime.backends import JitCompileError

TIERS = [pytest.param(False, id="numpy"), pytest.param(True, id="numba")]


@pytest.mark.parametrize("jit", TIERS)
def test_assign_add_from_threads_loses_no_update(jit):
    v = rt.Variable(0.0)
    w = rt.Variable(np.zeros(2, np.float32))

    @rt.function(jit_compile=jit)
    def f():
        v.assign_add(1.0)
        w.assign_sub(rt.ones([2]))  # two variables: their locks taken in one order

    f()
    barrier = threading.Barrier(8)

    def work():
        barrier.wait()
        for _ in range(400):
            f()
    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert float(v.numpy()) == 1 + 8 * 400
    np.testing.assert_array_equal(w.numpy(), [-3201.0, -3201.0])


@pytest.mark.parametrize("jit", TIERS)
def test_an_assigned_argument_is_copied_into_the_variable(jit):
    v = rt.Variable(np.zeros(3, np.float32))

    @rt.function(jit_compile=jit)
    def f(x):
        v.assign(x)

    buf = np.ones(3, np.float32)
    f(buf)
    buf[:] = 99
    np.testing.assert_array_equal(v.numpy(), np.ones(3, np.float32))


@pytest.mark.parametrize("jit", TIERS)
def test_results_are_not_views_of_the_input_array(jit):
    @rt.function(jit_compile=jit)
    def f(x):
        return x, rt.reshape(x, [2, 3]), x[1:], rt.identity(x)

    buf = np.arange(6, dtype=np.float32)
    results = [r.numpy().copy() for r in f(buf)]
    kept = f(buf)
    buf[:] = -1
    for r, expected in zip(kept, results):
        np.testing.assert_array_equal(r.numpy(), expected)


@pytest.mark.parametrize("jit", TIERS)
def test_a_returned_constant_is_not_shared_between_calls(jit):
    @rt.function(jit_compile=jit)
    def f():
        return rt.constant([1.0, 2.0])

    f().numpy()[:] = 7  # a caller writing into its result
    np.testing.assert_array_equal(f().numpy(), [1.0, 2.0])


# TensorFlow's gather takes indices in [0, size) only: a negative one raises too
# ("indices[0] = -1 is not in [0, 3)"), where NumPy would count it from the end
@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("index", [[0, 3], [-1], [2, -3], [5, 1]])
def test_gather_out_of_range_raises(jit, index):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    @rt.function(jit_compile=jit)
    def f(i):
        return rt.gather(x, i)

    np.testing.assert_array_equal(f(np.array([0, 2, 1, 2], np.int32)).numpy(),
                                  np.take(x, [0, 2, 1, 2], axis=0))
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"is not in \[0, 3\)"):
        f(np.array(index, np.int32))


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("index", [4, -1, -5])
def test_gather_of_a_scalar_index_out_of_range_raises(jit, index):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    @rt.function(jit_compile=jit)
    def f(i):
        return rt.gather(x, i, axis=1)

    np.testing.assert_array_equal(f(np.int32(3)).numpy(), x[:, 3])
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"is not in \[0, 4\)"):
        f(np.int32(index))


@pytest.mark.parametrize("jit", TIERS)
def test_an_update_before_a_runtime_error_survives(jit):
    # docs/guarantees.md: state changes made by ops that ran before the error remain
    v = rt.Variable(1.0)
    w = rt.Variable(np.zeros(2, np.float32))

    @rt.function(jit_compile=jit)
    def f(i):
        v.assign_add(1.0)
        y = rt.gather(rt.constant([1.0, 2.0]), i)
        w.assign(rt.fill([2], y))  # after the error: does not happen
        return y

    with pytest.raises(rt.errors.InvalidArgumentError):
        f(np.int32(5))
    assert float(v.numpy()) == 2.0
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    assert float(f(np.int32(1)).numpy()) == 2.0  # the next call runs normally
    assert float(v.numpy()) == 3.0
    np.testing.assert_array_equal(w.numpy(), [2.0, 2.0])


@pytest.mark.parametrize("jit", TIERS)
def test_rsqrt_and_division_by_a_square_root_of_float32(jit):
    x = np.array([0.0, np.inf, 1e-40, 4.0, 2.0], np.float32)  # 1e-40 is subnormal
    one = np.ones_like(x)
    rsqrt = rt.function(lambda x: rt.math.rsqrt(x), jit_compile=jit)
    ratio = rt.function(lambda y, x: y / rt.sqrt(x), jit_compile=jit)
    with np.errstate(divide="ignore"):
        expected = one / np.sqrt(x)
    np.testing.assert_array_equal(rsqrt(x).numpy(), expected)
    np.testing.assert_array_equal(ratio(one, x).numpy(), expected)
    np.testing.assert_array_equal(rsqrt(np.float32(1e-40)).numpy(), expected[2])


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_to_a_negative_integer_power_raises(jit, dtype):
    arrays = rt.function(lambda a, b: a ** b, jit_compile=jit)
    fused = rt.function(lambda a, b: (a + 1) ** b * 2, jit_compile=jit)
    a, b = np.array([2, 3, -2], dtype), np.array([3, 0, 3], dtype)
    np.testing.assert_array_equal(arrays(a, b).numpy(), a ** b)
    np.testing.assert_array_equal(fused(a, b).numpy(), (a + 1) ** b * 2)
    np.testing.assert_array_equal(arrays(a, dtype(2)).numpy(), a ** 2)
    assert arrays(dtype(3), dtype(2)).numpy() == 9
    for x, y in ((a, np.array([1, -1, 2], dtype)), (a, dtype(-1)), (dtype(2), dtype(-3))):
        for f in (arrays, fused):
            with pytest.raises(rt.errors.InvalidArgumentError, match="negative integer powers"):
                f(x, y)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_float16_mean_accumulates_in_float32(axis):
    x = np.full((3, 1000), 30, np.float16)
    f = rt.function(lambda x: rt.reduce_mean(x, axis=axis),
                    input_signature=[rt.TensorSpec([3, 1000], rt.float16)])
    result = f(x).numpy()
    assert result.dtype == np.float16
    np.testing.assert_array_equal(result, np.mean(x, axis=axis))
    with pytest.raises(JitCompileError):  # the Numba tier refuses float16
        rt.function(lambda x: rt.reduce_mean(x, axis=axis), jit_compile=True)(x)


def test_a_jit_call_assigning_many_variables_compiles_and_updates_each():
    # Python allows 20 nested blocks: the caller must not nest one `with` per variable lock
    variables = [rt.Variable(np.full(3, float(i), np.float32)) for i in range(30)]

    @rt.function(jit_compile=True)
    def step(x):
        for v in variables:
            v.assign_add(x)
        return variables[0].read_value()

    step(np.ones(3, np.float32))
    step(np.ones(3, np.float32))
    for i, v in enumerate(variables):
        np.testing.assert_array_equal(v.numpy(), np.full(3, i + 2.0, np.float32))
