"""Data-parallel training on Dask: samples per second of `fit` under
MultiWorkerMirroredStrategy with two workers against one, side by side.

An MLP 784-512-512-10 (softmax cross-entropy, SGD), global batch 512, on two Dask
LocalClusters started together: one worker process, and two, each with one thread (BLAS
pinned to one thread too). Epochs alternate between the two strategies and each keeps its
fastest epoch, so a change in machine load does not favour either. The limit: two workers
process at least 1.6x the samples per second of one.

Wall-clock figures need idle cores: on a machine whose cores other processes keep busy, two
worker processes get no more CPU than one, and every wait for the other replica's gradients
costs a scheduling delay. So the benchmark also prints what does not depend on the load: the
CPU time a step takes in a replica's thread (its part of the batch, the sum of the
gradients, the update), how long a replica waited for the other's gradients, and the CPU
time a step of the driver's fit loop.

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


def _replica_stats(dask_worker) -> list:
    """(steps, CPU seconds, seconds waiting for the others) of the replicas on a worker."""
    from runtime.distribute.worker_tasks import Replica
    return [(r.steps, r.busy, r.waited) for r in list(dask_worker.state.actors.values())
            if isinstance(r, Replica)]


def _stats(client) -> np.ndarray:
    return np.array([row for rows in client.run(_replica_stats).values() for row in rows])


def main() -> float:
    import dask
    import distributed

    # Dask sets MALLOC_TRIM_THRESHOLD_ for its workers; setting it at all turns glibc's
    # adaptive mmap threshold off, so every large temporary of a step becomes a fresh
    # mapping whose pages fault in again (a step's gradients at batch 512 took 40-50 ms
    # CPU instead of 28): the workers keep the allocator of a plain process
    dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})

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
        runs[workers] = (model, client, [], _stats(client), [0.0])
    for _ in range(args.rounds):
        for model, _, times, _, used in runs.values():
            start, cpu = time.perf_counter(), time.thread_time()
            model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
            times.append(time.perf_counter() - start)
            used[0] += time.thread_time() - cpu
    rates = {w: len(x) / min(times) for w, (_, _, times, _, _) in runs.items()}
    speedup = rates[2] / rates[1]
    status = "OK" if speedup >= LIMIT else "UNDER LIMIT"
    print(f"MLP 784-512-512-10, global batch {BATCH}, {os.cpu_count()} cores: "
          f"1 worker {rates[1]:.0f} samples/s, 2 workers {rates[2]:.0f} samples/s, "
          f"speed-up {speedup:.2f}x (limit {LIMIT}x) {status}")
    per_step = {}
    for w, (_, client, _, before, used) in runs.items():
        steps, busy, waited = (_stats(client) - before).T
        per_step[w] = (np.max(busy / steps) * 1e3, np.max(waited / steps) * 1e3,
                       used[0] / (args.rounds * args.steps) * 1e3)
    print(f"CPU a step in a replica's thread: 1 worker {per_step[1][0]:.1f} ms (batch {BATCH}), "
          f"2 workers {per_step[2][0]:.1f} ms (batch {BATCH // 2}, the busier replica), "
          f"{per_step[1][0] / per_step[2][0]:.2f}x; waiting for the other replica "
          f"{per_step[2][1]:.1f} ms a step")
    print(f"CPU a step of the driver's fit loop (its thread): {per_step[1][2]:.1f} ms "
          f"(1 worker), {per_step[2][2]:.1f} ms (2 workers)")
    for client, cluster in clusters:
        client.close()
        cluster.close()
    return speedup


if __name__ == "__main__":
    main()
