"""Cache hit with nested arguments: a dict of 5 small tensors against the NumPy expression."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402

KEYS = ("a", "b", "c", "d", "e")


@rt.function
def combine(inputs):
    return inputs["a"] + inputs["b"] * inputs["c"] - inputs["d"] + inputs["e"]


def numpy_combine(inputs):
    return inputs["a"] + inputs["b"] * inputs["c"] - inputs["d"] + inputs["e"]


def main() -> float:
    rng = np.random.default_rng(0)
    values = {k: rng.random((2, 3), dtype=np.float32) for k in KEYS}
    tensors = {k: rt.constant(v) for k, v in values.items()}
    assert np.allclose(combine(tensors).numpy(), numpy_combine(values))
    ours, base = interleaved([lambda: combine(tensors), lambda: numpy_combine(values)],
                             number=5000, rounds=15)
    assert combine.experimental_get_tracing_count() == 1
    return report("compiled call with a dict of 5 tensors, 2x3 float32", ours, base, 3.0)


if __name__ == "__main__":
    main()
