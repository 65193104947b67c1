"""The base class of all converters and the context they share."""

from __future__ import annotations

import builtins
from typing import Any, Optional

import gast

from ..records import Record
from . import anno, origin
from .ast_util import FUNCTION_TYPES, LEAF_TYPES, SCOPE_TYPES, children_of
from .naming import Namer
from .parser import SourceInfo


class Context(Record):
    """What converters know about the entity being converted."""

    _fields = ("info", "namer", "options", "namespace", "is_library", "bound_names",
               "identifiers", "extra")

    def __init__(self, info: SourceInfo, namer: Namer, options: Any = None,
                 namespace: Any = None, is_library: Any = None,
                 bound_names: Optional[set] = None, identifiers: Optional[frozenset] = None,
                 extra: Optional[dict] = None) -> None:
        self.info = info
        self.namer = namer
        self.options = options          # core.options.ConversionOptions
        self.namespace = namespace      # pyct.namespaces.Namespace
        self.is_library = is_library    # Resolved -> bool: calls that are never converted
        self.bound_names: set = set() if bound_names is None else bound_names  # names bound
        # anywhere in the entity
        # every identifier the entity mentions (variables, attributes), or None when unknown
        self.identifiers = identifiers
        self.extra: dict = {} if extra is None else extra

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


def _scope_nodes(node: gast.AST):
    """The nodes below `node` in its own scope, depth first: nested functions, lambdas,
    classes and comprehensions are yielded but not entered."""
    scopes = SCOPE_TYPES
    stack = list(children_of(node))
    pop, extend = stack.pop, stack.extend
    while stack:
        current = pop()
        yield current
        if not isinstance(current, scopes):
            extend(children_of(current))


def walk_scope(node: gast.AST, include_root: bool = True):
    """Yields the nodes of `node`'s own scope: nested functions, lambdas, classes and
    comprehensions are yielded but not entered."""
    out = [node] if include_root else []
    out.extend(_scope_nodes(node))
    return out


_YIELDS = (gast.Yield, gast.YieldFrom)


def is_generator(node: gast.AST) -> bool:
    """Whether a function definition is a generator (has `yield` in its own scope)."""
    known = anno.getanno(node, anno.Key.IS_GENERATOR, None)
    if known is not None:
        return known
    found = any(isinstance(current, _YIELDS) for current in _scope_nodes(node))
    anno.setanno(node, anno.Key.IS_GENERATOR, found)  # converters never add a `yield`
    return found


class _Skip:
    def __repr__(self) -> str:
        return "SKIP"


#: returned by an `enter_` method: the node stays as it is, unentered (no handler sees its
#: children, no `leave_` method runs)
SKIP = _Skip()


class Handler:
    """A converter: the class each module of `autograph/converters/` defines, run by
    `run_handlers` (alone, or in one traversal with other converters' handlers).

    Methods named `enter_<NodeType>` run before a node's children are converted and may
    return a replacement (which is then converted in turn), a list of nodes (in a statement
    list), None (to delete the node) or SKIP; methods named `leave_<NodeType>` run after, in
    the order the handlers were given, until one returns a different node.
    `enter_scope`/`leave_scope` bracket each function and lambda. Class bodies are never
    entered (their methods are converted when they are called).
    """

    #: node types (and their subclasses) whose subtrees this handler never needs to see; a
    #: traversal skips them when every one of its handlers does
    skip_types: tuple = ()

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def enter_scope(self, node: gast.AST) -> None:
        pass

    def leave_scope(self, node: gast.AST) -> None:
        pass

    @staticmethod
    def located(new: Any, src: gast.AST) -> Any:
        """`new` with positions copied from `src` where missing."""
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


#: every node class
_NODE_TYPES = tuple(c for c in vars(gast).values() if isinstance(c, type) and issubclass(c, _AST))

_TRAVERSALS: dict = {}


def _traversal(handler_classes: tuple) -> tuple:
    """How a traversal with handlers of these classes goes: (its enter_ and its leave_
    methods, as {node type: [(position of the handler, method name)]}; the node types it
    leaves unentered: classes, and the types every handler skips; the types
    `generic_visit` need not call `visit` on: those, and the leaves no handler looks at)."""
    found = _TRAVERSALS.get(handler_classes)
    if found is None:
        enter: dict = {}
        leave: dict = {}
        for i, cls in enumerate(handler_classes):
            for prefix, tp, attr in _handler_methods(cls):
                (enter if prefix == "enter_" else leave).setdefault(tp, []).append((i, attr))
        not_entered = frozenset([gast.ClassDef] + [
            tp for tp in _NODE_TYPES
            if handler_classes and all(issubclass(tp, cls.skip_types) for cls in handler_classes)])
        unvisited = not_entered | {tp for tp in LEAF_TYPES if tp not in enter and tp not in leave}
        found = _TRAVERSALS[handler_classes] = (enter, leave, not_entered, unvisited)
    return found


class Combined:
    """Runs several converters' handlers in a single traversal of the tree."""

    def __init__(self, ctx: Context, handlers: list):
        self.ctx = ctx
        self.handlers = handlers
        enter, leave, self._not_entered, self._unvisited = _traversal(tuple(map(type, handlers)))
        self.enter: dict[type, list] = {tp: [getattr(handlers[i], attr) for i, attr in methods]
                                        for tp, methods in enter.items()}
        self.leave: dict[type, list] = {tp: [getattr(handlers[i], attr) for i, attr in methods]
                                        for tp, methods in leave.items()}

    def visit(self, node):
        tp = type(node)
        if tp in self._not_entered:
            return node
        for fn in self.enter.get(tp, ()):
            new = fn(node)
            if new is not node:
                if new is None:
                    return None
                if new is SKIP:
                    return node
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
        if tp in LEAF_TYPES and leave is None:
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

    def generic_visit(self, node):
        """Visits the children of `node`, putting what each visit returns in its place."""
        visit = self.visit
        unvisited = self._unvisited
        d = node.__dict__
        for name in node._fields:
            value = d.get(name)
            if type(value) is list:
                if not value:
                    continue
                new = None
                for i, item in enumerate(value):
                    if isinstance(item, _AST) and type(item) not in unvisited:
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
            elif isinstance(value, _AST) and type(value) not in unvisited:
                new_value = visit(value)
                if new_value is not value:
                    setattr(node, name, new_value)
        return node


def run_handlers(node: gast.AST, ctx: Context, *handler_classes) -> gast.AST:
    """Converts `node` with the given Handler classes in one traversal."""
    return Combined(ctx, [cls(ctx) for cls in handler_classes]).visit(node)
