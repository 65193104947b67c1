"""tf.random.gamma, poisson, stateless_gamma, stateless_poisson,
stateless_parameterized_truncated_normal, tnp.random.poisson and keras.random.gamma / beta
(runtime/ops/random_distributions.py).

Oracles: the moments of the distributions (mean and variance over many draws, within five
standard errors), TensorFlow 2.21's shapes, dtypes and errors (recorded), the gradient of a
gamma draw in alpha as TensorFlow 2.21's RandomGammaGrad prints it (float64) and as finite
differences of rt.math.igamma give it, and E[d sample / d alpha] = d E[sample] / d alpha = 1 / beta.
The numbers themselves are not TensorFlow's (its distributions are).
"""

import math

import numpy as np
import pytest

import runtime as rt
from runtime.ops import random_distributions as rd

N = 40000


def _moments_close(draws, mean, var):
    draws = np.asarray(draws, np.float64)
    se_mean = math.sqrt(var / draws.size)
    assert abs(draws.mean() - mean) < 5 * se_mean + 1e-12
    # the variance of the sample variance: (mu4 - var^2) / n, bounded generously by 3 var^2 / n
    assert abs(draws.var() - var) < 5 * math.sqrt(3 * var * var / draws.size) + 1e-12


@pytest.mark.parametrize("alpha,beta", [(0.3, 1.0), (2.0, 1.0), (5.0, 2.5), (50.0, 0.5)])
def test_gamma_moments(alpha, beta):
    rt.random.set_seed(7)
    draws = rt.random.gamma([N], alpha, beta=beta, dtype=rt.float64).numpy()
    assert draws.shape == (N,) and (draws > 0).all()
    _moments_close(draws, alpha / beta, alpha / beta ** 2)
    stateless = rt.random.stateless_gamma([N], [3, 4], alpha, beta, dtype=rt.float64).numpy()
    _moments_close(stateless, alpha / beta, alpha / beta ** 2)


@pytest.mark.parametrize("lam", [0.5, 4.0, 60.0])
def test_poisson_moments(lam):
    draws = rt.random.poisson([N], lam, dtype=rt.int64, seed=3).numpy()
    assert draws.dtype == np.int64 and (draws >= 0).all()
    _moments_close(draws, lam, lam)
    stateless = rt.random.stateless_poisson([N], [5, 6], lam).numpy()
    assert stateless.dtype == np.int32
    _moments_close(stateless, lam, lam)


def _normal_pdf(z):
    return math.exp(-z * z / 2) / math.sqrt(2 * math.pi)


def _normal_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2))


@pytest.mark.parametrize("mean,std,lo,hi", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 8.0),
                                            (0.0, 1.0, 5.0, 6.0), (0.0, 1.0, 40.0, np.inf),
                                            (3.0, 0.5, -np.inf, 2.0)])
def test_parameterized_truncated_normal_moments(mean, std, lo, hi):
    draws = rt.random.stateless_parameterized_truncated_normal(
        [N], [1, 2], mean, std, lo, hi).numpy().astype(np.float64)
    assert draws.min() >= lo and draws.max() <= hi
    a, b = (lo - mean) / std, (hi - mean) / std
    if a > 30:  # the far tail: the distribution is a + Exp(a) to first order
        assert abs(draws.mean() - (lo + std / a)) < 5 * std / a / math.sqrt(N) + 1e-3
        return
    pa, pb = _normal_pdf(a), (0.0 if np.isinf(b) else _normal_pdf(b))
    mass = _normal_cdf(b) - _normal_cdf(a)
    ta = 0.0 if np.isinf(a) else a * pa
    tb = 0.0 if np.isinf(b) else b * pb
    exact_mean = mean + std * (pa - pb) / mass
    exact_var = std ** 2 * (1 + (ta - tb) / mass - ((pa - pb) / mass) ** 2)
    _moments_close(draws, exact_mean, exact_var)


def test_shapes_and_dtypes_as_tensorflow():
    assert rt.random.gamma([3], [1.0, 2.0]).shape == (3, 2)
    assert rt.random.gamma([3], [1.0, 2.0], beta=[[1.0], [2.0]]).shape == (3, 2, 2)
    assert rt.random.gamma([2], 0.5, dtype=rt.float64).dtype == rt.float64
    assert rt.random.poisson([3], [1.0, 2.0]).dtype == rt.float32
    assert rt.random.poisson([2], [3.0], dtype=rt.int64).shape == (2, 1)
    assert rt.random.stateless_gamma([3, 2], [1, 2], [1.0, 2.0], beta=[[1.0], [2.0], [3.0]]).shape \
        == (3, 2)
    assert rt.random.stateless_poisson([3], [1, 2], [1, 20, 3], dtype=rt.float16).dtype == rt.float16
    assert rt.random.stateless_parameterized_truncated_normal(
        [2, 3], [1, 2], means=[0.0, 1.0, 2.0], maxvals=[1.0, 2.0, 3.0]).shape == (2, 3)
    import runtime.experimental.numpy as tnp
    drawn = tnp.random.poisson(3.0, 4)
    assert drawn.shape == (4,) and drawn.dtype == rt.int64
    assert tnp.random.poisson([1.0, 2.0]).shape == (2,)


def test_edge_values_as_tensorflow():
    # TensorFlow 2.21: NaN for a negative alpha, the smallest normal number for alpha 0,
    # 0 for a negative rate
    assert np.isnan(rt.random.gamma([2], [-1.0]).numpy()).all()
    np.testing.assert_array_equal(rt.random.gamma([2], [0.0]).numpy(),
                                  np.full((2, 1), np.finfo(np.float32).tiny, np.float32))
    assert np.isnan(rt.random.stateless_gamma([2], [1, 2], -1.0).numpy()).all()
    np.testing.assert_array_equal(rt.random.poisson([2], [-1.0], dtype=rt.int64).numpy(), [[0], [0]])
    np.testing.assert_array_equal(rt.random.stateless_poisson([2], [1, 2], -1.0).numpy(), [0, 0])


def test_errors_as_tensorflow():
    with pytest.raises(TypeError, match="dtype"):
        rt.random.gamma([2], 1.0, dtype=rt.int32)
    with pytest.raises(TypeError, match="dtype"):
        rt.random.poisson([2], 1.0, dtype=rt.bool)
    with pytest.raises(TypeError, match="dtype"):
        rt.random.stateless_gamma([2], [1, 2], 1.0, dtype=rt.bfloat16)
    # the shape must end with the parameters' broadcast shape (TensorFlow refuses [3, 1] in [3, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match="must end with"):
        rt.random.stateless_gamma([3, 2], [1, 2], [[1.0], [2.0], [3.0]])
    with pytest.raises(rt.errors.InvalidArgumentError, match="must end with"):
        rt.random.stateless_poisson([2, 3], [1, 2], [1.0, 2.0])
    for kw in (dict(stddevs=0.0), dict(stddevs=-1.0), dict(minvals=1.0, maxvals=1.0),
               dict(minvals=-np.inf, maxvals=np.inf)):
        with pytest.raises(rt.errors.InvalidArgumentError, match="invalid parameters"):
            rt.random.stateless_parameterized_truncated_normal([3], [1, 2], **kw)
    with pytest.raises(rt.errors.InvalidArgumentError, match="one dtype"):
        rt.random.stateless_parameterized_truncated_normal(
            [3], [1, 2], means=rt.constant([1.0, 2.0, 3.0], rt.float64), stddevs=rt.constant(1.0))
    with pytest.raises(ValueError, match="seed"):
        rt.random.stateless_gamma([2], [1, 2, 3, 4], 1.0)


def test_stateless_draws_are_functions_of_the_seed():
    def draws(seed):
        return [rt.random.stateless_gamma([5, 2], seed, [0.5, 3.0]).numpy(),
                rt.random.stateless_poisson([6], seed, 4.0).numpy(),
                rt.random.stateless_parameterized_truncated_normal([4], seed).numpy()]

    first, again, other = draws([1, 2]), draws([1, 2]), draws([2, 1])
    for x, y, z in zip(first, again, other):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)

    @rt.function
    def staged(seed):
        return (rt.random.stateless_gamma([5, 2], seed, [0.5, 3.0]),
                rt.random.stateless_poisson([6], seed, 4.0),
                rt.random.stateless_parameterized_truncated_normal([4], seed))

    for x, y in zip(first, staged(rt.constant([1, 2]))):
        np.testing.assert_array_equal(x, y.numpy())


def test_stateful_draws_follow_the_global_seed():
    rt.random.set_seed(11)
    first = [rt.random.gamma([4], 2.0).numpy(), rt.random.poisson([4], 3.0).numpy()]
    second = [rt.random.gamma([4], 2.0).numpy(), rt.random.poisson([4], 3.0).numpy()]
    rt.random.set_seed(11)
    again = [rt.random.gamma([4], 2.0).numpy(), rt.random.poisson([4], 3.0).numpy()]
    for x, y, z in zip(first, again, second):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)


# recorded from TensorFlow 2.21: tf.raw_ops.RandomGammaGrad(alpha=ALPHA, sample=SAMPLE), float64
ALPHA = [0.05, 0.5, 2.0, 7.0, 0.1, 30.0, 200.0, 1.0]
SAMPLE = [0.01, 0.3, 1.5, 9.0, 1e-3, 25.0, 230.0, 4.0]
TF_GAMMA_GRAD = [0.8311542987228202, 1.0098019459488548, 0.9366390678772176, 1.1581849180715322,
                 0.06490724738374097, 0.9166815997356579, 1.072401042786386, 2.1698556759224794]


def test_gamma_sample_gradient_matches_tensorflow_and_the_cdf():
    grad = rd._gamma_sample_grad(np.array(ALPHA), np.array(SAMPLE))
    np.testing.assert_allclose(grad, TF_GAMMA_GRAD, rtol=1e-10)
    # implicit differentiation of P(alpha, x) = u: dx/dalpha = -(dP/dalpha) / density
    a, x = np.array(ALPHA[1:4] + ALPHA[5:]), np.array(SAMPLE[1:4] + SAMPLE[5:])
    h = 1e-5 * a
    dp = (rt.math.igamma(a + h, x).numpy() - rt.math.igamma(a - h, x).numpy()) / (2 * h)
    density = np.exp((a - 1) * np.log(x) - x - np.array([math.lgamma(v) for v in a]))
    np.testing.assert_allclose(rd._gamma_sample_grad(a, x), -dp / density, rtol=1e-5)


@pytest.mark.parametrize("stateless", [False, True])
def test_gamma_gradients_through_the_tape(stateless):
    alpha = rt.constant([0.5, 2.0, 7.0], rt.float64)
    beta = rt.constant(2.0, rt.float64)
    with rt.GradientTape() as tape:
        tape.watch([alpha, beta])
        if stateless:
            draws = rt.random.stateless_gamma([N, 3], [4, 2], alpha, beta, dtype=rt.float64)
        else:
            draws = rt.random.gamma([N], alpha, beta, dtype=rt.float64, seed=5)
        total = rt.reduce_sum(draws)
    g_alpha, g_beta = tape.gradient(total, [alpha, beta])
    x = draws.numpy()
    # d(x / beta)/dbeta = -x / beta, summed; per alpha, the mean of d sample/d alpha is 1 / beta
    np.testing.assert_allclose(g_beta.numpy(), -x.sum() / 2.0, rtol=1e-10)
    unit = x * 2.0
    expected = [rd._gamma_sample_grad(a, unit[:, i]).sum() / 2.0
                for i, a in enumerate([0.5, 2.0, 7.0])]
    np.testing.assert_allclose(g_alpha.numpy(), expected, rtol=1e-10)
    mean_slope = g_alpha.numpy() / N
    np.testing.assert_allclose(mean_slope, 0.5, rtol=0.05)


def test_keras_gamma_and_beta():
    from runtime import keras

    draws = keras.random.gamma((N,), 3.0, seed=1).numpy()
    assert draws.dtype == np.float32
    _moments_close(draws, 3.0, 3.0)
    np.testing.assert_array_equal(draws, keras.random.gamma((N,), 3.0, seed=1).numpy())
    b = keras.random.beta((N,), 2.0, 3.0, seed=4).numpy()
    assert ((b > 0) & (b < 1)).all()
    _moments_close(b, 2 / 5, 2 * 3 / (5 ** 2 * 6))
    # Keras 3: gamma(alpha) at the seed over itself plus gamma(beta) at the seed plus 12
    seed = np.array([4, 0], np.int32)
    x = rt.random.stateless_gamma((N,), seed, 2.0).numpy()
    y = rt.random.stateless_gamma((N,), seed + 12, 3.0).numpy()
    np.testing.assert_allclose(b, x / (x + y), rtol=1e-6)
