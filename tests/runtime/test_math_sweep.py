"""tf.math / tf.nn / top-level functions of the completeness sweep, against NumPy and math."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runtime as rt

scipy_special = pytest.importorskip("scipy.special")


def _tiers(fn, *args):
    """fn(*args) eagerly, staged, and compiled by Numba: the three results."""
    return [np.asarray(fn(*args)), np.asarray(rt.function(fn)(*args)),
            np.asarray(rt.function(fn, jit_compile=True)(*args))]


def _check(fn, args, expected, rtol=1e-6, atol=1e-7):
    for got in _tiers(fn, *args):
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def _numeric_grad(f, x, eps=1e-6):
    x = np.asarray(x, np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (float(np.sum(np.asarray(f(rt.constant(up))))) -
                  float(np.sum(np.asarray(f(rt.constant(down)))))) / (2 * eps)
    return out


def _check_grad(f, x, rtol=1e-5, atol=1e-6):
    xt = rt.constant(np.asarray(x, np.float64))
    with rt.GradientTape() as tape:
        tape.watch(xt)
        y = rt.reduce_sum(f(xt))
    np.testing.assert_allclose(np.asarray(tape.gradient(y, xt)), _numeric_grad(f, x),
                               rtol=rtol, atol=atol)


X = np.array([[0.3, -0.7, 0.05], [0.9, -0.2, 0.6]])


@pytest.mark.parametrize("name,ref", [("acos", np.arccos), ("asin", np.arcsin), ("atan", np.arctan),
                                      ("asinh", np.arcsinh), ("atanh", np.arctanh),
                                      ("cosh", np.cosh), ("sinh", np.sinh)])
def test_inverse_and_hyperbolic_functions(name, ref):
    fn = getattr(rt.math, name)
    assert getattr(rt, name) is fn
    _check(fn, (X,), ref(X), rtol=1e-12)
    _check_grad(fn, X)


def test_acosh_expm1_atan2_rint_log_sigmoid():
    _check(rt.math.acosh, (X + 2,), np.arccosh(X + 2), rtol=1e-12)
    _check_grad(rt.math.acosh, X + 2)
    _check(rt.math.expm1, (X,), np.expm1(X), rtol=1e-12)
    _check(lambda a, b: rt.math.atan2(a, b), (X, X[::-1]), np.arctan2(X, X[::-1]), rtol=1e-12)
    _check(rt.math.rint, (X * 7,), np.rint(X * 7))
    _check(rt.math.log_sigmoid, (X * 100,), -np.logaddexp(0, -X * 100), rtol=1e-12)
    _check_grad(rt.math.log_sigmoid, X)
    with pytest.raises(TypeError, match="floating"):
        rt.math.acos(rt.constant([1, 2]))


def test_safe_logs_and_divisions():
    x = np.array([0.0, 0.0, 2.0, 3.0])
    y = np.array([0.0, -1.0, 4.0, 0.0])
    _check(rt.math.xlogy, (x, np.abs(y) + (y == -1)), scipy_special.xlogy(x, np.abs(y) + (y == -1)))
    np.testing.assert_array_equal(rt.math.xlogy(x, y * 0).numpy()[:2], [0.0, 0.0])
    _check(rt.math.xlog1py, (x, y), scipy_special.xlog1py(x, y))
    with np.errstate(divide="ignore", invalid="ignore"):
        _check(rt.math.xdivy, (x, y), np.where(x == 0, 0, x / y))
        _check(rt.math.divide_no_nan, (x, y), np.where(y == 0, 0, x / np.where(y == 0, 1, y)))
    _check(rt.math.multiply_no_nan, (np.array([np.inf, np.nan, 2.0]), np.array([0.0, 0.0, 3.0])),
           [0.0, 0.0, 6.0])
    _check(rt.math.reciprocal_no_nan, (y,), np.where(y == 0, 0, 1 / np.where(y == 0, 1, y)))
    _check(rt.math.squared_difference, (x, y), (x - y) ** 2)
    _check_grad(lambda t: rt.math.xlogy(t, t + 1.5), X)
    _check_grad(lambda t: rt.math.divide_no_nan(t, t * t + 0.1), X)


def test_truncating_division_matches_c_semantics():
    a = np.array([-7, 7, -7, 7, 6, -1], np.int32)
    b = np.array([2, 2, -2, -2, 3, 5], np.int32)
    q = np.trunc(a / b).astype(np.int32)
    _check(rt.truncatediv, (a, b), q)
    _check(rt.truncatemod, (a, b), np.fmod(a, b))
    af, bf = a.astype(np.float64) + 0.5, b.astype(np.float64)
    _check(rt.math.truncatediv, (af, bf), np.trunc(af / bf))
    _check(rt.math.truncatemod, (af, bf), np.fmod(af, bf), rtol=1e-12)


def test_add_n_scalar_mul_and_reductions():
    xs = [X, 2 * X, -X]
    _check(lambda a, b, c: rt.add_n([a, b, c]), xs, 2 * X)
    with pytest.raises(ValueError, match="non-empty"):
        rt.add_n([])
    with pytest.raises(TypeError, match="dtype"):
        rt.add_n([rt.constant([1.0]), rt.constant([1])])
    _check(lambda a: rt.math.scalar_mul(3.0, a), (X,), 3 * X)
    for axis in (None, 0, 1, [0, 1]):
        np_axis = None if axis is None else tuple(np.atleast_1d(axis))
        _check(lambda a, axis=axis: rt.math.reduce_variance(a, axis=axis), (X,), np.var(X, axis=np_axis),
               rtol=1e-10)
        _check(lambda a, axis=axis: rt.math.reduce_std(a, axis=axis, keepdims=True), (X,),
               np.std(X, axis=np_axis, keepdims=True), rtol=1e-10)
        _check(lambda a, axis=axis: rt.math.reduce_euclidean_norm(a, axis=axis), (X,),
               np.sqrt(np.sum(X ** 2, axis=np_axis)), rtol=1e-10)
    _check_grad(lambda t: rt.math.reduce_std(t, axis=1), X)
    assert rt.math.reduce_euclidean_norm(rt.constant([3, 4])).numpy() == 5
    with pytest.raises(TypeError, match="input_tensor"):
        rt.math.reduce_variance(rt.constant([1, 2]))
    m = np.array([[0, 1, 2], [0, 0, 3]])
    _check(lambda a: rt.math.count_nonzero(a, axis=1), (m,), [2, 1])
    assert rt.math.count_nonzero(m).dtype == rt.int64
    assert rt.math.count_nonzero(rt.constant([True, False, True])).numpy() == 2


def test_polyval_cumulative_logsumexp():
    v = np.array([0.5, -1.0, 2.0])
    _check(lambda t: rt.math.polyval([2.0, -1.0, 3.0], t), (v,), np.polyval([2.0, -1.0, 3.0], v))
    _check_grad(lambda t: rt.math.polyval([2.0, -1.0, 3.0], t), v)
    big = np.array([[1000.0, 1001.0, 999.0], [0.1, 0.2, 0.3]])
    ref = np.logaddexp.accumulate(big, axis=1)
    _check(lambda t: rt.math.cumulative_logsumexp(t, axis=1), (big,), ref, rtol=1e-12)
    rev = np.logaddexp.accumulate(big[:, ::-1], axis=1)[:, ::-1]
    _check(lambda t: rt.math.cumulative_logsumexp(t, axis=1, reverse=True), (big,), rev, rtol=1e-12)
    _check_grad(lambda t: rt.math.cumulative_logsumexp(t, axis=1), X)


def test_order_predicates_and_permutations():
    assert bool(rt.math.is_non_decreasing([1, 2, 2, 5]))
    assert not bool(rt.math.is_strictly_increasing([1, 2, 2, 5]))
    assert bool(rt.debugging.is_strictly_increasing([[1, 2], [3, 4]]))
    assert bool(rt.math.is_non_decreasing([7]))
    np.testing.assert_array_equal(rt.math.invert_permutation([3, 0, 2, 1]).numpy(),
                                  np.argsort([3, 0, 2, 1]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="permutation"):
        rt.math.invert_permutation([0, 0, 1])


def test_confusion_matrix():
    labels, preds = np.array([0, 1, 2, 1, 1]), np.array([0, 2, 2, 1, 0])
    ref = np.zeros((3, 3), np.int32)
    np.add.at(ref, (labels, preds), 1)
    _check(lambda a, b: rt.math.confusion_matrix(a, b, num_classes=3), (labels, preds), ref)
    np.testing.assert_array_equal(rt.math.confusion_matrix(labels, preds).numpy(), ref)
    w = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    wref = np.zeros((4, 4))
    np.add.at(wref, (labels, preds), w)
    got = rt.math.confusion_matrix(labels, preds, num_classes=4, weights=w, dtype=rt.float64)
    np.testing.assert_allclose(got.numpy(), wref)
    with pytest.raises(rt.errors.InvalidArgumentError, match="labels"):
        rt.math.confusion_matrix([0, 5], [0, 1], num_classes=3)


def test_l2_normalize_and_zero_fraction():
    _check(lambda t: rt.math.l2_normalize(t, axis=1), (X,), X / np.linalg.norm(X, axis=1, keepdims=True))
    assert rt.nn.l2_normalize is rt.math.l2_normalize
    _check_grad(lambda t: rt.nn.l2_normalize(t, axis=0), X)
    np.testing.assert_allclose(rt.math.l2_normalize(np.zeros(3)).numpy(), 0)
    assert float(rt.nn.zero_fraction(np.array([0.0, 1.0, 0.0, 2.0]))) == 0.5


def test_top_level_helpers():
    np.testing.assert_array_equal(rt.unravel_index([5, 7, 0], [3, 4]).numpy(),
                                  np.stack(np.unravel_index([5, 7, 0], (3, 4))))
    with pytest.raises(rt.errors.InvalidArgumentError, match="indices"):
        rt.unravel_index([12], [3, 4])
    got = rt.saturate_cast(rt.constant([1e10, -1e10, 3.7, 200.0]), rt.uint8)
    np.testing.assert_array_equal(got.numpy(), [255, 0, 3, 200])
    assert rt.saturate_cast(rt.constant([300, -5]), rt.uint8).numpy().tolist() == [255, 0]
    assert [s.numpy().tolist() for s in rt.shape_n([rt.zeros([2, 3]), rt.zeros([4])])] == [[2, 3], [4]]
    np.testing.assert_array_equal(rt.guarantee_const(X).numpy(), X)
    assert rt.realdiv is rt.divide
    np.testing.assert_allclose(rt.math.softmax(X).numpy(), rt.nn.softmax(X).numpy())


def test_reverse_sequence():
    x = np.arange(24.0).reshape(3, 4, 2)
    lengths = np.array([2, 4, 0])
    ref = x.copy()
    for b, n in enumerate(lengths):
        ref[b, :n] = x[b, :n][::-1]
    _check(lambda t: rt.reverse_sequence(t, lengths, seq_axis=1), (x,), ref)
    xt = np.swapaxes(x, 0, 1)
    _check(lambda t: rt.reverse_sequence(t, lengths, seq_axis=0, batch_axis=1), (xt,),
           np.swapaxes(ref, 0, 1))
    _check_grad(lambda t: rt.reverse_sequence(t, lengths, seq_axis=1) * np.arange(24.0).reshape(3, 4, 2), x)
    with pytest.raises(rt.errors.InvalidArgumentError, match="seq_lengths"):
        rt.reverse_sequence(x, [5, 1, 1], seq_axis=1)
    with pytest.raises(ValueError, match="differ"):
        rt.reverse_sequence(x, lengths, seq_axis=0, batch_axis=0)


# -- special functions ---------------------------------------------------------------------------

S = np.array([0.3, 1.0, 2.5, 7.0, 15.0, -0.5, -2.3, 50.0])


@pytest.mark.parametrize("name,ref", [("lgamma", "gammaln"), ("digamma", "digamma"),
                                      ("erfc", "erfc"), ("bessel_i0e", "i0e"),
                                      ("bessel_i1e", "i1e"), ("bessel_i0", "i0"),
                                      ("bessel_i1", "i1")])
def test_special_functions_match_scipy(name, ref):
    fn = getattr(rt.math, name)
    assert getattr(rt.math.special, name) is fn
    _check(fn, (S,), getattr(scipy_special, ref)(S), rtol=1e-11)
    assert fn(S.astype(np.float32)).dtype == rt.float32
    _check_grad(fn, np.array([0.4, 1.3, 3.0]))


def test_polygamma_erfinv_ndtri_erfcinv_lbeta():
    n = np.array([1.0, 2.0, 3.0, 1.0, 0.0])
    x = np.array([0.5, 2.0, 7.0, 30.0, 1.5])
    _check(rt.math.polygamma, (n, x), scipy_special.polygamma(n.astype(int), x), rtol=1e-11)
    p = np.array([1e-300, 1e-20, 1e-5, 0.1, 0.4999, 0.5, 0.7, 0.999999])
    _check(rt.math.ndtri, (p,), scipy_special.ndtri(p), rtol=1e-11)
    y = np.array([-0.999999999, -0.7, -0.2, 0.0, 1e-8, 0.3, 0.5, 0.51, 0.9999])
    _check(rt.math.erfinv, (y,), scipy_special.erfinv(y), rtol=1e-12)
    assert np.isposinf(rt.math.erfinv([1.0]).numpy()[0]) and np.isnan(rt.math.erfinv([1.5]).numpy()[0])
    q = np.array([1e-10, 0.3, 1.0, 1.7])
    _check(rt.math.erfcinv, (q,), scipy_special.erfcinv(q), rtol=1e-11)
    a = np.array([[1.5, 2.0, 0.7], [3.0, 0.2, 1.0]])
    _check(rt.math.lbeta, (a,), np.sum(scipy_special.gammaln(a), -1) - scipy_special.gammaln(a.sum(-1)),
           rtol=1e-11)
    _check_grad(rt.math.erfinv, np.array([-0.6, 0.1, 0.8]))
    _check_grad(rt.math.ndtri, np.array([0.2, 0.5, 0.9]))
    _check_grad(rt.math.digamma, np.array([0.7, 2.0]))
    _check_grad(rt.math.lbeta, a)
    with pytest.raises(TypeError, match="floating"):
        rt.math.lgamma(rt.constant([1, 2]))


def test_nextafter():
    got = _tiers(rt.math.nextafter, np.array([1.0, 0.0]), np.array([2.0, -1.0]))
    for g in got:
        np.testing.assert_array_equal(g, np.nextafter([1.0, 0.0], [2.0, -1.0]))


def test_complex_parts():
    z = np.array([1 + 2j, -3 - 1j, 0.5j], np.complex64)
    _check(rt.math.real, (z,), z.real)
    _check(rt.math.imag, (z,), z.imag)
    _check(rt.math.conj, (z,), np.conj(z))
    _check(rt.math.angle, (z,), np.angle(z))
    assert rt.math.real(z).dtype == rt.float32
    got = rt.complex(rt.constant([1.0, 2.0], rt.float64), 3.0)
    assert got.dtype == rt.complex128 and got.numpy().tolist() == [1 + 3j, 2 + 3j]
    np.testing.assert_array_equal(rt.math.real(X).numpy(), X)
    np.testing.assert_array_equal(rt.math.imag(X).numpy(), 0 * X)
    np.testing.assert_allclose(rt.math.angle(np.array([-1.0, 2.0])).numpy(), [math.pi, 0.0])
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.complex(rt.constant([1, 2]), rt.constant([1, 2]))


# -- tf.nn ---------------------------------------------------------------------------------------

def _sigmoid(t):
    return 1 / (1 + np.exp(-t))


def test_activations():
    v = np.array([-8.0, -1.0, -0.1, 0.2, 3.0, 7.0])
    _check(rt.nn.relu6, (v,), np.clip(v, 0, 6))
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    _check(rt.nn.selu, (v,), scale * np.where(v > 0, v, alpha * np.expm1(np.minimum(v, 0))), rtol=1e-12)
    _check(rt.nn.silu, (v,), v * _sigmoid(v), rtol=1e-12)
    _check(lambda t: rt.nn.swish(t, beta=2.0), (v,), v * _sigmoid(2 * v), rtol=1e-12)
    _check(rt.nn.softsign, (v,), v / (1 + np.abs(v)), rtol=1e-12)
    _check(rt.nn.crelu, (X,), np.concatenate([np.maximum(X, 0), np.maximum(-X, 0)], -1))
    for fn in (rt.nn.selu, rt.nn.silu, rt.nn.softsign):
        _check_grad(fn, v[1:])
    with pytest.raises(TypeError):
        rt.nn.silu(v, bta=1.0)


def test_losses_and_moments():
    z = np.array([1.0, 0.0, 1.0, 0.3])
    x = np.array([0.4, -2.0, 5.0, -0.1])
    ref = -(3.0 * z * np.log(_sigmoid(x)) + (1 - z) * np.log(1 - _sigmoid(x)))
    _check(lambda a, b: rt.nn.weighted_cross_entropy_with_logits(a, b, 3.0), (z, x), ref, rtol=1e-10)
    _check_grad(lambda t: rt.nn.weighted_cross_entropy_with_logits(z, t, 3.0), x)
    t = np.array([0.0, 2.0, 5.0])
    c = np.array([0.1, 0.5, 1.2])
    safe = np.maximum(t, 1)
    full = np.exp(c) - t * c + np.where(t > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0)
    _check(lambda a, b: rt.nn.log_poisson_loss(a, b, compute_full_loss=True), (t, c), full, rtol=1e-10)
    loss = np.array([1.0, 2.0, 6.0])
    _check(rt.nn.compute_average_loss, (loss,), 3.0)
    assert float(rt.nn.compute_average_loss(loss, sample_weight=[1.0, 0.0, 0.5], global_batch_size=4)) == 1.0
    assert float(rt.nn.scale_regularization_loss([rt.constant(2.0), rt.constant([1.0, 3.0])])) == 6.0
    data = np.arange(12.0).reshape(3, 4)
    count, m_ss, v_ss, shift = rt.nn.sufficient_statistics(data, [0], shift=1.0)
    mean, var = rt.nn.normalize_moments(count, m_ss, v_ss, shift)
    np.testing.assert_allclose(mean.numpy(), data.mean(0))
    np.testing.assert_allclose(var.numpy(), data.var(0))
