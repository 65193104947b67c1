"""Reading TFRecord files of Examples: rt.data.TFRecordDataset + rt.io.parse_example against
TensorFlow's tf.data.TFRecordDataset + tf.io.parse_example on the same file.

A file of ~1 KB Examples (900 bytes of "image", an int64 "label", 16 float "features", 8 int64
"tags"; 200 MB, or TFRECORD_BENCH_MB megabytes) is written in a temporary directory, then read
in batches of 256, each batch parsed, every CRC checked. TensorFlow runs in this process when
importable, else in TFRECORD_BENCH_TF_PYTHON (default /tmp/tf/bin/python) as a subprocess;
without either, only our throughput is printed. One core, as measured for docs/data.md:

    taskset -c 1 python benchmarks/bench_tfrecord.py

Each side's best of 3 runs is taken, wall time and the process's CPU time (on a shared
machine wall time also counts the waits for the core, and TensorFlow's pipeline threads wait
more often). Peak memory (the process's maximum resident size) is printed too: reading
streams the file in 4 MB pieces, so it stays far below the file's size. Limit: 2x
TensorFlow's time.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

import runtime as rt

MB = float(os.environ.get("TFRECORD_BENCH_MB", "200"))
BATCH = 256
LIMIT = 2.0
RUNS = 3  # each side's best of this many runs

TF_SIDE = """
import sys, time
import tensorflow as tf
path = sys.argv[1]
spec = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64),
        "features": tf.io.FixedLenFeature([16], tf.float32), "tags": tf.io.VarLenFeature(tf.int64)}
def run():
    ds = tf.data.TFRecordDataset(path).batch(%d).map(lambda s: tf.io.parse_example(s, spec))
    total = 0
    for b in ds:
        total += int(b["label"].numpy().sum())
    return total
run()
best = [float("inf")] * 2
for _ in range(%d):
    wall, cpu = time.perf_counter(), time.process_time()
    total = run()
    best = [min(best[0], time.perf_counter() - wall), min(best[1], time.process_time() - cpu)]
print(best[0], best[1], total)
""" % (BATCH, RUNS)


def write_file(path: str) -> int:
    """~1 KB Examples up to MB megabytes; the number of records."""
    rng = np.random.default_rng(0)
    count = int(MB * 1e6 // 1024)
    with rt.io.TFRecordWriter(path) as writer:
        for i in range(count):
            example = rt.train.Example(features=rt.train.Features(feature={
                "image": rt.train.Feature(bytes_list=rt.train.BytesList(
                    value=[rng.bytes(900)])),
                "label": rt.train.Feature(int64_list=rt.train.Int64List(value=[i % 10])),
                "features": rt.train.Feature(float_list=rt.train.FloatList(
                    value=rng.random(16, dtype=np.float32))),
                "tags": rt.train.Feature(int64_list=rt.train.Int64List(value=list(range(i % 9)))),
            }))
            writer.write(example.SerializeToString())
    return count


def ours(path: str) -> tuple[float, float, int]:
    features = {"image": rt.io.FixedLenFeature([], rt.string),
                "label": rt.io.FixedLenFeature([], rt.int64),
                "features": rt.io.FixedLenFeature([16], rt.float32),
                "tags": rt.io.VarLenFeature(rt.int64)}

    def parse(serialized):
        out = rt.io.parse_example(serialized, features)
        return out["label"], out["features"], out["image"]

    wall, cpu = time.perf_counter(), time.process_time()
    ds = rt.data.TFRecordDataset(path).batch(BATCH).map(parse)
    total = 0
    for label, _, _ in ds:
        total += int(label.numpy().sum())
    return time.perf_counter() - wall, time.process_time() - cpu, total


def tensorflow(path: str) -> tuple[float, float, int] | None:
    try:
        import tensorflow  # noqa: F401
        python = sys.executable
    except ImportError:
        python = os.environ.get("TFRECORD_BENCH_TF_PYTHON", "/tmp/tf/bin/python")
        if not os.path.exists(python):
            return None
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([python, "-c", TF_SIDE, path], capture_output=True, text=True, env=env)
    if result.returncode:
        print("TensorFlow side failed:", result.stderr.strip().splitlines()[-1:], file=sys.stderr)
        return None
    wall, cpu, total = result.stdout.split()[-3:]
    return float(wall), float(cpu), int(total)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.tfrecord")
        count = write_file(path)
        size = os.path.getsize(path) / 1e6
        ours(path)  # warm up: builds the CRC tables
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        runs = [ours(path) for _ in range(RUNS)]
        seconds, cpu, total = min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"ours: {count} records, {size:.0f} MB in {seconds:.2f} s ({size / seconds:.0f} MB/s, "
              f"{count / seconds:,.0f} records/s; CPU {cpu:.2f} s); peak RSS {peak:.0f} MB "
              f"(before: {before:.0f} MB)")
        theirs = tensorflow(path)
        if theirs is None:
            print(f"bench_tfrecord: ours {size / seconds:.0f} MB/s; TensorFlow not available")
            return 0
        assert theirs[2] == total, (theirs, total)
        ratio = seconds / theirs[0]
        status = "OK" if ratio <= LIMIT else "OVER LIMIT"
        print(f"bench_tfrecord ({size:.0f} MB of 1 KB Examples, batches of {BATCH}, best of "
              f"{RUNS}): ours {seconds:.2f} s, TensorFlow {theirs[0]:.2f} s, ratio {ratio:.2f} "
              f"(limit {LIMIT}) {status}; CPU time ours {cpu:.2f} s, TensorFlow {theirs[1]:.2f} s, "
              f"ratio {cpu / theirs[1]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
