"""An autograph-converted Python `while` loop against the same loop hand-written with NumPy."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, numpy_scalar_loop, report  # noqa: E402

import runtime as rt  # noqa: E402

N = 5000


def loop(n):
    i = 0
    s = 0.0
    while i < n:
        s = s * 0.5 + rt.cast(i, rt.float32)
        i += 1
    return s


def main() -> float:
    compiled = rt.function(loop)
    n = rt.constant(N)
    assert np.isclose(float(compiled(n)), float(numpy_scalar_loop(np.int32(N))[1]))
    assert compiled.experimental_get_tracing_count() == 1
    ours, base = interleaved([lambda: compiled(n), lambda: numpy_scalar_loop(np.int32(N))],
                             number=5, rounds=15)
    return report(f"autograph while loop, n={N}", ours, base, 1.5, unit="ms")


if __name__ == "__main__":
    main()
