"""The TensorFlow names added to match docs/tensorflow-users.md: values against NumPy and
Python's math, gradients against finite differences."""

import math

import numpy as np
import pytest

import runtime as rt
from tests.gradients.fd import check_gradients

X = np.array([-2.5, -0.7, -0.1, 0.3, 1.2, 4.0])
_erf = np.vectorize(math.erf)


def logsumexp(a, axis):
    top = a.max(axis=axis, keepdims=True)
    return np.log(np.exp(a - top).sum(axis=axis)) + top.squeeze(axis)


@pytest.mark.parametrize("fn,expected", [
    (lambda x: rt.nn.leaky_relu(x, alpha=0.1), lambda x: np.where(x > 0, x, 0.1 * x)),
    (rt.nn.elu, lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    (rt.nn.softplus, lambda x: np.log1p(np.exp(x))),
    (rt.math.erf, _erf),
    (rt.nn.gelu, lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    (lambda x: rt.nn.gelu(x, approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
], ids=["leaky_relu", "elu", "softplus", "erf", "gelu", "gelu-tanh"])
def test_activations_match_numpy_and_differentiate(fn, expected):
    np.testing.assert_allclose(fn(rt.constant(X)).numpy(), expected(X), rtol=1e-12, atol=1e-12)
    assert fn(rt.constant(X.astype(np.float32))).dtype is rt.float32
    check_gradients(fn, X)


def test_reduce_logsumexp():
    a = np.array([[1.0, 2.0, 800.0], [-1.0, 0.5, 0.25]])
    np.testing.assert_allclose(rt.reduce_logsumexp(rt.constant(a), axis=1).numpy(), logsumexp(a, 1))
    assert rt.math.reduce_logsumexp is rt.reduce_logsumexp
    assert np.isneginf(rt.reduce_logsumexp(rt.constant([-np.inf, -np.inf])).numpy())
    check_gradients(lambda t: rt.reduce_logsumexp(t, axis=0, keepdims=True), a)


def test_sparse_softmax_cross_entropy():
    logits = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])
    labels = np.array([1, 2])
    log_p = logits - logsumexp(logits, 1)[:, None]
    expected = -log_p[np.arange(2), labels]
    got = rt.nn.sparse_softmax_cross_entropy_with_logits(labels=rt.constant(labels),
                                                          logits=rt.constant(logits))
    np.testing.assert_allclose(got.numpy(), expected)
    check_gradients(lambda z: rt.nn.sparse_softmax_cross_entropy_with_logits(
        labels=rt.constant(labels), logits=z), logits)


def test_truncated_normal_stays_within_two_stddevs():
    values = rt.random.truncated_normal([4000], mean=1.0, stddev=0.5, seed=3).numpy()
    assert values.dtype == np.float32 and np.all(np.abs(values - 1.0) <= 1.0)
    assert abs(values.mean() - 1.0) < 0.05


def test_assert_rank():
    rt.debugging.assert_rank(rt.constant([1.0]), 1)
    with pytest.raises(ValueError, match="rank 2"):
        rt.debugging.assert_rank(rt.constant([1.0]), 2)
    f = rt.function(lambda t: rt.debugging.assert_rank(t, 2) or t,
                    input_signature=[rt.TensorSpec(None, rt.float32)])
    f(rt.ones([2, 2]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="rank 2"):
        f(rt.ones([3]))
