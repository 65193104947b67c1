"""The Numba tier's compile time, peak memory, cache hits, and the first epoch of a fit with
tiered execution against the NumPy tier's.

Two train steps (softmax cross-entropy, Adam, a `rt.function` with the tape inside):

- LSTM text classifier: Embedding 10k x 64 -> LSTM 128 -> Dense 2, batch 64, 80 steps;
- 2-layer MLP: 784 -> Dense 128 relu -> Dense 10, batch 64.

For each, a fresh process with an empty kernel cache compiles the step
(`experimental_wait_for_compile=True`) and reports the first call's wall and CPU seconds
(tracing, lowering and compiling) and its peak RSS; a second process with the same cache
reports its first call and whether Numba loaded the kernel without compiling (a cache hit).
Then `model.fit` runs one epoch in fresh processes with `jit_compile=False` (the NumPy tier)
and with `jit_compile=True` (tiered: the NumPy tier until the kernel compiled in the
background is ready, the kernel after), each with an empty cache, interleaved, the best of
`--repeats`; the figure is tiered / NumPy, in wall time, and in the CPU time of the calling
process (the worker that compiles is a process of its own, at idle priority). One BLAS
thread; CPU seconds are the figures least moved by other processes on a busy machine.

Usage: python benchmarks/bench_numba_compile.py [--models lstm,mlp] [--no-epoch] [--no-compile]
       [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIMITS = {"lstm": (30.0, 1500.0), "mlp": (5.0, 1500.0)}  # compile seconds, peak MB
EPOCH_LIMIT = 1.0  # tiered first epoch / NumPy tier first epoch

CHILD = r"""
import json, os, resource, sys, time
import numpy as np
import runtime as rt
from runtime import keras

model_name, mode = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(0)
if model_name == "lstm":
    model = keras.Sequential([keras.Input((80,), dtype="int32"), keras.layers.Embedding(10000, 64),
                              keras.layers.LSTM(128), keras.layers.Dense(2)])
    n, batches = 2, 20
    x = rng.integers(0, 10000, (64 * batches, 80)).astype(np.int32)
else:
    model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(128, activation="relu"),
                              keras.layers.Dense(10)])
    n, batches = 10, 200
    x = rng.standard_normal((64 * batches, 784)).astype(np.float32)
y = np.eye(n, dtype=np.float32)[rng.integers(0, n, len(x))]


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


if mode == "compile":
    opt = keras.optimizers.Adam()

    @rt.function(jit_compile=True, experimental_wait_for_compile=True)
    def step(x, y):
        with rt.GradientTape() as tape:
            logits = model(x)
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    xb, yb = x[:64], y[:64]
    c0, t0 = cpu(), time.perf_counter()
    step(xb, yb)
    wall, seconds = time.perf_counter() - t0, cpu() - c0
    kernel = step.get_concrete_function(xb, yb).compiled.kernel
    t1 = time.perf_counter()
    for _ in range(3):
        step(xb, yb)
    print(json.dumps({"wall": wall, "cpu": seconds, "step_ms": (time.perf_counter() - t1) / 3e-3,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "cache_hits": sum(kernel.stats.cache_hits.values()),
                      "cache_misses": sum(kernel.stats.cache_misses.values())}))
else:
    model.compile(optimizer="adam", loss=keras.losses.CategoricalCrossentropy(from_logits=True),
                  jit_compile=mode == "tiered")
    t0, c0 = time.perf_counter(), cpu()
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    print(json.dumps({"epoch": time.perf_counter() - t0, "epoch_cpu": cpu() - c0}))
"""


def _child(model: str, mode: str, cache: str) -> dict:
    env = dict(os.environ, XDG_CACHE_HOME=cache, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env.pop("NUMBA_OPT", None)  # Numba's own level, as users run it
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", CHILD, model, mode], cwd=ROOT,
                          env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{model} {mode}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _compile_figures(model: str) -> list[str]:
    """Prints the compile figures of `model`; the names of those over their limits."""
    with tempfile.TemporaryDirectory() as cache:
        first = _child(model, "compile", cache)
        second = _child(model, "compile", cache)
    limit_s, limit_mb = LIMITS[model]
    print(f"{model}: compile {first['wall']:.1f} s wall, {first['cpu']:.1f} s CPU "
          f"(limit {limit_s:.0f} s), peak RSS {first['peak_mb']:.0f} MB (limit "
          f"{limit_mb:.0f}); step {first['step_ms']:.1f} ms; second process "
          f"{second['wall']:.1f} s, cache hits {second['cache_hits']}, compiles "
          f"{second['cache_misses']}", flush=True)
    over = []
    if first["cpu"] > limit_s or first["peak_mb"] > limit_mb:
        over.append(f"{model} compile")
    if second["cache_misses"] or not second["cache_hits"]:
        over.append(f"{model} cache")
    return over


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="lstm,mlp")
    parser.add_argument("--no-epoch", action="store_true")
    parser.add_argument("--no-compile", action="store_true", help="the first epochs only")
    parser.add_argument("--repeats", type=int, default=3, help="first epochs of each tier")
    args = parser.parse_args()
    over = []
    for model in args.models.split(","):
        if not args.no_compile:
            over += _compile_figures(model)
        if args.no_epoch:
            continue
        epochs = {"numpy": [], "tiered": []}
        for _ in range(args.repeats):  # interleaved, each in a fresh process and cache
            for mode in epochs:
                with tempfile.TemporaryDirectory() as cache:
                    epochs[mode].append(_child(model, mode, cache))
        cpu = {mode: min(r["epoch_cpu"] for r in runs) for mode, runs in epochs.items()}
        epochs = {mode: min(r["epoch"] for r in runs) for mode, runs in epochs.items()}
        ratio = epochs["tiered"] / epochs["numpy"]
        # the calling process's CPU seconds: the worker's (a process of its own, at idle
        # priority) are not among them
        print(f"{model}: first epoch NumPy tier {epochs['numpy']:.2f} s, jit_compile=True "
              f"(tiered) {epochs['tiered']:.2f} s, ratio {ratio:.2f} (limit {EPOCH_LIMIT}); "
              f"CPU of the calling process {cpu['numpy']:.2f} s and {cpu['tiered']:.2f} s, "
              f"ratio {cpu['tiered'] / cpu['numpy']:.2f}", flush=True)
        if ratio > EPOCH_LIMIT:
            over.append(f"{model} first epoch")
    status = "OK" if not over else "OVER LIMIT: " + ", ".join(over)
    print(f"numba compile ({args.models}): {status}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
