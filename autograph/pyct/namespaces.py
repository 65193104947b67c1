"""Resolving names that converted code refers to, without running it.

A live namespace looks names up in a function's globals and the builtins; a static one,
used by the command line tool, knows only what a module's source says about its imports
and top-level definitions. Either answers "which module does `a.b.c` come from?", which is
enough to decide that `np.sum(x)` or `rt.cast(x)` is a library call that needs no conversion.
"""

from __future__ import annotations

import builtins
import types
from typing import Any, Optional

import gast

from ..records import FrozenRecord

_NOT_FOUND = object()


class Resolved(FrozenRecord):
    """What a dotted name refers to: the object when known, and the module it comes from
    (e.g. "numpy", "builtins", "runtime.ops"); `user_function`: a function defined in the
    converted module itself."""

    _fields = ("value", "module", "user_function")
    _defaults = {"value": _NOT_FOUND, "module": None, "user_function": False}
    value: Any
    module: Optional[str]
    user_function: bool

    @property
    def known(self) -> bool:
        return self.value is not _NOT_FOUND


class Namespace:
    """Base class: resolves dotted names such as ["np", "linalg", "inv"]."""

    def resolve(self, parts: list[str]) -> Optional[Resolved]:
        raise NotImplementedError


def module_of(value: Any) -> Optional[str]:
    """The name of the module that defines `value` (for modules, their own name)."""
    if isinstance(value, types.ModuleType):
        return value.__name__
    module = getattr(value, "__module__", None)
    if isinstance(module, str):
        return module
    if isinstance(value, (types.FunctionType, types.MethodType)):
        return None
    self_obj = getattr(value, "__self__", None)
    if isinstance(self_obj, types.ModuleType):
        return self_obj.__name__
    module = getattr(type(value), "__module__", None)
    return module if isinstance(module, str) else None


class LiveNamespace(Namespace):
    """Resolves names in a function's globals, then the builtins."""

    def __init__(self, globals_: dict):
        self.globals = globals_
        self.builtins = globals_.get("__builtins__", builtins)
        if isinstance(self.builtins, types.ModuleType):
            self.builtins = self.builtins.__dict__

    def resolve(self, parts: list[str]) -> Optional[Resolved]:
        value = self.globals.get(parts[0], _NOT_FOUND)
        if value is _NOT_FOUND:
            value = self.builtins.get(parts[0], _NOT_FOUND)
            if value is _NOT_FOUND:
                return None
        for attr in parts[1:]:
            if not isinstance(value, (types.ModuleType, type)):
                return None      # attributes of instances may change; do not guess
            value = getattr(value, attr, _NOT_FOUND)
            if value is _NOT_FOUND:
                return None
        return Resolved(value, module_of(value))


class StaticNamespace(Namespace):
    """Resolves names from a module's import statements and top-level definitions."""

    def __init__(self, module: gast.Module):
        self.imports: dict[str, str] = {}
        self.defined: set[str] = set()
        self.functions: set[str] = set()
        for stmt in module.body:
            if isinstance(stmt, gast.Import):
                for alias in stmt.names:
                    if alias.asname:
                        self.imports[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.imports[top] = top
            elif isinstance(stmt, gast.ImportFrom) and stmt.level == 0 and stmt.module:
                for alias in stmt.names:
                    self.imports[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
            elif isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef)):
                self.functions.add(stmt.name)
                self.defined.add(stmt.name)
            elif isinstance(stmt, gast.ClassDef):
                self.defined.add(stmt.name)
            else:
                for node in gast.walk(stmt):
                    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
                        self.defined.add(node.id)

    def resolve(self, parts: list[str]) -> Optional[Resolved]:
        root = parts[0]
        if root in self.imports:
            return Resolved(module=".".join([self.imports[root]] + parts[1:-1]) if len(parts) > 1
                            else self.imports[root])
        if root in self.functions and len(parts) == 1:
            return Resolved(user_function=True)
        if root in self.defined:
            return None
        value = builtins.__dict__.get(root, _NOT_FOUND)
        if value is not _NOT_FOUND and len(parts) == 1:
            return Resolved(value, "builtins")
        return None
