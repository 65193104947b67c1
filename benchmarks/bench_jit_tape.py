"""jit_compile=True against jit_compile=False under a `GradientTape` around the compiled call.

A 20,000-step staged loop over a 16-element float32 vector, `x = x * 0.999 + sin(x) * 0.001`,
returning sum(x); the gradient with respect to the initial x is taken by a tape outside the
function. Both tiers must give the same loss and gradient (and match a hand-written NumPy
forward and backward); the jit tier should be at least 5x faster. One BLAS thread, steady state,
best of interleaved batches in one process. The same loop without a tape is printed for
comparison.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved  # noqa: E402

import runtime as rt  # noqa: E402

# the steady state of the kernel: a jit_compile=True function's first call compiles it, instead
# of its calls running on the NumPy tier until a background compile ends (docs/jit.md)
rt.config.experimental.set_jit_wait_for_compile(True)

STEPS, SIZE = 20_000, 16
MIN_SPEEDUP = 5.0


def decay(x):
    for _ in rt.range(STEPS):
        x = x * 0.999 + rt.sin(x) * 0.001
    return rt.reduce_sum(x)


def decay_numpy(x):
    """Forward, keeping every step's x, then the gradient of sum(x_final) by hand."""
    a, b = np.float32(0.999), np.float32(0.001)
    saved = np.empty((STEPS, SIZE), np.float32)
    for k in range(STEPS):
        saved[k] = x
        x = x * a + np.sin(x) * b
    grad = np.ones(SIZE, np.float32)
    for k in reversed(range(STEPS)):
        grad = grad * (a + np.cos(saved[k]) * b)
    return x.sum(), grad


def main() -> float:
    x = np.random.default_rng(0).standard_normal(SIZE).astype(np.float32)
    xt = rt.constant(x)
    plain = rt.function(decay, jit_compile=False)
    jit = rt.function(decay, jit_compile=True)

    def taped(fn):
        def call():
            with rt.GradientTape() as tape:
                tape.watch(xt)
                loss = fn(xt)
            return loss, tape.gradient(loss, xt)
        return call

    name = f"jit under an outside tape, {STEPS}-step loop, sum(x) and d/dx"
    loss, grad = decay_numpy(x)
    results, refused = {}, None
    for label, fn in (("no jit", plain), ("jit", jit)):
        try:
            got_loss, got_grad = taped(fn)()
        except Exception as exc:  # a refused graph: report it and go on
            text = str(exc).strip().splitlines()
            refused = f"{label} REFUSED: {type(exc).__name__}: {text[0] if text else ''}"
            continue
        np.testing.assert_allclose(float(got_loss), loss, rtol=1e-4)
        # the gradient is a product of 20,000 float32 factors, rounded in a different order
        np.testing.assert_allclose(got_grad.numpy(), grad, rtol=1e-3, atol=1e-6)
        results[label] = (float(got_loss), got_grad.numpy())
    if len(results) == 2:
        np.testing.assert_allclose(results["jit"][0], results["no jit"][0], rtol=1e-5)
        # fused multiply-adds round each of the 20,000 factors differently: the two tiers
        # agree as each agrees with the reference, to float32 rounding over the chain
        np.testing.assert_allclose(results["jit"][1], results["no jit"][1], rtol=1e-3, atol=1e-6)

    untaped = interleaved([lambda: plain(xt), lambda: jit(xt)], number=3, rounds=7)
    print(f"same loop without a tape: no jit {untaped[0] * 1e3:.2f} ms, "
          f"jit {untaped[1] * 1e3:.2f} ms, speedup {untaped[0] / untaped[1]:.1f}x")
    if refused:
        fns = [lambda: decay_numpy(x)] + ([taped(plain)] if "no jit" in results else [])
        times = interleaved(fns, number=1, rounds=5)
        tiers = f", no jit {times[1] * 1e3:.2f} ms" if len(times) > 1 else ""
        print(f"{name}: NumPy by hand {times[0] * 1e3:.2f} ms{tiers}, {refused}")
        return float("nan")
    ours, base, by_hand = interleaved([taped(jit), taped(plain), lambda: decay_numpy(x)],
                                      number=1, rounds=5)
    speedup = base / ours
    status = "OK" if speedup >= MIN_SPEEDUP else "OVER LIMIT"
    print(f"{name}: jit {ours * 1e3:.2f} ms, no jit {base * 1e3:.2f} ms, NumPy by hand "
          f"{by_hand * 1e3:.2f} ms, speedup {speedup:.2f}x (limit >= {MIN_SPEEDUP:g}x) {status}")
    return speedup


if __name__ == "__main__":
    main()
