"""Values converted code passes around besides the user's own.

Generated functions report how they ended through their return value:

* `None`: they ran to the end (or hit `continue`);
* `BREAK`: a `break` left the loop body;
* `Return(value, depth)`: a `return` inside `depth` nested loops left the function.

`Undefined` marks, inside the operators, a variable that has no value yet.
"""

from __future__ import annotations

from typing import Any


class Undefined:
    """The value of a variable that is not defined (yet) at some point of staged code."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Undefined({self.name!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Undefined)

    def __hash__(self) -> int:
        return hash(Undefined)


class _Break:
    __slots__ = ()

    def __repr__(self) -> str:
        return "BREAK"

    def __reduce__(self):
        return "BREAK"


BREAK = _Break()
"""Returned by a loop body to leave the loop."""


class Return:
    """Returned by a loop body to leave the function, `depth` loops up, with `value`."""

    __slots__ = ("value", "depth")

    def __init__(self, value: Any = None, depth: int = 1):
        self.value = value
        self.depth = depth

    def __repr__(self) -> str:
        return f"Return({self.value!r}, {self.depth})"


# Jump kinds, as staged integers when a jump depends on a staged condition.
NORMAL, BREAK_KIND, RETURN_KIND = 0, 1, 2


class StagedJump:
    """A jump whose kind (`NORMAL`, `BREAK_KIND`, `RETURN_KIND`) is a staged integer;
    `value` is the returned value (meaningful when the kind is `RETURN_KIND`); `kinds` are
    the kinds it can possibly have."""

    __slots__ = ("kind", "value", "depth", "has_return", "kinds")

    def __init__(self, kind: Any, value: Any = None, depth: int = 1, has_return: bool = False,
                 kinds: frozenset = frozenset({0, 1, 2})):
        self.kind = kind
        self.value = value
        self.depth = depth
        self.has_return = has_return
        self.kinds = kinds

    def __repr__(self) -> str:
        return f"StagedJump({self.kind!r}, {self.value!r}, {self.depth})"


def is_jump(value: Any) -> bool:
    """Whether a generated function's result is a jump rather than a plain value."""
    return value is BREAK or isinstance(value, (Return, StagedJump))
