"""`assert` statements in converted code: a Python assertion for plain values, a staged
assertion (checked when the graph runs) for staged ones."""

from __future__ import annotations

from typing import Any, Callable, Optional

from .dispatch import first_staged, staged_backend
from .location import at, user_location


def assert_stmt(condition: Any, message: Optional[Callable[[], Any]] = None) -> None:
    """`assert condition, message()`."""
    backend = staged_backend(condition)
    if backend is None:
        if not condition:
            if message is None:
                raise AssertionError()
            raise AssertionError(message())
        return None
    msg = message() if message is not None else None
    parts = msg if isinstance(msg, (tuple, list)) else (() if msg is None else (msg,))
    data = [p for p in parts if first_staged([p]) is not None]
    text = " ".join(str(p) for p in parts if first_staged([p]) is None)
    location = user_location()
    header = f"assertion failed{at(location)}"
    backend.assert_(condition, f"{header}: {text}" if text else header, data)
    return None
