"""CFG, activity and liveness."""

from __future__ import annotations

import textwrap

import gast

from autograph.pyct import cfg, parser, qual_names
from autograph.pyct.static_analysis import activity, liveness
from autograph.pyct.static_analysis.python_values import is_python_bool


def _fn(source: str) -> gast.FunctionDef:
    return parser.parse(textwrap.dedent(source)).body[0]


def _stmt(fn, lineno):
    for node in gast.walk(fn):
        if isinstance(node, gast.stmt) and getattr(node, "lineno", None) == lineno:
            return node
    raise AssertionError(lineno)


# -- qualified names --------------------------------------------------------------------------

def test_qual_names():
    expr = parser.parse_expression("a.b['k'].c")
    qn = qual_names.from_node(expr)
    assert str(qn) == "a.b['k'].c" and qn.is_composite and str(qn.root) == "a"
    assert [str(q) for q in qn.support()] == ["a", "a.b", "a.b['k']", "a.b['k'].c"]
    assert qual_names.from_str(str(qn)) == qn
    assert qual_names.from_node(parser.parse_expression("a[i]")) is None
    assert qual_names.from_node(parser.parse_expression("f().x")) is None
    assert hash(qual_names.QN("x")) == hash(qual_names.from_str("x"))


# -- activity ---------------------------------------------------------------------------------

def test_activity_reads_and_writes():
    fn = _fn("""
        def f(a, obj, d):
            x = a + 1
            obj.attr = x
            d["k"] += 2
            y, (z, w) = a, (1, 2)
            del w
            return x
        """)
    act = activity.activity(fn.body)
    assert activity.names(act.writes) == {"x", "y", "z", "w"}
    assert {str(q) for q in act.writes if q.is_composite} == {"obj.attr", "d['k']"}
    assert {"a", "obj", "d", "x"} <= act.read_names


def test_activity_nested_scopes():
    fn = _fn("""
        def f(a):
            def g(b):
                c = b + a
                return c
            h = lambda q: q + k
            lst = [i * a for i in range(3)]
            if (n := len(lst)) > 1:
                pass
            return g
        """)
    act = activity.activity(fn.body)
    assert activity.names(act.writes) == {"g", "h", "lst", "n"}
    assert "c" not in act.written_names and "i" not in act.written_names
    assert {"a", "k"} <= act.read_names
    assert {"a", "k"} <= act.captured       # read by closures
    scope = activity.scope_activity(fn)
    assert scope.locals >= {"a", "g", "h", "lst", "n"}


def test_activity_nonlocal_global_and_dynamic():
    fn = _fn("""
        def f():
            global G
            x = 1
            def inner():
                nonlocal x
                x = 2
            G = locals()
        """)
    scope = activity.scope_activity(fn)
    assert scope.globals == {"G"} and "G" not in scope.locals
    assert scope.dynamic
    inner = fn.body[2]
    assert activity.scope_activity(inner).nonlocals == {"x"}
    assert "x" in activity.activity(inner).written_names   # a def writes what it declares nonlocal


# -- CFG ----------------------------------------------------------------------------------------

def test_cfg_if_and_loops():
    fn = _fn("""
        def f(n):
            i = 0
            while i < n:
                if i == 3:
                    break
                i += 1
            else:
                i = -1
            return i
        """)
    graph = cfg.build(fn.body)
    loop = fn.body[1]
    head = graph.node_of(loop)
    brk = _stmt(fn, 6)
    join = graph.join_of(loop)
    assert join in [n for n in graph.nodes[graph.stmts[id(brk)].index].next]
    orelse = graph.stmts[id(loop.orelse[0])]
    assert head in orelse.prev
    exits = graph.exits(loop)
    assert [n.ast_node for n in exits] == [fn.body[2]]


def test_cfg_return_and_try():
    fn = _fn("""
        def f(x):
            try:
                y = 1 / x
            except ZeroDivisionError as e:
                return None
            finally:
                z = 2
            return y
        """)
    graph = cfg.build(fn.body)
    ret = graph.stmts[id(fn.body[0].handlers[0].body[0])]
    assert graph.exit in ret.next
    handler = graph.headers[id(fn.body[0].handlers[0])]
    assert graph.stmts[id(fn.body[0].body[0])] in handler.prev


# -- liveness -------------------------------------------------------------------------------------

def test_liveness_across_ifs_and_loops():
    fn = _fn("""
        def f(x):
            a = 1
            b = 2
            if x > 0:
                a = 3
                t = a * 2
                b = t
            s = 0
            for i in range(x):
                s += i
                tmp = s
            return a + s
        """)
    graph = cfg.build(fn.body)
    live = liveness.analyze(graph)
    if_stmt, loop = fn.body[2], fn.body[4]
    assert "a" in live.live_out(if_stmt) and "b" not in live.live_out(if_stmt)
    assert "t" not in live.live_out(if_stmt)
    assert "x" in live.live_in(if_stmt)
    assert "s" in live.live_in(loop) and "tmp" not in live.live_out(loop)
    assert "s" in live.live_at_loop_head(loop)


def test_liveness_through_break_exits():
    fn = _fn("""
        def f(xs, t):
            for x in xs:
                if x == t:
                    found = x
                    break
            else:
                found = None
            return found
        """)
    graph = cfg.build(fn.body)
    live = liveness.analyze(graph)
    inner_if = fn.body[0].body[0]
    assert "found" not in live.live_out(inner_if)
    assert "found" in live.live_at_exits(inner_if)


def test_liveness_of_what_a_finally_reads_when_an_exception_leaves_the_body():
    fn = _fn("""
        def f(x, y):
            try:
                if x > 0:
                    y = 2
                try:
                    assert x > 1
                    y = 3
                finally:
                    x = 0
            finally:
                print(y)
            return x
        """)
    live = liveness.analyze(cfg.build(fn.body))
    outer = fn.body[0]
    inner_if, inner_try = outer.body
    assert "y" in live.live_out(inner_if)      # the assert may raise before `y = 3`
    assert "y" in live.live_out(inner_try.finalbody[0])
    assert live.live_in(inner_try) >= {"x", "y"}


def test_a_try_statement_has_a_first_node():
    fn = _fn("""
        def f(x):
            while x:
                x -= 1
            else:
                try:
                    x = 1
                except ValueError:
                    x += 2
            return x
        """)
    graph = cfg.build(fn.body)
    try_stmt = fn.body[0].orelse[0]
    assert graph.node_of(try_stmt).index == graph.spans[id(try_stmt)][0]
    assert "x" in liveness.analyze(graph).live_in(try_stmt)


def test_liveness_escaping_names_are_live_at_exit():
    fn = _fn("""
        def f():
            g = 1
        """)
    live = liveness.analyze(cfg.build(fn.body), live_at_exit={"g"})
    assert "g" in live.live_out(fn.body[0])


def test_python_bool_expressions():
    def parse(text):
        return parser.parse_expression(text)

    def builtin(name):
        return True

    assert is_python_bool(parse("x is None"), builtin)
    assert is_python_bool(parse("not isinstance(x, int) and y is not None"), builtin)
    assert not is_python_bool(parse("x > 0"), builtin)
    assert not is_python_bool(parse("isinstance(x, int)"), lambda n: False)
