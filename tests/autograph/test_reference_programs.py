"""Programs of the kinds TensorFlow's AutoGraph reference tests run: each converted function,
called with tensors inside `rt.function`, gives what the plain Python function gives (values
and printed output), or raises the error TensorFlow raises. The oracles are plain Python,
NumPy and TensorFlow's documented behaviour."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import autograph as ag
import runtime as rt

BUILTINS = ag.experimental.Feature.BUILTIN_FUNCTIONS


def _printed(fn, *args) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        fn(*args)
    return out.getvalue()


# -- print under Feature.BUILTIN_FUNCTIONS ------------------------------------------------------

def show_one(x):
    print(x)


def show_labelled(x):
    print("value:", x, sep="=", end="!\n")


def show_with_python_values(x):
    print("x is", x, {"key": "value"}, [1, 2])


def show_when_zero(x):
    if x == 0:
        print("zero", x)
    return x


@pytest.mark.parametrize("fn", [show_one, show_labelled, show_with_python_values])
@pytest.mark.parametrize("value", [np.array([1, 2, 3]), np.array(2.5, np.float32),
                                   np.array([[True, False]])])
def test_print_of_tensors_prints_their_values_at_every_call(fn, value):
    compiled = rt.function(fn, experimental_autograph_options=BUILTINS)
    expected = _printed(fn, value)            # Python prints the NumPy value
    assert _printed(compiled, value) == expected
    assert _printed(compiled, value) == expected      # staged: printed again, not retraced
    assert compiled.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("x", [0, 3])
def test_print_in_a_staged_if_prints_only_on_the_branch_taken(x):
    compiled = rt.function(show_when_zero, experimental_autograph_options=BUILTINS)
    expected = _printed(show_when_zero, np.int32(x))
    assert _printed(compiled, rt.constant(x)) == expected
    assert _printed(compiled, rt.constant(x)) == expected


def test_print_of_python_values_only_runs_when_tracing():
    def greet(x, name):
        print("hello", name)
        return x + 1

    compiled = rt.function(greet, experimental_autograph_options=BUILTINS)
    assert _printed(compiled, rt.constant(1), "you") == "hello you\n"
    assert _printed(compiled, rt.constant(2), "you") == ""        # same trace: Python's print
    assert _printed(compiled, rt.constant(2), "me") == "hello me\n"


def test_print_is_left_to_python_unless_the_feature_is_named():
    compiled = rt.function(show_one)
    first = _printed(compiled, rt.constant([1, 2]))
    assert first and first != "[1 2]\n"          # the symbolic tensor, when tracing
    assert _printed(compiled, rt.constant([3, 4])) == ""
    for features in (BUILTINS, [BUILTINS], ag.experimental.Feature.ALL):
        named = rt.function(show_one, experimental_autograph_options=features)
        assert _printed(named, rt.constant([1, 2])) == "[1 2]\n"
    assert "ag__.print_(x)" in ag.to_code(show_one, experimental_optional_features=BUILTINS)
    assert "ag__.print_" not in ag.to_code(show_one)


def test_print_under_to_graph_with_python_values_is_python():
    converted = ag.to_graph(show_with_python_values, experimental_optional_features=BUILTINS)
    assert _printed(converted, 5) == _printed(show_with_python_values, 5)


def test_trace_prints_its_arguments_once_per_trace():
    def f(x):
        ag.trace("tracing", x.shape)
        return x * 2

    compiled = rt.function(f)
    assert _printed(compiled, rt.constant([1.0, 2.0])) == "tracing (2,)\n"
    assert _printed(compiled, rt.constant([3.0, 4.0])) == ""


# -- shapes that mix Python ints and tensors; random bounds that are tensors --------------------

def zeros_of_loop_shape(n):
    i = 0
    while i < n:
        v = rt.zeros([1, rt.random.uniform((), i, i + 1, rt.int32), 2])
        i += 1
    return v


def ones_of_loop_rank(n):
    i = 0
    while i < n:
        v = rt.ones(rt.range(rt.random.uniform((), i, i + 1, rt.int32)))
        i += 1
    return v


def nested_loop_shapes(n):
    i = 0
    while i < n:
        v = {"a": rt.zeros([1, rt.random.uniform((), i, i + 1, rt.int32)]),
             "b": rt.fill([rt.random.uniform((), i, i + 1, rt.int32), 2], 7)}
        i += 1
    return v["a"], v["b"]


@pytest.mark.parametrize("n", [1, 2, 4])
def test_shapes_mixing_ints_and_loop_tensors(n):
    # after the loop, i - 1 == n - 1: uniform in [n - 1, n) is n - 1
    out = rt.function(zeros_of_loop_shape)(rt.constant(n))
    np.testing.assert_array_equal(out.numpy(), np.zeros((1, n - 1, 2), np.float32))
    out = rt.function(ones_of_loop_rank)(rt.constant(n))
    np.testing.assert_array_equal(out.numpy(), np.ones(tuple(range(n - 1)), np.float32))
    a, b = rt.function(nested_loop_shapes)(rt.constant(n))
    np.testing.assert_array_equal(a.numpy(), np.zeros((1, n - 1), np.float32))
    np.testing.assert_array_equal(b.numpy(), np.full((n - 1, 2), 7, np.int32))


def test_a_shape_list_with_tensors_gives_the_partially_known_shape():
    def f(n, x):
        return (rt.zeros([1, n, 2]), rt.ones((n, 3), rt.int32), rt.fill([2, n], 1.5),
                rt.reshape(x, [n, 2]), rt.random.uniform([n, 4]), rt.random.normal([3, n]))

    concrete = rt.function(f).get_concrete_function(rt.TensorSpec((), rt.int32),
                                                    rt.TensorSpec((6,), rt.float32))
    shapes = [t.shape.as_list() for t in concrete.structured_outputs]
    assert shapes == [[1, None, 2], [None, 3], [2, None], [None, 2], [None, 4], [3, None]]
    out = rt.function(f)(rt.constant(3), rt.constant(np.arange(6.0, dtype=np.float32)))
    assert [list(t.shape) for t in out] == [[1, 3, 2], [3, 3], [2, 3], [3, 2], [3, 4], [3, 3]]
    np.testing.assert_array_equal(out[3].numpy(), np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_uniform_integers_between_tensor_bounds(dtype):
    @rt.function
    def draw(lo, hi):
        return rt.random.uniform([4000], lo, hi, dtype)

    values = draw(rt.constant(-3, dtype), rt.constant(4, dtype)).numpy()
    assert values.dtype == dtype.as_numpy_dtype
    assert sorted(set(values.tolist())) == list(range(-3, 4))     # every value of [lo, hi)
    single = draw(rt.constant(5, dtype), rt.constant(6, dtype)).numpy()
    assert set(single.tolist()) == {5}


def test_normal_with_tensor_mean_and_stddev():
    @rt.function
    def draw(mean, stddev):
        return rt.random.normal([3000], mean, stddev)

    np.testing.assert_array_equal(draw(rt.constant(2.5), rt.constant(0.0)).numpy(),
                                  np.full(3000, 2.5, np.float32))
    values = draw(rt.constant(10.0), rt.constant(2.0)).numpy()
    assert abs(values.mean() - 10.0) < 0.2 and abs(values.std() - 2.0) < 0.2


@pytest.mark.parametrize("fn", [zeros_of_loop_shape, ones_of_loop_rank, nested_loop_shapes])
def test_a_value_first_assigned_in_a_loop_that_never_runs(fn):
    with pytest.raises(UnboundLocalError):          # Python: the variable was never bound
        fn(0)
    with pytest.raises(UnboundLocalError):
        rt.function(fn)(0)
    with pytest.raises(rt.errors.InvalidArgumentError):   # TensorFlow: when the graph runs
        rt.function(fn)(rt.constant(0))


# -- return in finally -----------------------------------------------------------------------

def default_return_in_finally(x):
    try:
        return 2
    finally:
        if x > 0:
            return 1  # noqa: B012 - the program under test
        return 0  # noqa: B012


def conditional_return_in_finally(x):
    y = 5
    try:
        if x > 3:
            return 10
        y = 6
    finally:
        if x > 0:
            return 1  # noqa: B012
    return y + 100


def return_in_finally_over_try_return(x):
    try:
        if x > 0:
            return 0
    finally:
        return 1  # noqa: B012


@pytest.mark.parametrize("fn", [default_return_in_finally, conditional_return_in_finally,
                                return_in_finally_over_try_return])
@pytest.mark.parametrize("x", [-1, 0, 1, 5])
def test_a_return_in_finally_replaces_the_one_of_try(fn, x):
    expected = fn(x)
    compiled = rt.function(fn)
    assert np.asarray(compiled(x)) == expected
    assert np.asarray(compiled(rt.constant(x))) == expected
    assert ag.to_graph(fn)(x) == expected


# -- conditional expressions -----------------------------------------------------------------

def unstacked_or_empty(x):
    parts = rt.unstack(x) if rt.size(x) > 0 else []
    return len(parts)


def balanced(x):
    a, b = (x, -x) if rt.reduce_sum(x) > 0 else (-x, x)
    return a - b


def test_conditional_expression_branches_must_return_the_same_structure():
    with pytest.raises(ValueError, match="must return the same nested structure in both branches"):
        rt.function(unstacked_or_empty)(rt.constant([1.0]))
    with pytest.raises(TypeError, match="a list of 1 items"):
        rt.function(unstacked_or_empty)(rt.constant([2.0]))
    for value in ([1.0, 2.0], [-3.0, 1.0]):
        x = np.array(value, np.float32)
        expected = 2 * x if x.sum() > 0 else -2 * x
        out = rt.function(balanced)(rt.constant(value))
        np.testing.assert_array_equal(out.numpy(), expected)


# -- loops TensorFlow refuses ----------------------------------------------------------------

def condition_becomes_a_true_tensor():
    n = rt.constant(0)
    c = True
    while c:
        c = rt.constant(True)
    return n


def condition_becomes_a_true_tensor_with_a_break(limit):
    i = 0
    c = True
    while c:
        i += 1
        c = rt.constant(True)
        if i > limit:
            break
    return i


def test_a_python_condition_that_becomes_an_endless_tensor_is_refused():
    # TensorFlow: NotImplementedError, the condition changed from a Python value to a tensor
    with pytest.raises(NotImplementedError, match="changed to Tensor.*would never end"):
        rt.function(condition_becomes_a_true_tensor)()
    # a body that can break out still runs as Python's loop does
    compiled = rt.function(condition_becomes_a_true_tensor_with_a_break)
    assert np.asarray(compiled(rt.constant(3))) == 4


def dtype_changes(n):
    x = rt.constant(1)
    for _ in rt.range(n):
        x = rt.cast(x, rt.float32)
    return x


def shape_changes(n):
    x = rt.constant([1])
    while n > 0:
        x = rt.constant([1, 1])
        n -= 1
    return x


def structure_changes(n):
    s = {"a": rt.constant(0)}
    while n > 0:
        s = rt.constant(7.0)
        n -= 1
    return s


def becomes_none(n):
    x = rt.constant(1)
    while n > 0:
        x = None
        n -= 1
    return x


@pytest.mark.parametrize("fn, error, name", [
    (dtype_changes, TypeError, "x"), (shape_changes, ValueError, "x"),
    (structure_changes, TypeError, "s"), (becomes_none, TypeError, "x")])
def test_loop_variables_that_change_type_raise_as_in_tensorflow(fn, error, name):
    with pytest.raises(error, match=f"'{name}'"):
        rt.function(fn)(rt.constant(2))


def return_on_some_paths(x):
    if x > 0:
        if x < 5:
            return x
    else:
        return x * x * x


@pytest.mark.parametrize("x", [-2, 3, 7])
def test_a_return_on_some_paths_of_a_staged_if(x):
    assert rt.function(return_on_some_paths)(x) == return_on_some_paths(x)   # Python values
    with pytest.raises(ValueError, match="else branch must also have a return"):
        rt.function(return_on_some_paths)(rt.constant(x))


def test_truncated_normal_with_tensor_mean_and_stddev():
    @rt.function
    def draw(mean, stddev):
        return rt.random.truncated_normal([2000], mean, stddev)

    values = draw(rt.constant(-4.0), rt.constant(0.5)).numpy()
    assert values.min() >= -5.0 and values.max() <= -3.0     # within two stddevs of the mean
    assert abs(values.mean() + 4.0) < 0.1


def test_shape_lists_mixing_ints_with_int32_and_int64_tensors():
    def f(n64, n32):
        return (rt.zeros([1, n64, 2]), rt.ones([n32, n64]), rt.fill([n64, 2], 3),
                rt.reshape(rt.range(6), [n64, -1]), rt.random.uniform([n32, n64]))

    compiled = rt.function(f)
    concrete = compiled.get_concrete_function(rt.TensorSpec((), rt.int64), rt.TensorSpec((), rt.int32))
    assert [t.shape.as_list() for t in concrete.structured_outputs][:3] == [
        [1, None, 2], [None, None], [None, 2]]
    out = compiled(rt.constant(3, rt.int64), rt.constant(2))
    assert [tuple(t.shape) for t in out] == [(1, 3, 2), (2, 3), (3, 2), (3, 2), (2, 3)]
    np.testing.assert_array_equal(out[3].numpy(), np.arange(6).reshape(3, 2))


def padded_in_a_loop(n):
    m = rt.constant([[0, 0], [0, 0]])
    i = 0
    while i < n:
        ag.experimental.set_loop_options(shape_invariants=[(m, rt.TensorShape(None))])
        m = rt.pad(m, [[1, 1], [1, 1]], constant_values=i)
        i += 1
    return m


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_loop_variable_of_unknown_rank(n):
    expected = np.zeros((2, 2), np.int32)
    for i in range(n):
        expected = np.pad(expected, 1, constant_values=i)
    np.testing.assert_array_equal(rt.function(padded_in_a_loop)(rt.constant(n)).numpy(), expected)


def grown_over_a_dataset(n):
    v = rt.constant([0, 0])
    for i in rt.data.Dataset.range(n):          # int64 elements
        ag.experimental.set_loop_options(shape_invariants=[(v, rt.TensorShape([None]))])
        v = rt.concat((v, [i]), 0)
    return v


@pytest.mark.parametrize("n", [0, 2, 3])
def test_concat_packs_a_list_of_tensors_as_the_other_inputs_dtype(n):
    out = rt.function(grown_over_a_dataset)(n)
    assert out.dtype == rt.int32            # TensorFlow casts [i] to the dtype of v
    assert out.numpy().tolist() == [0, 0] + list(range(n))
    floats = rt.concat([rt.constant([1.5]), [0]], 0)      # [0] converts to float32
    assert floats.dtype == rt.float32 and floats.numpy().tolist() == [1.5, 0.0]
    with pytest.raises(TypeError):                         # as TensorFlow: no silent truncation
        rt.concat([rt.constant([1, 2]), [1.5]], 0)


def shape_violates_invariant(n):
    t = rt.constant([1])
    while n > 0:
        ag.experimental.set_loop_options(shape_invariants=[(t, rt.TensorShape([1]))])
        t = rt.range(n)
        n -= 1
    return t


def test_loop_variable_errors_use_tensorflows_words():
    with pytest.raises(TypeError, match="'x' has dtype int32 before the loop, but dtype float32 after"):
        rt.function(dtype_changes)(rt.constant(2))
    with pytest.raises(ValueError, match=r"'x' has shape \(1,\) before the loop, but shape \(2,\) after"):
        rt.function(shape_changes)(rt.constant(2))
    with pytest.raises(ValueError, match=r"'t' has shape \(None,\) after one iteration, which does "
                                         r"not conform with the shape invariant \(1,\)"):
        rt.function(shape_violates_invariant)(rt.constant(2))
    with pytest.raises(TypeError, match="'s' does not have the same nested structure"):
        rt.function(structure_changes)(rt.constant(2))
