"""The training step of TensorFlow's image-classification tutorial's model, on our tiers and
TensorFlow's when installed.

Rescaling 1/255 -> Conv2D 16 3x3 'same' relu -> MaxPool -> Conv2D 32 -> MaxPool -> Conv2D 64
-> MaxPool -> Flatten -> Dense 128 relu -> Dense 5, batch 32 of 180x180x3, Adam, sparse
categorical cross-entropy from logits: forward, backward and update in one compiled function
(`rt.function`, and `tf.function` for TensorFlow), from the same initial weights. The
convolutions' and pools' kernels take most of the step. The NumPy and Numba tiers run the
same kernels; the XLA tier is left out here: it runs at JAX's own speed, whose CPU filter
gradients take several times as long (bench_cnn_step.py times it on a smaller model). Pin one
core (`taskset -c 1`) and set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1.

The checked figure is the best of our tiers against TensorFlow's step (limit 1.2); without
TensorFlow, the Numba tier against the NumPy tier. Times are the CPU time of this process
per step (best of several interleaved batches).
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_cnn_step import build_tiers, compare, compiled_step  # noqa: E402

import runtime as rt  # noqa: E402

rt.config.experimental.set_jit_wait_for_compile(True)

BATCH, SIZE, CLASSES = 32, 180, 5
TIERS = {"NumPy tier": None, "Numba tier": True}


def build(tf, keras, jit_compile=None):
    """The tutorial's model and its compiled training step in the framework `tf`."""
    layers = keras.layers
    convolutions = [item for filters in (16, 32, 64)
                    for item in (layers.Conv2D(filters, 3, padding="same", activation="relu"),
                                 layers.MaxPooling2D())]
    model = keras.Sequential([layers.Input((SIZE, SIZE, 3)), layers.Rescaling(1.0 / 255),
                              *convolutions, layers.Flatten(),
                              layers.Dense(128, activation="relu"), layers.Dense(CLASSES)])
    return model, compiled_step(tf, keras, model, 1e-3, jit_compile)


def main(steps_checked: int = 2) -> float:
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 255, (BATCH, SIZE, SIZE, 3)).astype(np.float32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    steps, args = build_tiers(build, TIERS, x, y)
    return compare(steps, args, "CNN tutorial train step",
                   "3 Conv2D + pools on 180x180x3, Dense 128, 5; batch 32, Adam",
                   steps_checked, number=2, rounds=5)


if __name__ == "__main__":
    main()
