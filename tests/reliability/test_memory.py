"""Memory: retracing and dropping functions stays bounded, long staged loops run in flat
memory, and gradients through loops grow linearly with the trip count."""

import gc
import tracemalloc

import numpy as np

import runtime as rt


def allocated(fn):
    """Bytes still allocated after fn() runs and garbage is collected."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fn()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def peak(fn):
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def make_and_drop(rounds):
    def run():
        for _ in range(rounds):
            f = rt.function(lambda x, n: x * n + 1, autograph=False)
            for n in range(10):
                f(rt.constant(1.0), n)
            del f
    return run


def test_retracing_and_dropping_functions_stays_bounded():
    make_and_drop(5)()  # warm up caches that are bounded by design (caller factories, ...)
    small = allocated(make_and_drop(10))
    large = allocated(make_and_drop(40))
    assert large < small + 400_000, (small, large)


def test_a_bounded_cache_keeps_memory_flat_under_endless_retracing():
    previous = rt.config.get_trace_cache_size()
    rt.config.set_trace_cache_size(8)
    try:
        f = rt.function(lambda x, n: x * n, autograph=False)

        def calls(values):
            def run():
                for n in values:
                    f(rt.constant(1.0), n)
            return run
        calls(range(20))()
        first = allocated(calls(range(100, 200)))
        second = allocated(calls(range(1000, 1400)))
        assert second < first + 300_000, (first, second)
    finally:
        rt.config.set_trace_cache_size(previous)


def test_long_staged_loops_run_in_flat_memory():
    @rt.function
    def count(n):
        total = rt.constant(0.0)
        i = rt.constant(0)
        while i < n:
            total += rt.cast(i, rt.float32)
            i += 1
        return total
    count(rt.constant(10))
    short = peak(lambda: count(rt.constant(1_000)))
    long = peak(lambda: count(rt.constant(20_000)))
    assert long < short + 50_000, (short, long)


def test_gradients_through_loops_grow_linearly():
    x = rt.constant(np.full(100, 1.0001))

    @rt.function
    def grad(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            i = rt.constant(0)
            while i < n:
                y = y * x
                i += 1
            loss = rt.reduce_sum(y)
        return tape.gradient(loss, x)
    grad(x, rt.constant(2))
    small = peak(lambda: grad(x, rt.constant(200)))
    large = peak(lambda: grad(x, rt.constant(800)))
    per_step = 100 * 8  # one saved float64 vector of 100 per iteration
    assert large - small < 3 * (600 * per_step) + 100_000, (small, large)
    assert large > small  # it does save each iteration
