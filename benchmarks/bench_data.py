"""rt.data pipelines against hand-written NumPy, and prefetch overlap.

1. 100,000 rows x 16 float32 -> map(x * 2 + 1) -> shuffle(10_000, seed=0) -> batch(256),
   each batch summed, against NumPy doing the same work by hand (x * 2 + 1, a permutation,
   256-row slices, sums). Limit: 2x.
2. A producer and a consumer that each take 1 ms per batch (NumPy work that releases the
   GIL), with prefetch(1) between them: the time per batch against the slower stage alone.
   Limit: 1.3x.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402

ROWS, COLUMNS, BUFFER, BATCH = 100_000, 16, 10_000, 256


def pipeline_vs_numpy() -> float:
    x = np.random.default_rng(0).random((ROWS, COLUMNS), dtype=np.float32)
    ds = (rt.data.Dataset.from_tensor_slices(x).map(lambda r: r * 2 + 1)
          .shuffle(BUFFER, seed=0).batch(BATCH))

    def ours():
        total = 0.0
        for batch in ds:
            total += float(np.sum(batch.numpy()))
        return total

    def numpy_by_hand():
        y = x * 2 + 1
        y = y[np.random.default_rng(0).permutation(ROWS)]
        total = 0.0
        for start in range(0, ROWS, BATCH):
            total += float(np.sum(y[start:start + BATCH]))
        return total

    assert abs(ours() - numpy_by_hand()) <= 1e-4 * abs(numpy_by_hand())
    mine, base = interleaved([ours, numpy_by_hand], number=1, rounds=7)
    return report(f"from_tensor_slices({ROWS}x{COLUMNS}).map.shuffle({BUFFER}).batch({BATCH}), "
                  "summed", mine, base, 2.0, unit="ms")


def _work_of(seconds: float) -> np.ndarray:
    """A matrix whose product with itself takes about `seconds` (one call into BLAS, which
    releases the GIL for all of it)."""
    n = 32
    while True:
        a = np.random.default_rng(1).random((n, n))
        start = time.perf_counter()
        for _ in range(5):
            a @ a
        if (time.perf_counter() - start) / 5 >= seconds:
            return a
        n = int(n * 1.2) + 1


def prefetch_overlap(batches: int = 100, stage: float = 0.001) -> float:
    a = _work_of(stage)

    def produce():
        for i in range(batches):
            a @ a
            yield np.float32(i)

    ds = rt.data.Dataset.from_generator(produce, output_signature=rt.TensorSpec([], rt.float32))

    def consume(dataset):
        for _ in dataset:
            a @ a

    def with_prefetch():
        consume(ds.prefetch(1))

    def slower_stage_alone():
        for _ in range(batches):
            a @ a

    ours, base = interleaved([with_prefetch, slower_stage_alone], number=1, rounds=7)
    return report(f"prefetch: producer and consumer {stage * 1e3:.0f} ms each, per batch",
                  ours / batches, base / batches, 1.3, unit="ms", baseline_name="one stage")


def main() -> tuple[float, float]:
    return pipeline_vs_numpy(), prefetch_overlap()


if __name__ == "__main__":
    main()
