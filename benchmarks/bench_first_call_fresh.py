"""The very first conversion in a fresh process: the first call of the first compiled
function (convert + trace + lower + run, with the converter's one-time set-up) against
compile() of its source, after `import runtime`. Several processes, best of.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _timing import report  # noqa: E402

PROCESSES = 7


def child() -> None:
    """Runs in a fresh interpreter: prints the first call's and compile()'s seconds."""
    import bench_first_call as bench  # imports runtime (bytecode cached by earlier runs)
    rt = bench.rt
    xs = rt.constant([3.0, -4.0, 0.5, 2.0, -0.1])
    limit = rt.constant(1.0)
    fn = bench.fresh_function()
    start = time.perf_counter()
    rt.function(fn)(xs, limit)
    ours = time.perf_counter() - start
    base = min(bench.compile_seconds() for _ in range(5))
    print(ours, base)


def main() -> float:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
         os.environ.get("PYTHONPATH", "")]))
    runs = []
    for _ in range(PROCESSES):
        out = subprocess.run([sys.executable, "-W", "ignore", __file__, "--child"], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        runs.append((float(out[0]), float(out[1])))
    ours = min(r[0] for r in runs)
    base = min(r[1] for r in runs)
    return report("first call of the first function in a fresh process", ours, base, 50,
                  unit="ms", baseline_name="compile()")


if __name__ == "__main__":
    child() if sys.argv[1:] == ["--child"] else main()
