"""Every op the XLA tier lowers gives the NumPy tier's results; every other op is refused
with a JitCompileError naming it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.backends.base import JitCompileError  # noqa: E402
from runtime.backends.xla import compiler  # noqa: E402
from runtime.backends.xla.lowering import covered, lowering  # noqa: E402
from runtime.opdef import builtin_ops  # noqa: E402
from runtime.passes import run_passes  # noqa: E402

from .. import op_programs as programs  # noqa: E402
from ..op_programs import F32, F64, I32, graph_ops, x_values  # noqa: E402


def _no_value_shapes(program):
    """The program without the ops whose result's shape depends on values (refused)."""
    def run(x):
        return program(x, value_shapes=False)
    run.__name__ = program.__name__
    return run


_sort_gradients = _no_value_shapes(programs.scatter_sort_gradients)


def _decompositions(x):
    return programs.decompositions(x, full_rank=True)


def _loop_second_order(x):
    """A second derivative through a staged loop with a branch in its body: the gradient of
    the loop's saves (AccumulatorGradZeros, AccumulatorGradFromRead, TensorArrayGradAdd,
    AccumulatorPushGrad), held as stacks."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            h = x[0]
            for _ in rt.range(3):
                h = h * x[1] + 0.1
                h = rt.cond(rt.reduce_sum(h) > 0.5, lambda v=h: v * v, lambda v=h: v - 0.2)
            y = rt.reduce_sum(h * 2.0)
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g * g)
    return g, outer.gradient(z, x)


GROUPS = {
    "loop_second_order": (_loop_second_order, (x_values(F64),)),
    "unary_float": (programs.unary_float, (x_values(F32),)),
    "unary_float64": (programs.unary_float, (x_values(F64),)),
    "binary": (programs.binary, (x_values(F32, (3, 4), -1, 1),)),
    # offset 10, no zero divisors: integer division by zero differs between the tiers
    "integer": (programs.integer, (np.arange(-6, 6, dtype=I32).reshape(3, 4),)),
    "reductions": (programs.reductions, (x_values(F32),)),
    "reductions64": (programs.reductions, (x_values(F64),)),
    "linalg": (programs.linalg, (x_values(F64, (3, 4), -1, 1.5),)),
    "shapes": (_no_value_shapes(programs.shapes), (x_values(F32),)),
    "gradients": (_no_value_shapes(programs.gradients), (x_values(F64),)),
    "dynamic": (programs.dynamic, (x_values(F32),)),
    "decompositions": (_decompositions, (x_values(F64, (3, 4), -1, 1.5),)),
    "axes_from_shapes": (programs.axes_from_shapes, (x_values(F32),)),
    "scatter_sort": (_no_value_shapes(programs.scatter_sort), (x_values(F64),)),
    "scatter_sort32": (_no_value_shapes(programs.scatter_sort), (x_values(F32),)),
    "scatter_sort_gradients": (_sort_gradients, (x_values(F64),)),
    "scatter_sort_gradients32": (_sort_gradients, (x_values(F32),)),
    "value_shaped": (programs.value_shaped, (x_values(F32),)),
    "special": (programs.special, (x_values(F64),)),
    "conv": (programs.conv, (x_values(F64),)),
    "conv32": (programs.conv, (x_values(F32),)),
}
TOLERANCES = {"decompositions": 1e-10, "special": 1e-10, "scatter_sort32": 2e-5,
              "scatter_sort_gradients32": 2e-5}
SIGNATURES = {"dynamic": [rt.TensorSpec([None, 4], rt.float32)],
              "axes_from_shapes": [rt.TensorSpec([None, 4], rt.float32)],
              "value_shaped": [rt.TensorSpec([None, 4], rt.float32)]}


_concrete: dict = {}
_cache: dict = {}


def _concrete_function(group):
    if group not in _concrete:
        fn, args = GROUPS[group]
        _concrete[group] = rt.function(fn, input_signature=SIGNATURES.get(group)) \
            .get_concrete_function(*args)
    return _concrete[group]


def _run(group):
    """(xla outputs, numpy outputs) of a group."""
    if group not in _cache:
        concrete = _concrete_function(group)
        args = GROUPS[group][1]
        compiled = compiler.compile_graph(run_passes(concrete.graph), group)
        got, want = compiled.fn(*args), concrete.compiled.fn(*args)
        _cache[group] = (rt.nest.flatten(got), rt.nest.flatten(want))
    return _cache[group]


def _compare(a, b, what, tol=None):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype.kind == "f":
        tol = tol or (2e-6 if a.dtype == np.float32 else 1e-13)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


NOT_GRAPH_OPS = {"Const", "Placeholder", "PartitionedCall", "AccumulatorSource",
                 "RaiseUnless"}  # RaiseUnless: staged by autograph (test_assertions.py)
STATEFUL = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformDynamic",
            "RandomStandardNormalDynamic", "TruncatedNormalDynamic", "ReadVariableOp",
            "AssignVariableOp", "VarInitIfNeeded", "Dropout", "StatelessRandomUniform",
            "StatelessRandomNormal", "StatelessTruncatedNormal", "StatelessRandomUniformInt",
            "StatelessRandomUniformFullInt"}  # test_xla_tier.py
LOWERED = sorted(covered() - NOT_GRAPH_OPS - STATEFUL - {"If", "While"})
REFUSED = sorted(set(builtin_ops()) - covered())


@pytest.mark.parametrize("op_type", LOWERED)
def test_op_matches_the_numpy_tier(op_type):
    seen = False
    for group in GROUPS:
        if op_type not in graph_ops(_concrete_function(group).graph, set()):
            continue
        seen = True
        got, want = _run(group)
        assert len(got) == len(want)
        for j, (a, b) in enumerate(zip(got, want)):
            _compare(a, b, f"{group} output {j}", TOLERANCES.get(group))
    if not seen:  # an op added since these groups were written: lowered, not yet compared
        pytest.skip(f"no group builds a {op_type} op")


def test_every_builtin_op_is_lowered_or_refused():
    assert set(LOWERED) | set(REFUSED) | (NOT_GRAPH_OPS | STATEFUL | {"If", "While"}) \
        & set(builtin_ops()) == set(builtin_ops())
    ops = builtin_ops()
    assert all(lowering(ops[name]) is None for name in REFUSED)


@pytest.mark.parametrize("build, op_type", [
    (lambda x: rt.unique(rt.reshape(x, [-1]))[0], "Unique"),
    (lambda x: rt.searchsorted(rt.sort(x), x + 0.5), "SearchSorted"),
    (lambda x: rt.reverse_sequence(x, [2, 4, 0], seq_axis=1), "ReverseSequence"),
    (lambda x: rt.boolean_mask(x, x > 0.5), "BooleanMask"),
])
def test_refused_ops_raise_naming_the_op_and_line(build, op_type):
    concrete = rt.function(build).get_concrete_function(x_values(F64))
    with pytest.raises(JitCompileError, match=rf"\({op_type}\), created at .*test_xla_ops\.py"):
        compiler.compile_graph(run_passes(concrete.graph), "f")


def _distinct_count(x):
    n = rt.size(rt.unique(rt.reshape(x, [-1]))[0])  # a shape known only at run time
    return rt.reduce_sum(x * rt.cast(n, x.dtype))


def test_a_refused_function_raises_at_its_first_call():
    f = rt.function(_distinct_count, jit_compile="xla")
    with pytest.raises(JitCompileError, match=r"\(Unique\), created at .*test_xla_ops\.py"):
        f(x_values(F64))


def test_a_refused_gradient_pair_runs_on_the_numpy_tier_with_a_warning(caplog):
    f = rt.function(_distinct_count, jit_compile="xla")
    x = rt.constant(x_values(F64))
    with caplog.at_level("WARNING", logger="runtime.function"):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    np.testing.assert_allclose(y.numpy(), 12 * x.numpy().sum())
    np.testing.assert_allclose(g.numpy(), np.full((3, 4), 12.0))
    assert any("NumPy tier" in r.getMessage() and "Unique" in r.getMessage()
               for r in caplog.records)


@pytest.mark.parametrize("spread", [1.0, 1e4, 1e30])
def test_float32_sine_and_cosine_of_large_arrays_match_numpy(spread):
    x = (np.random.default_rng(0).standard_normal(20000) * spread).astype(F32)
    x[:4] = [0.0, -0.0, np.pi / 2, -3 * np.pi / 4]
    if spread > 1e20:
        x[4:7] = [np.inf, -np.inf, np.nan]
    got = rt.function(lambda v: (rt.sin(v), rt.cos(v)), jit_compile="xla")(x)
    for g, fn in zip(got, (np.sin, np.cos)):
        want = fn(x.astype(F64))
        assert g.numpy().dtype == F32
        np.testing.assert_allclose(g.numpy(), want, rtol=0, atol=1.2e-7, equal_nan=True)
    assert np.signbit(got[0].numpy()[1])
