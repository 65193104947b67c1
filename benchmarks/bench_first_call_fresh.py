"""The very first conversion in a fresh process: the first call of the first compiled
function (convert + trace + lower + run, with every one-time set-up but imports) against
compile() of its source in that process, the best of several compile() calls made after
the first call. Imports are done first, the converter's too (it loads lazily, on the first
conversion: the script prints that time as well). Several processes, best of each. The
ratio against the process's very first compile(), which also pays one-time costs of its
own, is printed too.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
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
    start = time.perf_counter()
    import autograph.impl.api  # noqa: F401 - the converter, which loads on first use
    import runtime.autograph_backend  # noqa: F401
    # the converters and operators a function needs load with its conversion: all of them
    for module in pkgutil.iter_modules(autograph.converters.__path__):
        importlib.import_module(f"autograph.converters.{module.name}")
    for name in autograph.operators.__all__:
        getattr(autograph.operators, name)
    converter = time.perf_counter() - start
    first_compile = bench.compile_seconds()
    fn = bench.fresh_function()
    start = time.perf_counter()
    rt.function(fn)(xs, limit)
    ours = time.perf_counter() - start
    # the baseline: compile() once its own one-time set-up is paid (the process's first
    # compile() also pays for memory and caches, and varies from run to run)
    base = min(bench.compile_seconds() for _ in range(5))
    print(ours, base, converter, first_compile)


def main() -> float:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
         os.environ.get("PYTHONPATH", "")]))
    runs = []
    for _ in range(PROCESSES):
        out = subprocess.run([sys.executable, "-W", "ignore", __file__, "--child"], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        runs.append(tuple(float(v) for v in out))
    ours, base, converter, first_compile = (min(r[i] for r in runs) for i in range(4))
    print(f"loading the converter on the first conversion: {converter * 1e3:.1f} ms")
    print(f"against the process's first compile() ({first_compile * 1e3:.3f} ms): ratio "
          f"{ours / first_compile:.1f}")
    return report("first call of the first function in a fresh process", ours, base, 50,
                  unit="ms", baseline_name="compile()")


if __name__ == "__main__":
    child() if sys.argv[1:] == ["--child"] else main()
