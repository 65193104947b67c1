"""Every op of the registry compiles on the Numba tier and gives the NumPy tier's results.

Ops are exercised through their public functions in a few groups (one kernel per group and
dtype, since Numba's compile time dominates); each op's test runs the groups whose graphs
contain it and compares both tiers: within 8 ulp for floats, exactly for ints and bools.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import struct

import numpy as np
import pytest

import runtime as rt
import runtime.autograph_backend  # noqa: F401 -- registers RaiseUnless, as staging a raise does
from runtime.backends.base import JitCompileError
from runtime.gradients.while_grad import saving_stacks
from runtime.opdef import REGISTRY, builtin_ops

from .. import op_programs as programs
from ..op_programs import F32, F64, I32, graph_ops, x_values

MAX_ULP = 8

# Ops that never reach a kernel: graph inputs and constants, and a tape node of eager calls.
NOT_GRAPH_OPS = {
    "Const": "written once as a literal or kernel argument",
    "Placeholder": "a graph input",
    "PartitionedCall": "a tape record of an eager call of a compiled function",
}

# Ops the compiler tiers refuse by name while the NumPy tier runs them (none at present: the
# gradients of a loop's saves compile, group "loop_second_order").
NUMPY_TIER_ONLY: set = set()


# -- groups: name -> (fn, [argument tuples], options) ----------------------------------------
# The programs both tiers run are in tests/op_programs.py; these are the Numba tier's own.

_INTEGERS = np.array([-7, -6, -5, -4, -2, -1, 0, 1, 2, 3, 4, 5], dtype=I32).reshape(3, 4)


def _integer(x):
    # divisors of both signs (x + 3 is never 0 for _INTEGERS: a zero divisor raises, checked
    # in tests/jit/test_tier_edge_values.py)
    return programs.integer(x, offset=3)


def _linalg(x):
    return (*programs.linalg(x), *programs.decompositions(x))


def _dynamic(x):
    return (*programs.dynamic(x), *programs.axes_from_shapes(x, known_ranks=True))


def _special_and_signal(x):
    """Special functions, complex parts, reverse_sequence and the Fourier transforms."""
    y = x * 1.6 - 0.8
    z = rt.complex(x, y)
    return (*programs.special(x), rt.math.real(z), rt.math.imag(z),
            rt.math.imag(rt.math.conj(z)), rt.math.angle(z),
            rt.reverse_sequence(x, [2, 4, 0], seq_axis=1), rt.math.real(rt.signal.fft(z)),
            rt.math.imag(rt.signal.ifft2d(z)) + 2.0, rt.math.imag(rt.signal.rfft(x)) + 2.0,
            rt.signal.irfft(z, [6]) + 2.0)  # complex results compared by parts


def _loop_gradients(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        h = x[0]
        i = rt.constant(0)
        acc = rt.zeros_like(h)
        while i < 3:
            h = rt.tanh(h * x[i] + 0.1)
            acc = rt.cond(rt.reduce_sum(h) > 0.5, lambda a=acc, v=h: a + v,
                          lambda a=acc, v=h: a - v * v)
            i += 1
        y = rt.reduce_sum(h * 2.0) + rt.reduce_sum(acc)
    return tape.gradient(y, x)


def _loop_second_order(x):
    """A second derivative through a staged loop with a branch in its body: the gradient of
    the loop's saves (AccumulatorGradZeros/GradFromRead/PushGrad). Polynomial, so that both
    tiers round alike (rounding differences compound over two orders)."""
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


def _tensor_arrays(x):
    ta = rt.TensorArray(x.dtype, size=3).unstack(x)
    tb = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
    for i in rt.range(3):
        tb = tb.write(i, ta.read(i) * 2.0)
    return tb.stack(), tb.gather([2, 0]), tb.concat(), tb.size(), ta.read(1)


def _tensor_array_gradients(x):
    """Gradients through TensorArrays written in staged loops and read back every way."""
    with rt.GradientTape() as tape:
        tape.watch(x)
        ta = rt.TensorArray(x.dtype, size=3).unstack(x)  # TensorArrayScatterGrad
        tb = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
        tc = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
        for i in rt.range(3):
            tb = tb.write(i, rt.tanh(ta.read(i)) * x[i])  # TensorArrayWriteGrad
            tc = tc.write(i, rt.reduce_sum(ta.read(i)))  # scalar elements
        tc = tc.write(1, rt.reduce_sum(x[0]))  # an overwritten element has no gradient
        y = (rt.reduce_sum(tb.stack() * 2.0) + rt.reduce_sum(tb.read(1) * tb.read(1)) +
             rt.reduce_sum(tb.gather([2, 0, 2]) * 3.0) + rt.reduce_sum(rt.sin(tb.concat())) +
             rt.reduce_sum(tc.stack() * tc.read(2)) + tc.gather([1])[0])
    gx = tape.gradient(y, x)
    # an array read only in part: the elements not read have zero gradients
    with rt.GradientTape() as tape:
        tape.watch(x)
        td = rt.TensorArray(x.dtype, size=3)
        for i in rt.range(3):
            td = td.write(i, x[i] * x[i])
        z = rt.reduce_sum(td.read(2)) + rt.reduce_sum(td.gather([0]))
    return gx, tape.gradient(z, x)


def _tensor_array_second_order(x):
    """A gradient of a gradient through TensorArrays (unrolled, so no loop gradients): the
    TensorArray gradient ops' own gradients take element gradients out of a map."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            ta = rt.TensorArray(x.dtype, size=3).unstack(x)
            tb = rt.TensorArray(x.dtype, size=3)
            tc = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
            for i in range(3):
                tb = tb.write(i, rt.sin(ta.read(i)) * x[i])
                tc = tc.write(i, rt.reduce_sum(ta.read(i) * x[i]))  # scalar elements
            y = (rt.reduce_sum(tb.stack() * tb.stack()) + rt.reduce_sum(tb.read(1) ** 3)
                 + rt.reduce_sum(rt.exp(tb.gather([2, 0]))) + rt.reduce_sum(rt.cos(tb.concat()))
                 + rt.reduce_sum(tc.stack() * tc.read(2)) + tc.gather([1])[0])
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g * g)
    return g, outer.gradient(z, x)


@rt.custom_gradient
def _clipped(x):
    def grad(g):
        return g * 0.5
    return x * 3.0, grad


def _custom(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(_clipped(x) * x)
    return y, tape.gradient(y, x)


def _stateless_random(x, seed):
    """The stateless random ops, seeded by an argument (a constant seed would be folded)."""
    n = rt.shape(x)[:1]  # [3], known when traced
    return (rt.random.stateless_normal([3, 4], seed) + x, rt.random.stateless_uniform(n, seed),
            rt.random.stateless_uniform([5], seed, minval=-4, maxval=9, dtype=rt.int32),
            rt.random.stateless_uniform([2], seed, minval=None, maxval=None, dtype=rt.int64),
            rt.random.stateless_truncated_normal([6], seed, dtype=x.dtype),
            rt.random.stateless_binomial([4], seed, counts=8.0, probs=0.4),
            rt.random.stateless_categorical(x, 5, seed), rt.random.split(seed, 3),
            rt.random.fold_in(seed, 7))


def _vectorised(x):
    """Arrays of 128 elements or more (and, for the softmax family, 2048): each kind of op
    the tier hands to NumPy's routines."""
    return (rt.tanh(x), rt.exp(x * 0.5), x ** 1.5, rt.math.erf(x), rt.nn.softmax(x),
            rt.nn.log_softmax(x), rt.reduce_sum(x, axis=1), rt.reduce_max(x, axis=0),
            rt.reduce_mean(x, axis=1), rt.reduce_any(x > 0.5, axis=1))


_ANY_ROWS = [rt.TensorSpec([None, 4], rt.float32)]

def _loop_stacks(x):
    """A loop's gradient in the differentiable-again form that nested tapes around a compiled
    call build (its saves pushed on and popped from stacked tensors: StackPush/StackPop)."""
    with saving_stacks():
        with rt.GradientTape() as tape:
            tape.watch(x)
            h = x[0]
            for _ in rt.range(3):
                h = h * x[1] + 0.1
            y = rt.reduce_sum(h * 2.0)
        return tape.gradient(y, x)


# One kernel per group (Numba's compile time dominates); float64 and the vectorised paths
# have their own groups, so every op runs natively in at least one kernel.
GROUPS = {
    "unary_float": (programs.unary_float, [(x_values(F32),)], {}),
    "unary_float64": (programs.unary_float, [(x_values(F64),)], {}),
    "binary": (programs.binary, [(x_values(F32, (3, 4), -1, 1),)], {}),
    "integer": (_integer, [(_INTEGERS,)], {}),
    "reductions": (programs.reductions, [(x_values(F32),)], {}),
    # 8x32: NumPy's routines for the elementwise ops and reductions, the native softmax;
    # 64x64: NumPy's softmax too (vectorised.ROW_MIN_SIZE)
    "vectorised": (_vectorised, [(x_values(F64, (8, 32)),), (x_values(F64, (64, 64)),)], {}),
    "linalg": (_linalg, [(x_values(F64, (3, 4), -1, 1.5),)], {}),
    "special_and_signal": (_special_and_signal, [(x_values(F64),)], {}),
    "shapes": (programs.shapes, [(x_values(F32),)], {}),
    "gradients": (programs.gradients, [(rt.constant(x_values(F32)),)], {}),
    "loop_gradients": (_loop_gradients, [(rt.constant(x_values(F64)),)], {}),
    "loop_second_order": (_loop_second_order, [(rt.constant(x_values(F64)),)], {}),
    "loop_stacks": (_loop_stacks, [(rt.constant(x_values(F64)),)], {}),
    "tensor_arrays": (_tensor_arrays, [(x_values(F32),)], {}),
    "tensor_array_gradients": (_tensor_array_gradients, [(rt.constant(x_values(F32)),)], {}),
    "tensor_array_second_order": (_tensor_array_second_order, [(rt.constant(x_values(F64)),)], {}),
    "custom_gradient": (_custom, [(rt.constant(x_values(F32)),)], {}),
    "dynamic": (_dynamic, [(x_values(F32),)], {"input_signature": _ANY_ROWS}),
    "stateless_random": (_stateless_random, [(x_values(F32), np.array([3, 5], np.int64))], {}),
    "scatter_sort": (programs.scatter_sort, [(x_values(F32),)], {}),
    "scatter_sort_gradients": (programs.scatter_sort_gradients,
                               [(rt.constant(x_values(F64)),)], {}),
    "conv": (programs.conv, [(rt.constant(x_values(F64)),)], {}),
    "special_more": (programs.special_more, [(rt.constant(x_values(F64)),)], {}),
    "boxes": (programs.boxes, [(x_values(F32),)], {}),
    "conv3d": (programs.conv3d, [(rt.constant(x_values(F64)),)], {}),
    "ctc": (programs.ctc, [(rt.constant(x_values(F64)),)], {}),
    "image_crops": (programs.image_crops, [(x_values(F32),)], {}),
    "random_draws": (programs.random_draws, [(x_values(F32), np.array([3, 5], np.int64))], {}),
}

_results: dict = {}
_functions_of: dict = {}
_ops_found: dict = {}


def _run(group: str):
    """Per argument tuple: (jit values, numpy values, op types of the traced graph).

    A failure is cached too and raised again for every op of the group, so that one group
    that does not compile costs its compile time once, not once per op."""
    if group not in _results:
        try:
            _results[group] = _run_group(group)
        except Exception as exc:  # noqa: BLE001 -- kept and re-raised for each op's test
            _results[group] = exc
    found = _results[group]
    if isinstance(found, Exception):
        raise AssertionError(f"group {group!r} failed: {type(found).__name__}: {found}") \
            from found
    return found


def _functions(group: str):
    if group not in _functions_of:
        fn, _, options = GROUPS[group]
        _functions_of[group] = (rt.function(fn, jit_compile=True, autograph=True, **options),
                                rt.function(fn, autograph=True, **options))
    return _functions_of[group]


def _ops_of(group: str) -> set:
    """The op types of the group's traced graphs (tracing compiles nothing); a group that
    fails to trace fails at _run."""
    if group not in _ops_found:
        jitted, _ = _functions(group)
        found: set = set()
        try:
            for args in GROUPS[group][1]:
                graph_ops(jitted.get_concrete_function(*args).graph, found)
        except Exception as exc:  # noqa: BLE001
            _results[group] = exc
            found = {op for op in REGISTRY}  # every op's test reports the group's failure
        _ops_found[group] = found
    return _ops_found[group]


def _run_group(group: str):
    jitted, plain = _functions(group)
    runs = []
    for args in GROUPS[group][1]:
        ops = graph_ops(jitted.get_concrete_function(*args).graph, set())
        runs.append((rt.nest.flatten(jitted(*args)), rt.nest.flatten(plain(*args)), ops))
    return runs


def _compare(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (what, a.dtype, b.dtype, a.shape, b.shape)
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=what)
        ok = ~np.isnan(a)
        np.testing.assert_array_max_ulp(a[ok], b[ok], maxulp=MAX_ULP)
    else:
        np.testing.assert_array_equal(a, b, err_msg=what)


# op types the Numba tier refuses (docs/jit.md lists the same): it holds no strings
REFUSED: set = {"StringLength", "StringJoin", "ReduceJoin", "StringSplitV2", "StringUpper",
                "StringLower", "StringStrip", "StringFormat", "AsString", "StringToNumber",
                "StaticRegexReplace", "StaticRegexFullMatch", "Substr", "UnicodeDecode",
                "UnicodeSplit", "UnicodeEncode", "StringBytesSplit", "StringToHashBucketFast",
                "DecodeRaw", "DecodePng", "DecodeJpeg", "DecodeGif", "DecodeBmp", "DecodeImage",
                "EncodePng", "EncodeJpeg", "DecodeWav", "EncodeWav", "EncodeBase64",
                "DecodeBase64", "StringToHashBucket", "StringToHashBucketStrong", "Fingerprint",
                "UnsortedSegmentJoin", "UnicodeTranscode", "UnicodeDecodeOffsets", "StringNGrams"}
STATEFUL = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "Dropout", "PrintV2",
            "RandomShuffle",
            "RandomUniformDynamic", "RandomStandardNormalDynamic", "TruncatedNormalDynamic",
            "Assert", "RaiseUnless", "ReadVariableOp", "AssignVariableOp", "VarInitIfNeeded",
            "EagerPyFunc", "PyFunc",  # py_function/numpy_function: tests/runtime/test_py_function.py
            "DatasetIteratorOpen", "DatasetIteratorGetNext",  # rt.data: tests/data/test_staged.py
            "WriteSummary",  # rt.summary: tests/summary/test_summary.py
            # replicas meet: tests/distribute/test_mirrored_training.py compiles an all-reduce
            "CollectiveReduce", "WorkerAllReduce",
            # gamma and Poisson draws: tests/runtime/test_random_distributions.py
            "RandomGamma", "RandomPoissonV2",
            # a random crop's search, glimpses filled with noise: tests/runtime/test_image_crops.py
            "SampleDistortedBoundingBoxV2", "ExtractGlimpseV2",
            # candidate samplers: tests/runtime/test_candidate_sampling.py
            "CandidateSampler"}
GRAPH_OPS = sorted(set(builtin_ops()) - set(NOT_GRAPH_OPS) - STATEFUL - REFUSED - NUMPY_TIER_ONLY)


@pytest.mark.parametrize("op_type", GRAPH_OPS)
def test_op_matches_the_numpy_tier(op_type):
    seen = False
    for group in GROUPS:
        if op_type not in _ops_of(group):
            continue  # a group that does not build the op is not compiled for it
        for k, (jit, plain, ops) in enumerate(_run(group)):
            if op_type not in ops:
                continue
            seen = True
            assert len(jit) == len(plain)
            for j, (a, b) in enumerate(zip(jit, plain)):
                _compare(a, b, f"{group}[{k}] output {j}")
    assert seen, f"no group builds a {op_type} op"


def test_the_registry_is_covered():
    # ops that tests and docs examples define for themselves are not the runtime's
    assert (set(NOT_GRAPH_OPS) | STATEFUL | REFUSED | NUMPY_TIER_ONLY | set(GRAPH_OPS)
            == set(builtin_ops()))
    assert set(NOT_GRAPH_OPS) | NUMPY_TIER_ONLY <= set(builtin_ops())


# -- stateful ops -----------------------------------------------------------------------------

def _random(x):
    n = rt.stack([rt.reduce_sum(rt.cast(x > 0.0, rt.int32))])  # [12], from the values
    return (x + rt.random.uniform([3, 4], dtype=x.dtype), rt.random.normal([2], dtype=x.dtype),
            rt.random.truncated_normal([5], seed=3, dtype=x.dtype),
            rt.nn.dropout(x, 0.5, seed=7), rt.random.uniform([2], 0, 10, dtype=rt.int32),
            rt.random.uniform(n, dtype=x.dtype), rt.random.normal(n, dtype=x.dtype),
            rt.random.truncated_normal(n, dtype=x.dtype),  # shapes known when run: *Dynamic
            rt.random.shuffle(x, seed=5), rt.random.shuffle(x))


@pytest.mark.parametrize("dtype", [F32, F64])
def test_random_ops_draw_from_the_same_generators(dtype):
    x = x_values(dtype)
    jitted = rt.function(_random, jit_compile=True)
    plain = rt.function(_random)
    jitted.get_concrete_function(x)
    plain.get_concrete_function(x)
    ops = graph_ops(jitted.get_concrete_function(x).graph, set())
    assert {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "Dropout",
            "RandomUniformDynamic", "RandomStandardNormalDynamic", "TruncatedNormalDynamic",
            "RandomShuffle"} <= ops
    results = []
    for f in (jitted, plain):
        rt.random.set_seed(1234)
        first, second = rt.nest.flatten(f(x)), rt.nest.flatten(f(x))  # the generators advance
        results.append((first, second))
    for a, b in zip(results[0][0] + results[0][1], results[1][0] + results[1][1]):
        _compare(a, b, "random")
    assert not np.array_equal(results[0][0][0], results[0][1][0])


def test_print_prints_at_every_call_and_assert_raises():
    @rt.function(jit_compile=True)
    def f(x):
        rt.print("x:", x, output_stream=out)
        rt.debugging.Assert(rt.reduce_all(x > 0), ["x must be positive", x])
        return x * 2.0

    out = io.StringIO()
    x = np.array([1.5, 2.0], np.float32)
    f(x)
    f(x + 1)
    assert {"PrintV2", "Assert"} <= graph_ops(f.get_concrete_function(x).graph, set())
    jit_printed, out = out.getvalue(), io.StringIO()
    plain = rt.function(f.python_function)
    plain(x)
    plain(x + 1)
    assert jit_printed == out.getvalue() and jit_printed.count("x:") == 2
    with pytest.raises(rt.errors.InvalidArgumentError, match="must be positive"):
        f(-x)


def _raises(x):
    if rt.reduce_sum(x) < 0:
        raise ValueError("the sum is negative")
    return x + 1.0


def test_a_staged_raise_raises():
    f = rt.function(_raises, jit_compile=True)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(x), [2.0, 2.0])
    assert "RaiseUnless" in graph_ops(f.get_concrete_function(x).graph, set())
    with pytest.raises(ValueError, match="negative"):
        f(-x)


def test_variables_compile():
    v = rt.Variable(np.ones(3, np.float32))

    @rt.function(jit_compile=True)
    def f(x):
        v.assign_add(rt.math.erf(x))
        return v.read_value()

    x = np.full(3, 0.5, np.float32)
    ops = graph_ops(f.get_concrete_function(x).graph, set())
    assert {"ReadVariableOp", "AssignVariableOp"} <= ops
    before = v.numpy().copy()
    np.testing.assert_allclose(f(x), before + 0.5204999, rtol=1e-6)


def test_variables_initialised_on_first_call():
    made = []

    @rt.function(jit_compile=True)
    def f(x):
        if not made:  # an initial value computed from the argument: initialised in the graph
            made.append(rt.Variable(x * 2.0))
        made[0].assign_add(x)
        return made[0].read_value()

    x = np.ones(2, np.float32)
    assert "VarInitIfNeeded" in graph_ops(f.get_concrete_function(x).graph, set())
    np.testing.assert_allclose(f(x), [3.0, 3.0])  # 2 * x, then += x
    np.testing.assert_allclose(f(x), [4.0, 4.0])  # initialised once


# -- what may still be refused ----------------------------------------------------------------

def test_tensor_array_gradients_under_an_outer_tape_compile(caplog):
    def f(x):
        ta = rt.TensorArray(x.dtype, size=3).unstack(x)
        tb = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
        for i in rt.range(3):
            tb = tb.write(i, rt.tanh(ta.read(i)) * x[i])
        return (rt.reduce_sum(ta.stack() * ta.read(1)) + rt.reduce_sum(rt.sin(tb.concat())) +
                rt.reduce_sum(tb.gather([1, 1])))

    x = rt.constant(x_values(F32))
    grads = []
    for jit in (True, False):
        g = rt.function(f, jit_compile=jit, autograph=True)
        caplog.clear()
        with rt.GradientTape() as tape, caplog.at_level(logging.WARNING, "runtime.function"):
            tape.watch(x)
            y = g(x)
        grads.append(tape.gradient(y, x))
        assert not [r.getMessage() for r in caplog.records]  # no fallback to the NumPy tier
    _compare(grads[0], grads[1], "outer tape")


def test_a_refused_gradient_under_an_outer_tape_falls_back_to_the_numpy_tier(caplog):
    def f(x):  # the gradient of a loop nested in a loop needs an accumulator of accumulators
        h = x
        for _ in rt.range(2):
            for _ in rt.range(2):
                h = rt.tanh(h * x)
        return rt.reduce_sum(h)

    x = rt.constant(x_values(F32))
    grads = []
    for jit in (True, False):
        g = rt.function(f, jit_compile=jit, autograph=True)
        caplog.clear()
        with rt.GradientTape() as tape, caplog.at_level(logging.WARNING, "runtime.function"):
            tape.watch(x)
            y = g(x)
        grads.append(tape.gradient(y, x))
        messages = [r.getMessage() for r in caplog.records]
        if jit:  # the Numba tier refuses the backward graph: forward and backward run on NumPy
            assert any(re.search(r"gradient of .* runs on the NumPy tier: .*Accumulator\w*\)", m)
                       for m in messages), messages
        else:
            assert not messages
    np.testing.assert_array_equal(grads[0], grads[1])


def test_float16_is_refused_with_jit_compile_error():
    f = rt.function(lambda x: rt.math.erf(x) + x, jit_compile=True)
    with pytest.raises(JitCompileError, match="float16"):
        f(np.ones(3, np.float16))


def test_strings_are_refused_naming_the_op():
    f = rt.function(lambda x: rt.identity(rt.constant(["a", "b"])), jit_compile=True)
    with pytest.raises(JitCompileError):
        f(np.ones(2, np.float32))


_STRINGS = rt.strings
_STRING_OPS = {  # op type -> a function of one argument (strings, or floats) that builds it
    "StringLength": lambda x: _STRINGS.length(x), "StringJoin": lambda x: _STRINGS.join([x, x]),
    "ReduceJoin": lambda x: _STRINGS.reduce_join(x),
    "StringSplitV2": lambda x: _STRINGS.split(x[0]), "StringUpper": lambda x: _STRINGS.upper(x),
    "StringLower": lambda x: _STRINGS.lower(x), "StringStrip": lambda x: _STRINGS.strip(x),
    "StringFormat": lambda x: _STRINGS.format("{}", x), "AsString": lambda y: rt.as_string(y),
    "StringToNumber": lambda x: _STRINGS.to_number(x),
    "StringToHashBucket": lambda x: _STRINGS.to_hash_bucket(x, 5),
    "StringToHashBucketStrong": lambda x: _STRINGS.to_hash_bucket_strong(x, 5, [1, 2]),
    "Fingerprint": lambda x: rt.fingerprint(x),
    "UnsortedSegmentJoin": lambda x: _STRINGS.unsorted_segment_join(x, [1, 0], 2),
    "UnicodeTranscode": lambda x: _STRINGS.unicode_transcode(x, "UTF-8", "UTF-16-BE"),
    "UnicodeDecodeOffsets": lambda x: _STRINGS.unicode_decode_with_offsets(x[0], "UTF-8")[1],
    "StringNGrams": lambda x: _STRINGS.ngrams(rt.RaggedTensor.from_row_splits(
        x, [0, 2], validate=False), 2).values,
    "EncodeBase64": lambda x: rt.io.encode_base64(x), "DecodeBase64": lambda x: rt.io.decode_base64(x),
    "StaticRegexReplace": lambda x: _STRINGS.regex_replace(x, "a", "b"),
    "StaticRegexFullMatch": lambda x: _STRINGS.regex_full_match(x, "a"),
    "Substr": lambda x: _STRINGS.substr(x, 0, 1),
    "UnicodeDecode": lambda x: _STRINGS.unicode_decode(x[0], "UTF-8"),
    "UnicodeSplit": lambda x: _STRINGS.unicode_split(x[0], "UTF-8"),
    "UnicodeEncode": lambda y: _STRINGS.unicode_encode(rt.cast(y, rt.int32) + 100, "UTF-8"),
    "StringBytesSplit": lambda x: _STRINGS.bytes_split(x[0]),
    "StringToHashBucketFast": lambda x: _STRINGS.to_hash_bucket_fast(x, 5),
    "DecodeRaw": lambda x: rt.io.decode_raw(x, rt.uint8),
    "DecodePng": rt.io.decode_png, "DecodeJpeg": rt.io.decode_jpeg, "DecodeGif": rt.io.decode_gif,
    "DecodeBmp": rt.io.decode_bmp, "DecodeImage": rt.io.decode_image,
    "DecodeWav": lambda x: rt.audio.decode_wav(x)[0], "EncodePng": rt.io.encode_png,
    "EncodeJpeg": rt.io.encode_jpeg, "EncodeWav": lambda y: rt.audio.encode_wav(y, 8000)}
# the codecs' arguments: one encoded file (a 16-bit PNG needs no Pillow; a 1x1 BMP by hand), or
# an image / audio to encode
_PNG16 = rt.io.encode_png(np.zeros((1, 1, 3), np.uint16)).numpy()
_BMP = (b"BM" + struct.pack("<IHHI", 58, 0, 0, 54)
        + struct.pack("<IiiHHIIiiII", 40, 1, 1, 1, 24, 0, 4, 0, 0, 0, 0) + bytes(4))
_CODEC_ARGS = {"DecodePng": _PNG16, "DecodeJpeg": _PNG16, "DecodeGif": _PNG16,
               "DecodeImage": _PNG16, "DecodeBmp": _BMP,
               "DecodeWav": rt.audio.encode_wav(np.zeros((1, 1), np.float32), 8000).numpy(),
               "EncodePng": np.zeros((1, 1, 3), np.uint8), "EncodeJpeg": np.zeros((1, 1, 3), np.uint8),
               "EncodeWav": np.zeros((1, 1), np.float32),
               "DecodeBase64": np.array([b"YWI", b"YWJj"], object)}


def test_every_refused_op_is_a_string_op_with_a_case():
    assert set(_STRING_OPS) == REFUSED


@pytest.mark.parametrize("op_type", sorted(REFUSED))
def test_each_string_op_is_refused_naming_it(op_type):
    make = _STRING_OPS[op_type]
    numeric = op_type in ("AsString", "UnicodeEncode")
    arg = rt.constant([1.0, 2.0]) if numeric else rt.constant(["1", "2"])
    arg = rt.constant(_CODEC_ARGS[op_type]) if op_type in _CODEC_ARGS else arg
    # the op named is the first reading the string argument (x[0] for scalar-only ops)
    scalar_only = op_type in ("StringSplitV2", "UnicodeDecode", "UnicodeSplit", "StringBytesSplit",
                              "UnicodeDecodeOffsets")
    named = "StridedSlice" if scalar_only else op_type
    with pytest.raises(JitCompileError, match=rf"op '{named}' \({named}\)"):
        rt.function(make, jit_compile=True)(arg)
    plain = rt.function(make, jit_compile=False)
    assert op_type in {op.type for op in plain.get_concrete_function(arg).graph.operations}
    plain(arg)  # the NumPy tier runs it


def test_unknown_rank_is_refused_naming_the_op():
    spec = [rt.TensorSpec(None, rt.float32)]
    f = rt.function(lambda x: x * 2.0, jit_compile=True, input_signature=spec)
    with pytest.raises(JitCompileError, match="rank"):
        with contextlib.redirect_stderr(io.StringIO()):
            f(np.ones(3, np.float32))


@pytest.mark.parametrize("shape", [(3,), (3, 2)], ids=["scalar_rows", "vector_rows"])
def test_a_native_stack_pop_gives_the_numpy_tiers_rows_and_refuses_an_empty_stack(shape):
    """StackPop is written natively (a view of the rows but the last, a copy of the last row):
    the values are the NumPy kernel's, and popping an empty stack raises the NumPy tier's
    InvalidArgumentError (the kernel's failure runs the call again there)."""
    from runtime.gradients.while_grad import STACK_POP
    from runtime.ops.core import apply

    def pop_twice(buf):
        rest, top = apply(STACK_POP, [buf])
        rest, below = apply(STACK_POP, [rest])
        return rest, top, below
    buf = rt.constant(np.arange(np.prod(shape), dtype=F64).reshape(shape))
    signature = [rt.TensorSpec((None,) + shape[1:], rt.float64)]
    jitted = rt.function(pop_twice, jit_compile=True, autograph=False,
                         input_signature=signature)
    got = jitted(buf)
    assert "# StackPop" not in jitted.get_concrete_function().compiled.source  # no objmode call
    for a, b in zip(got, rt.function(pop_twice, autograph=False)(buf)):
        _compare(a, b, "pop")
    with pytest.raises(rt.errors.InvalidArgumentError, match="stack of a loop's saves is empty"):
        jitted(rt.constant(np.zeros((1,) + shape[1:], F64)))


@pytest.mark.parametrize("shape", [(2,), (2, 3)], ids=["scalar_rows", "vector_rows"])
def test_a_native_stack_push_gives_the_numpy_tiers_stacks_and_never_rewrites_a_row(shape):
    """StackPush is written natively: a loop carries its stack as a growing buffer and stores
    each row in place (37 pushes onto 2 rows grow it several times). A push onto a popped
    stack, a second push onto one stack and a push onto the input copy instead, so every
    stack keeps its rows: all equal to the NumPy tier's, the input unchanged. A row of
    another shape raises the NumPy tier's InvalidArgumentError."""
    from runtime.gradients.while_grad import STACK_POP, STACK_PUSH
    from runtime.ops.core import apply

    def pushes(buf, row):
        def body(i, stack):
            return i + 1, apply(STACK_PUSH, [stack, row * rt.cast(i, rt.float64)])
        grown = rt.while_loop(lambda i, stack: i < 37, body, (0, buf))[1]
        rest, top = apply(STACK_POP, [grown])
        again = apply(STACK_PUSH, [rest, row + 1.0])  # the row `grown` holds stays
        other = apply(STACK_PUSH, [rest, row + 2.0])  # and the row `again` holds
        return grown, top, rest, again, other, apply(STACK_PUSH, [buf, row])

    dims = (None,) * (len(shape) - 1)  # known when run: a row of another shape is traced too
    signature = [rt.TensorSpec((None,) + dims, rt.float64), rt.TensorSpec(dims, rt.float64)]
    jitted = rt.function(pushes, jit_compile=True, autograph=False, input_signature=signature)
    plain = rt.function(pushes, autograph=False, input_signature=signature)
    start = np.arange(np.prod(shape), dtype=F64).reshape(shape)
    buf, row = rt.constant(start), rt.constant(start[0] + 0.5)
    got = jitted(buf, row)
    assert "# StackPush" not in jitted.get_concrete_function().compiled.source  # no objmode call
    np.testing.assert_array_equal(buf.numpy(), start)
    names = ["grown", "top", "rest", "again", "other", "onto the input"]
    for a, b, what in zip(got, plain(buf, row), names):
        _compare(a, b, what)
    assert len(got[0]) == len(start) + 37
    if len(shape) > 1:
        with pytest.raises(rt.errors.InvalidArgumentError, match="StackPush"):
            jitted(buf, rt.constant(np.ones(shape[1] + 1, F64)))
