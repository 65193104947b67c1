"""A converted 2,000-step loop appending rows to a list, then stacked, against NumPy."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402

N, WIDTH = 2000, 16


def rows(n, x):
    out = []
    for i in rt.range(n):
        out.append(x * rt.cast(i, rt.float32))
    return rt.stack(out)


def numpy_rows(n, x):
    out = []
    for i in range(n):
        out.append(x * np.float32(i))
    return np.stack(out)


def main() -> float:
    xv = np.random.default_rng(0).random(WIDTH, dtype=np.float32)
    compiled = rt.function(rows)
    n, x = rt.constant(N), rt.constant(xv)
    assert np.allclose(compiled(n, x).numpy(), numpy_rows(N, xv))
    assert compiled.experimental_get_tracing_count() == 1
    ours, base = interleaved([lambda: compiled(n, x), lambda: numpy_rows(N, xv)],
                             number=3, rounds=15)
    return report(f"converted loop appending {N} rows of {WIDTH}, stacked", ours, base, 1.5,
                  unit="ms")


if __name__ == "__main__":
    main()
