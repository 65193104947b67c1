"""Saved model: save/load time of the 784-512-512-10 MLP (load limit 50 ms), and rt.dask.map_blocks
inference over 16 chunks of 20,000 x 784 float32 on 2 local worker processes vs a local loop."""

from __future__ import annotations

import sys
import tempfile
import time

import numpy as np

import runtime as rt

LOAD_LIMIT_MS = 50


def build_mlp():
    class MLP(rt.Model):
        def __init__(self):
            super().__init__()
            self.h1 = rt.layers.Dense(512, activation="relu")
            self.h2 = rt.layers.Dense(512, activation="relu")
            self.out = rt.layers.Dense(10)

        @rt.function(input_signature=[rt.TensorSpec([None, 784])])
        def call(self, x):
            return self.out(self.h2(self.h1(x)))

    model = MLP()
    model(np.zeros((1, 784), np.float32))
    return model


def best_of(fn, repeat=5):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    model = build_mlp()
    path = tempfile.mkdtemp()
    save_s = best_of(lambda: rt.saved_model.save(model, path))
    load_s = best_of(lambda: rt.saved_model.load(path))
    print(f"save {save_s * 1e3:.1f} ms, load {load_s * 1e3:.1f} ms")
    ratio_line = ""
    try:
        import dask.array as da
        from distributed import Client, LocalCluster
    except ImportError:
        ratio_line = "map_blocks: dask not installed"
    else:
        loaded = rt.saved_model.load(path)
        signature = loaded.signatures["serving_default"]
        rng = np.random.default_rng(0)
        start = time.perf_counter()
        for _ in range(16):
            signature(rng.random((20_000, 784), dtype=np.float32))
        local_s = time.perf_counter() - start
        with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                          dashboard_address=None) as cluster, Client(cluster) as client:
            client.wait_for_workers(2)
            # the chunks are made on the workers (as when reading from shared storage), and
            # the local loop above also makes each chunk before using it
            data = da.random.default_rng(0).random((16 * 20_000, 784), chunks=(20_000, 784),
                                                   dtype=np.float32)
            start = time.perf_counter()
            client.compute(rt.dask.map_blocks(signature, data)).result()
            dask_s = time.perf_counter() - start
        ratio_line = (f"map_blocks 16x20000x784 on 2 workers {dask_s:.2f} s vs local loop "
                      f"{local_s:.2f} s: speedup {local_s / dask_s:.2f}x")
        print(ratio_line)
    ok = load_s * 1e3 <= LOAD_LIMIT_MS
    print(f"saved_model: load {load_s * 1e3:.1f} ms (limit {LOAD_LIMIT_MS}), save "
          f"{save_s * 1e3:.1f} ms; {ratio_line}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
