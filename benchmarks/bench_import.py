"""Import time of `runtime` (and of `autograph`) in a fresh interpreter."""

from __future__ import annotations

import statistics
import subprocess
import sys


def import_seconds(module: str, runs: int = 5) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True).stdout) for _ in range(runs)]
    return statistics.median(times)


def main() -> None:
    numpy = import_seconds("numpy")
    for module in ("runtime", "autograph"):
        seconds = import_seconds(module)
        print(f"import {module}: {seconds * 1000:.0f} ms (numpy alone: {numpy * 1000:.0f} ms); "
              f"limit 500 ms {'OK' if seconds < 0.5 else 'OVER LIMIT'}")


if __name__ == "__main__":
    main()
