"""Lowering-time graph passes: constant folding, common subexpressions, effect-aware dead
code removal. Each leaves the traced graph as it is and keeps the results NumPy gives."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.passes import live_operations
from runtime.passes.cse import eliminate_common_subexpressions
from runtime.passes.folding import fold_constants

BIG = np.arange(200, dtype=np.float32)


def _graph(fn, *args):
    return rt.function(fn, autograph=False).get_concrete_function(*args).graph


def _types(graph):
    return [op.type for op in graph.operations]


def test_folding_computes_large_constant_expressions_once():
    def f(x):
        return x + (rt.constant(BIG) * 2.0 + 1.0)
    x = rt.constant(np.ones(200, np.float32))
    graph = _graph(f, x)
    before = _types(graph)
    folded = fold_constants(graph)
    assert _types(graph) == before  # the traced graph is not changed
    assert _types(folded).count("Mul") == 0 and _types(folded).count("Add") == 1
    np.testing.assert_array_equal(rt.function(f, autograph=False)(x).numpy(), 1 + BIG * 2 + 1)


def test_folding_leaves_stateful_ops():
    def f():
        return rt.random.uniform([200]) * 0.0 + rt.constant(BIG) * 2.0
    graph = _graph(f)
    folded = fold_constants(graph)
    stateful = [op.type for op in graph.operations if op.opdef.stateful]
    assert stateful and [op.type for op in folded.operations if op.opdef.stateful] == stateful
    assert _types(folded).count("Mul") == 1  # the draw's product stays; BIG * 2 is folded


def test_cse_merges_repeated_stateless_ops():
    def f(x, y):
        return x * y + x * y
    x, y = rt.constant(np.arange(3.0, dtype=np.float32)), rt.constant(np.float32(2))
    merged = eliminate_common_subexpressions(_graph(f, x, y))
    assert _types(merged).count("Mul") == 1 and "Identity" in _types(merged)
    compiled = rt.function(f, autograph=False)
    np.testing.assert_array_equal(compiled(x, y).numpy(), 2 * np.arange(3.0) * 2)
    assert compiled.get_concrete_function(x, y).generated_source.count(" * ") == 1


def test_cse_never_merges_random_draws():
    f = rt.function(lambda: rt.random.uniform([1000]) - rt.random.uniform([1000]),
                    autograph=False)
    assert np.any(f().numpy() != 0)


def test_dead_code_keeps_effects_and_drops_unused_pure_ops(capsys):
    v = rt.Variable(0.0)

    def f(x):
        unused = x * 3.0  # noqa: F841 - pure and unused: removed
        rt.print("side effect")
        rt.random.uniform([2])  # a draw advances the generator: kept
        v.assign_add(1.0)

        def body(i):
            rt.print("in loop")
            return (i + 1,)
        rt.while_loop(lambda i: i < 2, body, (rt.constant(0),))  # outputs unused, body prints
        return x + 1.0
    compiled = rt.function(f, autograph=False)
    x = rt.constant(1.0)
    graph = compiled.get_concrete_function(x).graph
    live = [op.type for op in live_operations(graph, graph.outputs)]
    assert "Mul" not in live and "While" in live and "RandomUniform" in live
    assert "AssignVariableOp" in live
    assert float(compiled(x)) == 2.0
    out = capsys.readouterr().out
    assert "side effect" in out and out.count("in loop") >= 2
    assert float(v.numpy()) >= 1.0
