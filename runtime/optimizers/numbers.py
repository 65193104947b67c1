"""Checks of the numbers optimizers and schedules are made with: a wrong value is a
`ValueError` naming the argument when the object is made, not a NaN at the first step."""

from __future__ import annotations

from typing import Any

import numpy as np


def is_real(value: Any) -> bool:
    """True for a Python or NumPy real number (not a bool)."""
    return isinstance(value, (int, float, np.integer, np.floating)) and \
        not isinstance(value, (bool, np.bool_))


def real_number(owner: str, name: str, value: Any) -> float:
    """`value` as a float when it is a real number; a ValueError naming `name` otherwise."""
    if not is_real(value):
        raise ValueError(f"{owner}: `{name}` must be a number, got {value!r:.80}.")
    return float(value)


def positive_number(owner: str, name: str, value: Any) -> float | int:
    """`value` when it is a positive real number; a ValueError naming `name` otherwise."""
    if not (is_real(value) and value > 0):
        raise ValueError(f"{owner}: `{name}` must be a positive number, got {value!r:.80}.")
    return value
