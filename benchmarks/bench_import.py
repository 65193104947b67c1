"""Import time in a fresh interpreter: `runtime`, and autograph's converter on first use.

`import autograph` itself loads nothing (its names load on first use), so the converter is
measured as `import autograph; autograph.to_graph`. Best of several fresh processes, each
reading the compiled bytecode an installed package has (a warm-up import writes it, also
where PYTHONDONTWRITEBYTECODE is set for the calling process).
"""

from __future__ import annotations

import os
import subprocess
import sys

RUNTIME_LIMIT = 0.3          # seconds, `import runtime` in all
RUNTIME_BEYOND_NUMPY = 0.15  # seconds more than `import numpy` alone


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def import_seconds(statement: str, runs: int = 7) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    subprocess.run([sys.executable, "-c", statement], check=True, env=ENV)  # writes bytecode
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True, env=ENV).stdout) for _ in range(runs))


def main() -> None:
    numpy = import_seconds("import numpy")
    converter = import_seconds("import autograph; autograph.to_graph")
    runtime = import_seconds("import runtime")
    print(f"import autograph + converter: {converter * 1000:.0f} ms")
    ok = runtime <= RUNTIME_LIMIT and runtime - numpy <= RUNTIME_BEYOND_NUMPY
    print(f"import runtime: {runtime * 1000:.0f} ms, numpy alone {numpy * 1000:.0f} ms "
          f"(+{(runtime - numpy) * 1000:.0f} ms; limits {RUNTIME_LIMIT * 1000:.0f} ms, "
          f"+{RUNTIME_BEYOND_NUMPY * 1000:.0f} ms) {'OK' if ok else 'OVER LIMIT'}")


if __name__ == "__main__":
    main()
