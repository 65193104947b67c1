"""The trace cache: bounded, constant-time look-ups, keys that respect nan and -0.0, warnings
that repeat and name the argument that keeps changing."""

import linecache
import logging
import math
import time

import numpy as np
import pytest

import runtime as rt


@pytest.fixture
def cache_size():
    previous = rt.config.get_trace_cache_size()
    yield rt.config.set_trace_cache_size
    rt.config.set_trace_cache_size(previous)


def test_the_cache_keeps_the_most_recently_used_concrete_functions(cache_size):
    cache_size(3)
    f = rt.function(lambda x, n: x * n, autograph=False)
    x = rt.constant(2.0)
    for n in range(10):
        assert float(f(x, n)) == 2.0 * n
    assert len(f.list_concrete_functions()) == 3
    assert len(f._cache.fast) <= 3 and len(f._cache.by_key) <= 3
    count = f.experimental_get_tracing_count()
    assert float(f(x, 9)) == 18.0 and f.experimental_get_tracing_count() == count
    assert float(f(x, 0)) == 0.0 and f.experimental_get_tracing_count() == count + 1


def test_the_default_bound_is_256():
    assert rt.config.get_trace_cache_size() == 256
    with pytest.raises(ValueError):
        rt.config.set_trace_cache_size(0)


def test_many_distinct_python_values_cost_linear_time_and_bounded_memory(cache_size):
    """A trace after a thousand earlier ones costs what one of a fresh Function costs.

    Measured in CPU time (the process's own, which other processes' load barely moves),
    interleaved with the fresh Function's and the best of three each, so a loaded machine
    slows both sides alike; every table of the cache stays within the bound."""
    cache_size(16)
    x = rt.constant(1.0)

    def traced():
        return rt.function(lambda x, n: x * n, autograph=False)

    def cpu(f, values):
        start = time.process_time()
        for n in values:
            f(x, n)
        return time.process_time() - start
    f = traced()
    cpu(f, range(1000))  # a long history: all but the last 16 traces dropped
    fresh, later = [], []
    for k in range(3):
        fresh.append(cpu(traced(), range(100)))
        later.append(cpu(f, range(10_000 * (k + 1), 10_000 * (k + 1) + 100)))
    assert min(later) < 3 * min(fresh) + 0.05, (later, fresh)  # no growth with the history
    cache = f._cache
    assert len(f.list_concrete_functions()) == 16
    sizes = {name: len(getattr(cache, name)) for name in
             ("fast", "by_key", "traced", "_recent", "_keys", "_fast_owner")}
    sizes["_families"] = sum(len(members) for members in cache._families.values())
    assert max(sizes.values()) <= 16, sizes


def test_fitting_scans_only_traces_of_the_same_family():
    f = rt.function(lambda x, n: x * n, reduce_retracing=True, autograph=False)
    for n in range(20):
        f(rt.ones([2]), n)
    families = f._cache._families
    assert all(len(members) == 1 for members in families.values())


def test_nan_does_not_retrace_and_signed_zeros_do_not_share_a_graph():
    f = rt.function(lambda x, s: x * s, autograph=False)
    x = rt.constant(-1.0)
    for _ in range(4):
        assert math.isnan(float(f(x, math.nan)))
    assert f.experimental_get_tracing_count() == 1
    assert math.copysign(1.0, float(f(x, 0.0))) == -1.0
    assert math.copysign(1.0, float(f(x, -0.0))) == 1.0
    assert f.experimental_get_tracing_count() == 3


def test_the_retracing_warning_repeats_and_names_the_argument(caplog):
    f = rt.function(lambda x, step: x * step, autograph=False)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        for n in range(21):
            f(rt.constant(1.0), n)
    warnings = [r.getMessage() for r in caplog.records if "traced" in r.getMessage()]
    assert len(warnings) == 3  # after 5, 10 and 20 traces in a row
    assert all("'step'" in w for w in warnings)
    assert "traced 5 times" in warnings[0] and "traced 20 times" in warnings[2]


def test_dropped_concrete_functions_free_their_graphs(cache_size):
    import gc
    import weakref
    cache_size(2)
    f = rt.function(lambda x, n: x + n, autograph=False)
    f(rt.constant(1.0), 0)
    first = weakref.ref(f.list_concrete_functions()[0])
    filename = first().compiled.filename
    assert filename in linecache.cache
    for n in range(1, 4):
        f(rt.constant(1.0), n)
    gc.collect()
    assert first() is None
    assert filename not in linecache.cache  # the generated source goes with its graph
    np.testing.assert_allclose(f(rt.constant(1.0), 0).numpy(), 1.0)
