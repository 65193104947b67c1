"""The XLA tier against hand-written NumPy and JAX's own jit, on one thread.

Run: python benchmarks/bench_xla.py (sets OPENBLAS_NUM_THREADS=1 and XLA's one-thread flags
before NumPy and JAX load). Prints per-call times and ratios to NumPy (lower is faster).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                   "intra_op_parallelism_threads=1")

import time  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402


def best(fn, *args, repeat=5, number=3):
    fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            out = fn(*args)
        np.asarray(out[0] if isinstance(out, (tuple, list)) else out)
        times.append((time.perf_counter() - start) / number)
    return min(times)


C = float(np.sqrt(2 / np.pi))


def np_gelu_softmax(x):
    g = 0.5 * x * (1 + np.tanh(C * (x + 0.044715 * x * x * x)))
    e = np.exp(g - g.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def rt_gelu_softmax(x):
    g = 0.5 * x * (1.0 + rt.tanh(C * (x + 0.044715 * x * x * x)))
    return rt.nn.softmax(g, axis=1)


def jax_gelu_softmax(x):
    g = 0.5 * x * (1 + jnp.tanh(C * (x + 0.044715 * x * x * x)))
    return jax.nn.softmax(g, axis=1)


def np_lse(x):
    m = x.max(axis=1, keepdims=True)
    return (m + np.log(np.exp(x - m).sum(axis=1, keepdims=True)))[:, 0]


def rt_lse(x):
    return rt.math.reduce_logsumexp(x, axis=1)


def jax_lse(x):
    return jax.scipy.special.logsumexp(x, axis=1)


A = np.random.default_rng(0).standard_normal((64, 64)) / 8


def np_rk4(y):
    h = 0.001
    for _ in range(1000):
        k1 = np.tanh(A @ y)
        k2 = np.tanh(A @ (y + h / 2 * k1))
        k3 = np.tanh(A @ (y + h / 2 * k2))
        k4 = np.tanh(A @ (y + h * k3))
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def rt_rk4(y):
    a = rt.constant(A)
    h = 0.001
    for _ in rt.range(1000):
        k1 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y, [64, 1])), [64]))
        k2 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y + h / 2 * k1, [64, 1])), [64]))
        k3 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y + h / 2 * k2, [64, 1])), [64]))
        k4 = rt.tanh(rt.reshape(rt.matmul(a, rt.reshape(y + h * k3, [64, 1])), [64]))
        y = y + h / 6 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def jax_rk4(y):
    a, h = jnp.asarray(A), 0.001

    def step(_, y):
        k1 = jnp.tanh(a @ y)
        k2 = jnp.tanh(a @ (y + h / 2 * k1))
        k3 = jnp.tanh(a @ (y + h / 2 * k2))
        k4 = jnp.tanh(a @ (y + h * k3))
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jax.lax.fori_loop(0, 1000, step, y)


def np_chain(x):
    return np.sqrt(np.abs(np.sin(x * 1.5 + 0.5) * np.exp(-x) - 0.25)) + x * x


def rt_chain(x):
    return rt.sqrt(rt.abs(rt.sin(x * 1.5 + 0.5) * rt.exp(-x) - 0.25)) + x * x


def jax_chain(x):
    return jnp.sqrt(jnp.abs(jnp.sin(x * 1.5 + 0.5) * jnp.exp(-x) - 0.25)) + x * x


def main() -> None:
    rng = np.random.default_rng(1)
    cases = [
        ("GELU(tanh)+softmax (4096,1024) f32", np_gelu_softmax, rt_gelu_softmax,
         jax_gelu_softmax, rng.standard_normal((4096, 1024)).astype(np.float32)),
        ("logsumexp (4096,1024) f32", np_lse, rt_lse, jax_lse,
         rng.standard_normal((4096, 1024)).astype(np.float32)),
        ("RK4 1000 steps dim 64 f64", np_rk4, rt_rk4, jax_rk4, rng.standard_normal(64)),
        ("8-op elementwise chain 1e6 f32", np_chain, rt_chain, jax_chain,
         rng.standard_normal(1_000_000).astype(np.float32)),
    ]
    print(f"{'case':40s} {'numpy':>10s} {'rt xla':>10s} {'jax.jit':>10s} {'xla/np':>7s} "
          f"{'jax/np':>7s}")
    with jax.enable_x64(True):
        for name, np_fn, rt_fn, jax_fn, x in cases:
            t_np = best(np_fn, x)
            f = rt.function(rt_fn, jit_compile="xla", autograph=True)
            t_rt = best(f, x)
            np.testing.assert_allclose(np.asarray(f(x)), np_fn(x), rtol=1e-4, atol=1e-5)
            t_jax = best(jax.jit(jax_fn), x)
            print(f"{name:40s} {t_np * 1e3:8.2f}ms {t_rt * 1e3:8.2f}ms {t_jax * 1e3:8.2f}ms "
                  f"{t_rt / t_np:7.2f} {t_jax / t_np:7.2f}")
        # call overhead: a tiny function
        x = np.ones(3)
        f = rt.function(lambda x: x * 2.0 + 1.0, jit_compile="xla")
        g = jax.jit(lambda x: x * 2.0 + 1.0)
        t_rt = best(f, x, number=2000)
        t_jax = best(g, x, number=2000)
        print(f"call overhead (3 elements): rt xla {t_rt * 1e6:.1f} us, jax.jit {t_jax * 1e6:.1f} us "
              f"({t_rt / t_jax:.2f}x)")


if __name__ == "__main__":
    main()
