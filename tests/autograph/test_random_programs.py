"""Randomly generated programs: converted code must behave exactly like the original.

Programs mix assignments, if/elif/else, bounded while and for loops with break, continue,
return and else clauses, `and`/`or`/`not`, conditional expressions and chained comparisons,
over integer variables. Each is run natively and converted, with Python values and with
staged values of the fake backend (so every `if` and loop is staged), and must give the
same results.
"""

from __future__ import annotations

import linecache
import textwrap

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import autograph as ag

from .fake_backend import FakeBackend, Sym, value
from .helpers import assert_same, run

VARS = ("a", "b", "c")


@st.composite
def expressions(draw, depth=0):
    leaf = st.one_of(st.sampled_from(VARS), st.integers(-3, 5).map(str))
    if depth > 1:
        return draw(leaf)
    kind = draw(st.sampled_from(["leaf", "arith", "cond", "ifexp"]))
    if kind == "leaf":
        return draw(leaf)
    if kind == "arith":
        op = draw(st.sampled_from(["+", "-", "*", "%"]))
        left, right = draw(expressions(depth + 1)), draw(expressions(depth + 1))
        if op == "%":
            return f"({left} % (abs({right}) + 1))"
        return f"({left} {op} {right})"
    if kind == "ifexp":
        return f"({draw(expressions(depth + 1))} if {draw(conditions(depth + 1))} else {draw(expressions(depth + 1))})"
    return f"int({draw(conditions(depth + 1))})"


@st.composite
def conditions(draw, depth=0):
    kind = draw(st.sampled_from(["cmp", "chain", "and", "or", "not"] if depth < 2 else ["cmp"]))
    x, y = draw(expressions(depth + 1)), draw(expressions(depth + 1))
    op = draw(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
    if kind == "cmp":
        return f"{x} {op} {y}"
    if kind == "chain":
        return f"{x} < {y} <= {draw(expressions(depth + 1))}"
    if kind == "not":
        return f"not {x} {op} {y}"
    joiner = " and " if kind == "and" else " or "
    return joiner.join([f"{x} {op} {y}", draw(conditions(depth + 1))])


@st.composite
def blocks(draw, depth=0, in_loop=False, loop_var=None):
    n = draw(st.integers(1, 3))
    lines = []
    for _ in range(n):
        lines.extend(draw(statements(depth, in_loop, loop_var)))
    return lines


@st.composite
def statements(draw, depth, in_loop, loop_var):
    choices = ["assign", "assign"]
    if depth < 3:
        choices += ["if", "while", "for"]
    if in_loop:
        choices += ["break", "continue"]
    choices.append("return")
    kind = draw(st.sampled_from(choices))
    ind = "    "
    if kind == "assign":
        target = draw(st.sampled_from(VARS + ("t",)))
        op = draw(st.sampled_from(["=", "+=", "-="])) if target != "t" else "="
        return [f"{target} {op} {draw(expressions())}"]
    if kind == "break":
        return [f"if {draw(conditions())}:", ind + "break"]
    if kind == "continue":
        return [f"if {draw(conditions())}:", ind + "continue"]
    if kind == "return":
        return [f"if {draw(conditions())}:", ind + f"return ({draw(expressions())}, a, b)"]
    if kind == "if":
        out = [f"if {draw(conditions())}:"] + [ind + s for s in draw(blocks(depth + 1, in_loop, loop_var))]
        if draw(st.booleans()):
            out += [f"elif {draw(conditions())}:"] + [ind + s for s in draw(blocks(depth + 1, in_loop, loop_var))]
        if draw(st.booleans()):
            out += ["else:"] + [ind + s for s in draw(blocks(depth + 1, in_loop, loop_var))]
        return out
    counter = f"k{depth}"
    body = [ind + s for s in draw(blocks(depth + 1, True, counter))]
    orelse = []
    if draw(st.booleans()):
        orelse = ["else:"] + [ind + s for s in draw(blocks(depth + 1, in_loop, loop_var))]
    if kind == "for":
        return [f"for {counter} in range({draw(st.integers(0, 4))}):"] + body + orelse
    # a while loop always advances its own counter first, so it terminates
    return ([f"{counter} = 0", f"while {counter} < {draw(st.integers(0, 4))}:",
             ind + f"{counter} += 1"] + body + orelse)


_counter = [0]


def _define(lines: list[str]):
    source = "def program(a, b, c):\n" + textwrap.indent("\n".join(lines), "    ") + \
        "\n    return (a, b, c)\n"
    _counter[0] += 1
    filename = f"<random-program-{_counter[0]}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), namespace)
    return namespace["program"], source


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks(), st.lists(st.tuples(st.integers(-4, 6), st.integers(-4, 6), st.integers(-4, 6)),
                          min_size=1, max_size=4))
def test_random_programs_behave_the_same_when_converted(lines, inputs):
    fn, source = _define(lines)
    converted = ag.to_graph(fn)
    compile(ag.to_code(fn), "<converted>", "exec")
    for args in inputs:
        assert_same(run(fn, args), run(converted, args), f"\n{source}\nargs={args}")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks(), st.lists(st.tuples(st.integers(-4, 6), st.integers(-4, 6), st.integers(-4, 6)),
                          min_size=1, max_size=3))
def test_random_programs_behave_the_same_when_staged(lines, inputs):
    fn, source = _define(lines)
    converted = ag.to_graph(fn)
    backend = ag.register_backend(FakeBackend())
    try:
        for args in inputs:
            expected = fn(*args)
            out = converted(*[Sym(a) for a in args])
            assert tuple(value(v) for v in out) == expected, f"\n{source}\nargs={args}"
    finally:
        ag.unregister_backend(backend)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blocks(), st.lists(st.tuples(st.integers(-4, 6), st.integers(-4, 6), st.integers(-4, 6)),
                          min_size=2, max_size=3))
def test_random_programs_behave_the_same_under_rt_function(lines, inputs):
    import runtime as rt

    fn, source = _define(lines)
    # int32 tensors wrap around where Python integers grow: compare within int32 only
    assume(all(abs(v) < 2 ** 31 for args in inputs for v in fn(*args)))
    compiled = rt.function(fn)
    for args in inputs:
        out = compiled(*[rt.constant(a) for a in args])
        got = tuple(int(v.numpy()) if hasattr(v, "numpy") else int(v) for v in out)
        assert got == fn(*args), f"\n{source}\nargs={args}"
    assert compiled.experimental_get_tracing_count() == 1
