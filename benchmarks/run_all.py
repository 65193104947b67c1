"""Runs every benchmark script in this folder, each in its own process, and prints its line."""

from __future__ import annotations

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        result = subprocess.run([sys.executable, "-W", "ignore", str(script)], capture_output=True,
                                text=True)
        output = (result.stdout or result.stderr).strip().splitlines()
        print(output[-1] if output else f"{script.name}: no output")
        failed += result.returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
