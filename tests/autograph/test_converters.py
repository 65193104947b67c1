"""Each converter on its own: what it turns a small function into."""

from __future__ import annotations

import textwrap

import pytest

from autograph.converters import (
    asserts,
    call_trees,
    conditional_expressions,
    control_flow,
    directives,
    functions,
    jumps,
    lists,
    logical_expressions,
    statement_variables,
    variables,
)
from autograph.core.options import ConversionOptions, Feature
from autograph.impl import conversion, rules
from autograph.pyct import parser
from autograph.pyct.namespaces import LiveNamespace
from autograph.pyct.parser import SourceInfo


def convert(source: str, *passes, options=None, globals_=None) -> str:
    node = parser.parse(textwrap.dedent(source)).body[0]
    ctx = conversion.make_context(node, SourceInfo("<test>", 1, source),
                                  options or ConversionOptions(), LiveNamespace(globals_ or {}))
    for p in passes:
        node = p.transform(node, ctx)
    return parser.unparse(node).strip()


def body(text: str) -> str:
    """The function body of converted code, dedented."""
    lines = text.splitlines()[1:]
    return textwrap.dedent("\n".join(lines)).strip()


CONTROL = (jumps, logical_expressions, statement_variables, control_flow, variables)


# -- functions ------------------------------------------------------------------------------------

def test_functions_drop_decorators_and_make_super_explicit():
    out = convert("""
        @decorate
        def method(self, x):
            return super().method(x)
        """, functions)
    assert out == "def method(self, x):\n    return super(__class__, self).method(x)"


# -- directives -------------------------------------------------------------------------------------

def test_directives_become_loop_options():
    out = convert("""
        def f(x, n):
            while n > 0:
                ag.experimental.set_loop_options(shape_invariants=[(x, S)], maximum_iterations=5,
                                                 parallel_iterations=3)
                n -= 1
        """, directives, *CONTROL)
    assert "set_loop_options" not in out
    assert "shape_invariants={'x': S}, maximum_iterations=5)" in out


def test_directive_must_name_variables():
    with pytest.raises(directives.DirectiveError):
        convert("""
            def f(x):
                for i in x:
                    set_loop_options(shape_invariants=[(x + 1, S)])
            """, directives)


# -- jumps ----------------------------------------------------------------------------------------

def test_continue_moves_the_rest_into_a_negated_if():
    out = convert("""
        def f(xs):
            for x in xs:
                if x < 0:
                    continue
                use(x)
        """, jumps)
    assert body(out) == "for x in xs:\n    if not x < 0:\n        use(x)"


def test_break_keeps_the_rest_in_the_else_branch():
    out = convert("""
        def f(xs):
            for x in xs:
                a(x)
                if x < 0:
                    break
                b(x)
        """, jumps)
    assert body(out) == "for x in xs:\n    a(x)\n    if x < 0:\n        break\n    else:\n        b(x)"


def test_return_moves_the_rest_into_branches_that_fall_through():
    out = convert("""
        def f(x):
            if x > 0:
                if x > 5:
                    return 2
                y = 1
            else:
                y = 0
            return y
        """, jumps)
    assert body(out) == textwrap.dedent("""\
        if x > 0:
            if x > 5:
                return 2
            else:
                y = 1
                return y
        else:
            y = 0
            return y""")


def test_return_in_loop_moves_the_rest_into_else_and_is_wrapped():
    out = convert("""
        def f(xs):
            for x in xs:
                for y in x:
                    if y:
                        return y
            log()
            return None
        """, jumps)
    assert "return ag__.Return(y, 2)" in out
    assert "else:\n        log()\n        return None" in out


def test_loop_with_break_and_return_gets_an_on_break_block():
    node = parser.parse(textwrap.dedent("""
        def f(xs):
            for x in xs:
                if x is None:
                    break
                if x > 3:
                    return x
            done()
        """)).body[0]
    ctx = conversion.make_context(node, SourceInfo("<t>", 1, ""), ConversionOptions(), None)
    jumps.transform(node, ctx)
    loop = node.body[0]
    assert parser.unparse(jumps.on_break(loop)) == "done()"
    assert parser.unparse(loop.orelse) == "done()"


def test_jumps_inside_try_stay_plain():
    from autograph.pyct import anno
    node = parser.parse(textwrap.dedent("""
        def f(x):
            try:
                if x:
                    return 1
            finally:
                pass
            return 2
        """)).body[0]
    ctx = conversion.make_context(node, SourceInfo("<t>", 1, ""), ConversionOptions(), None)
    jumps.transform(node, ctx)
    assert anno.getanno(node.body[0].body[0], anno.Key.PLAIN)


def test_dead_code_after_jumps_is_dropped():
    out = convert("""
        def f(x):
            if x:
                return 1
            else:
                return 2
            unreachable()
        """, jumps)
    assert "unreachable" not in out


# -- asserts, lists, calls ---------------------------------------------------------------------------

def test_asserts():
    out = convert("""
        def f(x):
            assert x > 0
            assert x < 10, ("too big", x)
        """, asserts)
    assert body(out) == "ag__.assert_stmt(x > 0)\nag__.assert_stmt(x < 10, lambda: ('too big', x))"


def test_lists_rewrite_local_lists_only():
    out = convert("""
        def f(n, param):
            items = []
            items.append(n)
            last = items.pop()
            items.pop()
            param.append(1)
            GLOBAL_LIST.append(2)
            obj.items.append(3)
        """, lists)
    assert body(out) == textwrap.dedent("""\
        items = []
        items = ag__.list_append(items, n)
        items, last = ag__.list_pop(items)
        items = ag__.list_pop(items)[0]
        param = ag__.list_append(param, 1)
        GLOBAL_LIST.append(2)
        obj.items.append(3)""")


def helper(x):
    return x


def test_call_trees():
    import numpy as np
    out = convert("""
        def f(x, fn):
            a = helper(x)
            b = np.sum(x)
            c = fn(x, *x, k=1)
            d = len(x) + abs(x)
            e = x.method()
            print(a, b, c, d, e)
            return super().f(x)
        """, call_trees, globals_={"helper": helper, "np": np})
    assert body(out) == textwrap.dedent("""\
        a = ag__.converted_call(helper, x)
        b = np.sum(x)
        c = ag__.converted_call(fn, x, *x, k=1)
        d = ag__.len_(x) + ag__.abs_(x)
        e = ag__.converted_call(x.method)
        print(a, b, c, d, e)
        return ag__.converted_call(super().f, x)""")


def test_call_trees_stages_print_only_with_the_staged_print_feature():
    source = """
        def f(x):
            print(x)
        """
    assert body(convert(source, call_trees)) == "print(x)"
    assert body(convert(source, call_trees, options=ConversionOptions(
        features=frozenset({Feature.ALL})))) == "print(x)"
    staged = ConversionOptions.make(optional_features=Feature.STAGED_PRINT)
    assert body(convert(source, call_trees, options=staged)) == "ag__.print_(x)"


def test_call_trees_respect_shadowed_builtins_and_features():
    out = convert("""
        def f(x):
            len = custom
            return len(x) + range(3)[0]
        """, call_trees)
    assert "ag__.converted_call(len, x)" in out and "ag__.range_(3)" in out
    out = convert("def f(x):\n    return len(x)\n", call_trees,
                  options=ConversionOptions(features=frozenset()))
    assert body(out) == "return len(x)"       # a library call, left alone
    out = convert("def f(x):\n    return g(x)\n", call_trees,
                  options=ConversionOptions(recursive=False))
    assert body(out) == "return g(x)"


def test_library_rules():
    import numpy as np
    assert rules.is_library_function(np.sum) and rules.is_library_function(len)
    assert rules.is_library_function(textwrap.dedent)
    assert not rules.is_library_function(helper)


# -- expressions ---------------------------------------------------------------------------------------

def test_conditional_expressions():
    out = convert("""
        def f(x):
            a = x if x > 0 else -x
            b = 1 if x is None else 2
        """, conditional_expressions)
    assert body(out) == "a = ag__.if_exp(x > 0, lambda: x, lambda: -x)\nb = 1 if x is None else 2"


def test_logical_expressions():
    out = convert("""
        def f(a, b, c):
            p = a and b and c
            q = a or b
            r = not a
            s = a is None or b
            t = 0 < a <= f(b) < c
            u = a == b
        """, logical_expressions)
    assert body(out) == textwrap.dedent("""\
        p = ag__.and_(a, lambda: b, lambda: c)
        q = ag__.or_(a, lambda: b)
        r = ag__.not_(a)
        s = a is None or b
        t = ag__.and_(0 < a, lambda: a <= (cmp := f(b)), lambda: cmp < c)
        u = a == b""")
    eq = convert("def f(a, b):\n    return a == b != c\n", logical_expressions,
                 options=ConversionOptions(features=frozenset({Feature.EQUALITY_OPERATORS})))
    assert body(eq) == "return ag__.and_(ag__.eq(a, b), lambda: ag__.ne(b, c))"


# -- control flow and variables ---------------------------------------------------------------------------

def test_if_statement():
    out = convert("""
        def f(x):
            if x > 0:
                y = x
                tmp = 1
            else:
                y = -x
            return y
        """, *CONTROL)
    assert body(out) == textwrap.dedent("""\
        y: ag__.Undefined

        def if_body_1():
            nonlocal y
            y = x
            tmp = 1

        def else_body_1():
            nonlocal y
            y = -x
        ag__.if_stmt(x > 0, if_body_1, else_body_1, ('y',))
        return y""")


def test_if_without_outputs_and_globals():
    out = convert("""
        def f(x):
            global g
            if x:
                g = x
            if x:
                work(x)
        """, *CONTROL)
    assert "global g" in out and "ag__.if_stmt(x, if_body_1, None, ('g',))" in out
    assert "ag__.if_stmt(x, if_body_2)" in out


def test_while_loop():
    out = convert("""
        def f(n):
            i = 0
            while i < n:
                i += 1
            else:
                i = -1
            return i
        """, *CONTROL)
    assert body(out) == textwrap.dedent("""\
        i = 0

        def loop_body_1():
            nonlocal i
            i += 1

        def else_body_1():
            nonlocal i
            i = -1
        ag__.while_stmt(lambda: i < n, loop_body_1, ('i',), else_body_1)
        return i""")


def test_for_loop_targets():
    out = convert("""
        def f(xs):
            s = 0
            for a, b in xs:
                s += a * b
            for last in xs:
                pass
            return s, last
        """, *CONTROL)
    assert "def loop_body_1(itr):\n        nonlocal s\n        a, b = itr" in out
    assert "def loop_body_2(itr_2):\n        nonlocal last\n        last = itr_2" in out
    assert "ag__.for_stmt(xs, loop_body_1, ('s',))" in out


def test_break_continue_and_return_in_loop_bodies():
    out = convert("""
        def f(xs):
            for x in xs:
                if x is None:
                    continue
                if x < 0:
                    break
                if x > 9:
                    return x
            return 0
        """, *CONTROL)
    assert "if not x is None:" in out          # plain: `x is None` is a Python bool
    assert "return ag__.if_stmt(x < 0, lambda: ag__.BREAK, lambda: ag__.if_stmt(x > 9, " \
           "lambda: ag__.Return(x)))" in out
    assert "def else_body_1():\n        return 0" in out
    assert "def after_break_1():\n        return 0" in out
    assert "return ag__.for_stmt(xs, loop_body_1, (), else_body_1, on_break=after_break_1)" in out


def test_variables_declares_only_what_is_unbound():
    out = convert("""
        def f(x, y):
            z = 0
            if x:
                y = 1
                z = 2
                w = 3
            return y + z + w
        """, *CONTROL)
    assert out.count(": ag__.Undefined") == 1 and "w: ag__.Undefined" in out
