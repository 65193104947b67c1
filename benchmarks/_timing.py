"""Shared timing helper for the benchmark scripts: best-of-N medians, in one process."""

from __future__ import annotations

import statistics
import timeit


def per_call(fn, number: int = 2000, repeat: int = 7) -> float:
    """Seconds per call of `fn()`: the median of `repeat` runs of `number` calls."""
    fn()  # warm up (and trace, for compiled functions)
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number


def report(name: str, ours: float, baseline: float, limit: float, unit: str = "us") -> float:
    ratio = ours / baseline
    scale = 1e6 if unit == "us" else 1e3
    status = "OK" if ratio <= limit else "OVER LIMIT"
    print(f"{name}: ours {ours * scale:.2f} {unit}, NumPy {baseline * scale:.2f} {unit}, "
          f"ratio {ratio:.2f} (limit {limit}) {status}")
    return ratio
