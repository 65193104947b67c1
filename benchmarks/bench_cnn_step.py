"""A small CNN's compiled training step on each of our tiers, and TensorFlow's when installed.

Conv2D 32 3x3 relu -> MaxPool 2 -> Conv2D 64 3x3 relu -> MaxPool 2 -> Flatten -> Dense 10,
batch 64 of 28x28x1, Adam, sparse categorical cross-entropy from logits: forward, backward and
update in one compiled function (`rt.function`, and `tf.function` for TensorFlow), the same
code for both, from the same initial weights. TensorFlow is imported only if it is installed
(it is never a dependency); it runs on one thread, so pin one core (`taskset -c 1`) and set
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 to compare like with like.

The checked figure is the best of our tiers against TensorFlow's step (limit 1.2); without
TensorFlow, the Numba tier against the NumPy tier (the Numba tier runs the same kernels).
Times are the CPU time of this process per step (best of several interleaved batches).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402

# the steady state of the kernel: a jit_compile=True function's first call compiles it, instead
# of its calls running on the NumPy tier until a background compile ends (docs/jit.md)
rt.config.experimental.set_jit_wait_for_compile(True)

BATCH, CLASSES, LEARNING_RATE = 64, 10, 1e-3
TF_LIMIT, NUMBA_LIMIT = 1.2, 1.1
TIERS = {"NumPy tier": None, "Numba tier": True, "XLA tier": "xla"}
TIER_PACKAGE = {"Numba tier": "numba", "XLA tier": "jax"}


def build_step(tf, keras, jit_compile=None):
    """The model, and its training step compiled by `tf.function` of the framework `tf`."""
    layers = keras.layers
    model = keras.Sequential([
        layers.Input((28, 28, 1)),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Flatten(), layers.Dense(CLASSES)])
    return model, compiled_step(tf, keras, model, LEARNING_RATE, jit_compile)


def compiled_step(tf, keras, model, learning_rate, jit_compile=None):
    """`model`'s training step (Adam, sparse categorical cross-entropy from logits) compiled
    by `tf.function` of the framework `tf`."""
    optimizer = keras.optimizers.Adam(learning_rate)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    options = {} if jit_compile is None else {"jit_compile": jit_compile}

    @tf.function(**options)
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss
    return train_step


def _tensorflow():
    """(tensorflow, keras) on one thread, or None when TensorFlow is not installed."""
    if importlib.util.find_spec("tensorflow") is None:
        return None
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import keras
    import tensorflow as tf
    tf.config.threading.set_intra_op_parallelism_threads(1)
    tf.config.threading.set_inter_op_parallelism_threads(1)
    return tf, keras


def _initial_weights(rng):
    shapes = [(3, 3, 1, 32), (32,), (3, 3, 32, 64), (64,), (5 * 5 * 64, CLASSES), (CLASSES,)]
    weights = []
    for shape in shapes:
        if len(shape) == 1:
            weights.append(np.zeros(shape, np.float32))
            continue
        fan_in, fan_out = int(np.prod(shape[:-1])), shape[-1] * int(np.prod(shape[:-2]))
        limit = np.sqrt(6 / (fan_in + fan_out))
        weights.append(rng.uniform(-limit, limit, shape).astype(np.float32))
    return weights


def main(steps_checked: int = 3) -> float:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    weights = _initial_weights(rng)

    steps, args = build_tiers(build_step, TIERS, x, y, weights)
    return compare(steps, args, "CNN train step",
                   "Conv 32, pool, Conv 64, pool, Dense 10; batch 64, Adam", steps_checked,
                   number=5, rounds=9)


def build_tiers(build, tiers, x, y, weights=None):
    """(steps, their arguments): `build(tf, keras, jit_compile)`'s step on each of `tiers`
    whose package is installed and in TensorFlow when installed, all from `weights` (else
    the first model's)."""
    steps, args = {}, {}
    for label, jit_compile in tiers.items():
        package = TIER_PACKAGE.get(label)
        if package and importlib.util.find_spec(package) is None:
            continue
        model, steps[label] = build(rt, rt.keras, jit_compile)
        if weights is None:
            weights = model.get_weights()
        model.set_weights(weights)
        args[label] = (rt.constant(x), rt.constant(y))
    tensorflow = _tensorflow()
    if tensorflow is not None:
        tf, keras = tensorflow
        model, steps["TensorFlow"] = build(tf, keras)
        model.set_weights(weights)
        args["TensorFlow"] = (tf.constant(x), tf.constant(y))
    return steps, args


def compare(steps, args, name, what, steps_checked, number, rounds, limit=TF_LIMIT) -> float:
    """Checks that every framework and tier takes the same steps from the same weights, then
    prints each step's time and the checked ratio (the best tier against TensorFlow's step,
    within `limit`, else the Numba tier against the NumPy tier)."""
    losses = {label: [float(step(*args[label])) for _ in range(steps_checked)]
              for label, step in steps.items()}
    expected = losses["NumPy tier"]
    for label, got in losses.items():
        assert np.allclose(got, expected, rtol=1e-3, atol=1e-4), \
            f"{label}: losses {got}, NumPy tier {expected}"

    labels = list(steps)
    # the loss read back each call (the XLA tier returns before its work is done); CPU time
    # of this process, so that other processes on the machine do not count
    calls = [lambda s=steps[k], a=args[k]: s(*a).numpy() for k in labels]
    times = dict(zip(labels, interleaved(calls, number=number, rounds=rounds,
                                         timer=time.process_time)))
    print(f"{name} ({what}), ms: "
          + ", ".join(f"{label} {t * 1e3:.1f}" for label, t in times.items()))
    ours = {label: t for label, t in times.items() if label != "TensorFlow"}
    best = min(ours, key=ours.get)
    if "TensorFlow" in times:
        return report(f"{name}, best tier ({best})", ours[best], times["TensorFlow"],
                      limit, unit="ms", baseline_name="TensorFlow")
    if "Numba tier" in times:
        return report(f"{name}, Numba tier (TensorFlow not installed)",
                      times["Numba tier"], times["NumPy tier"], NUMBA_LIMIT, unit="ms",
                      baseline_name="NumPy tier")
    print(f"{name}: NumPy tier {times['NumPy tier'] * 1e3:.2f} ms "
          "(TensorFlow and Numba not installed: no ratio)")
    return 1.0


if __name__ == "__main__":
    main()
