"""A staged while_loop (autograph=False) against the same loop hand-written with NumPy scalars."""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, numpy_scalar_loop, report  # noqa: E402

import runtime as rt  # noqa: E402

N = 5000


def main() -> float:
    loop = rt.function(lambda n: rt.while_loop(
        lambda i, s: i < n, lambda i, s: (i + 1, s * 0.5 + rt.cast(i, rt.float32)), (0, 0.0)),
        autograph=False)
    i, s = loop(N)
    ref_i, ref_s = numpy_scalar_loop(np.int32(N))
    assert int(i) == int(ref_i) and np.isclose(float(s), float(ref_s)), (i, s, ref_i, ref_s)
    ours, base = interleaved([lambda: loop(N), lambda: numpy_scalar_loop(np.int32(N))],
                             number=5, rounds=15)
    return report(f"rt.while_loop, n={N}", ours, base, 1.3, unit="ms")


if __name__ == "__main__":
    main()
