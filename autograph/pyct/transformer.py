"""The base class of all converters and the context they share."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any, Optional

import gast

from . import anno, origin
from .ast_util import FUNCTION_TYPES, LEAF_TYPES, SCOPE_TYPES, children_of
from .naming import Namer
from .parser import SourceInfo


@dataclass
class Context:
    """What converters know about the entity being converted."""

    info: SourceInfo
    namer: Namer
    options: Any = None              # core.options.ConversionOptions
    namespace: Any = None            # pyct.namespaces.Namespace
    is_library: Any = None           # Resolved -> bool: calls that are never converted
    bound_names: set = field(default_factory=set)   # names bound anywhere in the entity
    # every identifier the entity mentions (variables, attributes), or None when unknown
    identifiers: Optional[frozenset] = None
    extra: dict = field(default_factory=dict)

    def resolve(self, parts: list) -> Any:
        """What a dotted name refers to, unless the converted code binds its root itself."""
        if not parts or parts[0] in self.bound_names or self.namespace is None:
            return None
        return self.namespace.resolve(list(parts))

    def is_builtin(self, name: str) -> bool:
        """Whether `name` refers to the builtin of that name."""
        resolved = self.resolve([name])
        if resolved is None:
            return self.namespace is None and name not in self.bound_names and hasattr(builtins, name)
        return resolved.known and resolved.value is getattr(builtins, name, None)

    def uses(self, feature: Any) -> bool:
        """Whether an optional conversion feature is on."""
        return self.options is not None and self.options.uses(feature)


_AST = gast.AST


def _has_ast_children(cls: type) -> bool:
    """Whether nodes of this type can contain other nodes worth visiting (not just a
    context like Load, an operator, or plain values)."""
    return cls not in _LEAVES


_LEAVES = LEAF_TYPES


def _identity(self, node):
    return node


class Transformer:
    """A fast NodeTransformer: `visit_<Type>` methods, found once per node type; a visit may
    return a node, a list of nodes (in statement lists) or None (to delete)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        cls = type(self)
        cache = cls.__dict__.get("_dispatch")
        if cache is None:
            cache = {}
            cls._dispatch = cache
        self._methods = cache

    @classmethod
    def transform(cls, node: gast.AST, ctx: Context) -> gast.AST:
        """Runs this converter over `node` and returns the result."""
        return cls(ctx).visit(node)

    # node types (besides leaves) this transformer leaves alone without entering them
    skip_types: tuple = ()

    def _method(self, tp: type):
        method = getattr(type(self), "visit_" + tp.__name__, None)
        if method is None:
            if not _has_ast_children(tp) or (self.skip_types and issubclass(tp, self.skip_types)):
                method = _identity
            else:
                method = type(self).generic_visit
        self._methods[tp] = method
        return method

    def visit(self, node):
        tp = type(node)
        method = self._methods.get(tp)
        if method is None:
            method = self._method(tp)
        return method(self, node)

    def generic_visit(self, node):
        visit = self.visit
        methods = self._methods
        d = node.__dict__
        for name in node._fields:
            value = d.get(name)
            if type(value) is list:
                if not value:
                    continue
                new = None
                for i, item in enumerate(value):
                    if isinstance(item, _AST) and methods.get(type(item)) is not _identity:
                        result = visit(item)
                    else:
                        result = item
                    if new is None:
                        if result is item:
                            continue
                        new = value[:i]
                    if result is None:
                        continue
                    if type(result) is list:
                        new.extend(result)
                    else:
                        new.append(result)
                if new is not None:
                    setattr(node, name, new)
            elif isinstance(value, _AST):
                new_value = visit(value)
                if new_value is not value:
                    setattr(node, name, new_value)
        return node

    def visit_ClassDef(self, node):
        """Class bodies are not converted (their methods are, when called)."""
        return node

    @staticmethod
    def located(new: Any, src: gast.AST) -> Any:
        """`new` with positions copied from `src` where missing."""
        return origin.copy_location(new, src)


def iter_nodes(node: gast.AST):
    """All nodes under `node` (itself included), depth first, in field order."""
    stack = [node]
    pop, extend = stack.pop, stack.extend
    while stack:
        current = pop()
        yield current
        children = children_of(current)
        children.reverse()
        extend(children)


def walk_scope(node: gast.AST, include_root: bool = True):
    """Yields the nodes of `node`'s own scope: nested functions, lambdas, classes and
    comprehensions are yielded but not entered."""
    scopes = SCOPE_TYPES
    out = [node] if include_root else []
    append = out.append
    stack = [node]
    pop, extend = stack.pop, stack.extend
    first = True
    while stack:
        current = pop()
        if first:
            first = False
        else:
            append(current)
            if isinstance(current, scopes):
                continue
        extend(children_of(current))
    return out


_YIELDS = (gast.Yield, gast.YieldFrom)


def is_generator(node: gast.AST) -> bool:
    """Whether a function definition is a generator (has `yield` in its own scope)."""
    known = anno.getanno(node, anno.Key.IS_GENERATOR, None)
    if known is not None:
        return known
    scopes = SCOPE_TYPES
    stack = [node]
    pop, extend = stack.pop, stack.extend
    first = True
    while stack:
        current = pop()
        if first:
            first = False
        elif isinstance(current, scopes):
            continue
        elif isinstance(current, _YIELDS):
            anno.setanno(node, anno.Key.IS_GENERATOR, True)
            return True
        extend(children_of(current))
    anno.setanno(node, anno.Key.IS_GENERATOR, False)   # converters never add a `yield`
    return False


class Handler:
    """One converter's part of a `Combined` traversal.

    Methods named `enter_<NodeType>` run before a node's children are converted and may
    return a replacement (which is then converted in turn); methods named
    `leave_<NodeType>` run after, in the order the handlers were given, until one
    returns a different node. `enter_scope`/`leave_scope` bracket each function and lambda.
    """

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def enter_scope(self, node: gast.AST) -> None:
        pass

    def leave_scope(self, node: gast.AST) -> None:
        pass

    @staticmethod
    def located(new: Any, src: gast.AST) -> Any:
        return origin.copy_location(new, src)


_HANDLER_METHODS: dict = {}


def _handler_methods(cls: type) -> list:
    """(prefix, node type, method name) of each enter_/leave_ method of a Handler class."""
    found = _HANDLER_METHODS.get(cls)
    if found is None:
        found = []
        seen = set()
        for klass in cls.__mro__:
            if klass is Handler:    # it and `object` define no enter_/leave_ method of a node
                break
            for attr in vars(klass):
                if attr in seen or attr in ("enter_scope", "leave_scope"):
                    continue
                seen.add(attr)
                prefix = attr[:6]
                if prefix == "enter_" or prefix == "leave_":
                    found.append((prefix, getattr(gast, attr[6:]), attr))
        _HANDLER_METHODS[cls] = found
    return found


class Combined(Transformer):
    """Runs several converters' handlers in a single traversal of the tree."""

    def __init__(self, ctx: Context, handlers: list):
        super().__init__(ctx)
        self.handlers = handlers
        self.enter: dict[type, list] = {}
        self.leave: dict[type, list] = {}
        for h in handlers:
            for prefix, tp, attr in _handler_methods(type(h)):
                table = self.enter if prefix == "enter_" else self.leave
                table.setdefault(tp, []).append(getattr(h, attr))
        # leaves no handler looks at: `generic_visit` need not call `visit` on them
        self._methods = {tp: _identity for tp in _LEAVES
                         if tp not in self.enter and tp not in self.leave}

    def visit(self, node):
        tp = type(node)
        if tp is gast.ClassDef:
            return node
        for fn in self.enter.get(tp, ()):
            new = fn(node)
            if new is not node:
                if new is None:
                    return None
                if type(new) is list:
                    out = []
                    for n in new:
                        r = self.visit(n)
                        if type(r) is list:
                            out.extend(r)
                        elif r is not None:
                            out.append(r)
                    return out
                return self.visit(new)
        leave = self.leave.get(tp)
        if tp in _LEAVES and leave is None:
            return node
        scope = tp in FUNCTION_TYPES   # classes are not entered; comprehensions have no handler state
        if scope:
            for h in self.handlers:
                h.enter_scope(node)
        self.generic_visit(node)
        if scope:
            for h in self.handlers:
                h.leave_scope(node)
        if leave:
            for fn in leave:
                new = fn(node)
                if new is not node:
                    return new
        return node


def run_handlers(node: gast.AST, ctx: Context, *handler_classes) -> gast.AST:
    """Converts `node` with the given Handler classes in one traversal."""
    return Combined(ctx, [cls(ctx) for cls in handler_classes]).visit(node)
