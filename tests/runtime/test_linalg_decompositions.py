"""rt.linalg decompositions and solvers against np.linalg: values eagerly, staged and with
jit_compile=True, batched; gradients against central finite differences in float64; errors."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(7)
MODES = ["eager", "staged", "jit"]


def _run(fn, *args, mode):
    if mode == "eager":
        out = fn(*args)
    else:
        out = rt.function(fn, jit_compile=(mode == "jit"))(*args)
    return rt.nest.map_structure(np.asarray, out)


def _normal(*shape):
    return RNG.normal(size=shape)


def _spd(*shape):
    a = _normal(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar f(x) (x a float64 array)."""
    grad = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        grad[i] = (f(up) - f(down)) / (2 * eps)
    return grad


def _check_grad(loss, *xs, atol=1e-6, rtol=1e-5):
    """The tape's gradients of loss(*tensors) match finite differences, eagerly and staged."""
    def value(*arrays):
        return float(np.asarray(loss(*[rt.constant(a) for a in arrays])))

    def tape_grads(*arrays):
        ts = [rt.constant(a) for a in arrays]
        with rt.GradientTape() as tape:
            for t in ts:
                tape.watch(t)
            y = loss(*ts)
        return tape.gradient(y, ts)

    staged = rt.function(tape_grads)
    for grads in (tape_grads(*xs), staged(*xs)):
        for i, (g, x) in enumerate(zip(grads, xs)):
            def f(xi, i=i):
                args = list(xs)
                args[i] = xi
                return value(*args)
            np.testing.assert_allclose(np.asarray(g), _numeric_grad(f, x), atol=atol, rtol=rtol,
                                       err_msg=f"gradient of argument {i}")


def _mT(x):
    return np.swapaxes(x, -1, -2)


# -- svd -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_matches_numpy(mode, shape, full):
    a = _normal(*shape)
    s, u, v = _run(lambda x: rt.linalg.svd(x, full_matrices=full), a, mode=mode)
    nu, ns, nvh = np.linalg.svd(a, full_matrices=full)
    np.testing.assert_allclose(s, ns, rtol=1e-12)
    np.testing.assert_allclose(u, nu, atol=1e-12)
    np.testing.assert_allclose(v, _mT(nvh), atol=1e-12)
    k = min(shape[-2:])
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ _mT(v[..., :k]), a, atol=1e-12)


@pytest.mark.parametrize("mode", MODES)
def test_svd_values_only(mode):
    a = _normal(3, 4, 2).astype(np.float32)
    s = _run(lambda x: rt.linalg.svd(x, compute_uv=False), a, mode=mode)
    assert s.dtype == np.float32 and s.shape == (3, 2)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-5)


@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (3, 3), (2, 4, 3)])
def test_svd_gradients(shape):
    a = _normal(*shape)
    k = min(shape[-2:])
    w_u, w_v, w_uv = _normal(shape[-2], k), _normal(shape[-1], k), _normal(*shape[-2:])

    def loss(x):
        s, u, v = rt.linalg.svd(x)
        # invariant under flipping the sign of a pair of singular vectors
        return (rt.reduce_sum(s * s * s) + rt.reduce_sum(u * u * w_u) +
                rt.reduce_sum(v * v * w_v) + rt.reduce_sum(rt.matmul(u, v, transpose_b=True) * w_uv))

    _check_grad(loss, a)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.svd(x, compute_uv=False)), a)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.svd(x, full_matrices=True)[0]), a)


def test_svd_reconstruction_gradient():
    a = _normal(4, 3)
    target = _normal(4, 3)

    def loss(x):
        s, u, v = rt.linalg.svd(x)
        rebuilt = rt.matmul(u * s[None, :], v, transpose_b=True)
        return rt.reduce_sum(rt.square(rebuilt - target))

    _check_grad(loss, a)
    ts = rt.constant(a)
    with rt.GradientTape() as tape:
        tape.watch(ts)
        y = loss(ts)
    np.testing.assert_allclose(np.asarray(tape.gradient(y, ts)), 2 * (a - target), atol=1e-10)


# -- qr --------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
@pytest.mark.parametrize("full", [False, True])
def test_qr_matches_numpy(mode, shape, full):
    a = _normal(*shape)
    q, r = _run(lambda x: rt.linalg.qr(x, full_matrices=full), a, mode=mode)
    nq, nr = np.linalg.qr(a, mode="complete" if full else "reduced")
    np.testing.assert_allclose(q, nq, atol=1e-12)
    np.testing.assert_allclose(r, nr, atol=1e-12)
    np.testing.assert_allclose(q @ r, a, atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (2, 4, 2)])
def test_qr_gradients(shape):
    a = _normal(*shape)
    w_q, w_r = _normal(*shape), _normal(shape[-1], shape[-1])

    def loss(x):
        q, r = rt.linalg.qr(x)
        return rt.reduce_sum(q * w_q) + rt.reduce_sum(r * w_r)

    _check_grad(loss, a)


def test_qr_gradient_of_a_wide_matrix_is_not_supported():
    x = rt.constant(_normal(2, 4))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.linalg.qr(x)[1])
    with pytest.raises(NotImplementedError, match="M >= N"):
        tape.gradient(y, x)


# -- cholesky and friends --------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_cholesky_and_solvers_match_numpy(mode):
    a, b = _spd(2, 4, 4), _normal(2, 4, 3)

    def f(a, b):
        chol = rt.linalg.cholesky(a)
        return (chol, rt.linalg.cholesky_solve(chol, b), rt.linalg.logdet(a),
                rt.linalg.slogdet(a - 6.0 * rt.eye(4, dtype=rt.float64)))

    chol, x, logdet, (sign, log_abs) = _run(f, a, b, mode=mode)
    np.testing.assert_allclose(chol, np.linalg.cholesky(a), atol=1e-12)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), atol=1e-10)
    np.testing.assert_allclose(logdet, np.linalg.slogdet(a)[1], rtol=1e-12)
    n_sign, n_log = np.linalg.slogdet(a - 6.0 * np.eye(4))
    np.testing.assert_array_equal(sign, n_sign)
    np.testing.assert_allclose(log_abs, n_log, rtol=1e-12)


def _sym(x):
    return (x + rt.linalg.matrix_transpose(x)) * 0.5


def test_cholesky_gradients():
    a = _spd(2, 3, 3)
    w = _normal(3, 3)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.cholesky(_sym(x)) * w), a)
    # the gradient is symmetric
    x = rt.constant(a)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.linalg.cholesky(x) * w)
    g = np.asarray(tape.gradient(y, x))
    np.testing.assert_allclose(g, _mT(g), atol=1e-12)


def test_logdet_slogdet_det_inv_gradients():
    a = _spd(3, 3)
    n = _normal(2, 3, 3) + 3 * np.eye(3)
    _check_grad(lambda x: rt.linalg.logdet(_sym(x)), a)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.slogdet(x)[1]), n)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.det(x)), n)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.inv(x) * n[0]), n)


def test_cholesky_of_an_indefinite_matrix_raises():
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    for fn in (rt.linalg.cholesky, rt.function(rt.linalg.cholesky),
               rt.function(rt.linalg.cholesky, jit_compile=True)):
        with pytest.raises(rt.errors.InvalidArgumentError, match="positive definite"):
            fn(bad)


# -- eigh ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_eigh_matches_numpy(mode):
    a = _spd(3, 4, 4)
    e, v = _run(rt.linalg.eigh, a, mode=mode)
    ne, nv = np.linalg.eigh(a)
    np.testing.assert_allclose(e, ne, rtol=1e-12)
    np.testing.assert_allclose(v, nv, atol=1e-12)
    np.testing.assert_allclose(_run(rt.linalg.eigvalsh, a, mode=mode), ne, rtol=1e-12)


def test_eigh_gradients():
    a = _normal(2, 4, 4)
    a = a + _mT(a)
    w_e, w_v = _normal(4), _normal(4, 4)

    def loss(x):
        e, v = rt.linalg.eigh(x)
        return rt.reduce_sum(e * e * w_e) + rt.reduce_sum(v * v * w_v)

    # the kernel reads the lower triangle: raw entries match finite differences directly,
    _check_grad(loss, a)
    # and so does a loss of the symmetrised matrix
    _check_grad(lambda x: loss(_sym(x)), a)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.eigvalsh(x) * w_e), a)


# -- solve -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("adjoint", [False, True])
def test_solve_matches_numpy(mode, adjoint):
    a, b = _normal(2, 3, 3) + 2 * np.eye(3), _normal(3, 2)  # batch axes broadcast
    x = _run(lambda a, b: rt.linalg.solve(a, b, adjoint=adjoint), a, b, mode=mode)
    np.testing.assert_allclose(x, np.linalg.solve(_mT(a) if adjoint else a, b), atol=1e-12)


@pytest.mark.parametrize("adjoint", [False, True])
def test_solve_gradients(adjoint):
    a, b = _normal(2, 3, 3) + 2 * np.eye(3), _normal(3, 2)
    w = _normal(2, 3, 2)
    _check_grad(lambda a, b: rt.reduce_sum(rt.linalg.solve(a, b, adjoint=adjoint) * w), a, b)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_matches_numpy(mode, lower, adjoint):
    a, b = _normal(2, 4, 4) + 4 * np.eye(4), _normal(2, 4, 3)
    x = _run(lambda a, b: rt.linalg.triangular_solve(a, b, lower=lower, adjoint=adjoint), a, b,
             mode=mode)
    t = np.tril(a) if lower else np.triu(a)
    np.testing.assert_allclose(x, np.linalg.solve(_mT(t) if adjoint else t, b), atol=1e-12)


@pytest.mark.parametrize("lower", [False, True])
@pytest.mark.parametrize("adjoint", [False, True])
def test_triangular_solve_gradients(lower, adjoint):
    a, b = _normal(4, 4) + 4 * np.eye(4), _normal(2, 4, 2)
    w = _normal(2, 4, 2)
    _check_grad(lambda a, b: rt.reduce_sum(
        rt.linalg.triangular_solve(a, b, lower=lower, adjoint=adjoint) * w), a, b)


def test_cholesky_solve_gradients():
    chol, b = np.linalg.cholesky(_spd(3, 3)), _normal(3, 2)
    _check_grad(lambda c, b: rt.reduce_sum(rt.square(rt.linalg.cholesky_solve(c, b))), chol, b)


def test_a_singular_matrix_raises():
    a = np.ones((3, 3))
    for fn in (rt.linalg.solve, rt.function(rt.linalg.solve),
               rt.function(rt.linalg.solve, jit_compile=True)):
        with pytest.raises(rt.errors.InvalidArgumentError, match="not invertible"):
            fn(a, np.ones((3, 1)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="not invertible"):
        rt.linalg.triangular_solve(np.triu(a) - np.eye(3), np.ones((3, 1)), lower=False)


# -- least squares and the pseudo-inverse ----------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("shape", [(6, 3), (3, 5), (2, 5, 4)])
def test_lstsq_matches_numpy(mode, fast, shape):
    a, b = _normal(*shape), _normal(*shape[:-1], 2)
    x = _run(lambda a, b: rt.linalg.lstsq(a, b, fast=fast), a, b, mode=mode)
    expected = np.linalg.pinv(a) @ b  # least squares, of least norm for a wide matrix
    np.testing.assert_allclose(x, expected, atol=1e-9)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("shape", [(6, 3), (3, 5), (2, 5, 4)])
def test_lstsq_regularised(mode, fast, shape):
    a, b = _normal(*shape), _normal(*shape[:-1], 2)
    x = _run(lambda a, b: rt.linalg.lstsq(a, b, l2_regularizer=0.5, fast=fast), a, b, mode=mode)
    n = shape[-1]
    expected = np.linalg.solve(_mT(a) @ a + 0.5 * np.eye(n), _mT(a) @ b)
    np.testing.assert_allclose(x, expected, atol=1e-9)


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("shape", [(5, 3), (3, 4)])
def test_lstsq_gradients(fast, shape):
    a, b = _normal(*shape), _normal(shape[0], 2)
    w = _normal(shape[1], 2)
    _check_grad(lambda a, b: rt.reduce_sum(rt.linalg.lstsq(a, b, fast=fast) * w), a, b,
                atol=1e-5)
    _check_grad(lambda a, b: rt.reduce_sum(
        rt.linalg.lstsq(a, b, l2_regularizer=0.3, fast=fast) * w), a, b, atol=1e-5)


@pytest.mark.parametrize("mode", MODES)
def test_pinv_matches_numpy(mode):
    a = _normal(2, 4, 3)
    a[1, :, 2] = a[1, :, 0]  # rank deficient
    np.testing.assert_allclose(_run(rt.linalg.pinv, a, mode=mode), np.linalg.pinv(a), atol=1e-10)


def test_pinv_gradient():
    a, w = _normal(4, 3), _normal(3, 4)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.pinv(x) * w), a, atol=1e-5)


# -- products --------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_matvec_adjoint_cross(mode):
    a, v, u = _normal(2, 3, 4), _normal(2, 4), _normal(5, 3)

    def f(a, v, u):
        return (rt.linalg.matvec(a, v), rt.linalg.matvec(a, a[:, :, 0], transpose_a=True),
                rt.linalg.matvec(a, a[:, :, 1], adjoint_a=True), rt.linalg.adjoint(a),
                rt.linalg.cross(u, u[::-1]), rt.linalg.cross(a[:, :, :3], a[0, :, 1:]))

    mv, mvt, mva, adj, cr, cr2 = _run(f, a, v, u, mode=mode)
    np.testing.assert_allclose(mv, np.einsum("bij,bj->bi", a, v), atol=1e-12)
    np.testing.assert_allclose(mvt, np.einsum("bij,bi->bj", a, a[:, :, 0]), atol=1e-12)
    np.testing.assert_allclose(mva, np.einsum("bij,bi->bj", a, a[:, :, 1]), atol=1e-12)
    np.testing.assert_array_equal(adj, _mT(a))
    np.testing.assert_allclose(cr, np.cross(u, u[::-1]), atol=1e-12)
    np.testing.assert_allclose(cr2, np.cross(a[:, :, :3], a[0, :, 1:]), atol=1e-12)


def test_cross_and_matvec_gradients():
    a, b = _normal(2, 3), _normal(2, 3)
    w = _normal(2, 3)
    _check_grad(lambda a, b: rt.reduce_sum(rt.linalg.cross(a, b) * w), a, b)
    _check_grad(lambda a, b: rt.reduce_sum(rt.linalg.matvec(a, b[0]) * w[:, 0]), a, b)


# -- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [rt.linalg.det, rt.linalg.inv, rt.linalg.cholesky,
                                rt.linalg.eigh, rt.linalg.slogdet, rt.linalg.logdet,
                                rt.linalg.eigvalsh])
def test_non_square_input_raises_naming_the_shape(fn):
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"square.*\(2, 3\)|\[2, 3\]"):
        fn(np.ones((2, 3)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="square"):
        rt.function(fn)(np.ones((4, 2, 3)))


@pytest.mark.parametrize("fn, arg", [
    (rt.linalg.svd, "tensor"), (rt.linalg.qr, "input"), (rt.linalg.cholesky, "input"),
    (rt.linalg.eigh, "tensor"), (rt.linalg.slogdet, "input"), (rt.linalg.det, "input"),
    (rt.linalg.inv, "input"), (rt.linalg.pinv, "a"), (rt.linalg.adjoint, "matrix"),
    (rt.linalg.logdet, "matrix")])
def test_rank_one_input_raises_naming_the_argument(fn, arg):
    with pytest.raises(ValueError, match=f"`{arg}`"):
        fn(np.ones(3))


def test_solver_argument_errors():
    a = np.eye(3)
    with pytest.raises(ValueError, match="`rhs`"):
        rt.linalg.solve(a, np.ones(3))
    with pytest.raises(rt.errors.InvalidArgumentError, match="rhs needs 3 rows"):
        rt.linalg.solve(a, np.ones((2, 1)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="rhs needs 3 rows"):
        rt.linalg.triangular_solve(a, np.ones((2, 1)))
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.linalg.svd(np.ones((2, 2), np.int32))
    with pytest.raises(TypeError, match="share a dtype"):
        rt.linalg.solve(a, rt.constant(np.ones((3, 1), np.float32)))
    with pytest.raises(TypeError):
        rt.linalg.solve(a, np.ones((3, 1)), adjiont=True)  # a typo
    with pytest.raises(TypeError, match="`full_matrices`"):
        rt.linalg.svd(a, full_matrices="yes")
    with pytest.raises(ValueError, match="`l2_regularizer`"):
        rt.linalg.lstsq(a, np.ones((3, 1)), l2_regularizer=-1.0)
    with pytest.raises(ValueError, match="`a`.*3 elements"):
        rt.linalg.cross(np.ones(4), np.ones(4))


# -- saved functions and unknown shapes ------------------------------------------------------

def _decompose(a, b):
    s, u, v = rt.linalg.svd(a, full_matrices=True)
    q, r = rt.linalg.qr(a, full_matrices=True)
    e, w = rt.linalg.eigh(a)
    return (s, rt.abs(u), rt.abs(v), rt.abs(q), rt.abs(r), e, rt.linalg.solve(a, b, adjoint=True),
            rt.linalg.triangular_solve(a, b, lower=False, adjoint=True),
            rt.linalg.svd(a, compute_uv=False), rt.linalg.slogdet(a)[1])


def test_saved_functions_load_with_their_attributes(tmp_path):
    spec = [rt.TensorSpec([None, 3, 3], rt.float64), rt.TensorSpec([None, 3, 2], rt.float64)]
    f = rt.function(_decompose, input_signature=spec)
    a, b = _spd(2, 3, 3), _normal(2, 3, 2)
    rt.saved_model.save(f, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    for got, want in zip(rt.nest.flatten(loaded(a, b)), rt.nest.flatten(_decompose(a, b))):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=1e-12)


def test_unknown_shapes_stage_and_differentiate():
    spec = [rt.TensorSpec([None, None, None], rt.float64)]

    @rt.function(input_signature=spec)
    def grads(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            s, u, v = rt.linalg.svd(x)
            y = (rt.reduce_sum(s) + rt.reduce_sum(rt.linalg.eigvalsh(x)) +
                 rt.reduce_sum(rt.linalg.cholesky(x)) + rt.reduce_sum(rt.linalg.slogdet(x)[1]))
        return y, tape.gradient(y, x)

    a = _spd(2, 3, 3)
    y, g = grads(a)
    x = rt.constant(a)
    with rt.GradientTape() as tape:
        tape.watch(x)
        s, u, v = rt.linalg.svd(x)
        y2 = (rt.reduce_sum(s) + rt.reduce_sum(rt.linalg.eigvalsh(x)) +
              rt.reduce_sum(rt.linalg.cholesky(x)) + rt.reduce_sum(rt.linalg.slogdet(x)[1]))
    np.testing.assert_allclose(np.asarray(y), np.asarray(y2), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(g), np.asarray(tape.gradient(y2, x)), atol=1e-10)


# -- expm ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_expm_matches_known_exponentials(mode):
    sym = _normal(2, 4, 4)
    sym = sym + _mT(sym)
    e, v = np.linalg.eigh(sym)
    t = 2.5
    rotation = np.array([[0.0, -t], [t, 0.0]])
    nilpotent = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    got_sym, got_rot, got_nil, got_big = _run(
        lambda s, r, n: (rt.linalg.expm(s), rt.linalg.expm(r), rt.linalg.expm(n),
                         rt.linalg.expm(r * 20.0)), sym, rotation, nilpotent, mode=mode)
    np.testing.assert_allclose(got_sym, (v * np.exp(e)[..., None, :]) @ _mT(v), rtol=1e-12,
                               atol=1e-12 * np.exp(e).max())
    np.testing.assert_allclose(got_rot, [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]],
                               atol=1e-14)
    np.testing.assert_allclose(got_nil, np.eye(3) + nilpotent + nilpotent @ nilpotent / 2,
                               atol=1e-14)
    np.testing.assert_allclose(got_big, [[np.cos(50.0), -np.sin(50.0)],
                                         [np.sin(50.0), np.cos(50.0)]], atol=1e-12)


def test_expm_gradient_and_float32():
    a, w = _normal(2, 3, 3), _normal(3, 3)
    _check_grad(lambda x: rt.reduce_sum(rt.linalg.expm(x) * w), a)
    out = rt.linalg.expm(a.astype(np.float32))
    assert out.dtype == rt.float32
    np.testing.assert_allclose(np.asarray(out), np.asarray(rt.linalg.expm(a)), rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(rt.errors.InvalidArgumentError, match="square"):
        rt.linalg.expm(np.ones((2, 3)))
