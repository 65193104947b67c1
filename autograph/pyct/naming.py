"""Fresh, readable names for generated functions and temporaries."""

from __future__ import annotations

from typing import Iterable

# the stem of the variable that carries a `return` value out of a `with`/`try` statement
# (converters/jump_flags.py); a staged `if` may leave it undefined on paths that do not return
RETURN_VALUE_STEM = "return_value__"


class Namer:
    """Hands out names such as `if_body_1`, never clashing with names already in use.

    Statements are numbered in the order they are converted; `numbered(stem)` returns the
    next number for a new statement so that an `if` and its `else` share one (`if_body_2`,
    `else_body_2`).
    """

    def __init__(self, used: Iterable[str] = ()):
        self.used = set(used)
        self._counter = 0

    def next_number(self) -> int:
        """A fresh statement number."""
        self._counter += 1
        return self._counter

    def numbered(self, stem: str, number: int) -> str:
        """`{stem}_{number}`, adjusted to stay unique."""
        return self.unique(f"{stem}_{number}")

    def unique(self, name: str) -> str:
        """`name`, or `name_2`, `name_3`, ... whichever is still free."""
        candidate = name
        i = 1
        while candidate in self.used:
            i += 1
            candidate = f"{name}_{i}"
        self.used.add(candidate)
        return candidate
