"""NumPy-written functions, as one would write them for ndarrays, with inputs to run them on.

Nothing here knows about the runtime: every function must give the same values on ndarrays
(natively) and on tensors (through rt.function), and the differentiable ones the same
gradients as finite differences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def logsumexp(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.squeeze(m, axis=-1) + np.log(np.sum(np.exp(x - m), axis=-1))


def kmeans_step(points, centroids):
    distances = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    labels = np.argmin(distances, axis=1)
    onehot = (labels[:, None] == np.arange(centroids.shape[0])[None, :]).astype(points.dtype)
    counts = np.sum(onehot, axis=0)
    sums = onehot.T @ points
    return sums / np.maximum(counts, 1.0)[:, None]


def newton_sqrt(a):
    x = np.maximum(a, 1.0)
    for _ in range(30):
        x = 0.5 * (x + a / x)
    return x


def bisection_cube_root(a):
    lo = np.zeros_like(a)
    hi = np.maximum(a, 1.0)
    while np.max(hi - lo) > 1e-10:
        mid = 0.5 * (lo + hi)
        too_big = mid ** 3 > a
        hi = np.where(too_big, mid, hi)
        lo = np.where(too_big, lo, mid)
    return 0.5 * (lo + hi)


def power_iteration(a):
    v = np.ones(a.shape[0]) / np.sqrt(a.shape[0])
    for _ in range(60):
        w = a.dot(v)
        v = w / np.linalg.norm(w)
    return v @ a @ v


def mandelbrot(c_re, c_im):
    z_re = np.zeros_like(c_re)
    z_im = np.zeros_like(c_im)
    count = np.zeros_like(c_re)
    i = 0
    while i < 40 and np.any(z_re ** 2 + z_im ** 2 <= 4.0):
        inside = z_re ** 2 + z_im ** 2 <= 4.0
        z_re, z_im = (np.where(inside, z_re ** 2 - z_im ** 2 + c_re, z_re),
                      np.where(inside, 2.0 * z_re * z_im + c_im, z_im))
        count = count + np.where(inside, 1.0, 0.0)
        i += 1
    return count


def kalman_step(x, p, z):
    f = np.array([[1.0, 0.1], [0.0, 1.0]])
    h = np.array([[1.0, 0.0]])
    q = 0.01 * np.eye(2)
    r = np.array([[0.25]])
    x = f @ x
    p = f @ p @ f.T + q
    s = h @ p @ h.T + r
    k = p @ h.T @ np.linalg.inv(s)
    x = x + k @ (z - h @ x)
    p = (np.eye(2) - k @ h) @ p
    return x, p


def cumsum_argmax(x):
    running = np.cumsum(x)
    best = np.argmax(running)
    return best, running[-1], np.max(running) - np.min(running)


def mlp_forward(x, w1, b1, w2, b2):
    hidden = np.maximum(x @ w1 + b1, 0.0)
    return np.tanh(hidden @ w2 + b2)


def laplacian_stencil(u):
    return u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]


def heat_equation(u):
    for _ in range(20):
        u = u + 0.2 * (np.roll(u, 1) - 2.0 * u + np.roll(u, -1))
    return u


def standardize(x):
    return (x - x.mean(axis=0)) / x.std(axis=0)


def cosine_similarity(a, b):
    return np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))


def pairwise_distances(x):
    squared = np.sum(x ** 2, axis=1)
    d2 = squared[:, None] + squared[None, :] - 2.0 * x @ x.T
    return np.sqrt(np.maximum(d2, 1e-9))


def horner(coefficients, x):
    result = np.zeros_like(x)
    for c in coefficients:
        result = result * x + c
    return result


def logistic_loss(w, features, labels):
    p = 1.0 / (1.0 + np.exp(-(features @ w)))
    return -np.mean(labels * np.log(p) + (1.0 - labels) * np.log(1.0 - p))


def ridge_regression(x, y):
    d = x.shape[1]
    return np.linalg.solve(x.T @ x + 0.5 * np.eye(d), x.T @ y)


def layer_norm(x):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5)


def rk4_decay(y0, k):
    y, t, dt = y0, 0.0, 0.05
    for _ in range(20):
        k1 = -k * y + np.sin(t)
        k2 = -k * (y + 0.5 * dt * k1) + np.sin(t + 0.5 * dt)
        k3 = -k * (y + 0.5 * dt * k2) + np.sin(t + 0.5 * dt)
        k4 = -k * (y + dt * k3) + np.sin(t + dt)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
        t += dt
    return y


def clipped_activation(x):
    return np.clip(np.tanh(x) * 2.0, -1.5, 1.5) + np.abs(x) * np.sign(x) * 0.1


def attention(q, k, v):
    scores = np.einsum("ij,kj->ik", q, k) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v


def moving_average(x):
    c = np.cumsum(x)
    return (c[4:] - c[:-4]) / 4.0


def cross_entropy(logits):
    labels = np.array([0, 2, 1, 2])
    onehot = (labels[:, None] == np.arange(logits.shape[1])).astype(logits.dtype)
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return -np.mean(np.sum(onehot * log_probs, axis=1))


def batched_gram(a):
    return np.sum(np.matmul(np.transpose(a, (0, 2, 1)), a), axis=0)


def gcd(a, b):
    while np.any(b != 0):
        nonzero = b != 0
        a, b = np.where(nonzero, b, a), np.where(nonzero, a % np.where(nonzero, b, 1), b)
    return a


def huber_loss(prediction, target):
    r = np.abs(prediction - target)
    return np.mean(np.where(r < 1.0, 0.5 * r ** 2, r - 0.5))


def trapezoid(y, x):
    return np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2.0


def nearest_neighbour(queries, points):
    d = np.linalg.norm(queries[:, None, :] - points[None, :, :], axis=-1)
    return np.argmin(d, axis=1), np.min(d, axis=1)


def gaussian_log_likelihood(x, mean, log_std):
    z = (x - mean) / np.exp(log_std)
    return np.sum(-0.5 * z ** 2 - log_std - 0.5 * np.log(2.0 * np.pi))


def hyperbolic_mix(x):
    return np.sinh(x) * 0.1 + np.cosh(x) * 0.2 + np.arctan2(x, 2.0) + np.log1p(np.expm1(x * 0.1))


def outer_trace(a, b):
    return np.trace(np.outer(a, b)) + np.sum(np.stack([a, b]), axis=0).prod()


@dataclass
class Case:
    fn: Callable
    inputs: Callable          # rng -> tuple of ndarrays
    differentiable: bool = True


def _normal(*shape):
    return lambda rng: (rng.normal(size=shape),)


def _spd(rng, n=4):
    m = rng.normal(size=(n, n))
    return m @ m.T + np.diag(np.arange(1.0, n + 1.0) * 3.0)


CASES = [
    Case(softmax, lambda rng: (rng.normal(size=(3, 5)),)),
    Case(logsumexp, lambda rng: (rng.normal(size=(4, 6)),)),
    Case(kmeans_step, lambda rng: (rng.normal(size=(40, 2)), rng.normal(size=(3, 2))),
         differentiable=False),
    Case(newton_sqrt, lambda rng: (rng.uniform(0.5, 9.0, size=5),)),
    Case(bisection_cube_root, lambda rng: (rng.uniform(0.1, 8.0, size=5),), differentiable=False),
    Case(power_iteration, lambda rng: (_spd(rng),)),
    Case(mandelbrot, lambda rng: (rng.uniform(-2.0, 0.6, size=(6, 6)),
                                  rng.uniform(-1.2, 1.2, size=(6, 6))), differentiable=False),
    Case(kalman_step, lambda rng: (rng.normal(size=(2, 1)), _spd(rng, 2) * 0.1,
                                   rng.normal(size=(1, 1)))),
    Case(cumsum_argmax, lambda rng: (rng.normal(size=12),), differentiable=False),
    Case(mlp_forward, lambda rng: (rng.normal(size=(5, 3)), rng.normal(size=(3, 4)),
                                   rng.normal(size=4), rng.normal(size=(4, 2)),
                                   rng.normal(size=2))),
    Case(laplacian_stencil, _normal(6, 5)),
    Case(heat_equation, _normal(10)),
    Case(standardize, _normal(6, 3)),
    Case(cosine_similarity, lambda rng: (rng.normal(size=5), rng.normal(size=5))),
    Case(pairwise_distances, _normal(5, 3)),
    Case(horner, lambda rng: (rng.normal(size=4), rng.normal(size=6))),
    Case(logistic_loss, lambda rng: (rng.normal(size=3), rng.normal(size=(8, 3)),
                                     (rng.uniform(size=8) > 0.5).astype(np.float64))),
    Case(ridge_regression, lambda rng: (rng.normal(size=(8, 3)), rng.normal(size=8))),
    Case(layer_norm, _normal(3, 6)),
    Case(rk4_decay, lambda rng: (rng.normal(size=3), rng.uniform(0.5, 2.0, size=3))),
    Case(clipped_activation, _normal(8)),
    Case(attention, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(5, 4)),
                                 rng.normal(size=(5, 2)))),
    Case(moving_average, _normal(10)),
    Case(cross_entropy, _normal(4, 3)),
    Case(batched_gram, _normal(2, 3, 2)),
    Case(gcd, lambda rng: (rng.integers(1, 200, size=6), rng.integers(1, 200, size=6)),
         differentiable=False),
    Case(huber_loss, lambda rng: (rng.normal(size=7) * 2.0, rng.normal(size=7))),
    Case(trapezoid, lambda rng: (rng.normal(size=6), np.cumsum(rng.uniform(0.1, 1.0, size=6)))),
    Case(nearest_neighbour, lambda rng: (rng.normal(size=(4, 2)), rng.normal(size=(7, 2))),
         differentiable=False),
    Case(gaussian_log_likelihood, lambda rng: (rng.normal(size=5), rng.normal(size=5),
                                               rng.normal(size=5) * 0.3)),
    Case(hyperbolic_mix, _normal(6)),
    Case(outer_trace, lambda rng: (rng.normal(size=4), rng.normal(size=4))),
]
