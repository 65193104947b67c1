"""Values TensorFlow refuses or defines, eagerly and on the NumPy tier (the Numba tier's are in
tests/jit/test_tier_edge_values.py).

Oracles: TensorFlow 2.21's documented results and messages (gather: "indices[0] = -1 is not in
[0, 3)"; FloorDiv/FloorMod: "Integer division by zero"; a reduction of no elements is its
identity: -inf for a float max, INT32_MIN for an int32 max, INT32_MAX for an int32 min, 0 for a
sum, 1 for a product), NumPy for the values of valid inputs, and plain Python.
"""

import numpy as np
import pytest

import runtime as rt

PARAMS = np.arange(6.0, dtype=np.float32).reshape(2, 3)


def eager(fn):
    return fn


def staged(fn):
    return rt.function(fn)


TIERS = [pytest.param(eager, id="eager"), pytest.param(staged, id="numpy")]


# -- gather: negative indices are out of range, as in TensorFlow (NumPy counts from the end) ---

@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("indices, axis, batch_dims, message", [
    ([-1], 0, 0, r"indices\[0\] = -1 is not in \[0, 2\)"),
    ([0, 2], 0, 0, r"indices\[1\] = 2 is not in \[0, 2\)"),
    ([[0, -2]], 1, 0, r"indices\[0,1\] = -2 is not in \[0, 3\)"),
    ([[0], [-1]], 1, 1, r"is not in \[0, 3\)"),
    ([[0], [3]], 1, 1, r"is not in \[0, 3\)"),
])
def test_gather_refuses_indices_outside_the_axis(tier, indices, axis, batch_dims, message):
    params = rt.constant(PARAMS)
    fn = tier(lambda p, i: rt.gather(p, i, axis=axis, batch_dims=batch_dims))
    with pytest.raises(rt.errors.InvalidArgumentError, match=message):
        fn(params, rt.constant(indices))


@pytest.mark.parametrize("tier", TIERS)
def test_gather_of_valid_indices_is_numpys_take(tier):
    params = rt.constant(PARAMS)
    indices = np.array([[2, 0], [1, 1]], dtype=np.int32)
    got = tier(lambda p, i: rt.gather(p, i, axis=1))(params, rt.constant(indices))
    np.testing.assert_array_equal(got.numpy(), np.take(PARAMS, indices, axis=1))
    scalar = tier(lambda p, i: rt.gather(p, i))(params, rt.constant(1))
    np.testing.assert_array_equal(scalar.numpy(), PARAMS[1])


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("indices, message", [
    ([[1, -1]], r"indices\[0\] = \[1, -1\] does not index into param shape \[2, 3\]"),
    ([[0, 0], [1, 3]], r"indices\[1\] = \[1, 3\] does not index into param shape"),
    ([[-1]], r"indices\[0\] = \[-1\] does not index into param shape"),
])
def test_gather_nd_refuses_index_tuples_outside_params(tier, indices, message):
    fn = tier(lambda p, i: rt.gather_nd(p, i))
    with pytest.raises(rt.errors.InvalidArgumentError, match=message):
        fn(rt.constant(PARAMS), rt.constant(indices))


@pytest.mark.parametrize("tier", TIERS)
def test_gather_nd_with_batch_dims_refuses_negative_indices(tier):
    fn = tier(lambda p, i: rt.gather_nd(p, i, batch_dims=1))
    with pytest.raises(rt.errors.InvalidArgumentError, match="does not index into"):
        fn(rt.constant(PARAMS), rt.constant([[-1], [0]]))
    np.testing.assert_array_equal(fn(rt.constant(PARAMS), rt.constant([[2], [0]])).numpy(),
                                  [PARAMS[0, 2], PARAMS[1, 0]])


@pytest.mark.parametrize("tier", TIERS)
def test_np_take_on_a_tensor_keeps_numpys_negative_indices(tier):
    """np.take is NumPy's function: there a negative index counts from the end."""
    got = tier(lambda p: (np.take(p, [-1, 0]), np.take(p, [[0, -2]], axis=1)))(
        rt.constant(PARAMS))
    np.testing.assert_array_equal(got[0].numpy(), np.take(PARAMS, [-1, 0]))
    np.testing.assert_array_equal(got[1].numpy(), np.take(PARAMS, [[0, -2]], axis=1))


def test_a_negative_gather_index_raises_inside_a_loop():
    @rt.function
    def walk(x, n):
        total = rt.constant(0.0)
        for i in rt.range(n):
            total += rt.gather(x, 1 - i)  # reaches -1 on the third step
        return total

    x = rt.constant([1.0, 2.0, 3.0])
    assert walk(x, rt.constant(2)).numpy() == 3.0
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"= -1 is not in \[0, 3\)"):
        walk(x, rt.constant(3))


# -- integer // and % by zero raise; floats keep IEEE results ------------------------------------

INTEGER_DTYPES = [rt.int8, rt.int16, rt.int32, rt.int64, rt.uint8, rt.uint16, rt.uint32,
                  rt.uint64]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("dtype", INTEGER_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_integer_division_by_zero_raises(tier, dtype, op):
    fn = tier(getattr(rt.math, op))
    x = rt.constant([7, 6], dtype=dtype)
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(x, rt.constant([2, 0], dtype=dtype))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(x, rt.constant(0, dtype=dtype))


@pytest.mark.parametrize("tier", TIERS)
def test_integer_division_operators_raise_and_keep_floor_semantics(tier):
    fn = tier(lambda a, b: (a // b, a % b))
    a, b = [7, -7, 7, -7], [2, 2, -2, -2]
    quotient, remainder = fn(rt.constant(a), rt.constant(b))
    assert quotient.numpy().tolist() == [x // y for x, y in zip(a, b)]   # Python's floor rules
    assert remainder.numpy().tolist() == [x % y for x, y in zip(a, b)]
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(rt.constant(a), rt.constant([1, 1, 0, 1]))


def test_truncatediv_by_zero_raises():
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        rt.math.truncatediv(rt.constant([7]), rt.constant([0]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's, as TensorFlow's results
@pytest.mark.parametrize("tier", TIERS)
def test_float_division_by_zero_keeps_ieee_results(tier):
    x = np.array([1.0, -1.0, 0.0], dtype=np.float32)
    zeros = np.zeros(3, dtype=np.float32)
    quotient, remainder = tier(lambda a, b: (a // b, a % b))(rt.constant(x), rt.constant(zeros))
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(quotient.numpy(), np.floor_divide(x, zeros))
        np.testing.assert_array_equal(remainder.numpy(), np.remainder(x, zeros))


def test_large_integer_divisions_write_into_dying_buffers_and_still_check():
    """The NumPy tier writes an integer division of a large temporary into that temporary's
    buffer; the zero check comes first."""
    @rt.function
    def fn(x, y):
        return (x + 1) // y

    x = np.arange(4096, dtype=np.int32)
    y = np.full(4096, 3, dtype=np.int32)
    np.testing.assert_array_equal(fn(x, y).numpy(), (x + 1) // y)
    y[4000] = 0
    with pytest.raises(rt.errors.InvalidArgumentError, match="Integer division by zero"):
        fn(x, y)


# -- reductions of no elements give the identity -------------------------------------------------

EMPTY_CASES = [  # (function, dtype, TensorFlow's result)
    (rt.reduce_max, rt.float32, -np.inf), (rt.reduce_max, rt.float64, -np.inf),
    (rt.reduce_max, rt.int32, -2**31), (rt.reduce_max, rt.int64, -2**63),
    (rt.reduce_max, rt.uint8, 0),
    (rt.reduce_min, rt.float32, np.inf), (rt.reduce_min, rt.int32, 2**31 - 1),
    (rt.reduce_min, rt.int64, 2**63 - 1), (rt.reduce_min, rt.uint8, 255),
    (rt.reduce_sum, rt.float32, 0.0), (rt.reduce_sum, rt.int32, 0),
    (rt.reduce_prod, rt.float32, 1.0), (rt.reduce_prod, rt.int32, 1),
]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("reduce, dtype, expected", EMPTY_CASES,
                         ids=[f"{f.__name__}-{d.name}" for f, d, _ in EMPTY_CASES])
def test_a_reduction_of_no_elements_is_its_identity(tier, reduce, dtype, expected):
    got = tier(lambda x: reduce(x))(rt.zeros([0], dtype))
    assert got.dtype is dtype
    assert got.numpy() == expected
    per_row = tier(lambda x: reduce(x, axis=1))(rt.zeros([2, 0], dtype))
    assert per_row.numpy().tolist() == [expected, expected]
    kept = tier(lambda x: reduce(x, axis=0, keepdims=True))(rt.zeros([0, 3], dtype))
    assert kept.shape == (1, 3) and kept.numpy().tolist() == [[expected] * 3]


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
@pytest.mark.parametrize("tier", TIERS)
def test_empty_bool_reductions_and_mean(tier):
    empty = rt.zeros([0], rt.bool)
    assert tier(rt.reduce_any)(empty).numpy() is np.False_
    assert tier(rt.reduce_all)(empty).numpy() is np.True_
    assert np.isnan(tier(rt.reduce_mean)(rt.zeros([0])).numpy())
    assert tier(rt.reduce_mean)(rt.zeros([0], rt.int32)).numpy() == 0  # TensorFlow's value


@pytest.mark.parametrize("tier", TIERS)
def test_a_reduction_of_no_elements_keeps_nan_and_values(tier):
    """The identity changes nothing when there are elements (NaN still wins)."""
    x = np.array([[1.0, np.nan, -3.0], [-0.0, 2.0, 5.0]], dtype=np.float32)
    got = tier(lambda v: (rt.reduce_max(v, axis=1), rt.reduce_min(v, axis=0)))(rt.constant(x))
    np.testing.assert_array_equal(got[0].numpy(), np.max(x, axis=1))
    np.testing.assert_array_equal(got[1].numpy(), np.min(x, axis=0))


@pytest.mark.parametrize("tier", TIERS)
def test_argmax_of_no_elements_still_raises(tier):
    with pytest.raises(rt.errors.InvalidArgumentError):
        tier(rt.argmax)(rt.zeros([0]))


# -- casts of floats to integers saturate ---------------------------------------------------------

def saturated(value: float, dtype) -> int:
    """The documented rule in plain Python: NaN 0, truncation, clamped to the dtype's range."""
    info = np.iinfo(dtype.as_numpy_dtype)
    if value != value:
        return 0
    if value in (float("inf"), float("-inf")):
        return int(info.max) if value > 0 else int(info.min)
    return max(int(info.min), min(int(info.max), int(value)))


SPECIAL = [float("nan"), float("inf"), float("-inf"), 3e9, -3e9, 2.7, -2.7, 0.5, -0.5, 255.9,
           256.0, -1.0, 1e20, -1e20, 2147483520.0, -2147483648.0]


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("dtype", [rt.int8, rt.uint8, rt.int16, rt.uint16, rt.int32, rt.int64],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("source", [rt.float32, rt.float64], ids=lambda d: d.name)
def test_float_to_int_casts_saturate(tier, dtype, source):
    x = np.array(SPECIAL, dtype=source.as_numpy_dtype)
    got = tier(lambda v: rt.cast(v, dtype))(rt.constant(x))
    assert got.dtype is dtype
    assert got.numpy().tolist() == [saturated(float(v), dtype) for v in x]


@pytest.mark.parametrize("tier", TIERS)
def test_scalar_float_to_int_casts_saturate(tier):
    fn = tier(lambda v: rt.cast(v, rt.int32))
    for value in [float("nan"), float("inf"), -5e9, -2.5]:
        assert fn(rt.constant(value)).numpy() == saturated(value, rt.int32)


def test_casting_a_numpy_array_saturates_too():
    x = np.array([np.nan, np.inf, -np.inf, 1.5], dtype=np.float32)
    assert rt.cast(x, rt.int32).numpy().tolist() == [0, 2**31 - 1, -2**31, 1]


# -- keywords of the random Generator -------------------------------------------------------------

@pytest.mark.parametrize("method, kwargs, suggestion", [
    ("normal", {"stdev": 2.0}, "stddev"),
    ("truncated_normal", {"maen": 0.0}, "mean"),
    ("uniform", {"max_val": 2.0}, "maxval"),
    ("uniform_full_int", {"dtyp": rt.int64}, "dtype"),
    ("binomial", {"count": 3.0, "probs": 0.5}, "counts"),
    ("make_seeds", {"counts": 2}, "count"),
    ("split", {"counts": 2}, "count"),
])
def test_generator_methods_suggest_the_keyword_meant(method, kwargs, suggestion):
    generator = rt.random.Generator.from_seed(1)
    before = generator.state.numpy().copy()
    args = () if method in ("make_seeds", "split") else ([2],)
    with pytest.raises(TypeError, match=f"did you mean '{suggestion}'"):
        getattr(generator, method)(*args, **kwargs)
    np.testing.assert_array_equal(generator.state.numpy(), before)  # nothing was drawn


def test_generator_constructors_refuse_unknown_keywords():
    with pytest.raises(TypeError, match="did you mean 'seed'"):
        rt.random.Generator.from_seed(seeds=1)
    with pytest.raises(TypeError, match="bad_kw"):
        rt.random.Generator.from_seed(1).normal([2], bad_kw=1)


@pytest.mark.parametrize("staged", [False, True], ids=["eager", "traced"])
def test_a_literal_index_past_an_axis_is_tensorflows_error_and_an_index_error(staged):
    # TensorFlow: InvalidArgumentError "slice index 5 of dimension 0 out of bounds." eagerly;
    # Python sequences: IndexError. The error is both.
    x = rt.constant([1, 2, 3])
    read = rt.function(lambda t: t[5]) if staged else (lambda t: t[5])
    with pytest.raises(rt.errors.InvalidArgumentError, match="slice index 5 of dimension 0"):
        read(x)
    with pytest.raises(IndexError):
        read(x)
    assert int(read(rt.constant([1, 2, 3, 4, 5, 6]))) == 6  # in range: the element
