"""Invalid values on the XLA tier: out-of-range indices and integer division by zero raise
InvalidArgumentError as on the NumPy tier (and in TensorFlow); NaN gradients, signed zeros,
float->int casts and reductions of no elements give the NumPy tier's values; results are
writable arrays of the caller's own.

Oracles: the NumPy tier (jit_compile=None) on the same program, NumPy, and TensorFlow's
documented errors and values."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402

InvalidArgumentError = rt.errors.InvalidArgumentError
P = np.array([1.0, 2.0, 3.0], np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3)


def _error(fn, *args, jit_compile=None):
    """The InvalidArgumentError `fn` raises on a tier (the test fails when it returns)."""
    with pytest.raises(InvalidArgumentError) as info:
        rt.function(fn, jit_compile=jit_compile)(*args)
    return info.value


def _values(fn, *args, jit_compile=None):
    out = rt.function(fn, jit_compile=jit_compile)(*args)
    return [np.asarray(t) for t in (out if isinstance(out, (tuple, list)) else [out])]


def _same_bits(a, b):
    """Equal bit for bit (signed zeros included); any NaN equals any NaN."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        a, b = np.where(np.isnan(a), 0, a), np.where(np.isnan(b), 0, b)
    assert a.tobytes() == b.tobytes(), (a, b)


# -- indices out of range ------------------------------------------------------------------

_INVALID = {
    "gather_past_end": (lambda p, i: rt.gather(p, i), P, np.array([0, 5], np.int32)),
    "gather_axis_1": (lambda p, i: rt.gather(p, i, axis=1), M, np.array([[0, 4]], np.int32)),
    "gather_nd": (lambda p, i: rt.gather_nd(p, i), M, np.array([[1, 3]], np.int32)),
    "gather_nd_negative": (lambda p, i: rt.gather_nd(p, i), M, np.array([[-1, 0]], np.int32)),
    "gather_batch_dims": (lambda p, i: rt.gather(p, i, batch_dims=1), M,
                          np.array([[0], [3]], np.int32)),
    "scatter_nd": (lambda i: rt.scatter_nd(i, rt.constant([1.0, 2.0]), [3]),
                   np.array([[0], [3]], np.int32)),
    "tensor_scatter_nd_update": (lambda p, i: rt.tensor_scatter_nd_update(p, i, [9.0]), P,
                                 np.array([[3]], np.int32)),
    "tensor_scatter_nd_add": (lambda p, i: rt.tensor_scatter_nd_add(p, i, [9.0]), P,
                              np.array([[-1]], np.int32)),
    "tensor_scatter_nd_sub": (lambda p, i: rt.tensor_scatter_nd_sub(p, i, [9.0]), P,
                              np.array([[7]], np.int32)),
    "tensor_scatter_nd_max": (lambda p, i: rt.tensor_scatter_nd_max(p, i, [9.0]), P,
                              np.array([[3]], np.int32)),
    "tensor_scatter_nd_min": (lambda p, i: rt.tensor_scatter_nd_min(p, i, [9.0]), P,
                              np.array([[3]], np.int32)),
    "unsorted_segment_sum": (lambda d, s: rt.math.unsorted_segment_sum(d, s, 2), P,
                             np.array([0, 1, 2], np.int32)),
    "unsorted_segment_max": (lambda d, s: rt.math.unsorted_segment_max(d, s, 2), P,
                             np.array([0, 5, 1], np.int32)),
    "unsorted_segment_min": (lambda d, s: rt.math.unsorted_segment_min(d, s, 2), P,
                             np.array([2, 0, 1], np.int32)),
    "unsorted_segment_prod": (lambda d, s: rt.math.unsorted_segment_prod(d, s, 2), P,
                              np.array([0, 0, 2], np.int32)),
    "index": (lambda x, i: x[i], P, np.int32(3)),
    "index_negative": (lambda x, i: x[i], P, np.int32(-4)),
    "index_second_axis": (lambda x, i: x[:, i], M, np.int32(3)),
}


@pytest.mark.parametrize("case", sorted(_INVALID))
def test_out_of_range_indices_raise_the_numpy_tiers_error(case):
    fn, *args = _INVALID[case]
    want = _error(fn, *args)
    got = _error(fn, *args, jit_compile="xla")
    assert str(got) == str(want)
    assert got.op is not None


def test_negative_gather_indices_raise_as_in_tensorflow():
    # TensorFlow 2.21: tf.gather([1., 2., 3.], [-1]) raises "indices[0] = -1 is not in [0, 3)"
    err = _error(lambda p, i: rt.gather(p, i), P, np.array([-1], np.int32), jit_compile="xla")
    assert "indices[0] = -1 is not in [0, 3)" in str(err)
    err = _error(lambda p, i: rt.gather(p, i, axis=1), M, np.array([[0, 4]], np.int32),
                 jit_compile="xla")
    assert "indices[0,1] = 4 is not in [0, 3)" in str(err)


_VALID = {
    "gather": (lambda p, i: rt.gather(p, i), P, np.array([2, 0, 2], np.int32)),
    "gather_nd": (lambda p, i: rt.gather_nd(p, i), M, np.array([[1, 2], [0, 0]], np.int32)),
    "scatter_nd": (lambda i: rt.scatter_nd(i, rt.constant([1.0, 2.0]), [3]),
                   np.array([[0], [2]], np.int32)),
    "tensor_scatter_nd_max": (lambda p, i: rt.tensor_scatter_nd_max(p, i, [9.0]), P,
                              np.array([[2]], np.int32)),
    "unsorted_segment_sum_drops_negative_ids": (
        lambda d, s: rt.math.unsorted_segment_sum(d, s, 2), P, np.array([1, -1, 1], np.int32)),
    "index_from_the_end": (lambda x, i: x[i], P, np.int32(-3)),
    "slice_past_the_end": (lambda x, i: x[1:i], P, np.int32(7)),
}


@pytest.mark.parametrize("case", sorted(_VALID))
def test_valid_indices_give_the_numpy_tiers_values(case):
    fn, *args = _VALID[case]
    if case == "slice_past_the_end":  # slice bounds given as tensors are refused by XLA
        args = [args[0], 7]
    for got, want in zip(_values(fn, *args, jit_compile="xla"), _values(fn, *args)):
        _same_bits(got, want)


def _read_list(x, i, dynamic):
    ta = rt.TensorArray(rt.float32, size=0 if dynamic else 3, dynamic_size=dynamic)
    for k in rt.range(3):
        ta = ta.write(k, x * rt.cast(k, rt.float32))
    return ta.read(i), ta.gather(rt.stack([i, 0]))


@pytest.mark.parametrize("dynamic", [False, True])
def test_tensor_array_reads_past_the_end_raise(dynamic):
    fn = lambda x, i: _read_list(x, i, dynamic)  # noqa: E731
    for i in (3, -1):
        assert str(_error(fn, np.float32(2), np.int32(i), jit_compile="xla")) == \
            str(_error(fn, np.float32(2), np.int32(i)))
    for got, want in zip(_values(fn, np.float32(2), np.int32(2), jit_compile="xla"),
                         _values(fn, np.float32(2), np.int32(2))):
        _same_bits(got, want)


def test_indices_known_while_compiling_raise_when_called():
    fn = lambda: rt.gather(rt.constant(P), rt.constant([4]))  # noqa: E731
    compiled = rt.function(fn, jit_compile="xla")
    with pytest.raises(InvalidArgumentError, match=r"not in \[0, 3\)"):
        compiled()


def test_checks_inside_loops_and_branches():
    def loop(p, n):
        s = rt.constant(0.0)
        i = rt.constant(0)
        while i < n:
            s += rt.gather(p, i)
            i += 1
        return s

    def branch(x, i, flag):
        if flag:
            y = x * 2.0 + rt.gather(x, i)
        else:
            y = x * 3.0
        return y

    def small_branch(x, i):  # both sides run and one is selected: its check counts only
        if i < 3:
            y = x[i]
        else:
            y = rt.constant(-1.0)
        return y
    big = np.arange(100, dtype=np.float32)
    xla = {f: rt.function(f, jit_compile="xla") for f in (loop, branch, small_branch)}
    assert xla[loop](P, np.int32(3)).numpy() == P.sum()
    _error(loop, P, np.int32(4), jit_compile="xla")
    np.testing.assert_array_equal(xla[branch](big, np.int32(500), False).numpy(), big * 3)
    _error(branch, big, np.int32(500), True, jit_compile="xla")
    assert xla[small_branch](P, np.int32(7)).numpy() == -1.0
    assert xla[small_branch](P, np.int32(1)).numpy() == 2.0
    _error(small_branch, P, np.int32(-5), jit_compile="xla")


def _after_a_failed_call(tier) -> np.ndarray:
    v = rt.Variable([1.0, 2.0, 3.0])

    def f(i):
        v.assign_add([1.0, 1.0, 1.0])
        return rt.gather(v, i)
    compiled = rt.function(f, jit_compile=tier)
    np.testing.assert_array_equal(compiled(np.array([0], np.int32)).numpy(), [2.0])
    with pytest.raises(InvalidArgumentError):
        compiled(np.array([9], np.int32))
    return v.numpy()


def test_a_failed_call_leaves_variables_as_the_numpy_tier_does():
    np.testing.assert_array_equal(_after_a_failed_call("xla"), _after_a_failed_call(None))


def test_a_program_drawing_random_numbers_names_the_op():
    def f(p):
        i = rt.random.uniform((), 5, 6, dtype=rt.int32)
        return rt.gather(p, i)
    err = _error(f, P, jit_compile="xla")
    assert "GatherV2" in str(err) and "[0, 3)" in str(err)
    assert err.op is not None and err.op.type == "GatherV2"


def test_gradients_through_checked_ops():
    v = rt.Variable([1.0, 2.0, 3.0])
    grads = []
    for tier in (None, "xla"):
        f = rt.function(lambda p, i: rt.reduce_sum(rt.gather(p, i) ** 2), jit_compile=tier)
        with rt.GradientTape() as tape:
            y = f(v, np.array([0, 2, 2], np.int32))
        grads.append(tape.gradient(y, v).numpy())
        with pytest.raises(InvalidArgumentError):
            with rt.GradientTape() as tape:
                f(v, np.array([0, 7], np.int32))
    np.testing.assert_array_equal(grads[0], [2.0, 0.0, 12.0])
    np.testing.assert_array_equal(grads[1], grads[0])


# -- integer division by zero ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
@pytest.mark.parametrize("op", ["floordiv", "mod"])
def test_integer_division_by_zero_raises(op, dtype):
    # TensorFlow 2.21: tf.constant([7, 3]) // tf.constant([0, 2]) raises InvalidArgumentError
    # "Integer division by zero" (FloorDiv and FloorMod alike)
    fn = (lambda a, b: a // b) if op == "floordiv" else (lambda a, b: a % b)
    x, y = np.array([7, 3], dtype), np.array([0, 2], dtype)
    err = _error(fn, x, y, jit_compile="xla")
    assert "Integer division by zero" in str(err)
    y = np.array([2, 2], dtype)
    want = x // y if op == "floordiv" else x % y
    _same_bits(_values(fn, x, y, jit_compile="xla")[0], want)


def test_float_division_by_zero_keeps_ieee_values():
    x, y = np.array([7.0, -3.0, 0.0], np.float32), np.zeros(3, np.float32)
    for fn in (lambda a, b: a // b, lambda a, b: a % b):
        for got, want in zip(_values(fn, x, y, jit_compile="xla"), _values(fn, x, y)):
            np.testing.assert_array_equal(got, want)


def test_integers_to_negative_integer_powers_raise_as_in_numpy():
    x, y = np.array([2, 3], np.int32), np.array([2, -1], np.int32)
    with pytest.raises(ValueError, match="negative integer powers"):
        np.power(x, y)
    err = _error(lambda a, b: a ** b, x, y, jit_compile="xla")
    assert "negative integer powers" in str(err)
    _same_bits(_values(lambda a, b: a ** b, x, np.abs(y), jit_compile="xla")[0], x ** np.abs(y))


# -- values the tiers must agree on bit for bit ----------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_of_float_floor_division_and_remainder(dtype):
    values = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 3.0, np.inf, -np.inf], dtype)
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    for fn, oracle in ((lambda a, b: a // b, np.floor_divide), (lambda a, b: a % b, np.remainder)):
        with np.errstate(divide="ignore", invalid="ignore"):
            want = oracle(x, y)
        _same_bits(_values(fn, x, y, jit_compile="xla")[0], want)


def test_relu_gradient_with_nan_and_inf_upstream():
    def f(x, g):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.relu(x)
        return tape.gradient(y, x, output_gradients=g)
    x = np.array([0.0, -1.0, 1.0, 2.0, -2.0], np.float32)
    g = np.array([np.nan, np.inf, 1.0, np.nan, -5.0], np.float32)
    got = _values(f, x, g, jit_compile="xla")[0]
    # TensorFlow 2.21's ReluGrad (g * (x > 0)) gives [nan, nan, 1, nan, -0]
    _same_bits(got, np.array([np.nan, np.nan, 1.0, np.nan, -0.0], np.float32))
    _same_bits(got, _values(f, x, g)[0])


_ZEROS = np.array([-0.0, 0.0, -0.0, 0.0, 1.0, np.nan, -np.inf], np.float32)
_OTHER = np.array([0.0, -0.0, -0.0, 0.0, np.nan, 1.0, -0.0], np.float32)


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_of_maximum_and_minimum(name, dtype):
    fn = getattr(rt, name)
    x, y = _ZEROS.astype(dtype), _OTHER.astype(dtype)
    got = _values(fn, x, y, jit_compile="xla")[0]
    _same_bits(got, getattr(np, name)(x, y))
    _same_bits(got, _values(fn, x, y)[0])


def test_sign_of_signed_zeros():
    x = np.array([-0.0, 0.0, -2.5, 3.0, np.inf, -np.inf], np.float32)
    got = _values(rt.sign, x, jit_compile="xla")[0]
    _same_bits(got, np.sign(x))
    _same_bits(got, _values(rt.sign, x)[0])
    assert np.isnan(_values(rt.sign, np.float32([np.nan]), jit_compile="xla")[0]).all()


def _saturated(x: np.ndarray, dtype) -> np.ndarray:
    """The rule of every tier: toward zero, NaN to 0, out of range (and +-inf) to the ends."""
    info = np.iinfo(dtype)
    out = []
    for v in x.astype(np.float64).tolist():
        if v != v:
            out.append(0)
        elif v >= info.max:
            out.append(info.max)
        elif v <= info.min:
            out.append(info.min)
        else:
            out.append(int(v))
    return np.array(out, dtype)


@pytest.mark.parametrize("source", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("target", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32])
def test_float_to_integer_casts_saturate(source, target):
    x = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 1e19, -1e19, 300.0, -5.0, 2.7, -2.7,
                  -0.5, 127.9, -128.5, 65504.0], np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        x = x.astype(source)
    fn = lambda v: rt.cast(v, rt.as_dtype(target))  # noqa: E731
    _same_bits(_values(fn, x, jit_compile="xla")[0], _saturated(x, target))


_EMPTY = [  # TensorFlow 2.21's values for reductions of no elements
    (rt.reduce_max, np.float32, (0,), None, np.float32(-np.inf)),
    (rt.reduce_min, np.float32, (0,), None, np.float32(np.inf)),
    (rt.reduce_max, np.int32, (0,), None, np.int32(np.iinfo(np.int32).min)),
    (rt.reduce_min, np.int32, (0,), None, np.int32(np.iinfo(np.int32).max)),
    (rt.reduce_min, np.int64, (0, 2), 0, np.full(2, np.iinfo(np.int64).max)),
    (rt.reduce_max, np.float64, (2, 0), 1, np.full(2, -np.inf)),
    (rt.reduce_max, np.float32, (2, 0), -1, np.full(2, -np.inf, np.float32)),
    (rt.reduce_sum, np.float32, (0,), None, np.float32(0)),
    (rt.reduce_prod, np.int32, (0,), None, np.int32(1)),
    (rt.reduce_any, np.bool_, (0,), None, np.bool_(False)),
    (rt.reduce_all, np.bool_, (0,), None, np.bool_(True)),
]


@pytest.mark.parametrize("fn,dtype,shape,axis,want", _EMPTY)
def test_reductions_of_no_elements_give_the_identity(fn, dtype, shape, axis, want):
    x = np.zeros(shape, dtype)
    got = _values(lambda v: fn(v, axis=axis), x, jit_compile="xla")[0]
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.dtype(dtype)


def test_argmax_of_no_elements_raises_when_called():
    # TensorFlow 2.21: tf.argmax(tf.zeros([0])) raises InvalidArgumentError (an empty
    # reduction axis); over an axis that has elements the result is just empty
    for fn in (rt.argmax, rt.argmin):
        compiled = rt.function(lambda v: fn(v, axis=0), jit_compile="xla")  # noqa: B023
        with pytest.raises(InvalidArgumentError):
            compiled(np.zeros((0, 2), np.float32))
        assert compiled(np.zeros((3, 0), np.float32)).shape == (0,)


def test_reductions_over_axes_given_as_tensors_of_no_elements():
    fn = lambda v: rt.reduce_max(v, axis=rt.shape(v)[0] - 1)  # noqa: E731 (axis 1)
    got = _values(fn, np.zeros((2, 0), np.float32), jit_compile="xla")[0]
    np.testing.assert_array_equal(got, [-np.inf, -np.inf])


# -- results the caller owns -----------------------------------------------------------------

@pytest.mark.parametrize("n", [3, 1 << 15])
@pytest.mark.parametrize("case", ["computed", "input", "variable", "constant", "cond", "loop"])
def test_results_are_writable_and_alias_nothing(case, n):
    base = np.arange(n, dtype=np.float32)
    v = rt.Variable(base.copy())
    const = np.ones(n, np.float32)
    fn = {
        "computed": lambda x: x * 2.0,
        "input": lambda x: x,
        "variable": lambda x: v.read_value(),
        "constant": lambda x: rt.constant(const),
        "cond": lambda x: rt.cond(rt.reduce_sum(x) >= 0, lambda: x, lambda: v.read_value()),
        "loop": lambda x: rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y),
                                        [0, v.read_value()])[1],
    }[case]
    compiled = rt.function(fn, jit_compile="xla")
    x = rt.constant(base)
    want = _values(fn, x)[0]
    for _ in range(2):
        out = compiled(x).numpy()
        np.testing.assert_array_equal(out, want)
        assert out.flags.writeable
        out[...] = -7.0
    np.testing.assert_array_equal(x.numpy(), base)
    np.testing.assert_array_equal(v.numpy(), base)
    np.testing.assert_array_equal(const, 1.0)
    np.testing.assert_array_equal(compiled(x).numpy(), want)


def test_a_grown_list_result_is_writable():
    def f(x):
        acc = []
        for i in rt.range(200):
            if i > 5:
                break
            acc.append(x * rt.cast(i, rt.float32))
        return rt.stack(acc)
    got = _values(f, np.float32(3.0), jit_compile="xla")[0]
    np.testing.assert_array_equal(got, 3.0 * np.arange(6, dtype=np.float32))
    assert got.flags.writeable


def test_a_loop_with_break_over_a_range_compiles():
    def f(x):
        s = rt.constant(0.0)
        for _ in rt.range(200):
            s += x
            if s > 10.0:
                break
        return s
    assert _values(f, np.float32(3.0), jit_compile="xla")[0] == 12.0


def test_appends_after_a_loop_that_appends_are_kept():
    def f(x, y, v):  # differential program 213: appends past the loop's room were dropped
        items = []
        if x > v[1]:
            k = 0
            while k < 3 and y < 0.5:
                k += 1
                v = v * 0.5
                items.append(v[1] * -1.5)
            else:
                items.append(v[0])
            items.append(y + 1.5)
        return rt.stack(items)
    args = (np.float32(3.0), np.float32(-1.0), np.array([1.5, -2.0, 0.5], np.float32))
    got = _values(f, *args, jit_compile="xla")[0]
    np.testing.assert_array_equal(got, [1.5, 0.75, 0.375, 0.1875, 0.5])
    np.testing.assert_array_equal(got, _values(f, *args)[0])


# -- the differences docs/xla.md lists ---------------------------------------------------------

@pytest.mark.parametrize("dtype,tiny", [(np.float32, 1e-40), (np.float64, 1e-310)])
def test_subnormals_are_flushed_to_zero_as_documented(dtype, tiny):
    x, y = np.array([tiny, -tiny, 1.0], dtype), np.array([1.5, 1.5, 1.5], dtype)
    assert np.all(np.abs(x[:2] * y[:2]) > 0)  # NumPy keeps the subnormals
    got = _values(lambda a, b: a * b, x, y, jit_compile="xla")[0]
    np.testing.assert_array_equal(got, [0.0, 0.0, 1.5])


def test_max_and_min_of_signed_zeros_are_a_zero_as_documented():
    for x in (np.array([0.0, -0.0], np.float32), np.array([-0.0, 0.0], np.float32)):
        for fn in (rt.reduce_max, rt.reduce_min):
            got = _values(fn, x, jit_compile="xla")[0]
            assert got == 0.0 and got.dtype == np.float32


def test_a_call_the_numpy_tier_runs_without_error_gives_its_results():
    def f(x, i):  # XLA gives the list room for one append; the NumPy tier grows it to i + 1
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True, element_shape=())
        ta = ta.write(i, x)
        return ta.read(i) * 2.0
    args = (np.float32(2.0), np.int32(3))
    assert _values(f, *args, jit_compile="xla")[0] == _values(f, *args)[0] == 4.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_and_remainder_are_numpys_bit_for_bit(dtype):
    # NumPy corrects floor(x / y) with fmod (1.0 // 0.1 is 9.0, not 10.0); every JAX version
    # must give those values, not only the one at hand
    rng = np.random.default_rng(0)
    values = np.concatenate([[0.1, 1.0, 7.3, -7.3, 1e-30, -1e30, 0.5, -0.5, 5.0, -5.0],
                             rng.normal(scale=10.0, size=30)]).astype(dtype)
    x, y = np.repeat(values, len(values)), np.tile(values, len(values))
    for fn, oracle in ((lambda a, b: a // b, np.floor_divide), (lambda a, b: a % b, np.remainder)):
        _same_bits(_values(fn, x, y, jit_compile="xla")[0], oracle(x, y))
