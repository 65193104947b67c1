"""`ag.to_code`: valid, readable Python, at most 2.5x the lines of the source."""

from __future__ import annotations

import inspect

import pytest

import autograph as ag

from . import corpus

MAX_RATIO = 2.5


def _non_blank(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())


def _source_without_decorators(fn) -> str:
    return "\n".join(line for line in inspect.getsource(fn).splitlines()
                     if not line.strip().startswith("@"))


@pytest.mark.parametrize("case", corpus.CASES, ids=lambda c: c.name)
def test_converted_code_is_valid_python(case):
    code = ag.to_code(case.fn)
    compile(code, "<converted>", "exec")
    assert code.lstrip().startswith("def " + case.name)


def test_line_expansion_ratio_over_the_corpus():
    source = sum(_non_blank(_source_without_decorators(c.fn)) for c in corpus.CASES)
    converted = sum(_non_blank(ag.to_code(c.fn)) for c in corpus.CASES)
    ratio = converted / source
    print(f"line expansion: {converted} / {source} = {ratio:.2f}")
    assert ratio <= MAX_RATIO


def test_helper_names_come_from_the_statement():
    code = ag.to_code(corpus.while_else)
    assert "def loop_body_1():" in code
    assert "def else_body_1():" in code
    assert "def if_body_2():" not in code     # `if i == 7: break` is a lambda
    assert "lambda: ag__.BREAK" in code
    assert "ag__.while_stmt(lambda: i < n, loop_body_1, ('i',), else_body_1)" in code


def test_plain_python_is_left_alone():
    def plain(a, b):
        c = a * b + 1
        d = [c, c]
        return d

    code = ag.to_code(plain)
    assert code == "def plain(a, b):\n    c = a * b + 1\n    d = [c, c]\n    return d\n"


def test_library_calls_stay_plain_calls():
    code = ag.to_code(corpus.while_loop_from_api_example)
    assert "rt.cast(i, rt.float32)" in code
    assert "converted_call" not in code


def test_user_calls_go_through_converted_call():
    code = ag.to_code(corpus.call_user_function)
    assert "ag__.converted_call(helper_abs, x)" in code


def test_builtins_become_operators():
    code = ag.to_code(corpus.for_range_len)
    assert "ag__.range_(ag__.len_(xs))" in code


def test_python_only_conditions_stay_plain():
    code = ag.to_code(corpus.is_none_default)
    assert "if x is None:" in code
    assert "if_stmt" not in code


def test_elif_chains_are_chained_calls():
    code = ag.to_code(corpus.grade)
    assert code.count("def if_body_") == 3 and "def else_body_3" in code
    assert "lambda: ag__.if_stmt(score >= 70" in code


def test_returns_in_branches_become_lambdas():
    code = ag.to_code(corpus.early_returns)
    assert "return ag__.if_stmt(x > 10, lambda: 3, lambda: ag__.if_stmt(x > 5, lambda: 2" in code


def test_only_live_variables_are_shared():
    def temporaries(x):
        if x > 0:
            t = x * 2
            y = t + 1
        else:
            y = 0
        return y

    code = ag.to_code(temporaries)
    assert "nonlocal y\n" in code and "nonlocal t" not in code
    assert "('y',)" in code


def test_lambdas_can_be_converted():
    f = lambda x: x if x > 0 else -x  # noqa: E731
    code = ag.to_code(f)
    assert code.startswith("lambda x: ag__.if_exp(x > 0, lambda: x, lambda: -x)")


def test_several_lambdas_on_one_line_pick_the_right_one():
    f, g = (lambda x: x and 1), (lambda y: not y)  # noqa: E731
    assert "ag__.and_(x, lambda: 1)" in ag.to_code(f)
    assert "ag__.not_(y)" in ag.to_code(g)


def test_source_map_points_generated_lines_at_original_lines():
    from autograph.impl import conversion
    from autograph.pyct import origin
    converted = conversion.convert_code(corpus.sign, ag.ConversionOptions())
    source = converted.source
    smap = origin.SourceMap.build(converted.node, source, converted.info.filename)
    lines, start = inspect.getsourcelines(corpus.sign)
    gen_lines = source.splitlines()
    for i, text in enumerate(gen_lines, 1):
        if text.strip() == "s = -1":
            assert smap[i].lineno == start + [j for j, t in enumerate(lines) if "s = -1" in t][0]
        if "ag__.if_stmt(x > 0" in text:
            assert smap[i].lineno == start + [j for j, t in enumerate(lines) if "if x > 0" in t][0]
    assert smap[1].filename == corpus.__file__
