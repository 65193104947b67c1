"""The process that compiles one kernel into the on-disk cache, for tiered execution.

`python -m runtime.backends.numba.worker` reads the pickled kernel source and signature spec
(`compiler._signature_spec`) from stdin, splits a large kernel into parts (split.py: the
caller, running the calls on the NumPy tier meanwhile, does not), writes the source to the
cache directory, compiles it (Numba's `cache=True` writes the machine code beside it; a kernel already there is loaded
instead) and prints its compile time, peak memory, cache hits and the split source as JSON. Compiling in a
process of its own keeps Numba's type inference and LLVM off the caller's GIL and out of its
memory; the caller then loads the kernel from the cache. The caller starts it at a lower
priority, ended when the caller dies (`tiered._START`).
"""

from __future__ import annotations

import json
import pickle
import resource
import sys
import time

import numba

from . import cache, compiler


def main() -> int:
    source, spec = pickle.load(sys.stdin.buffer)
    start = time.perf_counter()
    source, split_up = compiler.final_source(source)
    print(json.dumps({"split": split_up}), flush=True)  # the caller reads Numba's lines so
    module = cache.load(source, compiler.cache_salt(numba))
    try:
        module.kernel.compile(compiler.signature_of(numba, spec))
    except Exception as exc:  # NumbaError, LLVM's RuntimeError: the caller explains it
        sys.stderr.write(f"{type(exc).__module__}.{type(exc).__name__}: {exc}\n")
        return 2
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": time.perf_counter() - start, "peak_rss_mb": peak,
                      "cache_hits": sum(module.kernel.stats.cache_hits.values()),
                      "split": split_up, "source": source if split_up else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
