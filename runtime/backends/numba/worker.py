"""The process that compiles one kernel into the on-disk cache, for tiered execution.

`python -m runtime.backends.numba.worker <kernel file> <module name>` reads the pickled
signature from stdin, compiles the kernel's module (Numba's `cache=True` writes the machine
code beside it) and prints its compile time and peak memory as JSON. Compiling in a process
of its own keeps Numba's type inference and LLVM off the caller's GIL and out of its memory;
the caller then loads the kernel from the cache. The caller starts it at a lower priority,
ended when the caller dies (`tiered._START`).
"""

from __future__ import annotations

import importlib.util
import json
import pickle
import resource
import sys
import time


def main(argv: list[str]) -> int:
    path, name = argv
    signature = pickle.load(sys.stdin.buffer)
    start = time.perf_counter()
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba's cache finds the module again by name
    spec.loader.exec_module(module)
    try:
        module.kernel.compile(signature)
    except Exception as exc:  # NumbaError, LLVM's RuntimeError: the caller explains it
        sys.stderr.write(f"{type(exc).__module__}.{type(exc).__name__}: {exc}\n")
        return 2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": time.perf_counter() - start, "peak_rss_mb": peak,
                      "cache_hits": sum(module.kernel.stats.cache_hits.values())}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
