"""The differential corpus: every program gives the same results, printed output and
exception types natively, converted with Python values, and (for staged cases) compiled
with `rt.function` over tensor arguments, where one trace serves every example."""

from __future__ import annotations

import pytest

import autograph as ag
import runtime as rt

from . import corpus
from .helpers import assert_same, run

STAGED = [c for c in corpus.CASES if c.staged]


def _reset():
    corpus.COUNTER = 0


def test_corpus_is_large_enough():
    assert len(corpus.CASES) >= 60
    assert len(STAGED) >= 40


@pytest.mark.parametrize("case", corpus.CASES, ids=lambda c: c.name)
def test_converted_matches_native(case):
    converted = ag.to_graph(case.fn)
    for args in case.args:
        _reset()
        expected = run(case.fn, args)
        _reset()
        actual = run(converted, args)
        assert_same(expected, actual, f"{case.name}{args}")


def _tensor(value):
    if isinstance(value, bool):
        return rt.constant(value)
    if isinstance(value, int):
        return rt.constant(value, dtype=rt.int32)
    if isinstance(value, float):
        return rt.constant(value, dtype=rt.float32)
    if isinstance(value, list):
        return rt.constant(value)
    return value


@pytest.mark.parametrize("case", STAGED, ids=lambda c: c.name)
def test_staged_matches_native(case):
    options = ag.experimental.Feature.STAGED_PRINT if "staged_print" in case.tags else None
    compiled = rt.function(case.fn, experimental_autograph_options=options)
    for args in case.args:
        expected = run(case.fn, args)
        tensors = tuple(a if i in case.static else _tensor(a) for i, a in enumerate(args))
        actual = run(compiled, tensors)
        assert_same(expected, actual, f"{case.name}{args} staged")
    assert compiled.experimental_get_tracing_count() == 1, (
        f"{case.name}: expected one trace for all examples")
