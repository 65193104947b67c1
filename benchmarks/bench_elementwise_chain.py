"""An 8-op elementwise chain on 1e6 float32 against the same chain written by hand in NumPy.

Times both and compares their peak memory (tracemalloc) per call: the executor frees each
temporary after its last use and writes elementwise results into dying temporaries.
"""

from __future__ import annotations

import os
import sys
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402

N = 1_000_000
MEMORY_LIMIT = 1.5


def numpy_chain(x):
    y = x * np.float32(2.0)
    y = y + np.float32(1.0)
    y = np.tanh(y)
    y = y - np.float32(3.0)
    y = y * x
    y = np.abs(y)
    y = np.sqrt(y)
    return y / np.float32(2.0)


@rt.function
def compiled_chain(x):
    y = x * 2.0
    y = y + 1.0
    y = rt.tanh(y)
    y = y - 3.0
    y = y * x
    y = rt.abs(y)
    y = rt.sqrt(y)
    return y / 2.0


def peak_bytes(fn) -> int:
    """The peak traced allocation of one call of `fn`, beyond what was allocated before it."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - before
        del result
    finally:
        tracemalloc.stop()
    return peak


def main() -> float:
    xv = np.random.default_rng(0).random(N, dtype=np.float32)
    x = rt.constant(xv)
    assert np.allclose(compiled_chain(x).numpy(), numpy_chain(xv), rtol=1e-6)
    ours_mem, base_mem = peak_bytes(lambda: compiled_chain(x)), peak_bytes(lambda: numpy_chain(xv))
    memory = ours_mem / base_mem
    print(f"peak memory: ours {ours_mem / 1e6:.1f} MB, NumPy {base_mem / 1e6:.1f} MB, ratio "
          f"{memory:.2f} (limit {MEMORY_LIMIT}) {'OK' if memory <= MEMORY_LIMIT else 'OVER LIMIT'}")
    ours, base = interleaved([lambda: compiled_chain(x), lambda: numpy_chain(xv)],
                             number=5, rounds=15)
    return report(f"8-op elementwise chain, {N:.0e} float32 (peak memory {memory:.2f}x)", ours,
                  base, 0.9, unit="ms")


if __name__ == "__main__":
    main()
