"""One compiled training step of an MLP against the same step written by hand in NumPy.

784-128-10 MLP, batch 64, relu, mean softmax cross-entropy, plain SGD: forward, backward and
update in one `rt.function`, in float32, from the same initial weights as the NumPy step.
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

BATCH, N_IN, N_HIDDEN, N_OUT = 64, 784, 128, 10
LEARNING_RATE = 0.1


def _data(rng):
    x = rng.standard_normal((BATCH, N_IN)).astype(np.float32)
    y = np.eye(N_OUT, dtype=np.float32)[rng.integers(0, N_OUT, BATCH)]
    return x, y


def _initial_weights(rng):
    def glorot(fan_in, fan_out):
        limit = np.sqrt(6 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)
    return [glorot(N_IN, N_HIDDEN), np.zeros(N_HIDDEN, np.float32),
            glorot(N_HIDDEN, N_OUT), np.zeros(N_OUT, np.float32)]


def numpy_train_step(weights, x, y, lr=np.float32(LEARNING_RATE)):
    """The step by hand: forward, backward and an in-place SGD update; returns the loss."""
    w1, b1, w2, b2 = weights
    h_in = x @ w1 + b1
    h = np.maximum(h_in, 0)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    total = exp.sum(axis=1, keepdims=True)
    loss = -np.mean(np.sum(y * (shifted - np.log(total)), axis=1))
    d_logits = (exp / total - y) / np.float32(x.shape[0])
    d_w2 = h.T @ d_logits
    d_b2 = d_logits.sum(axis=0)
    d_h = (d_logits @ w2.T) * (h_in > 0)
    d_w1 = x.T @ d_h
    d_b1 = d_h.sum(axis=0)
    w1 -= lr * d_w1
    b1 -= lr * d_b1
    w2 -= lr * d_w2
    b2 -= lr * d_b2
    return loss


def compiled_train_step(weights, jit_compile=None):
    """The same step as an `rt.function` over a two-layer model and `rt.optimizers.SGD`."""
    model = rt.layers.Sequential([rt.layers.Dense(N_HIDDEN, activation="relu"),
                                  rt.layers.Dense(N_OUT)])
    model(np.zeros((1, N_IN), np.float32))
    model.set_weights(weights)
    optimizer = rt.optimizers.SGD(LEARNING_RATE)
    return compiled_step(model, optimizer, jit_compile)


def main(steps_checked: int = 5) -> float:
    rng = np.random.default_rng(0)
    x, y = _data(rng)
    weights = _initial_weights(rng)
    step = compiled_train_step([w.copy() for w in weights])
    xt, yt = rt.constant(x), rt.constant(y)

    for i in range(steps_checked):
        ours = float(step(xt, yt))
        theirs = float(numpy_train_step(weights, x, y))
        assert abs(ours - theirs) <= 1e-3, f"step {i}: loss {ours} vs NumPy {theirs}"
    assert step.experimental_get_tracing_count() == 1

    ours, base = interleaved([lambda: step(xt, yt), lambda: numpy_train_step(weights, x, y)])
    ratio = report("compiled MLP train step 784-128-10, batch 64, SGD", ours, base, 1.3)
    jit_vs_numpy_tier(weights, x, y)
    return ratio


def jit_vs_numpy_tier(weights, x, y, steps_checked: int = 5) -> float:
    """The same step with jit_compile=True against the NumPy tier, from equal weights."""
    numpy_tier = compiled_train_step([w.copy() for w in weights])
    jit = compiled_train_step([w.copy() for w in weights], jit_compile=True)
    xt, yt = rt.constant(x), rt.constant(y)
    for i in range(steps_checked):
        a, b = float(jit(xt, yt)), float(numpy_tier(xt, yt))
        assert abs(a - b) <= 1e-4 * max(1.0, abs(b)), f"step {i}: jit loss {a} vs {b}"
    ours, base = interleaved([lambda: jit(xt, yt), lambda: numpy_tier(xt, yt)])
    return report("  the same step with jit_compile=True", ours, base, 1.0,
                  baseline_name="NumPy tier")


if __name__ == "__main__":
    main()
