"""An LSTM text classifier's compiled training step on each of our tiers, and TensorFlow's when
installed.

Input of 80 token ids -> Embedding 10,000 x 64 -> LSTM 64 -> Dense 10, batch 64, Adam, sparse
categorical cross-entropy from logits: forward, backward and update in one compiled function
(`rt.function`, and `tf.function` for TensorFlow), the same Keras code for both, from the same
initial weights (bench_cnn_step.build_tiers and compare). TensorFlow is imported only if it is
installed (it is never a dependency); it runs on one thread, so pin one core (`taskset -c 1`)
and set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 to compare like with like.

The checked figure is the best of our tiers against TensorFlow's step (limit 1.1); without
TensorFlow, the Numba tier against the NumPy tier. Times are the CPU time of this process per
step (best of several interleaved batches). The Numba tier's first call compiles the step
(a minute or more; `--tiers` leaves tiers out).

Usage: python benchmarks/bench_lstm_step.py [--units 64] [--tiers numpy,numba,xla]
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_cnn_step import build_tiers, compare, compiled_step  # noqa: E402

import runtime as rt  # noqa: E402

rt.config.experimental.set_jit_wait_for_compile(True)

BATCH, STEPS, VOCABULARY, EMBEDDING, CLASSES = 64, 80, 10_000, 64, 10
TF_LIMIT = 1.1
TIERS = {"numpy": ("NumPy tier", None), "numba": ("Numba tier", True),
         "xla": ("XLA tier", "xla")}


def builder(units):
    """build(tf, keras, jit_compile): the classifier with an LSTM of `units` and its compiled
    training step in the framework `tf`."""
    def build(tf, keras, jit_compile=None):
        layers = keras.layers
        model = keras.Sequential([layers.Input((STEPS,), dtype="int32"),
                                  layers.Embedding(VOCABULARY, EMBEDDING), layers.LSTM(units),
                                  layers.Dense(CLASSES)])
        return model, compiled_step(tf, keras, model, 1e-3, jit_compile)
    return build


def main(argv=None, steps_checked: int = 3) -> float:
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=64)
    parser.add_argument("--tiers", default="numpy,numba,xla")
    options = parser.parse_args(argv)
    tiers = dict(TIERS[name] for name in options.tiers.split(","))
    rng = np.random.default_rng(0)
    x = rng.integers(0, VOCABULARY, (BATCH, STEPS)).astype(np.int32)
    y = rng.integers(0, CLASSES, BATCH).astype(np.int64)
    steps, args = build_tiers(builder(options.units), tiers, x, y)
    return compare(steps, args, "LSTM classifier train step",
                   f"Embedding 10k x 64, LSTM {options.units}, Dense {CLASSES}; batch {BATCH}, "
                   f"{STEPS} steps, Adam", steps_checked, number=3, rounds=7, limit=TF_LIMIT)


if __name__ == "__main__":
    main()
