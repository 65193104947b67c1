"""Trace cache under ever new Python values: time per trace stays flat and memory bounded.

Calls one Function with 2,000 distinct Python numbers (each one traces) and compares the
time of the second 1,000 traces with the first 1,000: the ratio stays near 1 when a look-up
costs the same however many graphs are cached. Memory is what tracemalloc sees retained.
"""

from __future__ import annotations

import gc
import logging
import time
import tracemalloc

import runtime as rt


def main() -> None:
    logging.disable(logging.WARNING)  # the retracing warning is the point here
    f = rt.function(lambda x, n: x * n, autograph=False)
    x = rt.constant(1.0)
    f(x, -1)
    tracemalloc.start()
    times = []
    for half in range(2):
        start = time.perf_counter()
        for n in range(half * 1000, (half + 1) * 1000):
            f(x, n)
        times.append(time.perf_counter() - start)
    gc.collect()
    retained = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    ratio = times[1] / times[0]
    print(f"trace cache, 2,000 distinct Python values: {len(f.list_concrete_functions())} graphs "
          f"kept, {retained / 1e6:.1f} MB retained, second 1,000 traces / first 1,000: ratio "
          f"{ratio:.2f} (limit 2.0) {'OK' if ratio < 2.0 else 'OVER LIMIT'}")


if __name__ == "__main__":
    main()
