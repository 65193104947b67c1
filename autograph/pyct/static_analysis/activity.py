"""Activity analysis: which names a piece of code reads and which it writes.

Writes include composite names (`obj.attr = v` writes `obj.attr`, `d["k"] = v` writes
`d['k']`). Nested functions, lambdas, classes and comprehensions are separate scopes: what
they define stays inside, but the free variables they read count as reads where they are
defined, and names they declare `nonlocal` count as writes there.
"""

from __future__ import annotations

from typing import Iterable, Optional

import gast

from ...records import Record
from .. import anno, qual_names
from ..ast_util import COMPREHENSION_TYPES, FUNCTION_TYPES, LEAF_TYPES, children_of
from ..qual_names import QN
from ..transformer import iter_nodes

_DYNAMIC = frozenset({"locals", "vars", "eval", "exec"})


_LEAVES = LEAF_TYPES   # Global and Nonlocal have visit methods of their own

_AST = gast.AST
_LOAD = gast.Load

_QNS: dict = {}


def _qn(name: str) -> QN:
    qn = _QNS.get(name)
    if qn is None:
        qn = _QNS[name] = QN(name)
    return qn


class Activity(Record):
    """The names a node reads and writes."""

    _fields = ("reads", "writes", "captured", "dynamic", "named_exprs")

    def __init__(self, reads: Optional[set[QN]] = None, writes: Optional[set[QN]] = None,
                 captured: Optional[set[str]] = None, dynamic: bool = False,
                 named_exprs: bool = False) -> None:
        self.reads: set[QN] = set() if reads is None else reads
        self.writes: set[QN] = set() if writes is None else writes
        self.captured: set[str] = set() if captured is None else captured  # names that
        # closures defined here use
        self.dynamic = dynamic          # calls locals()/eval(): anything may be read
        self.named_exprs = named_exprs  # holds a walrus (nested scopes too)

    def update(self, other: "Activity") -> None:
        self.reads |= other.reads
        self.writes |= other.writes
        self.captured |= other.captured
        self.dynamic = self.dynamic or other.dynamic
        self.named_exprs = self.named_exprs or other.named_exprs

    @property
    def written_names(self) -> set[str]:
        """Plain variable names written (no composites)."""
        return {str(q) for q in self.writes if not q.is_composite}

    @property
    def read_names(self) -> set[str]:
        return {str(q) for q in self.reads if not q.is_composite}


class _Visitor:
    """Collects activity of one scope, entering nested scopes only for their free variables."""

    _dispatch: dict = {}

    def __init__(self):
        self.result = Activity()
        self.reads = self.result.reads
        self.writes = self.result.writes
        self.nonlocals: set[str] = set()
        self.globals: set[str] = set()

    # -- dispatch ---------------------------------------------------------------------------
    def visit(self, node) -> None:
        tp = type(node)
        if tp is list:
            for n in node:
                self.visit(n)
            return
        method = self._dispatch.get(tp)
        if method is None:
            method = self._method(tp)
        method(self, node)

    def _method(self, tp):
        return _Visitor._base_method(self, tp)

    def _base_method(self, tp):
        if not (isinstance(tp, type) and issubclass(tp, gast.AST)):
            method = _Visitor._skip     # None and plain values
        else:
            method = getattr(_Visitor, "visit_" + tp.__name__, None)
            if method is None:
                method = _Visitor.generic_visit if tp not in _LEAVES else _Visitor._skip
        self._dispatch[tp] = method
        return method

    def _skip(self, node) -> None:
        pass

    def generic_visit(self, node) -> None:
        dispatch = self._dispatch
        for child in children_of(node):
            tp = type(child)
            method = dispatch.get(tp)
            if method is None:
                method = self._method(tp)
            method(self, child)

    # -- names ------------------------------------------------------------------------------
    def visit_Name(self, node: gast.Name) -> None:
        d = node.__dict__
        name = d["id"]
        qn = _QNS.get(name)
        if qn is None:
            qn = _qn(name)
        if type(d["ctx"]) is _LOAD:
            self.reads.add(qn)
        else:
            self.writes.add(qn)
        if d.get("annotation") is not None:
            self.visit(d["annotation"])

    def _composite_target(self, node) -> None:
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            qn = qual_names.from_node(node)
            if qn is not None:
                self.result.writes.add(qn)
            self.visit(node.value)
            if isinstance(node, gast.Subscript):
                self.visit(node.slice)
        else:
            self.generic_visit(node)

    visit_Attribute = _composite_target
    visit_Subscript = _composite_target

    def visit_AugAssign(self, node: gast.AugAssign) -> None:
        target = node.target
        if isinstance(target, gast.Name):
            self.result.reads.add(QN(target.id))
        elif isinstance(target, (gast.Attribute, gast.Subscript)):
            qn = qual_names.from_node(target)
            if qn is not None:
                self.result.reads.add(qn)
        self.visit(target)
        self.visit(node.value)

    def visit_Call(self, node: gast.Call) -> None:
        if isinstance(node.func, gast.Name) and node.func.id in _DYNAMIC:
            self.result.dynamic = True
        self.generic_visit(node)

    def visit_Global(self, node) -> None:
        self.globals.update(node.names)

    def visit_Nonlocal(self, node) -> None:
        self.nonlocals.update(node.names)

    def visit_Import(self, node) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            if bound != "*":
                self.result.writes.add(QN(bound))

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: gast.ExceptHandler) -> None:
        self.visit(node.type)
        self.visit(node.name)
        self.visit(node.body)

    def visit_MatchAs(self, node) -> None:
        if node.name:
            self.result.writes.add(QN(node.name))
        self.visit(node.pattern)

    def visit_MatchStar(self, node) -> None:
        if node.name:
            self.result.writes.add(QN(node.name))

    def visit_MatchMapping(self, node) -> None:
        if node.rest:
            self.result.writes.add(QN(node.rest))
        self.generic_visit(node)

    # -- nested scopes ----------------------------------------------------------------------
    def _nested(self, node, body, args: Optional[gast.arguments]) -> None:
        inner = _cached_scope_activity(node)
        free = {q for q in inner.reads if str(q.root) not in inner.locals}
        self.result.reads |= {q.root for q in free}
        if not anno.getanno(node, anno.Key.IMMEDIATE, False) and not isinstance(
                node, COMPREHENSION_TYPES):
            self.result.captured |= {str(q.root) for q in free}
        self.result.writes |= {QN(n) for n in inner.nonlocals}
        self.result.captured |= inner.nonlocals
        self.result.dynamic = self.result.dynamic or inner.dynamic
        self.result.named_exprs = self.result.named_exprs or inner.named_exprs

    def visit_FunctionDef(self, node: gast.FunctionDef) -> None:
        self.result.writes.add(QN(node.name))
        self.visit(node.decorator_list)
        self._arguments_outer(node.args)
        self.visit(node.returns)
        self._nested(node, node.body, node.args)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: gast.Lambda) -> None:
        self._arguments_outer(node.args)
        self._nested(node, node.body, node.args)

    def _arguments_outer(self, args: gast.arguments) -> None:
        self.visit(args.defaults)
        self.visit([d for d in args.kw_defaults if d is not None])
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None:
                self.visit(a.annotation)

    def visit_ClassDef(self, node: gast.ClassDef) -> None:
        self.result.writes.add(QN(node.name))
        self.visit(node.decorator_list)
        self.visit(node.bases)
        self.visit(node.keywords)
        self._nested(node, node.body, None)

    def visit_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.result.named_exprs = True
        self.generic_visit(node)

    def _comprehension(self, node) -> None:
        # the first iterable is evaluated in the enclosing scope
        self.visit(node.generators[0].iter)
        self._nested(node, None, None)
        if self.result.named_exprs:
            for n in iter_nodes(node):
                if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name):
                    self.result.writes.add(QN(n.target.id))

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension


class ScopeActivity(Activity):
    """Activity inside a function/lambda/class/comprehension scope."""

    _fields = Activity._fields + ("locals", "nonlocals", "globals")

    def __init__(self, reads: Optional[set[QN]] = None, writes: Optional[set[QN]] = None,
                 captured: Optional[set[str]] = None, dynamic: bool = False,
                 named_exprs: bool = False, locals: Optional[set[str]] = None,  # noqa: A002
                 nonlocals: Optional[set[str]] = None,
                 globals: Optional[set[str]] = None) -> None:  # noqa: A002
        super().__init__(reads, writes, captured, dynamic, named_exprs)
        self.locals: set[str] = set() if locals is None else locals
        self.nonlocals: set[str] = set() if nonlocals is None else nonlocals
        self.globals: set[str] = set() if globals is None else globals


def _cached_scope_activity(node: gast.AST) -> "ScopeActivity":
    """`scope_activity`, remembered on generated functions (which do not change once made)."""
    if not anno.getanno(node, anno.Key.GENERATED, False):
        return scope_activity(node)
    cached = anno.getanno(node, anno.Key.SCOPE_ACTIVITY, None)
    if cached is None:
        cached = scope_activity(node)
        anno.setanno(node, anno.Key.SCOPE_ACTIVITY, cached)
    return cached


def scope_activity(node: gast.AST) -> ScopeActivity:
    """Reads and writes inside the scope opened by `node` (a def, lambda, class or
    comprehension), plus its local, nonlocal and global declarations."""
    v = _Visitor()
    if isinstance(node, FUNCTION_TYPES):
        args = node.args
        for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
            if a is not None:
                v.result.writes.add(QN(a.id))
        v.visit(node.body)
    elif isinstance(node, gast.ClassDef):
        v.visit(node.body)
    else:   # comprehension
        for i, gen in enumerate(node.generators):
            v.visit(gen.target)
            if i:
                v.visit(gen.iter)
            v.visit(gen.ifs)
        for f in ("elt", "key", "value"):
            v.visit(getattr(node, f, None))
    result = ScopeActivity(v.result.reads, v.result.writes, v.result.captured, v.result.dynamic,
                           v.result.named_exprs)
    result.nonlocals = v.nonlocals
    result.globals = v.globals
    result.locals = {str(q) for q in result.writes if not q.is_composite} - result.nonlocals - result.globals
    if result.named_exprs and isinstance(node, COMPREHENSION_TYPES):
        # walrus targets in comprehensions bind in the enclosing scope
        result.locals -= {n.target.id for n in iter_nodes(node)
                          if isinstance(n, gast.NamedExpr) and isinstance(n.target, gast.Name)}
    return result


class _CachingVisitor(_Visitor):
    """A `_Visitor` that remembers the activity of each statement in `cache` (by id, with the
    statement itself, so a new node under a dead one's id is not mistaken for it), for
    analyses that ask about the same statements several times. Only for `activity`: the
    `global`/`nonlocal` declarations of cached statements are not collected."""

    _dispatch: dict = {}

    def __init__(self, cache: dict):
        super().__init__()
        self.cache = cache

    @staticmethod
    def _caches(tp: type) -> bool:
        return issubclass(tp, gast.stmt)

    def _method(self, tp):
        base = _Visitor._base_method(self, tp)
        if base is _Visitor._skip or not self._caches(tp):
            return base
        visitor = type(self)

        def cached(self, node, base=base):
            key = id(node)
            entry = self.cache.get(key)
            if entry is None or entry[0] is not node:
                v = visitor(self.cache)
                base(v, node)
                entry = self.cache[key] = (node, v.result)
            self.result.update(entry[1])

        self._dispatch[tp] = cached
        return cached


# statements that hold no other statements: rewriting the compound statements around them
# leaves them (and so their activity) as they are
_SIMPLE_STATEMENTS = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return,
                      gast.Raise, gast.Assert, gast.Delete, gast.Pass, gast.Import,
                      gast.ImportFrom, gast.Global, gast.Nonlocal)


class _SimpleCachingVisitor(_CachingVisitor):
    """A `_CachingVisitor` that reuses and fills the cache for simple statements only."""

    _dispatch: dict = {}

    @staticmethod
    def _caches(tp: type) -> bool:
        return issubclass(tp, _SIMPLE_STATEMENTS)


def _collect(v: _Visitor, node, more: tuple) -> Activity:
    v.visit(node)
    for m in more:
        v.visit(m)
    return v.result


def cached_activity(cache: dict, node, *more) -> Activity:
    """`activity`, reusing (and filling) `cache`, which maps the ids of statements to their
    activity; the statements must not change while `cache` is in use."""
    return _collect(_CachingVisitor(cache), node, more)


def simple_cached_activity(cache: dict, node, *more) -> Activity:
    """`activity`, reusing `cache` (see `cached_activity`) for simple statements only: for
    trees whose compound statements were rewritten since the cache was filled."""
    return _collect(_SimpleCachingVisitor(cache), node, more)


def activity(node, *more) -> Activity:
    """Reads and writes of a node, a list of nodes, or several of them."""
    return _collect(_Visitor(), node, more)


def header_activity(node: gast.AST) -> Activity:
    """Activity of the part of a compound statement that runs before its body: the test of
    an `if`/`while`, the iterable and target of a `for`, the items of a `with`, ..."""
    if isinstance(node, (gast.If, gast.While)):
        return activity(node.test)
    if isinstance(node, (gast.For, gast.AsyncFor)):
        return activity(node.iter, node.target)
    if isinstance(node, (gast.With, gast.AsyncWith)):
        return activity(node.items)
    if isinstance(node, gast.ExceptHandler):
        return activity(node.type, node.name)
    if isinstance(node, (gast.Try, getattr(gast, "TryStar", gast.Try))):
        return Activity()
    if isinstance(node, gast.Match):
        return activity(node.subject)
    if isinstance(node, gast.match_case):
        return activity(node.pattern, node.guard)
    return activity(node)


def names(qns: Iterable[QN]) -> set[str]:
    """The plain names among `qns`."""
    return {str(q) for q in qns if not q.is_composite}
