"""Import time in a fresh interpreter: `runtime`, and autograph's converter on first use.

`import autograph` itself loads nothing (its names load on first use), so the converter is
measured as `import autograph; autograph.to_graph`. Best of several fresh processes, each
reading the compiled bytecode an installed package has (a warm-up import writes it, also
where PYTHONDONTWRITEBYTECODE is set for the calling process).

`--callgrind` counts instructions instead (valgrind's callgrind, with a fixed hash seed, the
fewest of two runs each), which a busy machine does not disturb: `import numpy` against
`import runtime` and against `import runtime` plus the first call of a small compiled
function (read from a file, so that it converts), with the start-up standard's ratio.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

RUNTIME_LIMIT = 0.3          # seconds, `import runtime` in all
RUNTIME_BEYOND_NUMPY = 0.15  # seconds more than `import numpy` alone


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def import_seconds(statement: str, runs: int = 7) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    subprocess.run([sys.executable, "-c", statement], check=True, env=ENV)  # writes bytecode
    return min(float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    check=True, env=ENV).stdout) for _ in range(runs))


STARTUP_RATIO = 1.6          # import runtime + first call, against import numpy (instructions)

FIRST_CALL = """\
import numpy as np
import runtime as rt
f = rt.function(lambda x: x * 2 + 1)
f(np.ones(3, np.float32))
"""


def instructions(statement: str, runs: int = 2) -> int:
    """The instructions a fresh interpreter runs for `statement` (callgrind's count)."""
    env = dict(ENV, PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "statement.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(statement)
        subprocess.run([sys.executable, script], check=True, env=env)  # writes bytecode
        counts = []
        for _ in range(runs):
            out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                                  sys.executable, script], capture_output=True, text=True,
                                 check=True, env=env).stderr
            counts.append(int(re.search(r"I\s+refs:\s+([\d,]+)", out).group(1).replace(",", "")))
    return min(counts)


def main_callgrind() -> None:
    numpy = instructions("import numpy\n")
    runtime = instructions("import runtime\n")
    first = instructions(FIRST_CALL)
    ratio = first / numpy
    print(f"import numpy: {numpy / 1e6:.1f}M instructions")
    print(f"import runtime: {runtime / 1e6:.1f}M ({runtime / numpy:.3f}x numpy)")
    print(f"import runtime + first call: {first / 1e6:.1f}M ({ratio:.3f}x numpy; limit "
          f"{STARTUP_RATIO}x) {'OK' if ratio <= STARTUP_RATIO else 'OVER LIMIT'}")


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
    main_callgrind() if sys.argv[1:] == ["--callgrind"] else main()
