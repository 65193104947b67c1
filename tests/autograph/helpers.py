"""Shared helpers for autograph tests: running a function and comparing outcomes."""

from __future__ import annotations

import contextlib
import copy
import io
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np


@dataclass
class Outcome:
    value: Any = None
    error: type | None = None
    message: str = ""
    stdout: str = ""


def run(fn: Callable, args: tuple, kwargs: dict | None = None) -> Outcome:
    """Calls `fn` on deep copies of the arguments, capturing stdout and any exception."""
    args = copy.deepcopy(args)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            value = fn(*args, **(kwargs or {}))
        return Outcome(value=value, stdout=out.getvalue())
    except Exception as e:  # noqa: BLE001 - the outcome records it
        return Outcome(error=type(e), message=str(e), stdout=out.getvalue())


def to_plain(value: Any) -> Any:
    """Tensors and NumPy values become Python values/arrays; nests are walked."""
    if hasattr(value, "numpy") and callable(value.numpy):
        value = value.numpy()
    if isinstance(value, np.ndarray):
        return value.tolist() if value.ndim else value.item()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*[to_plain(v) for v in value])
    if isinstance(value, (list, tuple)):
        return type(value)(to_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    return value


def same_value(a: Any, b: Any) -> bool:
    a, b = to_plain(a), to_plain(b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, int) and isinstance(b, int):
        return a == b  # exactly: Python ints may be too large for a float
    if isinstance(a, (int, float, bool)) and isinstance(b, (int, float, bool)):
        return bool(np.isclose(float(a), float(b), rtol=1e-5, atol=1e-6))
    return a == b


def assert_same(expected: Outcome, actual: Outcome, what: str = "") -> None:
    assert actual.error == expected.error, (
        f"{what}: expected {expected.error} ({expected.message}), got {actual.error} "
        f"({actual.message})")
    if expected.error is None:
        assert same_value(expected.value, actual.value), (
            f"{what}: expected {expected.value!r}, got {actual.value!r}")
    assert actual.stdout == expected.stdout, f"{what}: printed {actual.stdout!r}, expected {expected.stdout!r}"
