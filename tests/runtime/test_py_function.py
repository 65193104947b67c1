"""py_function and numpy_function: run at every call of a compiled function, on both tiers;
py_function's gradient against finite differences, eagerly and staged."""

import numpy as np
import pytest

import runtime as rt

X = np.array([0.3, 1.2, -0.7], dtype=np.float64)
SPEC = rt.TensorSpec([3], rt.float64)


def _f(x):
    return x * x + rt.sin(x)


def _df(x):
    return 2 * x + np.cos(x)


def test_eager_py_function_and_gradient():
    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.py_function(_f, [x], rt.float64)
    np.testing.assert_allclose(y.numpy(), X * X + np.sin(X))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _df(X))


@pytest.mark.parametrize("jit", [False, True])
def test_runs_at_every_call(jit):
    calls = []

    def record(x):
        calls.append(float(x.numpy().sum()))
        return x + 1.0

    f = rt.function(lambda x: rt.py_function(record, [x], SPEC), jit_compile=jit)
    for k in range(3):
        np.testing.assert_allclose(f(rt.constant(X + k)).numpy(), X + k + 1)
    assert len(calls) == 3 and f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("jit", [False, True])
def test_result_unused_still_runs(jit):
    calls = []
    f = rt.function(lambda x: (rt.py_function(lambda v: calls.append(1) or v, [x], SPEC), x)[1],
                    jit_compile=jit)
    f(rt.constant(X))
    f(rt.constant(X))
    assert len(calls) == 2


@pytest.mark.parametrize("jit", [False, True])
def test_staged_gradient_matches_finite_differences(jit):
    @rt.function(jit_compile=jit)
    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.py_function(_f, [x], SPEC)
            z = rt.reduce_sum(y * y)
        return tape.gradient(z, x)
    fx = X * X + np.sin(X)
    np.testing.assert_allclose(grad(rt.constant(X)).numpy(), 2 * fx * _df(X), rtol=1e-10)
    eps = 1e-6
    fd = [(np.sum((lambda v: v * v + np.sin(v))(X + eps * e) ** 2)
           - np.sum((lambda v: v * v + np.sin(v))(X - eps * e) ** 2)) / (2 * eps)
          for e in np.eye(3)]
    np.testing.assert_allclose(grad(rt.constant(X)).numpy(), fd, rtol=1e-5)


def test_gradient_through_a_compiled_function_from_an_eager_tape():
    f = rt.function(lambda x: rt.py_function(_f, [x], rt.float64))
    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), _df(X))


def test_several_outputs_and_unknown_shape():
    @rt.function
    def f(x):
        a, b = rt.py_function(lambda v: (v * 2.0, rt.reduce_sum(v)), [x], [rt.float64, rt.float64])
        assert a.shape.rank is None
        return a, b
    a, b = f(rt.constant(X))
    np.testing.assert_allclose(a.numpy(), 2 * X)
    assert float(b) == pytest.approx(X.sum())


@pytest.mark.parametrize("jit", [False, True])
def test_numpy_function(jit):
    seen = []

    def sort_desc(a):
        seen.append(type(a))
        return np.sort(a)[::-1].copy()

    f = rt.function(lambda x: rt.numpy_function(sort_desc, [x], SPEC), jit_compile=jit)
    np.testing.assert_allclose(f(rt.constant(X)).numpy(), np.sort(X)[::-1])
    assert seen == [np.ndarray]
    np.testing.assert_allclose(rt.numpy_function(sort_desc, [X], rt.float64).numpy(),
                               np.sort(X)[::-1])


def test_numpy_function_has_no_gradient():
    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.numpy_function(lambda a: a * 2.0, [x], rt.float64)
    assert tape.gradient(y, x) is None


def test_errors():
    f = rt.function(lambda x: rt.py_function(lambda v: rt.cast(v, rt.float32), [x], rt.float64))
    with pytest.raises(rt.errors.InvalidArgumentError, match="dtype"):
        f(rt.constant(X))
    g = rt.function(lambda x: rt.numpy_function(lambda v: (v, v), [x], rt.float64))
    with pytest.raises(rt.errors.InvalidArgumentError, match="returned 2 values"):
        g(rt.constant(X))
    with pytest.raises(TypeError, match="func must be callable"):
        rt.py_function(3, [X], rt.float64)
    with pytest.raises(TypeError, match="Tout"):
        rt.py_function(_f, [X], "not a dtype")
    with pytest.raises(TypeError, match="unexpected keyword|Tot"):
        rt.numpy_function(_f, [X], Tot=rt.float64)


def test_unknown_rank_on_the_numba_tier_is_refused_naming_the_op():
    f = rt.function(lambda x: rt.py_function(_f, [x], rt.float64), jit_compile=True)
    with pytest.raises(Exception, match="EagerPyFunc"):
        f(rt.constant(X))


def test_py_function_and_numpy_function_as_decorators():
    calls = []

    @rt.py_function(Tout=rt.float32)
    def py_plus(x, y):
        calls.append("py")
        return x + y

    @rt.numpy_function(Tout=rt.float32)
    def np_times(x, y):
        calls.append("np")
        return (x * y).astype(np.float32)

    @rt.function
    def f(a, b):
        return py_plus(a, b) + np_times(a, b)

    for _ in range(2):
        assert float(f(rt.constant(2.0), rt.constant(3.0))) == 11.0
    assert calls == ["py", "np", "py", "np"]
    assert float(py_plus(rt.constant(1.0), rt.constant(1.5))) == 2.5
    assert py_plus.__name__ == "py_plus"
