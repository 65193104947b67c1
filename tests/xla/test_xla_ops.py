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
from runtime.numpy_api import primitives as P  # noqa: E402
from runtime.opdef import builtin_ops  # noqa: E402
from runtime.passes import run_passes  # noqa: E402

F32, F64, I32 = np.float32, np.float64, np.int32


def _x(dtype, shape=(3, 4), lo=0.1, hi=0.9):
    n = int(np.prod(shape))
    return np.linspace(lo, hi, n).astype(dtype).reshape(shape)


def _unary_float(x):
    y = x * 0.5 - 0.2
    return (rt.abs(y), P.arccos(x), P.arccosh(x + 1.0), P.arcsin(y), P.arcsinh(y), P.arctan(y),
            P.arctanh(y), rt.math.ceil(y * 4.0), rt.cos(y), P.cosh(y), rt.math.erf(y), rt.exp(y),
            P.exp2(y), P.expm1(y), rt.math.floor(y * 4.0), rt.math.log(x), P.log10(x),
            rt.math.log1p(x), P.log2(x), -y, rt.math.reciprocal(x), rt.nn.relu(y),
            rt.math.round(y * 4.0), rt.math.rsqrt(x), rt.sigmoid(y), rt.sign(y), rt.sin(y),
            P.sinh(y), rt.sqrt(x), rt.square(y), rt.math.tan(y), rt.tanh(y), P.trunc(y * 4.0),
            P.isfinite(x / y), P.isinf(x / (y * 0.0)), P.isnan(y * 0.0 / y), P.arctan2(y, x),
            P.hypot(x, y), x ** y, x ** 2.0, rt.maximum(x, y), rt.minimum(x, 0.5), x / (y + 2.0),
            rt.math.floordiv(x * 7.0, y + 2.0), rt.math.floormod(x * 7.0, y + 2.0))


def _binary(x):
    y = rt.reverse(x, [0])
    return (x + y, x - y, x * y, rt.maximum(x, y), rt.minimum(x, y), x == y, x != y, x < y,
            x <= y, x > y, x >= y, rt.where(x > y, x, y), rt.logical_and(x > y, x < 3 * y),
            rt.logical_or(x > y, x < y), rt.math.logical_xor(x > y, x < 3 * y),
            rt.logical_not(x > y), rt.cast(x, rt.float64), rt.cast(x, rt.int32),
            rt.cast(x, rt.bool), rt.abs(x - y), rt.sign(x - y), rt.square(x))


def _integer(x):
    y = x + 10  # no zero divisors: integer division by zero differs between the tiers
    return (x // y, x % y, x ** 2, -x, rt.math.floordiv(x, 2), rt.reduce_sum(x, axis=1),
            rt.reduce_prod(y, axis=0), rt.reduce_max(x, axis=1), rt.argmax(x, axis=1),
            rt.cumsum(x, axis=1), rt.reduce_sum(x), rt.reduce_mean(x, axis=0), x / y)


def _reductions(x):
    b = x > 0.4
    return (rt.reduce_sum(x), rt.reduce_sum(x, axis=1), rt.reduce_sum(x, axis=0, keepdims=True),
            rt.reduce_mean(x), rt.reduce_mean(x, axis=1), rt.reduce_max(x, axis=0),
            rt.reduce_min(x), rt.reduce_min(x, axis=1), rt.reduce_prod(x, axis=1),
            rt.reduce_any(b, axis=1), rt.reduce_all(b), rt.argmax(x, axis=1), rt.argmin(x, axis=0),
            rt.nn.softmax(x), rt.nn.log_softmax(x), rt.math.reduce_logsumexp(x, axis=1),
            rt.nn.softmax_cross_entropy_with_logits(rt.nn.softmax(x * 2.0), x),
            rt.cumsum(x[0]), rt.cumsum(x, axis=1, exclusive=True, reverse=True),
            rt.math.cumprod(x, axis=0), rt.math.cumprod(x, axis=1, exclusive=True))


def _linalg(x):
    sq = rt.matmul(x, x, transpose_b=True) + rt.eye(3, dtype=x.dtype)
    return (rt.matmul(x, x, transpose_a=True), sq, rt.einsum("ij,kj->ik", x, x),
            rt.tensordot(x, x, axes=[[1], [1]]), rt.linalg.inv(sq), rt.linalg.det(sq))


def _shapes(x):
    i = rt.constant([2, 0], rt.int32)
    flat = rt.reshape(x, [-1])
    parts = rt.split(x, [1, 3], axis=1)
    return (flat, rt.expand_dims(x, 0), rt.squeeze(rt.expand_dims(x, 2), 2),
            rt.transpose(x), rt.concat([x, x], 0), rt.stack([x, x], 1), rt.unstack(x)[1],
            parts[0], parts[1], rt.fill([2, 3], x[0, 0]), rt.zeros([2, 2], x.dtype),
            rt.zeros_like(x), rt.ones_like(x), rt.shape(x), rt.size(x),
            x[1:, ::2], x[1], rt.gather(x, i), rt.gather(x, 1, axis=1),
            rt.gather(x, [[0, 1], [2, 2]], axis=1), rt.tile(x, [2, 1]),
            rt.one_hot(rt.argmax(x, axis=1), 4, dtype=x.dtype), rt.reverse(x, [1]),
            rt.identity(x), rt.stop_gradient(x), rt.cast(x, rt.float64),
            rt.sort(x, axis=1, direction="DESCENDING"), rt.sort(x, axis=0),
            rt.roll(x, 1, axis=1), rt.broadcast_to(x[0], [3, 4]))


def _gradients(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        h = rt.nn.relu(rt.matmul(x, x, transpose_b=True) - 0.3)
        h = rt.sigmoid(h) + rt.tanh(h) * rt.reduce_mean(x, axis=1, keepdims=True)
        y = (rt.reduce_sum(h) + rt.reduce_sum(rt.gather(x, [0, 2, 0]) * x[0]) +
             rt.reduce_sum(x[1:, 1] * 3.0) +
             rt.reduce_sum(rt.concat([x, x * 2.0], 0) * rt.reduce_mean(x, axis=0)) +
             rt.reduce_sum(rt.nn.softmax_cross_entropy_with_logits(rt.nn.softmax(x), x)) +
             rt.reduce_sum(rt.math.erf(x) * rt.exp(x) + rt.math.log(x)) +
             rt.reduce_sum(x / (x + 1.0)) + rt.reduce_max(x))
        y += rt.cond(rt.reduce_sum(x) > 1.0, lambda: rt.reduce_sum(rt.tanh(x) * rt.exp(x)),
                     lambda: rt.reduce_sum(x * 2.0))
    return tape.gradient(y, x)


def _dynamic(x):
    """Shapes unknown when traced, known when XLA compiles."""
    b = rt.ones([1, 4])
    with rt.GradientTape() as tape:
        tape.watch([x, b])
        y = rt.reduce_sum(rt.concat([x, x * 2.0], 0) * 1.5) + rt.reduce_sum(x * b)
    n = rt.size(x)
    return (*tape.gradient(y, [x, b]), rt.reshape(x, rt.shape(x)[::-1]), n,
            rt.zeros(rt.shape(x), x.dtype) + 1.0, rt.reduce_sum(x * rt.zeros([1, 4])),
            rt.tile(x, rt.stack([n // n + 1, n // n])))


def _decompositions(x):
    """Decompositions and solves; signs of singular and eigen vectors are free, so their
    absolute values are compared. The input is made full rank (an evenly spaced matrix has
    rank 2), so that no singular or eigen vector is arbitrary."""
    x = x + rt.eye(3, 4, dtype=x.dtype) * rt.constant([[2.0], [-3.0], [5.0]], dtype=x.dtype)
    sq = rt.matmul(x, x, transpose_b=True) + rt.eye(3, dtype=x.dtype)
    s, u, v = rt.linalg.svd(x)
    q, r = rt.linalg.qr(rt.transpose(x))
    e, w = rt.linalg.eigh(sq)
    sign, log_abs = rt.linalg.slogdet(sq)
    with rt.GradientTape() as tape:
        tape.watch(sq)
        chol = rt.linalg.cholesky(sq)
        loss = (rt.reduce_sum(chol) + rt.reduce_sum(e * w * w) + log_abs +
                rt.reduce_sum(rt.linalg.svd(sq, compute_uv=False)) +
                rt.reduce_sum(rt.linalg.qr(sq)[1]) +
                rt.reduce_sum(rt.linalg.solve(sq, x, adjoint=True)) +
                rt.reduce_sum(rt.linalg.triangular_solve(sq, x, lower=False)) +
                rt.reduce_sum(rt.linalg.triangular_solve(sq, x, lower=True, adjoint=True)) +
                rt.reduce_sum(rt.linalg.expm(sq * 0.1)))
    return (s, rt.abs(u), rt.abs(v), rt.abs(q), rt.abs(r), e, rt.abs(w), sign, log_abs,
            chol, loss, tape.gradient(loss, sq))


def _axes_from_shapes(x):
    """Reductions whose axis is a tensor computed from shapes (known when XLA traces), with
    their gradients; a tile by a computed multiple and its gradient."""
    n = rt.size(x)
    one = n // n
    k = {"keepdims": True}
    with rt.GradientTape() as tape:
        tape.watch(x)
        t = rt.tile(x, rt.stack([one + 1, one]))
        r = (rt.reduce_sum(t, axis=one, **k), rt.reduce_mean(x, axis=one, **k),
             rt.reduce_sum(x, axis=one))
        total = sum(rt.reduce_sum(v) for v in r)
    return (*r, tape.gradient(total, x), rt.reduce_max(x, axis=0 * one, **k),
            rt.reduce_min(x, axis=one, **k), rt.reduce_prod(x, axis=one, **k),
            rt.reduce_any(x > 0.5, axis=one, **k), rt.reduce_all(x > 0.05, axis=one, **k),
            rt.argmax(x, axis=one), rt.argmin(x, axis=one), rt.range(0, n, 3))


def _value_shaped(x):
    """Ops whose result's shape depends on values: compiled when those values are known
    when XLA traces (here computed from the input's shape)."""
    i = rt.range(rt.size(x))
    return (rt.where(i > 5), rt.unique(i % 5).y, rt.unique_with_counts(i % 3).count,
            rt.boolean_mask(i, i > 7), rt.math.bincount(i % 4), rt.repeat(i[:3], 2),
            rt.cast(rt.size(rt.where(i > 5)), x.dtype) * x)


def _scatter_sort(x):
    """Scatter, batched gather, segment and sorting ops, and their gradients."""
    ints = rt.cast(x * 10.0, rt.int32)
    pairs = [[0, 1], [2, 3], [0, 1]]
    top = rt.math.top_k(x, 2)
    w = rt.reshape(rt.range(12, dtype=x.dtype), [3, 4]) * 0.1
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = (rt.reduce_sum(rt.sort(x, axis=0) ** 2 * w) +
                 rt.reduce_sum(rt.math.top_k(x, 2).values) +
                 rt.reduce_sum(rt.gather(x, [[1, 0], [3, 3], [2, 1]], axis=1, batch_dims=1) ** 2) +
                 rt.reduce_sum(rt.gather_nd(x, [[1], [0], [1]], batch_dims=1) ** 2) +
                 rt.reduce_sum(rt.gather_nd(x, [[0, 1], [2, 3]]) * x[0, :2]) +
                 rt.reduce_sum(rt.scatter_nd([[1], [0], [1]], x * x, [4, 4])) +
                 rt.reduce_sum(rt.tensor_scatter_nd_update(x, [[0, 1]], x[1, :1] * 2.0) * w) +
                 rt.reduce_sum(rt.math.cumprod(x, axis=1, reverse=True)) +
                 rt.reduce_sum(rt.reduce_prod(x, axis=1)) +
                 rt.reduce_sum(rt.math.segment_max(x, [0, 1, 1]) * 2.0) +
                 rt.reduce_sum(rt.math.unsorted_segment_sum(x * x, [1, -1, 1], 2)))
        g = tape.gradient(y, x)
        z = rt.reduce_sum(g * g)
    return (rt.scatter_nd([[1], [0], [1]], x, [4, 4]),
            rt.tensor_scatter_nd_update(x, pairs[:2], [5.0, 6.0]),
            rt.tensor_scatter_nd_add(x, pairs, [5.0, 6.0, 1.0]),
            rt.tensor_scatter_nd_sub(x, pairs, [5.0, 6.0, 1.0]),
            rt.tensor_scatter_nd_min(x, pairs, [0.0, 6.0, 0.05]),
            rt.tensor_scatter_nd_max(x, pairs, [0.0, 6.0, 0.5]),
            rt.gather(x, [[1, 0], [3, 3], [2, 1]], axis=1, batch_dims=1),
            rt.gather_nd(x, [[1], [0], [3]], batch_dims=1), rt.gather_nd(x, [[0, 1], [2, 3]]),
            rt.math.segment_sum(x, [0, 0, 2]), rt.math.segment_mean(x, [0, 0, 2]),
            rt.math.segment_max(x, [0, 1, 1]), rt.math.segment_min(x, [0, 1, 1]),
            rt.math.segment_prod(x, [0, 0, 0]),
            rt.math.unsorted_segment_sum(x, [1, -1, 1], 2),
            rt.math.unsorted_segment_max(x, [1, 0, 1], 3),
            rt.math.unsorted_segment_min(ints, [1, 0, 1], 2),
            rt.math.unsorted_segment_prod(x, [1, 0, 1], 2),
            rt.argsort(x, axis=1, direction="DESCENDING"), rt.argsort(x, axis=0),
            top.values, top.indices, g, outer.gradient(z, x))


def _special(x):
    y = x * 1.6 - 0.8  # in (-0.8, 0.8)
    with rt.GradientTape() as tape:
        tape.watch(x)
        s = rt.reduce_sum(rt.math.lgamma(x + 1.0) + rt.math.erfinv(y) + rt.math.ndtri(x) +
                          rt.math.bessel_i1e(y) + rt.math.bessel_i0e(y) + rt.math.digamma(x))
    return (rt.math.lgamma(x), rt.math.digamma(x), rt.math.erfc(y), rt.math.erfinv(y),
            rt.math.polygamma(rt.ones_like(x), x), rt.math.polygamma(rt.ones_like(x) * 2.0, x),
            rt.math.ndtri(x), rt.math.bessel_i0e(y), rt.math.bessel_i1e(y),
            rt.math.nextafter(x, y), rt.math.conj(x),
            tape.gradient(s, x))


def _conv(x):
    """Convolution and pooling with their gradients (second order too)."""
    img = rt.reshape(x, [1, 3, 4, 1])
    w = rt.reshape(x[:2, :2], [2, 2, 1, 1])
    with rt.GradientTape() as outer:
        outer.watch([img, w])
        with rt.GradientTape() as tape:
            tape.watch([img, w])
            y = (rt.reduce_sum(rt.nn.conv2d(img, w, 1, "SAME") ** 2) +
                 rt.reduce_sum(rt.nn.conv2d(img, w, [1, 2], "VALID", dilations=1) ** 2) +
                 rt.reduce_sum(rt.nn.max_pool2d(img, 2, 1, "VALID")) +
                 rt.reduce_sum(rt.nn.max_pool2d(img, 2, 2, "SAME") ** 2) +
                 rt.reduce_sum(rt.nn.avg_pool2d(img, 2, 2, "SAME") ** 2))
        gi, gw = tape.gradient(y, [img, w])
        z = rt.reduce_sum(gi * gi) + rt.reduce_sum(gw * gw)
    return (y, gi, gw, *outer.gradient(z, [img, w]), rt.nn.avg_pool2d(img, [2, 3], 1, "SAME"),
            rt.nn.conv2d(rt.tile(img, [2, 1, 1, 3]), rt.ones([3, 2, 3, 2], x.dtype), 1, "SAME",
                         dilations=[1, 2]))


GROUPS = {
    "unary_float": (_unary_float, (_x(F32),)),
    "unary_float64": (_unary_float, (_x(F64),)),
    "binary": (_binary, (_x(F32, (3, 4), -1, 1),)),
    "integer": (_integer, (np.arange(-6, 6, dtype=I32).reshape(3, 4),)),
    "reductions": (_reductions, (_x(F32),)),
    "reductions64": (_reductions, (_x(F64),)),
    "linalg": (_linalg, (_x(F64, (3, 4), -1, 1.5),)),
    "shapes": (_shapes, (_x(F32),)),
    "gradients": (_gradients, (_x(F64),)),
    "dynamic": (_dynamic, (_x(F32),)),
    "decompositions": (_decompositions, (_x(F64, (3, 4), -1, 1.5),)),
    "axes_from_shapes": (_axes_from_shapes, (_x(F32),)),
    "scatter_sort": (_scatter_sort, (_x(F64),)),
    "scatter_sort32": (_scatter_sort, (_x(F32),)),
    "value_shaped": (_value_shaped, (_x(F32),)),
    "special": (_special, (_x(F64),)),
    "conv": (_conv, (_x(F64),)),
    "conv32": (_conv, (_x(F32),)),
}
TOLERANCES = {"decompositions": 1e-10, "special": 1e-10, "scatter_sort32": 2e-5}
SIGNATURES = {"dynamic": [rt.TensorSpec([None, 4], rt.float32)],
              "axes_from_shapes": [rt.TensorSpec([None, 4], rt.float32)],
              "value_shaped": [rt.TensorSpec([None, 4], rt.float32)]}


def _ops(graph, found):
    for op in graph.operations:
        found.add(op.type)
        for sub in op.subgraphs:
            _ops(sub, found)
    return found


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
                 "RaiseUnless"}  # RaiseUnless: defined by autograph's backend when imported
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
        if op_type not in _ops(_concrete_function(group).graph, set()):
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
    assert all(lowering(op) is None for op in REFUSED)


@pytest.mark.parametrize("build, op_type", [
    (lambda x: rt.unique(rt.reshape(x, [-1]))[0], "Unique"),
    (lambda x: rt.searchsorted(rt.sort(x), x + 0.5), "SearchSorted"),
    (lambda x: rt.reverse_sequence(x, [2, 4, 0], seq_axis=1), "ReverseSequence"),
    (lambda x: rt.boolean_mask(x, x > 0.5), "BooleanMask"),
])
def test_refused_ops_raise_naming_the_op_and_line(build, op_type):
    concrete = rt.function(build).get_concrete_function(_x(F64))
    with pytest.raises(JitCompileError, match=rf"\({op_type}\), created at .*test_xla_ops\.py"):
        compiler.compile_graph(run_passes(concrete.graph), "f")


def _distinct_count(x):
    n = rt.size(rt.unique(rt.reshape(x, [-1]))[0])  # a shape known only at run time
    return rt.reduce_sum(x * rt.cast(n, x.dtype))


def test_a_refused_function_raises_at_its_first_call():
    f = rt.function(_distinct_count, jit_compile="xla")
    with pytest.raises(JitCompileError, match=r"\(Unique\), created at .*test_xla_ops\.py"):
        f(_x(F64))


def test_a_refused_gradient_pair_runs_on_the_numpy_tier_with_a_warning(caplog):
    f = rt.function(_distinct_count, jit_compile="xla")
    x = rt.constant(_x(F64))
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
