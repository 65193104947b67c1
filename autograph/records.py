"""Record classes without `dataclasses`: `Record` (compared by its fields, unhashable) and
`FrozenRecord` (also hashable and read-only), with a dataclass's `repr`.

The converter's small value classes (options, source locations, analysis results, ...) are
records. `@dataclass` writes and compiles each class's methods when its module is imported,
which the first conversion in a process pays for; a record class states its `__init__`
itself (a frozen one takes its fields by position or name) and lists its field names in
`_fields`.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any


class Record:
    """Fields named by `_fields`; equal to a record of the same class with equal fields."""

    _fields: tuple[str, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable, like an eq=True dataclass

    def _values(self) -> tuple:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"


class FrozenRecord(Record):
    """A record whose fields cannot be assigned after `__init__`; hashable by its fields, like
    a frozen dataclass. Made from the fields, by position or name (`_defaults` gives those that
    may be left out)."""

    _defaults: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        name = type(self).__name__
        if len(args) > len(self._fields):
            raise TypeError(f"{name}() takes {len(self._fields)} arguments, got {len(args)}")
        values = dict(self._defaults)
        values.update(zip(self._fields, args))
        for key, value in kwargs.items():
            if key not in self._fields or key in self._fields[:len(args)]:
                raise TypeError(f"{name}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        missing = [f for f in self._fields if f not in values]
        if missing:
            raise TypeError(f"{name}() is missing {', '.join(map(repr, missing))}")
        self.__dict__.update(values)

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")
