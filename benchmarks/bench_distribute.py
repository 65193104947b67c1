"""Data-parallel training on Dask: samples per second of `fit` under
MultiWorkerMirroredStrategy with two workers against one, side by side.

An MLP 784-512-512-10 (softmax cross-entropy, SGD), global batch 512, on two Dask
LocalClusters started together: one worker process, and two, each with one thread (BLAS
pinned to one thread too). Epochs alternate between the two strategies and each keeps its
fastest epoch, so a change in machine load does not favour either. The limit: two workers
process at least 1.6x the samples per second of one.

    python benchmarks/bench_distribute.py [--rounds 5] [--steps 8]
"""

from __future__ import annotations

import argparse
import os
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_name] = "1"  # before NumPy loads, here and in the worker processes

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402

BATCH = 512
LIMIT = 1.6


def _model(strategy):
    rt.keras.utils.set_random_seed(0)
    with strategy.scope():
        model = rt.keras.Sequential([rt.keras.Input((784,)),
                                     rt.keras.layers.Dense(512, activation="relu"),
                                     rt.keras.layers.Dense(512, activation="relu"),
                                     rt.keras.layers.Dense(10)])
        model.compile(rt.keras.optimizers.SGD(0.01),
                      rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def main() -> float:
    import dask
    import distributed

    # Dask's default asks glibc to return freed memory at once (64 KiB), which makes every
    # large temporary of a training step a fresh mapping; keep the allocator's default here
    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": 2 ** 30})

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=8, help="steps (global batches) an epoch")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.random((BATCH * args.steps, 784), dtype=np.float32)
    y = rng.integers(0, 10, size=len(x))
    runs = {}
    clusters = []
    for workers in (1, 2):
        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
        client.wait_for_workers(workers)
        clusters.append((client, cluster))
        strategy = rt.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=rt.distribute.cluster_resolver.DaskClusterResolver(client))
        model = _model(strategy)
        model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)  # warm up
        runs[workers] = (model, [])
    for _ in range(args.rounds):
        for model, times in runs.values():
            start = time.perf_counter()
            model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
            times.append(time.perf_counter() - start)
    rates = {w: len(x) / min(times) for w, (_, times) in runs.items()}
    speedup = rates[2] / rates[1]
    status = "OK" if speedup >= LIMIT else "UNDER LIMIT"
    print(f"MLP 784-512-512-10, global batch {BATCH}, {os.cpu_count()} cores: "
          f"1 worker {rates[1]:.0f} samples/s, 2 workers {rates[2]:.0f} samples/s, "
          f"speed-up {speedup:.2f}x (limit {LIMIT}x) {status}")
    for client, cluster in clusters:
        client.close()
        cluster.close()
    return speedup


if __name__ == "__main__":
    main()
