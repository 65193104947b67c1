"""The passes reach into branch and loop bodies: folding, common subexpressions and dead code
in bodies, branches whose predicate is constant, and effects kept in order.

Oracles: op counts of the traced graph against the `Program` the passes give (checked through
the program's own ops, nested bodies included); values computed with NumPy; the traced graph
rendered on the NumPy tier without folding or merging (`Program(graph, graph)`); Python's
printed output; TensorFlow's documented pruning of unused stateless ops.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph as ag
import runtime as rt
from autograph.operators.staged_raise import UncaughtStagingError
from runtime import backends
from runtime.passes import Program, Rewritten, run_passes

BIG = np.linspace(-1.0, 1.0, 100, dtype=np.float32)  # larger than tracing folds: the passes do
TIERS = [None, True, pytest.param("xla", marks=pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="the XLA tier needs jax"))]
PRINTING_TIERS = [None, True]  # the XLA tier refuses rt.print (docs/limitations.md)


def _concrete(fn, *args):
    return rt.function(fn, autograph=False).get_concrete_function(*args)


def _graphs(graph):
    """`graph` and every body of its ops, nested ones included (a Program's or a traced)."""
    found = [graph]
    for g in found:
        for op in g.operations:
            found.extend(op.subgraphs)
    return found


def _body_ops(graph):
    return [op for g in _graphs(graph)[1:] for op in g.operations]


def _types(ops):
    return [op.type for op in ops]


def _on_constants(graph):
    """The ops (bodies included) that compute from constants only: what folding removes."""
    producer = {id(t): op for g in _graphs(graph) for op in g.operations for t in op.outputs}
    return [op for g in _graphs(graph) for op in g.operations
            if op.inputs and not op.subgraphs and not op.opdef.stateful
            and all(id(t) in producer and producer[id(t)].opdef.is_constant for t in op.inputs)]


def _unoptimised(graph, *args):
    """The traced graph run on the NumPy tier as traced: no folding, no merging."""
    return backends.NUMPY.render(Program(graph, graph), "unoptimised").fn(*args)


@pytest.mark.parametrize("tier", TIERS)
def test_a_constant_expression_in_a_loop_body_is_computed_once(tier):
    def f(x):
        def body(i, acc):
            return i + 1, acc + (rt.constant(BIG) * 2.0 + 1.0) * x
        return rt.while_loop(lambda i, a: i < 4, body, (rt.constant(0), rt.zeros([100])))[1]

    x = np.float32(0.5)
    graph = _concrete(f, rt.constant(x)).graph
    traced = _types(_body_ops(graph))
    assert _types(_on_constants(graph)) == ["Mul"]  # BIG * 2.0, then + 1.0 on its result
    assert traced.count("Mul") == 2 and traced.count("Add") == 3
    program = run_passes(graph)
    assert _on_constants(program.graph) == []
    body = _types(_body_ops(program.graph))
    assert body.count("Mul") == 1 and body.count("Add") == 2  # `* x`, `acc +`, `i + 1`
    assert "/folded = Const() : f32[100]" in str(program.graph)  # in the outermost graph
    assert _types(_body_ops(graph)) == traced  # the traced graph is as it was
    expected = 4 * ((BIG * np.float32(2) + np.float32(1)) * x)
    np.testing.assert_allclose(_unoptimised(graph, np.asarray(x)), expected, rtol=1e-6)
    got = rt.function(f, autograph=False, jit_compile=tier)(rt.constant(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def _sin_loop(use_outer):
    def f(x):
        outer = rt.sin(x)

        def body(i, acc):
            a = rt.sin(x) * rt.cos(acc)
            b = rt.sin(x) * rt.cos(acc)
            return i + 1, acc + a + b
        acc = rt.while_loop(lambda i, a: i < 3, body, (rt.constant(0), rt.zeros([5])))[1]
        return acc + outer if use_outer else acc
    return f


def _sin_loop_numpy(x, use_outer):
    acc = np.zeros(5, np.float32)
    for _ in range(3):
        a = np.sin(x) * np.cos(acc)
        acc = acc + a + a
    return acc + np.sin(x) if use_outer else acc


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("use_outer", [True, False])
def test_repeated_ops_in_a_body_are_merged_with_the_body_or_a_running_enclosing_op(
        tier, use_outer):
    x = np.linspace(0, 2, 5, dtype=np.float32)
    f = _sin_loop(use_outer)
    graph = _concrete(f, rt.constant(x)).graph
    assert _types(_body_ops(graph)).count("Sin") == 2
    body = _types(_body_ops(run_passes(graph).graph))
    assert body.count("Cos") == 1 and body.count("Mul") == 1
    # the body reuses the enclosing Sin only when that one runs before the loop anyway
    assert body.count("Sin") == (0 if use_outer else 1)
    expected = _sin_loop_numpy(x, use_outer)
    np.testing.assert_allclose(_unoptimised(graph, x), expected, rtol=1e-5)
    got = rt.function(f, autograph=False, jit_compile=tier)(rt.constant(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5)


@pytest.mark.parametrize("tier", PRINTING_TIERS)
def test_dead_ops_in_a_body_go_and_its_prints_and_assignments_stay_in_order(tier, capsys):
    v = rt.Variable(0.0)

    def f(n):
        def body(i):
            rt.exp(rt.cast(i, rt.float32) * 3.0)  # pure and unused: dropped
            rt.print("step", i)
            v.assign_add(rt.reduce_sum(rt.constant(BIG) * 0.0 + 1.0))  # folded: 100.0
            rt.print("after", i)
            return (i + 1,)
        rt.while_loop(lambda i: i < n, body, (rt.constant(0),))  # results unused: effects
        return v.read_value()

    f_compiled = rt.function(f, autograph=False, jit_compile=tier)
    graph = f_compiled.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    program = run_passes(graph)
    traced, body = _types(_body_ops(graph)), _types(_body_ops(program.graph))
    assert "Exp" in traced and "Exp" not in body
    effects = [[op.type for op in _body_ops(g) if op.opdef.stateful]
               for g in (graph, program.graph)]
    assert effects[0] == effects[1] and effects[0].count("PrintV2") == 2
    assert _on_constants(program.graph) == []
    capsys.readouterr()
    assert float(f_compiled(rt.constant(3))) == 300.0
    assert capsys.readouterr().out == "".join(f"{w} {i}\n" for i in range(3)
                                              for w in ("step", "after"))
    assert float(v.numpy()) == 300.0


@pytest.mark.parametrize("tier", TIERS)
def test_variable_updates_in_a_body_keep_their_order_on_every_tier(tier):
    v = rt.Variable(np.ones(100, np.float32))

    def f(n):
        def body(i):
            v.assign(v * (rt.constant(BIG) * 0.0 + 2.0))   # folded operand: v * 2
            v.assign_add(rt.constant(BIG) * 0.0 + 1.0)     # then + 1
            v.assign(v * (rt.constant(BIG) * 0.0 + 2.0))   # repeated: not merged
            return (i + 1,)
        rt.while_loop(lambda i: i < n, body, (rt.constant(0),))
        return v.read_value()

    compiled = rt.function(f, autograph=False, jit_compile=tier)
    graph = compiled.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    program = run_passes(graph)
    assert [op.type for op in _body_ops(graph) if op.opdef.stateful] == \
        [op.type for op in _body_ops(program.graph) if op.opdef.stateful]
    assert _on_constants(program.graph) == []
    expected = np.ones(100, np.float32)
    for _ in range(3):
        expected = (expected * 2 + 1) * 2
    np.testing.assert_array_equal(compiled(rt.constant(3)).numpy(), expected)
    np.testing.assert_array_equal(v.numpy(), expected)


@pytest.mark.parametrize("tier", TIERS)
def test_random_draws_in_a_body_are_never_merged_or_folded(tier):
    def f(n):
        def body(i, acc):
            a = rt.random.uniform([])
            b = rt.random.uniform([])
            return i + 1, acc + rt.abs(a - b) * (rt.constant(BIG) * 0.0 + 1.0)
        return rt.while_loop(lambda i, a: i < n, body, (rt.constant(0), rt.zeros([100])))[1]

    compiled = rt.function(f, autograph=False, jit_compile=tier)
    graph = compiled.get_concrete_function(rt.TensorSpec([], rt.int32)).graph
    body = _types(_body_ops(run_passes(graph).graph))
    assert body.count("RandomUniform") == 2 and "Identity" not in body
    got = compiled(rt.constant(4)).numpy()
    assert np.all(got > 0) and np.all(got == got[0])  # two draws differ at some step
    # the NumPy tier draws the same numbers, in the same order, with and without the passes
    rt.random.set_seed(7)
    optimised = backends.NUMPY.render(run_passes(graph), "f").fn(np.int32(4))
    rt.random.set_seed(7)
    np.testing.assert_array_equal(optimised, _unoptimised(graph, np.int32(4)))


def test_an_unused_pure_loop_or_branch_is_not_run_and_one_with_an_effect_is():
    # TensorFlow prunes stateless ops whose results are unused, loops and branches included
    # (a tf.while_loop of 2e9 steps whose results are unused returns at once)
    def f(x, n):
        rt.while_loop(lambda i: i < n, lambda i: (i + 1,), (rt.constant(0),))
        rt.cond(x > 0, lambda: x * 2.0, lambda: x * 3.0)
        return x + 1.0

    def g(x, n):
        def loud():
            rt.print("branch")
            return x * 2.0
        rt.cond(x > 0, loud, lambda: x * 3.0)
        return x + 1.0

    specs = (rt.TensorSpec([], rt.float32), rt.TensorSpec([], rt.int32))
    traced = _concrete(f, *specs).graph
    assert {"While", "If"} <= set(_types(traced.operations))
    assert not {"While", "If"} & set(_types(run_passes(traced).live))
    assert "If" in _types(run_passes(_concrete(g, *specs).graph).live)
    for tier in TIERS[:2]:
        assert float(rt.function(f, autograph=False, jit_compile=tier)(
            rt.constant(1.0), rt.constant(2**31 - 1))) == 2.0


@pytest.mark.parametrize("tier", PRINTING_TIERS)
def test_a_branch_whose_predicate_folds_is_replaced_by_the_branch_it_takes(tier, capsys):
    def f(x):
        def yes():
            rt.print("taken")
            return x * 2.0

        def no():
            rt.print("not taken")
            return x * 3.0
        # 100 elements: tracing leaves the predicate to the passes
        return rt.cond(rt.reduce_all(rt.constant(BIG) > -2.0), yes, no)

    compiled = rt.function(f, autograph=False, jit_compile=tier)
    graph = compiled.get_concrete_function(rt.TensorSpec([3], rt.float32)).graph
    assert "If" in _types(graph.operations)
    program = run_passes(graph)
    assert "If" not in _types(op for g in _graphs(program.graph) for op in g.operations)
    assert _types(program.live).count("PrintV2") == 1
    capsys.readouterr()
    x = np.array([1.0, -2.0, 0.5], np.float32)
    np.testing.assert_array_equal(compiled(rt.constant(x)).numpy(), x * 2)
    assert capsys.readouterr().out == "taken\n"


@pytest.mark.parametrize("tier", TIERS)
def test_a_branch_in_a_loop_body_with_a_constant_predicate_is_inlined_there(tier):
    def f(x):
        def body(i, acc):
            flag = rt.reduce_any(rt.constant(BIG) > 0.5)  # folds to True
            step = rt.cond(flag, lambda: acc * 0.5 + x, lambda: acc - x)
            return i + 1, step
        return rt.while_loop(lambda i, a: i < 5, body, (rt.constant(0), rt.zeros([3])))[1]

    compiled = rt.function(f, autograph=False, jit_compile=tier)
    graph = compiled.get_concrete_function(rt.TensorSpec([3], rt.float32)).graph
    assert "If" in _types(_body_ops(graph))
    program_ops = _types(op for g in _graphs(run_passes(graph).graph) for op in g.operations)
    assert "If" not in program_ops and "While" in program_ops
    x = np.array([1.0, -2.0, 0.25], np.float32)
    expected = np.zeros(3, np.float32)
    for _ in range(5):
        expected = expected * np.float32(0.5) + x
    np.testing.assert_allclose(compiled(rt.constant(x)).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(_unoptimised(graph, x), expected, rtol=1e-6)


def test_nested_bodies_are_rewritten_and_the_traced_graph_is_not():
    def f(x):
        def outer(i, acc):
            def inner(j, a):
                return j + 1, a + rt.reduce_sum(rt.constant(BIG) * 3.0) + x * x + x * x
            return i + 1, rt.while_loop(lambda j, a: j < 2, inner, (rt.constant(0), acc))[1]
        return rt.while_loop(lambda i, a: i < 3, outer, (rt.constant(0), x))[1]

    graph = _concrete(f, rt.TensorSpec([4], rt.float32)).graph
    listing = str(graph)
    program = run_passes(graph)
    assert str(graph) == listing
    inner = _graphs(program.graph)[-1]
    assert isinstance(inner, Rewritten) and inner.traced is _graphs(graph)[-1]
    assert _types(inner.operations).count("Mul") == 1 and _on_constants(program.graph) == []
    x = np.arange(4, dtype=np.float32)
    expected = x.copy()
    for _ in range(6):
        expected = expected + np.float32(np.sum(BIG * np.float32(3))) + 2 * x * x
    np.testing.assert_allclose(_unoptimised(graph, x), expected, rtol=1e-5)
    for tier in TIERS[:2]:
        got = rt.function(f, autograph=False, jit_compile=tier)(rt.constant(x)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_generated_programs_give_the_same_results_and_printout_with_and_without_passes(
        tmp_path):
    from tests.differential.generator import arguments, generate
    from tests.differential.runner import load, numpy_args, run, same_printout, unload

    failures, compared = [], 0
    for seed in range(40):
        program = generate(seed)
        module = load(program.source, tmp_path)
        try:
            function = rt.function(
                module.program, experimental_autograph_options=ag.experimental.Feature.STAGED_PRINT)
            for args in arguments(seed, 2):
                values = numpy_args(args)
                try:
                    graph = function.get_concrete_function(
                        *[rt.constant(v) for v in values]).graph
                except (Exception, UncaughtStagingError):  # noqa: BLE001 - refused: no graph
                    continue
                optimised = backends.NUMPY.render(run_passes(graph), "f").fn
                plain = run(backends.NUMPY.render(Program(graph, graph), "plain").fn, values)
                got = run(optimised, values)
                compared += 1
                same = (type(plain.error) is type(got.error)
                        and same_printout(plain.stdout, got.stdout)
                        and (plain.error is not None or _same(plain.value, got.value)))
                if not same:
                    failures.append(f"seed {seed}, args {args}:\n{program.source}\n"
                                    f"plain {plain.describe()}\noptimised {got.describe()}")
        finally:
            unload(module)
    assert not failures, "\n\n".join(failures[:3])
    assert compared >= 40  # most programs trace (the others are refused while tracing)


def _same(expected, got) -> bool:
    """Bit-for-bit equal results (NaN equal to NaN), one array or a tuple of them."""
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    return len(expected) == len(got) and all(
        np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind in "fc")
        for a, b in zip(expected, got))


# -- generated loop bodies ----------------------------------------------------------------------
# A body is a list of statements over a pool of values (the loop's accumulator, an outer input,
# two large constants, then each statement's result): elementwise ops, a branch on a predicate
# that folds or one that does not, repeated statements (merged), unused ones (dropped), and
# statements on constants only (folded). Run by the NumPy tier with and without the passes,
# and by NumPy directly.

_BINARY = [(lambda a, b: a + b, np.add), (lambda a, b: a * b, np.multiply),
           (lambda a, b: a - b, np.subtract), (rt.maximum, np.maximum)]
_UNARY = [(rt.sin, np.sin), (rt.negative, np.negative), (rt.tanh, np.tanh)]
_SMALL = np.float32(0.5)


def _statement():
    """(kind, which op, operand, operand, whether the body's result reads it)."""
    index, used = st.integers(0, 40), st.booleans()
    return st.one_of(
        st.tuples(st.just("binary"), st.integers(0, len(_BINARY) - 1), index, index, used),
        st.tuples(st.just("unary"), st.integers(0, len(_UNARY) - 1), index, index, used),
        st.tuples(st.just("cond"), st.booleans(), index, index, used))


def _run_body(statements, result, pool, ops, fold_pred, data_pred, cond, tanh):
    """The statements over `pool` (values of one kind: tensors or arrays); the body's
    result: tanh of the pool's value `result` plus those of the statements marked used."""
    pool = list(pool)
    total = None
    for kind, which, a, b, used in statements:
        x, y = pool[a % len(pool)], pool[b % len(pool)]
        if kind == "binary":
            pool.append(ops[0][which](x, y))
        elif kind == "unary":
            pool.append(ops[1][which](x))
        else:
            pred = fold_pred() if which else data_pred(x)
            pool.append(cond(pred, lambda x=x: x * _SMALL, lambda y=y: y - _SMALL))
        if used:
            total = pool[-1] if total is None else total + pool[-1]
    picked = pool[result % len(pool)]
    return tanh(picked if total is None else picked + total)


def _loop_program(statements, result):
    def f(x):
        consts = [rt.constant(BIG), rt.constant(np.cos(BIG))]

        def body(i, acc):
            return i + 1, _run_body(statements, result, [acc, x, *consts],
                                    ([op for op, _ in _BINARY], [op for op, _ in _UNARY]),
                                    lambda: rt.reduce_all(consts[0] > -2.0),
                                    lambda v: rt.reduce_sum(v) > 0.0, rt.cond, rt.tanh)
        return rt.while_loop(lambda i, a: i < 3, body, (rt.constant(0), rt.zeros([100])))[1]
    return f


def _loop_numpy(statements, result, x):
    consts = [BIG, np.cos(BIG)]
    acc = np.zeros(100, np.float32)
    for _ in range(3):
        acc = _run_body(statements, result, [acc, x, *consts],
                        ([op for _, op in _BINARY], [op for _, op in _UNARY]),
                        lambda: bool(np.all(consts[0] > np.float32(-2))),
                        lambda v: bool(np.sum(v, dtype=np.float32) > 0),
                        lambda pred, yes, no: yes() if pred else no(), np.tanh)
    return acc


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_statement(), min_size=1, max_size=8), st.integers(0, 40), st.booleans())
def test_generated_loop_bodies_give_the_unoptimised_and_numpy_results(statements, result,
                                                                       repeat):
    if repeat:  # a repeated statement: merged with the first
        statements = statements + statements[:1]
    x = np.linspace(-2.0, 2.0, 100, dtype=np.float32)
    graph = _concrete(_loop_program(statements, result), rt.TensorSpec([100], rt.float32)).graph
    program = run_passes(graph)
    assert _on_constants(program.graph) == []
    optimised = backends.NUMPY.render(program, "f").fn(x)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(optimised, _unoptimised(graph, x))
        np.testing.assert_allclose(optimised, _loop_numpy(statements, result, x), rtol=1e-5,
                                   atol=1e-6)
