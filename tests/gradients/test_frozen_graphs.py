"""Traced graphs are frozen; the gradients of cond and while_loop rewrite, never edit.

Oracles: the traced graph's listing before and after a gradient (plain strings), plain
Python arithmetic (x ** 3 and its derivatives), finite differences of the NumPy tier, and
the NumPy tier for the compiler tiers.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import runtime as rt
from runtime.graph import FrozenGraphError, copy_function_graph


def _loop_and_branch(x):
    y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.sin(y) * x), (0, x))[1]
    return rt.cond(x > 0, lambda: y * y, lambda: y)


def _traced():
    f = rt.function(_loop_and_branch, autograph=False)
    return f.get_concrete_function(rt.TensorSpec([], rt.float32)).graph


def _region_ops(graph):
    return [op for op in graph.operations if op.subgraphs]


MUTATIONS = {
    "create_op": lambda g: g.create_op(g.operations[0].opdef, [], {}, []),
    "placeholder": lambda g: g.placeholder(rt.TensorShape([]), rt.float32),
    "constant": lambda g: g.constant(np.arange(40.0)),
    "remove_operations": lambda g: g.remove_operations(g.operations[:1]),
    "operations.append": lambda g: g.operations.append(g.operations[0]),
    "operations[0] =": lambda g: g.operations.__setitem__(0, g.operations[-1]),
    "operations.pop": lambda g: g.operations.pop(),
    "del operations[0]": lambda g: g.operations.__delitem__(0),
    "operations +=": lambda g: g.operations.__iadd__([]),
    "inputs.append": lambda g: g.inputs.append(g.inputs[0]),
    "outputs.insert": lambda g: g.outputs.insert(0, g.inputs[0]),
    "outputs[:] =": lambda g: g.outputs.__setitem__(slice(None), []),
    "captures.clear": lambda g: g.captures.clear(),
    "graph.outputs =": lambda g: setattr(g, "outputs", []),
    "graph.operations =": lambda g: setattr(g, "operations", []),
    "op.inputs =": lambda g: setattr(g.operations[-1], "inputs", []),
    "op.inputs[0] =": lambda g: g.operations[-1].inputs.__setitem__(0, g.inputs[0]),
    "op.inputs.append": lambda g: g.operations[-1].inputs.append(g.inputs[0]),
    "op.outputs.append": lambda g: g.operations[-1].outputs.append(g.inputs[0]),
    "op.attrs[k] =": lambda g: g.operations[-1].attrs.__setitem__("k", 1),
    "op.attrs.update": lambda g: g.operations[-1].attrs.update(k=1),
    "op.attrs =": lambda g: setattr(g.operations[-1], "attrs", {}),
    "op.name =": lambda g: setattr(g.operations[-1], "name", "x"),
    "body.create_op": lambda g: _region_ops(g)[0].subgraphs[1].create_op(
        g.operations[0].opdef, [], {}, []),
    "body.outputs.append": lambda g: _region_ops(g)[0].subgraphs[1].outputs.append(g.inputs[0]),
    "body op.inputs.append": lambda g: _region_ops(g)[0].subgraphs[1].operations[0].inputs.append(
        g.inputs[0]),
    "branch.outputs =": lambda g: setattr(_region_ops(g)[1].subgraphs[0], "outputs", []),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_every_mutation_of_a_traced_graph_raises(mutation):
    graph = _traced()
    before = str(graph)
    assert graph.frozen
    with pytest.raises(FrozenGraphError, match="frozen"):
        MUTATIONS[mutation](graph)
    assert isinstance(FrozenGraphError("x"), RuntimeError)
    assert str(graph) == before


def test_a_frozen_graph_reads_and_copies_as_before():
    graph = _traced()
    op = graph.operations[-1]
    assert isinstance(graph.operations, list) and graph.operations + [] == list(graph.operations)
    assert dict(op.attrs) == op.attrs
    assert not copy_function_graph(graph)[0].frozen  # a copy is free to change
    for clone in (copy.copy(op.attrs), copy.deepcopy(graph.outputs), pickle.loads(pickle.dumps(
            graph.operations[0].inputs))):
        assert type(clone) in (dict, list)


def _derivatives(fn, x):
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        dy = inner.gradient(y, x)
    return dy, outer.gradient(dy, x)


def test_a_gradient_inside_a_function_leaves_the_traced_ops_as_they_were():
    """The ops a function traced before its gradient keep their inputs, outputs and bodies;
    the rewritten cond and while ops take their place and produce their output tensors."""
    seen = {}

    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = _loop_and_branch(x)
        graph = x.op.graph
        seen["ops"] = {op.name: (op, list(op.inputs), list(op.outputs), str(op.subgraphs[0]),
                                 str(op.subgraphs[-1])) for op in _region_ops(graph)}
        return tape.gradient(y, x)

    compiled = rt.function(f, autograph=False)
    graph = compiled.get_concrete_function(rt.TensorSpec([], rt.float32)).graph
    assert len(seen["ops"]) == 2
    for name, (op, inputs, outputs, first, last) in seen["ops"].items():
        assert (list(op.inputs), list(op.outputs)) == (inputs, outputs)
        assert (str(op.subgraphs[0]), str(op.subgraphs[-1])) == (first, last)
        assert op not in graph.operations  # superseded by the rewritten op ...
        new = graph.get_operation_by_name(name)
        assert new is not op and new.opdef is op.opdef
        assert new.outputs[:len(outputs)] == outputs  # it produces the traced op's tensors
        if op.opdef.is_loop:  # and the values its backward reads
            assert len(new.outputs) > len(outputs)
    assert graph.frozen and all(sub.frozen for op in graph.operations for sub in op.subgraphs)


def _numeric_derivative(fn, x0, eps=1e-3):
    return (float(fn(np.float64(x0 + eps))) - float(fn(np.float64(x0 - eps)))) / (2 * eps)


def _loop_cube(x):
    return rt.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), (0, x))[1]


def _autograph_loop(x):
    y = x
    for _ in rt.range(3):
        y = rt.sin(y) * x
    return y


def _tier(jit_compile):
    if jit_compile is True:
        pytest.importorskip("numba")
    if jit_compile == "xla":
        pytest.importorskip("jax")
    return jit_compile


def test_second_derivative_through_a_while_loop_in_a_function():
    f = rt.function(lambda x: _derivatives(_loop_cube, x), autograph=False)
    for x0 in (2.0, -0.75):
        dy, d2y = f(rt.constant(x0))
        assert (float(dy), float(d2y)) == (3 * x0 ** 2, 6 * x0)


def _first(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = _autograph_loop(x)
    return tape.gradient(y, x)


def test_second_derivative_through_an_autograph_for_loop():
    """Against finite differences of the first derivative (float64, NumPy tier)."""
    reference = rt.function(_first)
    f = rt.function(lambda x: _derivatives(_autograph_loop, x))
    for x0 in (0.3, 1.1):
        dy, d2y = f(rt.constant(x0, rt.float64))
        np.testing.assert_allclose(float(dy), float(reference(rt.constant(x0, rt.float64))))
        np.testing.assert_allclose(float(d2y), _numeric_derivative(
            lambda v: reference(rt.constant(v)), x0, 1e-5), rtol=1e-6)


@pytest.mark.parametrize("jit_compile", [True, "xla"])
def test_the_rewritten_loop_compiles_on_the_compiler_tiers(jit_compile):
    """The first derivative (rewritten forward loop, accumulator, backward loop) compiles
    and equals the NumPy tier; so does a second derivative staged in the function (the
    gradient of the loop's saves; more in tests/gradients/test_loop_second_order_tiers.py)."""
    compiled = rt.function(_first, jit_compile=_tier(jit_compile))
    reference = rt.function(_first)
    second = rt.function(lambda x: _derivatives(_autograph_loop, x), jit_compile=jit_compile)
    second_reference = rt.function(lambda x: _derivatives(_autograph_loop, x))
    for x0 in (0.3, 1.1):
        x = rt.constant(x0, rt.float64)
        np.testing.assert_allclose(float(compiled(x)), float(reference(x)), rtol=1e-12)
        np.testing.assert_allclose([float(v) for v in second(x)],
                                   [float(v) for v in second_reference(x)], rtol=1e-12)


def test_second_derivative_through_a_cond_inside_a_loop():
    def fn(x):
        def body(i, y):
            return i + 1, rt.cond(y > 1.0, lambda: rt.sqrt(y) * x, lambda: y * x * x)
        return rt.while_loop(lambda i, y: i < 3, body, (0, x))[1]

    staged = rt.function(lambda x: _derivatives(fn, x), autograph=False)
    for x0 in (0.5, 1.5):
        eager = _derivatives(fn, rt.constant(x0, rt.float64))
        got = staged(rt.constant(x0, rt.float64))
        np.testing.assert_allclose([float(v) for v in got], [float(v) for v in eager], rtol=1e-12)


def test_a_gradient_taken_twice_runs_the_loop_once():
    """Two gradients of one loop (a persistent tape) rewrite the loop twice; the graph keeps
    one loop (the last rewrite, which outputs what both backward passes read)."""
    def f(x):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = _loop_cube(x)
            z = y * y
        return tape.gradient(y, x), tape.gradient(z, x)

    compiled = rt.function(f, autograph=False)
    graph = compiled.get_concrete_function(rt.TensorSpec([], rt.float32)).graph
    forward_loops = [op for op in graph.operations
                     if op.subgraphs and not op.name.startswith("gradients")]
    assert len(forward_loops) == 1
    x0 = 1.5
    assert [float(v) for v in compiled(rt.constant(x0))] == [3 * x0 ** 2, 6 * x0 ** 5]


def test_the_gradient_of_a_traced_function_leaves_its_graph_unchanged():
    """A tape around a call differentiates a copy of the traced graph."""
    f = rt.function(_loop_and_branch, autograph=False)
    concrete = f.get_concrete_function(rt.TensorSpec([], rt.float64))
    before = str(concrete.graph)
    x = rt.constant(0.7, rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    staged = tape.gradient(y, x)
    assert str(concrete.graph) == before
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = _loop_and_branch(x)  # eagerly: Python loops and ifs
    np.testing.assert_allclose(float(staged), float(tape.gradient(y, x)), rtol=1e-12)


def _nested_loops(x):
    def outer(i, y):
        inner = rt.while_loop(lambda j, z: j < 2, lambda j, z: (j + 1, rt.sin(z) * x), (0, y))[1]
        return i + 1, inner + y
    return rt.while_loop(lambda i, y: i < 2, outer, (0, x))[1]


@pytest.mark.parametrize("x0", [0.4, -1.3])
def test_second_derivative_through_nested_loops_equals_the_eager_one(x0):
    staged = rt.function(lambda x: _derivatives(_nested_loops, x), autograph=False)
    x = rt.constant(x0, rt.float64)
    expected = [float(v) for v in _derivatives(_nested_loops, x)]
    np.testing.assert_allclose([float(v) for v in staged(x)], expected, rtol=1e-12)


def test_a_jacobian_through_a_loop_inside_a_function():
    """One backward pass per element: each rewrites the loop again (one loop is left)."""
    def jacobian(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.sin(y) * x[::-1]),
                              (0, x))[1]
        return tape.jacobian(y, x)

    x = rt.constant([0.3, -0.8, 1.2], rt.float64)
    f = rt.function(jacobian, autograph=False)
    np.testing.assert_allclose(f(x).numpy(), jacobian(x).numpy(), rtol=1e-12)
    graph = f.get_concrete_function(x).graph
    assert sum(1 for op in graph.operations
               if op.opdef.is_loop and not op.name.startswith("gradients")) == 1


def test_a_third_derivative_through_a_staged_loop_is_refused_by_name():
    def third(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            _, d2y = _derivatives(_loop_cube, x)
        return tape.gradient(d2y, x)

    assert float(third(rt.constant(2.0))) == 6.0  # eagerly, loops are Python
    with pytest.raises(NotImplementedError, match="three times"):
        rt.function(third, autograph=False)(rt.constant(2.0))


def test_a_function_with_rewritten_ops_saves_and_loads(tmp_path):
    """The rewritten ops carry the traced ops' names and output tensors: the saved graph file
    reads back to the same function (x ** 3 and its derivative)."""
    class Cube(rt.Module):
        @rt.function(input_signature=[rt.TensorSpec([], rt.float32)], autograph=False)
        def value_and_gradient(self, x):
            with rt.GradientTape() as tape:
                tape.watch(x)
                y = rt.while_loop(lambda i, y: i < 2, lambda i, y: (
                    i + 1, rt.cond(y > 0, lambda: y * x, lambda: y * x)), (0, x))[1]
            return y, tape.gradient(y, x)

    rt.saved_model.save(Cube(), str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    for x0 in (2.0, -1.5):
        assert [float(v) for v in loaded.value_and_gradient(rt.constant(x0))] == [x0 ** 3,
                                                                                 3 * x0 ** 2]
