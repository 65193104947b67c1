"""Which variables each `if` and loop shares with the code around it.

For every `if`, `while` and `for` that will become generated functions, the annotation
`names` lists (in source order) the variables the statement assigns that are live when it
starts or after it ends — the ones its generated functions must declare `nonlocal` (or
`global`) and that a staged version carries as branch outputs or loop variables. An `if`
lists apart, as `temps`, the variables it reads and assigns that nobody reads after it (as
when its branches return): they are shared but are not branch outputs. Temporary
variables used only inside the statement stay local to the generated functions. Writes to
composite names (`self.count`, `d["k"]`) are always shared unless their root is itself
assigned inside the statement.
"""

from __future__ import annotations

from typing import Iterator

import gast

from ..pyct import anno, cfg, qual_names, transformer
from ..pyct.ast_util import FUNCTION_TYPES, NO_STATEMENT_TYPES, SCOPE_TYPES
from ..pyct.static_analysis import activity as activity_lib
from ..pyct.static_analysis import liveness
from ..pyct.transformer import Context, is_generator, iter_nodes


def _statements(stmts: list) -> Iterator[gast.stmt]:
    """All statements of a function's own scope, including `on_break` blocks."""
    for s in stmts:
        yield s
        if isinstance(s, SCOPE_TYPES):    # a def or class: its statements are its own
            continue
        for f in ("body", "orelse", "finalbody"):
            value = getattr(s, f, None)
            if isinstance(value, list):
                yield from _statements(value)
        for h in getattr(s, "handlers", None) or []:
            yield from _statements(h.body)
        for case in getattr(s, "cases", None) or []:
            yield from _statements(case.body)
        yield from _statements(getattr(s, "on_break", None) or [])


def _write_order(fn: gast.AST) -> dict[str, int]:
    """First-write position of each name written in a function (source order)."""
    order: dict[str, int] = {}
    for node in iter_nodes(fn):
        tp = type(node)
        if tp is gast.Name:
            if type(node.ctx) is not gast.Load:
                order.setdefault(node.id, len(order))
        elif tp is gast.Attribute or tp is gast.Subscript:
            if type(node.ctx) is not gast.Load:
                qn = qual_names.from_node(node)
                if qn is not None:
                    order.setdefault(str(qn), len(order))
        elif tp is gast.FunctionDef or tp is gast.ClassDef:
            order.setdefault(node.name, len(order))
        elif tp is gast.Nonlocal or tp is gast.Global:
            for name in node.names:
                order.setdefault(name, len(order))
        elif tp is gast.Import or tp is gast.ImportFrom:
            for alias in node.names:
                order.setdefault(alias.asname or alias.name.split(".")[0], len(order))
    return order


def statement_parts(node: gast.stmt) -> list:
    """The parts of a compound statement whose writes belong to it."""
    if isinstance(node, gast.If):
        return [node.test, node.body, node.orelse]
    if isinstance(node, gast.While):
        return [node.test, node.body, node.orelse, getattr(node, "on_break", None) or []]
    return [node.target, node.iter, node.body, node.orelse, getattr(node, "on_break", None) or []]


def _live_on_entry(live: liveness.Liveness, graph: cfg.Graph, s: gast.stmt) -> frozenset:
    """What the generated functions of `s` may read from before they assign it. An `if`'s
    test and a `for`'s iterable run outside them, once: what only those read is not shared
    (a branch may assign it as its own temporary)."""
    if isinstance(s, gast.If):
        return live.outs.get(graph.node_of(s).index, frozenset())
    if isinstance(s, gast.For):
        return live.live_at_loop_head(s)
    return live.live_in(s)


def _annotate_function(fn: gast.AST, cache: dict) -> None:
    """Annotates the statements of `fn` and of the functions nested in it."""
    scope = activity_lib.scope_activity(fn)
    escaping = set(scope.globals) | set(scope.nonlocals) | set(scope.captured)
    if scope.dynamic:
        escaping |= scope.locals
    graph = cfg.build(fn.body)
    live = liveness.analyze(graph, live_at_exit=escaping, activity_cache=cache)
    order = _write_order(fn)
    nested = []
    for s in _statements(fn.body):
        if isinstance(s, FUNCTION_TYPES):    # statements: no lambda among them
            nested.append(s)
            continue
        if not isinstance(s, (gast.If, gast.While, gast.For)):
            continue
        parts = statement_parts(s)
        act = activity_lib.cached_activity(cache, *parts)
        plain_writes = activity_lib.names(act.writes)
        after = live.live_at_exits(s) | escaping
        shared = _live_on_entry(live, graph, s) | after
        if isinstance(s, gast.While):
            # the test becomes its own function: what it assigns, the body may read
            shared |= activity_lib.activity(s.test).written_names
        on_break = getattr(s, "on_break", None)
        if on_break:
            # reached from the body's `break`s, not from the loop head: what it reads from
            # the body crosses generated functions
            shared |= live.live_in(on_break[0])
        names, temps = [], []
        for qn in sorted(act.writes, key=lambda q: (order.get(str(q), len(order)), str(q))):
            if qn.is_composite:
                if str(qn.root) not in plain_writes:
                    names.append(str(qn))
            elif isinstance(s, gast.If) and str(qn) not in after and str(qn) in shared:
                temps.append(str(qn))
            elif str(qn) in shared:
                names.append(str(qn))
        anno.setanno(s, anno.Key.NAMES, names)
        anno.setanno(s, anno.Key.TEMPS, temps)
        anno.setanno(s, anno.Key.GLOBAL_NAMES, frozenset(scope.globals))
    for f in nested:
        if not is_generator(f):     # not converted (see control_flow), nor what it holds
            _annotate_function(f, cache)


#: ctx.extra key: the activity of each statement, which the control-flow converter reuses
ACTIVITY_CACHE = "statement_activity"


class Handler(transformer.Handler):
    """Annotates the `if`, `while` and `for` statements of each function (see module doc).
    The analysis needs a whole function (its control-flow graph, its liveness), so the
    handler works a function at a time and walks the functions nested in one itself."""

    skip_types = NO_STATEMENT_TYPES    # a lambda (converted itself) holds no statements

    def enter_FunctionDef(self, node):
        cache: dict = {}     # activity of each statement; nothing changes the tree meanwhile
        _annotate_function(node, cache)
        self.ctx.extra[ACTIVITY_CACHE] = cache
        return transformer.SKIP     # done, with the functions nested in it

    enter_AsyncFunctionDef = enter_FunctionDef


def transform(node, ctx: Context):
    """Annotates the statements of `node` (a function) and of the functions nested in it."""
    return transformer.run_handlers(node, ctx, Handler)
