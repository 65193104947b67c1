"""Finding and parsing the source of functions and lambdas."""

from __future__ import annotations

import inspect
import linecache

import gast
import pytest

import autograph as ag
from autograph.pyct import parser


def _lineno(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def plain(x):
    return x + 1


def decorator(fn):
    return fn


@decorator
@decorator
def decorated(x):
    y = x * 2
    return y


class Holder:
    def method(self, a,
               b=(1,
                  2)):
        text = """
a string
   spanning lines"""
        return a, b, text


def test_function_keeps_original_line_numbers():
    node, info = parser.parse_entity(plain)
    assert isinstance(node, gast.FunctionDef) and node.name == "plain"
    assert node.lineno == _lineno(plain, "def plain")
    assert node.body[0].lineno == _lineno(plain, "return x + 1")
    assert info.filename == __file__


def test_decorators_are_parsed_with_the_function():
    node, info = parser.parse_entity(decorated)
    assert len(node.decorator_list) == 2
    assert node.body[0].lineno == _lineno(decorated, "y = x * 2")
    assert info.source.startswith("@decorator")


def test_method_with_multiline_signature_and_strings():
    node, _ = parser.parse_entity(Holder.method)
    assert node.name == "method"
    assert node.body[-1].lineno == _lineno(Holder.method, "return a, b, text")
    assert node.body[0].col_offset == 8     # columns are those of the file


def test_nested_function():
    def outer():
        def inner(q):
            return q * 3
        return inner

    node, _ = parser.parse_entity(outer())
    assert node.name == "inner"
    assert node.body[0].lineno == _lineno(outer, "return q * 3")


def test_lambdas_on_one_line():
    a, b = (lambda x: x + 1), (lambda y, z=2: y * z)  # noqa: E731
    na, _ = parser.parse_entity(a)
    nb, _ = parser.parse_entity(b)
    assert isinstance(na, gast.Lambda) and [n.id for n in na.args.args] == ["x"]
    assert [n.id for n in nb.args.args] == ["y", "z"]


def test_same_signature_lambdas_on_one_line_are_told_apart_by_position():
    a, b = (lambda x: x + 1), (lambda x: x * 7)  # noqa: E731
    assert parser.unparse(parser.parse_entity(a)[0]) == "lambda x: x + 1"
    assert parser.unparse(parser.parse_entity(b)[0]) == "lambda x: x * 7"


def test_nested_lambdas():
    outer = lambda x: lambda y: x + y  # noqa: E731
    assert parser.unparse(parser.parse_entity(outer)[0]) == "lambda x: lambda y: x + y"
    assert parser.unparse(parser.parse_entity(outer(1))[0]) == "lambda y: x + y"


def test_lambda_inside_a_multiline_call():
    captured = []

    def keep(fn):
        captured.append(fn)
        return fn

    values = sorted(
        [3, 1, 2],
        key=keep(lambda v: -v))
    assert values == [3, 2, 1]
    node, _ = parser.parse_entity(captured[0])
    assert parser.unparse(node) == "lambda v: -v"


def test_source_registered_in_linecache():
    source = "def from_cell(a):\n    return a * 5\n"
    linecache.cache["<cell-1>"] = (len(source), None, source.splitlines(True), "<cell-1>")
    ns: dict = {}
    exec(compile(source, "<cell-1>", "exec"), ns)
    node, info = parser.parse_entity(ns["from_cell"])
    assert node.name == "from_cell" and info.filename == "<cell-1>"


def test_missing_source():
    ns: dict = {}
    exec(compile("def ghost():\n    return 1\n", "<ghost>", "exec"), ns)
    with pytest.raises(parser.SourceUnavailableError):
        parser.parse_entity(ns["ghost"])


def test_unparse_and_parse_expression():
    expr = parser.parse_expression("a + b * 2")
    assert parser.unparse(expr) == "a + b * 2"
    module = parser.parse("x = 1\ny = 2\n")
    assert parser.unparse(module.body) == "x = 1\ny = 2"


def test_lambdas_on_one_line_are_told_apart_by_their_names_and_constants():
    scale = 3
    table = {"up": lambda s: str.upper(s), "low": lambda s: str.lower(s)}
    pair = [lambda x: x + scale, lambda x: x * 2]
    assert ag.to_graph(table["low"])("AbC") == "abc"
    assert ag.to_graph(table["up"])("AbC") == "ABC"
    assert ag.to_graph(pair[0])(1) == 4 and ag.to_graph(pair[1])(1) == 2
