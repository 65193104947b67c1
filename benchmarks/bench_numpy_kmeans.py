"""A k-means step written in NumPy, compiled with rt.function, against the same function on ndarrays.

10,000 points x 8 clusters x 2 dims, float64: the compiled function runs the generated NumPy
code of its graph; the baseline calls the very same Python function on ndarrays.
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _timing import interleaved, report  # noqa: E402

import runtime as rt  # noqa: E402

N_POINTS, N_CLUSTERS, N_DIMS = 10_000, 8, 2


def kmeans_step(points, centroids):
    """One Lloyd iteration: assign each point to its nearest centroid, then average."""
    distances = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    labels = np.argmin(distances, axis=1)
    onehot = (labels[:, None] == np.arange(centroids.shape[0])[None, :]).astype(points.dtype)
    counts = np.sum(onehot, axis=0)
    sums = onehot.T @ points
    return sums / np.maximum(counts, 1.0)[:, None]


def main() -> float:
    rng = np.random.default_rng(0)
    points = rng.normal(size=(N_POINTS, N_DIMS))
    centroids = points[rng.choice(N_POINTS, N_CLUSTERS, replace=False)]
    compiled = rt.function(kmeans_step)
    pt, ct = rt.constant(points), rt.constant(centroids)

    assert np.allclose(compiled(pt, ct).numpy(), kmeans_step(points, centroids))
    assert compiled.experimental_get_tracing_count() == 1

    ours, base = interleaved([lambda: compiled(pt, ct), lambda: kmeans_step(points, centroids)],
                             number=20)
    return report(f"compiled NumPy k-means step ({N_POINTS} x {N_CLUSTERS} x {N_DIMS})", ours,
                  base, 1.1)


if __name__ == "__main__":
    main()
