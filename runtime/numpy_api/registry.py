"""The tables of NumPy functions and ufuncs that run on tensors, and hints for the rest.

Each entry maps a NumPy callable to an implementation made of runtime ops, so a NumPy call
on a symbolic tensor is staged into the graph, and on an eager tensor it is recorded by an
active gradient tape. `docs/numpy.md` lists these tables (`python docs/make_numpy_page.py`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

UFUNCS: dict[np.ufunc, Callable] = {}      # np.add -> fn(*tensors) on operands of one dtype
FUNCTIONS: dict[Callable, Callable] = {}   # np.sum -> fn with NumPy's signature
NAMES: dict[object, str] = {}              # NumPy callable -> "np.linalg.norm"
ROWS: set[tuple[str, str, str]] = set()    # (NumPy name, kind, the runtime ops it records)

# NumPy functions with no runtime op, and what to use instead
HINTS = {
    "sort": "sort outside the compiled function (no runtime op sorts); rt.reduce_max / rt.argmax "
            "give the extremes",
    "argsort": "rt.argmax / rt.argmin for the extreme elements (no runtime op sorts)",
    "unique": "compute it outside the compiled function (its shape depends on the values)",
    "bincount": "rt.reduce_sum(rt.one_hot(x, n), axis=0)",
    "cumprod": "rt.exp(rt.cumsum(rt.log(x))) for positive x",
    "median": "np.mean, or compute it outside the compiled function (no runtime op sorts)",
    "percentile": "compute it outside the compiled function (no runtime op sorts)",
    "nonzero": "np.where(condition) or rt.where(condition)",
    "repeat": "rt.tile, or rt.gather with repeated indices",
    "linalg.svd": "rt.linalg.inv / rt.linalg.det (there are no decomposition ops)",
    "linalg.eig": "power iteration with np.dot (there are no decomposition ops)",
    "linalg.eigh": "power iteration with np.dot (there are no decomposition ops)",
    "linalg.qr": "rt.linalg.inv for solving (there are no decomposition ops)",
    "linalg.cholesky": "rt.linalg.inv for solving (there are no decomposition ops)",
}
DEFAULT_HINT = "the rt.* op that computes it (docs/numpy.md lists the NumPy calls tensors support)"


def numpy_callable(name: str):
    """np.<name> for a dotted name such as "linalg.norm"."""
    obj = np
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def implements(*names: str, staged_as: str):
    """Registers the decorated function as the tensor implementation of np.<name> for each name."""
    def register(impl):
        for name in names:
            fn = numpy_callable(name)
            FUNCTIONS[fn] = impl
            NAMES.setdefault(fn, "np." + name)
            ROWS.add(("np." + name, "function", staged_as))
        return impl
    return register


def ufunc(*names: str, staged_as: str):
    """Registers the decorated function as the tensor implementation of the ufuncs np.<name>."""
    def register(impl):
        for name in names:
            fn = numpy_callable(name)
            UFUNCS[fn] = impl
            NAMES.setdefault(fn, "np." + name)
            ROWS.add(("np." + name, "ufunc", staged_as))
        return impl
    return register


def hint(name: str) -> str:
    return HINTS.get(name.removeprefix("np."), DEFAULT_HINT)


def supported() -> list[tuple[str, str, str]]:
    """(NumPy name, "ufunc" or "function", the runtime ops it records), sorted by name."""
    return sorted(ROWS)
