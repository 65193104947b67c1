"""Reading and writing the variables of a converted statement from inside an operator.

Generated functions share the user's variables through closure cells (`nonlocal`), and
through the module dictionary for `global` ones. A staged operator must save these
variables, restore them before tracing each branch, and set them to the staged results
afterwards; `Variables` does that for the names a statement lists, such as
`('x', 'self.count', "d['k']")`, by finding the cells in the generated functions.
"""

from __future__ import annotations

import ast
import functools
from typing import Any, Callable, Optional, Sequence

from ..pyct import loader
from .special_values import Undefined


class _Cell:
    __slots__ = ("cell", "name")

    def __init__(self, cell, name: str):
        self.cell, self.name = cell, name

    def get(self) -> Any:
        try:
            return self.cell.cell_contents
        except ValueError:
            return Undefined(self.name)

    def set(self, value: Any) -> None:
        if isinstance(value, Undefined):
            try:
                del self.cell.cell_contents
            except ValueError:
                pass
        else:
            self.cell.cell_contents = value


class _Global:
    __slots__ = ("namespace", "key", "name")

    def __init__(self, namespace: dict, key: str):
        self.namespace, self.key, self.name = namespace, key, key

    def get(self) -> Any:
        return self.namespace.get(self.key, Undefined(self.key))

    def set(self, value: Any) -> None:
        if isinstance(value, Undefined):
            self.namespace.pop(self.key, None)
        else:
            self.namespace[self.key] = value


class _Part:
    """A variable that is a part of another, `base`: an attribute or an item of it."""

    __slots__ = ()
    _missing: tuple = ()  # the errors that say the part is not there

    def get(self) -> Any:
        obj = self.base.get()
        if isinstance(obj, Undefined):
            return Undefined(self.name)
        try:
            return self._read(obj)
        except self._missing:
            return Undefined(self.name)

    def set(self, value: Any) -> None:
        obj = _defined_base(self.base, value)
        if obj is None:
            return
        if isinstance(value, Undefined):
            self._delete(obj)
        else:
            self._write(obj, value)


class _Attr(_Part):
    __slots__ = ("base", "attr", "name")
    _missing = (AttributeError,)

    def __init__(self, base, attr: str, name: str):
        self.base, self.attr, self.name = base, attr, name

    @staticmethod
    def text(base: str, attr: str) -> str:
        return f"{base}.{attr}"

    def _read(self, obj) -> Any:
        return getattr(obj, self.attr)

    def _write(self, obj, value: Any) -> None:
        setattr(obj, self.attr, value)

    def _delete(self, obj) -> None:
        if hasattr(obj, self.attr):
            delattr(obj, self.attr)


class _Item(_Part):
    __slots__ = ("base", "key", "name")
    _missing = (KeyError, IndexError)

    def __init__(self, base, key, name: str):
        self.base, self.key, self.name = base, key, name

    @staticmethod
    def text(base: str, key: Any) -> str:
        return f"{base}[{key!r}]"

    def _read(self, obj) -> Any:
        return obj[self.key]

    def _write(self, obj, value: Any) -> None:
        obj[self.key] = value

    def _delete(self, obj) -> None:
        try:
            del obj[self.key]
        except self._missing:
            pass


def _defined_base(base, value: Any) -> Any:
    """The object holding a composite variable, or None when there is none and `value` is
    Undefined; with no object to store a value in, the error Python raises."""
    obj = base.get()
    if not isinstance(obj, Undefined):
        return obj
    if isinstance(value, Undefined):
        return None
    if isinstance(base, _Item):
        raise KeyError(base.key)
    if isinstance(base, _Attr):
        raise AttributeError(f"'{base.name}' is not defined")
    raise UnboundLocalError(f"cannot access local variable '{base.name}' where it is not "
                            "associated with a value")


@functools.lru_cache(maxsize=4096)
def _parse(name: str):
    """('x',) or a path: ('x', (_Attr, 'a'), (_Item, 'k'), ...)."""
    if name.isidentifier():
        return (name,)
    node = ast.parse(name, mode="eval").body
    path = []
    while not isinstance(node, ast.Name):
        if isinstance(node, ast.Attribute):
            path.append((_Attr, node.attr))
            node = node.value
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            path.append((_Item, node.slice.value))
            node = node.value
        else:
            raise ValueError(f"not a variable name: {name!r}")
    return (node.id,) + tuple(reversed(path))


def _root_slot(root: str, fns: Sequence[Optional[Callable]]):
    # the cell may sit in a function the given ones call: an `elif` branch is a lambda
    # calling the next `if`'s generated functions, found through the lambda's closure
    seen: set[int] = set()
    level = [fn for fn in fns if getattr(fn, "__code__", None) is not None]
    for _ in range(4):
        following = []
        for fn in level:
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            code = fn.__code__
            if root in code.co_freevars:
                return _Cell(fn.__closure__[code.co_freevars.index(root)], root)
            for cell in fn.__closure__ or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                inner = getattr(value, "__code__", None)
                if inner is not None and loader.is_generated(inner):
                    following.append(value)
        level = following
    for fn in fns:
        if getattr(fn, "__globals__", None) is not None:
            return _Global(fn.__globals__, root)
    raise NameError(f"cannot find variable {root!r} of converted code")


class Variables:
    """The variables named by a converted statement, found through its generated functions."""

    def __init__(self, names: Sequence[str], fns: Sequence[Optional[Callable]]):
        self.names = tuple(names)
        self.slots = []
        for name in self.names:
            parsed = _parse(name)
            slot = _root_slot(parsed[0], fns)
            text = parsed[0]
            for slot_type, key in parsed[1:]:
                text = slot_type.text(text, key)
                slot = slot_type(slot, key, text)
            self.slots.append(slot)

    def global_names(self) -> list[str]:
        """The names that are module globals (declared `global` in the converted code)."""
        return [s.name for s in self.slots if isinstance(s, _Global)]

    def get(self) -> list:
        """Current values, `Undefined` for variables without one."""
        return [s.get() for s in self.slots]

    def set(self, values: Sequence[Any]) -> None:
        """Assigns values (an `Undefined` value unbinds the variable)."""
        for slot, value in zip(self.slots, values):
            slot.set(value)
