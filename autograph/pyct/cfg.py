"""Control-flow graphs of function bodies.

A graph has one node per simple statement, one node for the header of each compound
statement (the test of an `if` or `while`, the iteration step of a `for`, the items of a
`with`, each `except` clause), and an empty *join* node after each compound statement,
so that "what holds right after this `if`" is simply "what holds at its join node".
`break`, `continue`, `return` and `raise` have the edges Python gives them. Any statement
may raise: inside a `try`, every node (and the node before the first statement) also has an
edge to the handlers and the `finally:` clause that an exception raised there may reach, so
what a handler or a `finally:` reads stays live wherever the exception can come from.
"""

from __future__ import annotations

from typing import Iterable, Optional

import gast


class Node:
    """A CFG node. `ast_node` is the statement it stands for (for header and join nodes,
    the compound statement); `kind` is "stmt", "header", "iter", "join", "entry" or "exit"."""

    __slots__ = ("ast_node", "kind", "next", "prev", "index")

    def __init__(self, ast_node: Optional[gast.AST], kind: str, index: int):
        self.ast_node = ast_node
        self.kind = kind
        self.next: list[Node] = []
        self.prev: list[Node] = []
        self.index = index

    def __repr__(self) -> str:
        name = type(self.ast_node).__name__ if self.ast_node is not None else "-"
        line = getattr(self.ast_node, "lineno", "?")
        return f"<{self.kind} {name}@{line} #{self.index}>"


class Graph:
    """The CFG of one function body."""

    def __init__(self):
        self.nodes: list[Node] = []
        self.entry = self.new(None, "entry")
        self.exit = self.new(None, "exit")
        self.headers: dict[int, Node] = {}     # id(compound stmt) -> header node
        self.joins: dict[int, Node] = {}       # id(compound stmt) -> join node
        self.stmts: dict[int, Node] = {}       # id(simple stmt) -> node
        self.loop_heads: dict[int, Node] = {}  # id(loop) -> node that starts each iteration
        self.spans: dict[int, range] = {}      # id(stmt) -> indices of the nodes it owns

    def exits(self, stmt: gast.AST) -> list[Node]:
        """Nodes outside `stmt` that control reaches directly from inside it (after it, or
        through `break`, `continue`, `return` and `raise`)."""
        span = self.spans[id(stmt)]
        out: list[Node] = []
        for i in span:
            for succ in self.nodes[i].next:
                if succ.index not in span and succ not in out:
                    out.append(succ)
        return out

    def new(self, ast_node, kind: str) -> Node:
        node = Node(ast_node, kind, len(self.nodes))
        self.nodes.append(node)
        return node

    @staticmethod
    def connect(a: Node, b: Node) -> None:
        if b not in a.next:
            a.next.append(b)
            b.prev.append(a)

    def node_of(self, stmt: gast.AST) -> Node:
        """The first node of a statement (its header for compound statements)."""
        return self.headers.get(id(stmt)) or self.stmts[id(stmt)]

    def join_of(self, stmt: gast.AST) -> Node:
        """The node reached right after a compound statement completes."""
        return self.joins[id(stmt)]


class _Loop:
    def __init__(self, head: Node):
        self.head = head
        self.breaks: list[Node] = []


class _Catcher:
    """Where an exception raised inside one part of a `try` goes: its handlers and its
    `finally:` node (`stops`: whether the `finally:` passes it on, so no outer catcher is
    reached directly)."""

    def __init__(self, targets: list[Node], stops: bool):
        self.targets = targets
        self.stops = stops


class _Builder:
    def __init__(self):
        self.graph = Graph()
        self.leaves: list[Node] = [self.graph.entry]
        self.loops: list[_Loop] = []
        self.catchers: list[_Catcher] = []      # innermost last

    # -- helpers --------------------------------------------------------------------------
    def new(self, ast_node, kind: str) -> Node:
        """A node that may raise: connected to the catchers an exception there reaches."""
        node = self.graph.new(ast_node, kind)
        self.may_raise(node)
        return node

    def may_raise(self, node: Node) -> None:
        for catcher in reversed(self.catchers):
            for target in catcher.targets:
                self.graph.connect(node, target)
            if catcher.stops:
                break

    def add(self, ast_node, kind: str) -> Node:
        node = self.new(ast_node, kind)
        for leaf in self.leaves:
            self.graph.connect(leaf, node)
        self.leaves = [node]
        return node

    def join(self, stmt, leaves: Iterable[Node]) -> Node:
        node = self.new(stmt, "join")
        for leaf in leaves:
            self.graph.connect(leaf, node)
        self.graph.joins[id(stmt)] = node
        self.leaves = [node]
        return node

    def block(self, stmts: list[gast.stmt]) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    # -- statements ------------------------------------------------------------------------
    def stmt(self, node: gast.stmt) -> None:
        start = len(self.graph.nodes)
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self.graph.stmts[id(node)] = self.add(node, "stmt")
        self.graph.spans[id(node)] = range(start, len(self.graph.nodes))

    def stmt_Return(self, node) -> None:
        n = self.add(node, "stmt")
        self.graph.stmts[id(node)] = n
        self.graph.connect(n, self.graph.exit)
        self.leaves = []

    def stmt_Raise(self, node) -> None:
        n = self.add(node, "stmt")
        self.graph.stmts[id(node)] = n
        if not self.catchers:
            self.graph.connect(n, self.graph.exit)
        self.leaves = []

    def stmt_Break(self, node) -> None:
        n = self.add(node, "stmt")
        self.graph.stmts[id(node)] = n
        if self.loops:
            self.loops[-1].breaks.append(n)
        self.leaves = []

    def stmt_Continue(self, node) -> None:
        n = self.add(node, "stmt")
        self.graph.stmts[id(node)] = n
        if self.loops:
            self.graph.connect(n, self.loops[-1].head)
        self.leaves = []

    def stmt_If(self, node: gast.If) -> None:
        head = self.add(node, "header")
        self.graph.headers[id(node)] = head
        self.block(node.body)
        after_body = self.leaves
        self.leaves = [head]
        self.block(node.orelse)
        self.join(node, after_body + self.leaves)

    def _loop(self, node, head: Node) -> None:
        self.graph.loop_heads.setdefault(id(node), head)
        loop = _Loop(head)
        self.loops.append(loop)
        self.leaves = [head]
        self.block(node.body)
        for leaf in self.leaves:
            self.graph.connect(leaf, head)
        self.loops.pop()
        self.leaves = [head]
        self.block(node.orelse)
        after_else = self.leaves
        on_break = getattr(node, "on_break", None)    # see converters.jumps
        if on_break:
            self.leaves = loop.breaks
            self.block(on_break)
            self.join(node, after_else + self.leaves)
        else:
            self.join(node, after_else + loop.breaks)

    def stmt_While(self, node: gast.While) -> None:
        head = self.add(node, "header")
        self.graph.headers[id(node)] = head
        self._loop(node, head)

    def stmt_For(self, node: gast.For) -> None:
        # the iterable is evaluated once, before the loop; the header binds the target
        pre = self.add(node, "iter")
        head = self.add(node, "header")
        self.graph.headers[id(node)] = pre
        self.graph.loop_heads[id(node)] = head
        self._loop(node, head)

    stmt_AsyncFor = stmt_For

    def stmt_With(self, node) -> None:
        head = self.add(node, "header")
        self.graph.headers[id(node)] = head
        self.block(node.body)
        self.join(node, self.leaves)

    stmt_AsyncWith = stmt_With

    def stmt_Try(self, node) -> None:
        head = self.add(node, "header")
        self.graph.headers[id(node)] = head
        handler_nodes = [self.new(h, "header") for h in node.handlers]
        for h, n in zip(node.handlers, handler_nodes):
            self.graph.headers[id(h)] = n
        final = self.new(node, "finally") if node.finalbody else None
        finally_targets = [final] if final else []
        self.catchers.append(_Catcher(handler_nodes + finally_targets, final is not None))
        self.may_raise(head)
        self.block(node.body)
        self.catchers.pop()
        if final:
            self.catchers.append(_Catcher(finally_targets, True))
            for n in handler_nodes:
                self.may_raise(n)
        self.block(node.orelse)
        ends = list(self.leaves)
        for h, n in zip(node.handlers, handler_nodes):
            self.leaves = [n]
            self.block(h.body)
            ends.extend(self.leaves)
        if final:
            self.catchers.pop()
            for end in ends:
                self.graph.connect(end, final)
            self.leaves = [final]
            self.block(node.finalbody)
            ends = self.leaves
        self.join(node, ends)

    stmt_TryStar = stmt_Try

    def stmt_Match(self, node) -> None:
        head = self.add(node, "header")
        self.graph.headers[id(node)] = head
        ends: list[Node] = []
        previous = [head]
        for case in node.cases:
            self.leaves = previous
            case_node = self.add(case, "header")
            self.graph.headers[id(case)] = case_node
            self.block(case.body)
            ends.extend(self.leaves)
            previous = [case_node]
        self.join(node, ends + previous)


def build(body: list[gast.stmt]) -> Graph:
    """The CFG of a function body (a list of statements)."""
    builder = _Builder()
    builder.block(body)
    for leaf in builder.leaves:
        builder.graph.connect(leaf, builder.graph.exit)
    return builder.graph
