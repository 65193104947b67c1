"""Shared timing helper for the benchmark scripts: best-of-N medians, in one process."""

from __future__ import annotations

import timeit

import numpy as np


def interleaved(fns, number: int = 50, rounds: int = 15, timer=timeit.default_timer
                ) -> list[float]:
    """Seconds per call of each of `fns`: the fastest of `rounds` alternating batches.

    Alternating keeps a change in machine load from favouring whichever ran first, and the
    fastest batch is the one least disturbed by other processes. `timer=time.process_time`
    counts only the CPU time of this process (for single-threaded work on a busy machine).
    """
    for fn in fns:
        fn()  # warm up (and trace, for compiled functions)
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for times, fn in zip(samples, fns):
            times.append(timeit.timeit(fn, number=number, timer=timer) / number)
    return [min(times) for times in samples]


def report(name: str, ours: float, baseline: float, limit: float, unit: str = "us",
           baseline_name: str = "NumPy") -> float:
    """Prints one line: both times, their ratio and whether it is within `limit`."""
    ratio = ours / baseline
    scale = 1e6 if unit == "us" else 1e3
    status = "OK" if ratio <= limit else "OVER LIMIT"
    print(f"{name}: ours {ours * scale:.2f} {unit}, {baseline_name} {baseline * scale:.2f} {unit}, "
          f"ratio {ratio:.2f} (limit {limit}) {status}")
    return ratio


def numpy_scalar_loop(n):
    """The hand-written NumPy loop both while-loop benchmarks compare against.

    i, s = 0, 0.0; while i < n: s = s * 0.5 + float32(i); i += 1 — on NumPy scalars.
    """
    i = np.int32(0)
    s = np.float32(0.0)
    half = np.float32(0.5)
    one = np.int32(1)
    while i < n:
        i, s = i + one, s * half + i.astype(np.float32)
    return i, s
