"""Fast callers serve nested arguments, keyword arguments and defaults, matching NumPy."""

from __future__ import annotations

import collections
import dataclasses

import numpy as np

import runtime as rt
from runtime.function.callers import _CallShape, leaf_reads

Pair = collections.namedtuple("Pair", "left right")


def _arrays(n, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.random((2, 3), dtype=np.float32) for _ in range(n)]


def _check_fast(f, expected, *args, **kwargs):
    for _ in range(3):
        np.testing.assert_allclose(f(*args, **kwargs).numpy(), expected, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
    assert len(f._cache.fast) == 1  # the repeated calls took the generated caller


def test_dict_of_tensors():
    a, b, c = _arrays(3)
    f = rt.function(lambda d: d["x"] * d["y"] - d["z"], autograph=False)
    _check_fast(f, a * b - c, {"z": rt.constant(c), "x": rt.constant(a), "y": rt.constant(b)})


def test_lists_tuples_and_namedtuples_at_depth():
    a, b, c, d = _arrays(4)
    f = rt.function(lambda xs, p: xs[0] + xs[1][0] * p.left - p.right, autograph=False)
    _check_fast(f, a + b * c - d, [rt.constant(a), (rt.constant(b),)],
                Pair(rt.constant(c), rt.constant(d)))


def test_numpy_leaves_and_python_leaves():
    a, b = _arrays(2)
    f = rt.function(lambda d: d["x"] * d["scale"] + d["y"], autograph=False)
    _check_fast(f, a * 2.0 + b, {"x": a, "y": rt.constant(b), "scale": 2.0})


def test_keyword_arguments_and_defaults():
    a, b, c = _arrays(3)
    default = rt.constant(c)

    def g(x, pair, *, bias=default):
        return x * pair[0] + pair[1] - bias
    f = rt.function(g, autograph=False)
    _check_fast(f, a * b + c - c, rt.constant(a), pair=(rt.constant(b), rt.constant(c)))


def test_dataclass_leaves_are_read_by_field():
    @dataclasses.dataclass
    class State:
        h: object
        c: object
        step: int = 0
    spec = State(rt.TensorSpec([2], rt.float32), rt.TensorSpec([2], rt.float32), 3)
    value = State(rt.constant([1.0, 2.0]), np.zeros(2, np.float32), 3)
    shape = _CallShape(guarded=False)
    leaf_reads(spec, value, "args[0]", shape)
    assert shape.reads == ["args[0].h._value", "args[0].c"]
    guarded = _CallShape(guarded=True)
    leaf_reads(spec, value, "args[0]", guarded)
    assert guarded.reads == ["v0", "v1"] and len(guarded.checks) == 4


def test_changed_structure_takes_the_slow_path_and_stays_correct():
    a, b, c = _arrays(3)
    f = rt.function(lambda d: sum(d.values()), autograph=False)
    np.testing.assert_allclose(f({"x": rt.constant(a), "y": rt.constant(b)}).numpy(), a + b)
    np.testing.assert_allclose(f({"x": rt.constant(a), "z": rt.constant(c)}).numpy(), a + c)
    np.testing.assert_allclose(f({"x": rt.constant(a), "y": rt.constant(c)}).numpy(), a + c)


def test_guarded_caller_falls_back_for_every_other_call_shape():
    a, b, c = _arrays(3)
    f = rt.function(lambda d, scale=1.0: (d["x"] + d["y"]) * scale, autograph=False)
    x, y = rt.constant(a), rt.constant(b)
    cases = [
        (({"x": x, "y": y},), {}, a + b),
        (({"x": x, "y": y, "z": y},), {}, a + b),                       # an extra key
        (({"x": x, "y": rt.constant(c[:1])},), {}, a + c[:1]),           # another shape
        (({"x": rt.constant(a.astype(np.float64)), "y": rt.constant(b.astype(np.float64))},), {},
         a.astype(np.float64) + b),
        (({"x": x, "y": b},), {}, a + b),                                # a NumPy leaf
        (({"x": x, "y": y}, 2.0), {}, (a + b) * 2),                      # a Python value
        (({"x": x, "y": y},), {"scale": 3.0}, (a + b) * 3),
        (({"x": x, "y": y},), {}, a + b),
    ]
    for _ in range(2):
        for args, kwargs, expected in cases:
            np.testing.assert_allclose(f(*args, **kwargs).numpy(), expected, rtol=1e-6)


def test_guarded_caller_steps_aside_under_a_tape():
    a, b = _arrays(2)
    f = rt.function(lambda d: rt.reduce_sum(d["x"] * d["y"]), autograph=False)
    d = {"x": rt.constant(a), "y": rt.constant(b)}
    f(d)
    f(d)
    with rt.GradientTape() as tape:
        tape.watch(d["x"])
        out = f(d)
    np.testing.assert_allclose(tape.gradient(out, d["x"]).numpy(), b, rtol=1e-6)


def test_a_call_shape_gets_its_caller_when_it_comes_again():
    a, b = _arrays(2)
    f = rt.function(lambda x, y: x * y + 1.0, autograph=False)
    first = f(rt.constant(a), rt.constant(b))
    assert len(f._cache.fast) == 0  # a function called once never generates a caller
    second = f(rt.constant(b), rt.constant(a))
    assert len(f._cache.fast) == 1
    third = f(rt.constant(a), rt.constant(a))  # served by the caller
    for got, want in ((first, a * b + 1), (second, b * a + 1), (third, a * a + 1)):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1


def test_flat_calls_are_guarded_and_alternating_shapes_stay_correct():
    a, b = _arrays(2)
    f = rt.function(lambda x, y: x * y + 1.0, autograph=False)
    wide = a.astype(np.float64)
    calls = [((rt.constant(a), rt.constant(b)), a * b + 1),
             ((a, b), a * b + 1),                                   # NumPy arrays
             ((rt.constant(wide), rt.constant(wide)), wide * wide + 1),
             ((rt.constant(a[:1]), rt.constant(b[:1])), a[:1] * b[:1] + 1)]
    for _ in range(3):
        for args, expected in calls:
            got = f(*args)
            assert got.dtype == rt.as_dtype(expected.dtype)
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)
    assert f._guarded is not None  # the guard of the last repeated shape


def test_the_guard_tells_minus_zero_and_nan_python_floats_apart():
    f = rt.function(lambda x, s: x * s, autograph=False)
    x = rt.constant(np.ones(2, np.float32))
    for s in (0.0, 0.0, -0.0, -0.0, 0.0, float("nan"), float("nan"), 2.5, 2.5, -0.0):
        got = f(x, s).numpy()
        np.testing.assert_array_equal(np.signbit(got), np.signbit(np.float32(s)))
        np.testing.assert_array_equal(np.isnan(got), np.isnan(s))
    assert f.experimental_get_tracing_count() == 4  # 0.0, -0.0, nan, 2.5 (as their keys)


def test_a_guarded_graph_dropped_from_the_cache_is_traced_again():
    a, b = _arrays(2)
    f = rt.function(lambda x: x * 2.0, autograph=False)
    size = rt.config.get_trace_cache_size()
    rt.config.set_trace_cache_size(1)
    try:
        for _ in range(3):
            f(rt.constant(a))
        f(rt.constant(b[:1]))  # drops the first graph
        np.testing.assert_allclose(f(rt.constant(a)).numpy(), a * 2.0)
    finally:
        rt.config.set_trace_cache_size(size)
    assert f.experimental_get_tracing_count() == 3
