"""One compiled Adam training step of a 784-512-512-10 MLP against the step by hand in NumPy.

Batch 256, relu, mean softmax cross-entropy: forward, backward and the Adam update of every
weight and both moments in one `rt.function`, in float32, from the same initial weights.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402
from _training import compiled_step  # noqa: E402

import runtime as rt  # noqa: E402

# the steady state of the kernel: a jit_compile=True function's first call compiles it, instead
# of its calls running on the NumPy tier until a background compile ends (docs/jit.md)
rt.config.experimental.set_jit_wait_for_compile(True)

BATCH, SIZES = 256, (784, 512, 512, 10)
LEARNING_RATE, BETA_1, BETA_2, EPSILON = 1e-3, 0.9, 0.999, 1e-7


def _initial_weights(rng):
    weights = []
    for fan_in, fan_out in zip(SIZES, SIZES[1:]):
        limit = np.sqrt(6 / (fan_in + fan_out))
        weights += [rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32),
                    np.zeros(fan_out, np.float32)]
    return weights


class NumpyAdamStep:
    """The step by hand: forward, backward and an in-place Adam update; calls return the loss."""

    def __init__(self, weights):
        self.weights = weights
        self.m = [np.zeros_like(w) for w in weights]
        self.v = [np.zeros_like(w) for w in weights]
        self.t = 0

    def __call__(self, x, y):
        w1, b1, w2, b2, w3, b3 = self.weights
        h1_in = x @ w1 + b1
        h1 = np.maximum(h1_in, 0)
        h2_in = h1 @ w2 + b2
        h2 = np.maximum(h2_in, 0)
        logits = h2 @ w3 + b3
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = -np.mean(np.sum(y * (shifted - np.log(total)), axis=1))
        d_logits = (exp / total - y) / np.float32(x.shape[0])
        d_h2 = (d_logits @ w3.T) * (h2_in > 0)
        d_h1 = (d_h2 @ w2.T) * (h1_in > 0)
        grads = [x.T @ d_h1, d_h1.sum(axis=0), h1.T @ d_h2, d_h2.sum(axis=0),
                 h2.T @ d_logits, d_logits.sum(axis=0)]
        self.t += 1
        f32 = np.float32
        alpha = f32(LEARNING_RATE) * np.sqrt(f32(1) - f32(BETA_2) ** f32(self.t)) / (
            f32(1) - f32(BETA_1) ** f32(self.t))
        for w, g, m, v in zip(self.weights, grads, self.m, self.v):
            m *= f32(BETA_1)
            m += f32(1 - BETA_1) * g
            v *= f32(BETA_2)
            v += f32(1 - BETA_2) * (g * g)
            w -= alpha * m / (np.sqrt(v) + f32(EPSILON))
        return loss


def compiled_adam_step(weights, jit_compile=None):
    """The same step as an `rt.function` over a Sequential model and `rt.optimizers.Adam`."""
    model = rt.layers.Sequential([rt.layers.Dense(SIZES[1], activation="relu"),
                                  rt.layers.Dense(SIZES[2], activation="relu"),
                                  rt.layers.Dense(SIZES[3])])
    model(np.zeros((1, SIZES[0]), np.float32))
    model.set_weights(weights)
    optimizer = rt.optimizers.Adam(LEARNING_RATE, beta_1=BETA_1, beta_2=BETA_2, epsilon=EPSILON)
    return compiled_step(model, optimizer, jit_compile)


def main(steps_checked: int = 5) -> float:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    weights = _initial_weights(rng)
    step = compiled_adam_step([w.copy() for w in weights])
    numpy_step = NumpyAdamStep(weights)
    xt, yt = rt.constant(x), rt.constant(y)
    for i in range(steps_checked):
        ours, theirs = float(step(xt, yt)), float(numpy_step(x, y))
        assert abs(ours - theirs) <= 1e-3 * max(1.0, abs(theirs)), f"step {i}: {ours} vs {theirs}"
    assert step.experimental_get_tracing_count() == 1
    ours, base = interleaved([lambda: step(xt, yt), lambda: numpy_step(x, y)], number=3, rounds=11)
    ratio = report(f"compiled Adam step {'-'.join(map(str, SIZES))}, batch {BATCH}", ours, base,
                   1.05, unit="ms")
    jit_vs_numpy_tier(_initial_weights(np.random.default_rng(1)), x, y)
    return ratio


def jit_vs_numpy_tier(weights, x, y, steps_checked: int = 5) -> float:
    """The same step with jit_compile=True against the NumPy tier, from equal weights."""
    numpy_tier = compiled_adam_step([w.copy() for w in weights])
    jit = compiled_adam_step([w.copy() for w in weights], jit_compile=True)
    xt, yt = rt.constant(x), rt.constant(y)
    for i in range(steps_checked):
        a, b = float(jit(xt, yt)), float(numpy_tier(xt, yt))
        assert abs(a - b) <= 1e-4 * max(1.0, abs(b)), f"step {i}: jit loss {a} vs {b}"
    ours, base = interleaved([lambda: jit(xt, yt), lambda: numpy_tier(xt, yt)], number=3,
                             rounds=11)
    return report("  the same step with jit_compile=True", ours, base, 1.0, unit="ms",
                  baseline_name="NumPy tier")


if __name__ == "__main__":
    main()
