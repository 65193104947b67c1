"""An autograph-converted Python `while` loop against the same loop hand-written with NumPy."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import runtime as rt  # noqa: E402
from _timing import per_call, report  # noqa: E402

N = 5000


def loop(n):
    i = 0
    s = 0.0
    while i < n:
        s = s * 0.5 + rt.cast(i, rt.float32)
        i += 1
    return s


def numpy_loop(n):
    i = np.int32(0)
    s = np.float32(0.0)
    half = np.float32(0.5)
    one = np.int32(1)
    while i < n:
        s = s * half + i.astype(np.float32)
        i = i + one
    return s


def main() -> float:
    compiled = rt.function(loop)
    n = rt.constant(N)
    assert np.isclose(float(compiled(n)), float(numpy_loop(np.int32(N))))
    assert compiled.experimental_get_tracing_count() == 1
    ours = per_call(lambda: compiled(n), number=20, repeat=9)
    base = per_call(lambda: numpy_loop(np.int32(N)), number=20, repeat=9)
    return report(f"autograph while loop, n={N}", ours, base, 1.5, unit="ms")


if __name__ == "__main__":
    main()
