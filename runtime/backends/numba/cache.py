"""The on-disk home of generated kernels: `$XDG_CACHE_HOME/autograph-rt/numba/<hash>.py`.

A kernel's module is written once under the hash of its source and imported from there, so
Numba's own cache (`cache=True`, kept in `__pycache__` beside it) lets a second process load
the machine code instead of compiling it again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile


def cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "autograph-rt", "numba")


def load(source: str, salt: str):
    """The module for `source`, written to the cache directory when it is not there yet."""
    digest = hashlib.sha256((salt + "\n" + source).encode()).hexdigest()[:24]
    name = f"autograph_rt_kernel_{digest}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    directory = cache_dir()
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}.py")
    if not os.path.exists(path):  # rewriting would change its time and void Numba's cache
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # Numba's cache finds the module again by name
    spec.loader.exec_module(module)
    return module
