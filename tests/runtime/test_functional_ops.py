"""map_fn, scan, foldl, foldr, vectorized_map, switch_case and case: values against NumPy,
eagerly, staged and on the Numba tier, and gradients against finite differences."""

import numpy as np
import pytest

import runtime as rt

X = np.arange(1, 13, dtype=np.float64).reshape(4, 3) / 7.0
TIERS = [None, False, True]  # None: eager; False: NumPy tier; True: jit_compile


def _run(fn, *args, jit=None, signature=None):
    if jit is None:
        return fn(*args)
    return rt.function(fn, jit_compile=jit, input_signature=signature)(*args)


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("jit", TIERS)
def test_map_fn_values(jit):
    out = _run(lambda x: rt.map_fn(lambda r: rt.reduce_sum(r * r), x), rt.constant(X), jit=jit)
    np.testing.assert_allclose(out.numpy(), (X * X).sum(1))


@pytest.mark.parametrize("jit", TIERS)
def test_map_fn_nests_and_signature(jit):
    def f(x):
        return rt.map_fn(lambda e: {"s": e[0] + e[1], "m": rt.reduce_max(e[0])},
                         (x, x * 2.0), fn_output_signature={"s": rt.float64, "m": rt.float64})
    out = _run(f, rt.constant(X), jit=jit)
    np.testing.assert_allclose(out["s"].numpy(), 3 * X)
    np.testing.assert_allclose(out["m"].numpy(), X.max(1))


@pytest.mark.parametrize("jit", [False, True])
def test_map_fn_unknown_count(jit):
    f = rt.function(lambda x: rt.map_fn(lambda r: r * 2.0, x), jit_compile=jit,
                    input_signature=[rt.TensorSpec([None, 3], rt.float64)])
    for n in (1, 4):
        np.testing.assert_allclose(f(rt.constant(X[:n])).numpy(), 2 * X[:n])
    assert f.experimental_get_tracing_count() == 1


def test_map_fn_static_shape_and_dtype_change():
    @rt.function
    def f(x):
        y = rt.map_fn(lambda r: rt.cast(rt.argmax(r), rt.int32), x)
        assert y.shape.as_list() == [4] and y.dtype == rt.int32
        return y
    np.testing.assert_array_equal(f(rt.constant(X)).numpy(), X.argmax(1))


def test_map_fn_errors():
    with pytest.raises(TypeError, match="fn must be callable"):
        rt.map_fn(3, rt.constant(X))
    with pytest.raises(ValueError, match="scalar"):
        rt.map_fn(lambda r: r, rt.constant(1.0))
    with pytest.raises(ValueError, match="same first dimension"):
        rt.map_fn(lambda e: e[0], (rt.constant(X), rt.constant(X[:2])))
    with pytest.raises(TypeError, match="unexpected keyword|fn_output_signatur"):
        rt.map_fn(lambda r: r, rt.constant(X), fn_output_signatur=rt.float64)


@pytest.mark.parametrize("jit", TIERS)
@pytest.mark.parametrize("reverse", [False, True])
def test_scan(jit, reverse):
    out = _run(lambda x: rt.scan(lambda a, r: a * 0.5 + r, x, reverse=reverse), rt.constant(X),
               jit=jit)
    rows = X[::-1] if reverse else X
    acc, want = rows[0], [rows[0]]
    for r in rows[1:]:
        acc = acc * 0.5 + r
        want.append(acc)
    want = np.array(want)[::-1] if reverse else np.array(want)
    np.testing.assert_allclose(out.numpy(), want)


@pytest.mark.parametrize("jit", TIERS)
def test_scan_with_initializer_nest(jit):
    def f(x):
        return rt.scan(lambda acc, r: (acc[0] + r, acc[1] * 2.0), x,
                       initializer=(rt.zeros([3], rt.float64), rt.constant(1.0, rt.float64)))
    s, p = _run(f, rt.constant(X), jit=jit)
    np.testing.assert_allclose(s.numpy(), np.cumsum(X, 0))
    np.testing.assert_allclose(p.numpy(), [2.0, 4.0, 8.0, 16.0])


@pytest.mark.parametrize("jit", TIERS)
def test_foldl_foldr(jit):
    def f(x):
        return (rt.foldl(lambda a, r: a * 2.0 + r, x),
                rt.foldr(lambda a, r: a * 2.0 + r, x, initializer=rt.zeros([3], rt.float64)))
    left, right = _run(f, rt.constant(X), jit=jit)
    acc = X[0]
    for r in X[1:]:
        acc = acc * 2 + r
    np.testing.assert_allclose(left.numpy(), acc)
    acc = np.zeros(3)
    for r in X[::-1]:
        acc = acc * 2 + r
    np.testing.assert_allclose(right.numpy(), acc)


def test_fold_errors():
    with pytest.raises(TypeError, match="structure of the accumulator"):
        rt.foldl(lambda a, r: (a, a), rt.constant(X))
    with pytest.raises(TypeError, match="dtype"):
        rt.foldl(lambda a, r: rt.cast(a, rt.float32), rt.constant(X))


@pytest.mark.parametrize("jit", TIERS)
def test_vectorized_map(jit):
    out = _run(lambda x: rt.vectorized_map(lambda r: rt.exp(r) - r, x), rt.constant(X), jit=jit)
    np.testing.assert_allclose(out.numpy(), np.exp(X) - X)


def _loss_map(x):
    return rt.reduce_sum(rt.map_fn(lambda r: rt.reduce_sum(rt.sin(r) * r), x))


def _loss_scan(x):
    return rt.reduce_sum(rt.scan(lambda a, r: a * r + rt.sin(r), x) ** 2)


def _loss_fold(x):
    return rt.reduce_sum(rt.foldr(lambda a, r: a * r + 1.0, x, initializer=rt.ones([3], rt.float64)))


@pytest.mark.parametrize("loss", [_loss_map, _loss_scan, _loss_fold])
@pytest.mark.parametrize("jit", TIERS)
def test_gradients_match_finite_differences(loss, jit):
    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        return tape.gradient(y, x)
    sig = None if jit is None else [rt.TensorSpec([None, 3], rt.float64)]
    g = _run(grad, rt.constant(X), jit=jit, signature=sig)
    want = _fd(lambda v: float(loss(rt.constant(v)).numpy()), X)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-5, atol=1e-7)


def test_gradient_through_a_compiled_function_from_an_eager_tape():
    f = rt.function(_loss_scan)
    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    want = _fd(lambda v: float(_loss_scan(rt.constant(v)).numpy()), X)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("jit", TIERS)
def test_switch_case(jit):
    def f(i, x):
        return rt.switch_case(i, [lambda: x + 1.0, lambda: x * 2.0, lambda: x - 5.0])
    sig = None if jit is None else [rt.TensorSpec([], rt.int32), rt.TensorSpec([3], rt.float64)]
    g = f if jit is None else rt.function(f, jit_compile=jit, input_signature=sig)
    x = rt.constant(X[0])
    for i, want in [(0, X[0] + 1), (1, X[0] * 2), (2, X[0] - 5), (7, X[0] - 5), (-1, X[0] - 5)]:
        np.testing.assert_allclose(g(rt.constant(i), x).numpy(), want)


def test_switch_case_dict_default_and_python_index():
    fns = {3: lambda: rt.constant(30), 5: lambda: rt.constant(50)}
    assert int(rt.switch_case(5, fns)) == 50
    assert int(rt.switch_case(4, fns, default=lambda: rt.constant(-1))) == -1
    f = rt.function(lambda i: rt.switch_case(i, fns, default=lambda: rt.constant(-1)))
    assert [int(f(rt.constant(i))) for i in (3, 4, 5)] == [30, -1, 50]
    with pytest.raises(TypeError, match="branch_index"):
        rt.switch_case(rt.constant(1.0), fns)
    with pytest.raises(TypeError, match="branch_fns"):
        rt.switch_case(0, [1, 2])


@pytest.mark.parametrize("jit", TIERS)
def test_case(jit):
    def f(x):
        return rt.case([(x < 0.0, lambda: -x), (x < 1.0, lambda: x * 10.0)],
                       default=lambda: x + 100.0)
    sig = None if jit is None else [rt.TensorSpec([], rt.float64)]
    g = f if jit is None else rt.function(f, jit_compile=jit, input_signature=sig)
    for v, want in [(-2.0, 2.0), (0.5, 5.0), (3.0, 103.0)]:
        assert float(g(rt.constant(v, rt.float64))) == pytest.approx(want)


def test_case_exclusive_and_default_none():
    x = rt.constant(0.5)
    assert float(rt.case([(x > 0.0, lambda: x), (x > 1.0, lambda: x * 2)])) == 0.5
    with pytest.raises(rt.errors.InvalidArgumentError, match="more than one"):
        rt.case([(x > 0.0, lambda: x), (x < 1.0, lambda: x * 2)], exclusive=True)
    f = rt.function(lambda x: rt.case([(x > 0.0, lambda: x), (x < 1.0, lambda: x * 2)],
                                      default=lambda: x, exclusive=True))
    assert float(f(rt.constant(2.0))) == 2.0
    with pytest.raises(rt.errors.InvalidArgumentError, match="more than one"):
        f(rt.constant(0.5))
    with pytest.raises(TypeError, match="pred_fn_pairs"):
        rt.case([lambda: x])
