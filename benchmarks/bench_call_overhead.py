"""Call overhead: a compiled call of a small expression against the same NumPy expression.

f(x, y) = reduce_mean(multiply(x ** 2, 3) + y) on two 1x2 float32 tensors.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402


def main() -> float:
    xv = np.random.rand(1, 2).astype(np.float32)
    yv = np.random.rand(1, 2).astype(np.float32)

    @rt.function
    def f(x, y):
        return rt.reduce_mean(rt.multiply(x ** 2, 3) + y)

    x, y = rt.constant(xv), rt.constant(yv)
    three = np.float32(3)

    def numpy_expr():
        return np.mean(np.multiply(xv ** 2, three) + yv)

    assert np.allclose(f(x, y).numpy(), numpy_expr())
    ours, base = interleaved([lambda: f(x, y), numpy_expr],
                             number=5000, rounds=15)
    return report("compiled call of reduce_mean(x**2*3 + y), 1x2 float32", ours, base, 2.0)


if __name__ == "__main__":
    main()
