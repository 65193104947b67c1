"""Threads: compiled functions and variables used from many threads give exact results."""

import threading

import numpy as np
import pytest

import runtime as rt

THREADS = 8


def run_in_threads(work, n=THREADS):
    errors = []
    barrier = threading.Barrier(n)

    def target(i):
        try:
            barrier.wait()
            work(i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=target, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "eager"])
@pytest.mark.parametrize("method", ["assign_add", "assign_sub"])
def test_no_update_is_lost(compiled, method):
    v = rt.Variable(np.zeros(1000, np.float32))
    ones = rt.constant(np.ones(1000, np.float32))

    def step(x):
        getattr(v, method)(x)
    if compiled:
        step = rt.function(step)
        step(ones)
        v.assign(np.zeros(1000, np.float32))
    calls = 1250
    run_in_threads(lambda i: [step(ones) for _ in range(calls)])
    sign = 1 if method == "assign_add" else -1
    np.testing.assert_array_equal(v.numpy(), np.full(1000, sign * THREADS * calls, np.float32))


def test_shared_and_distinct_signatures_from_threads():
    total = rt.Variable(0, dtype=rt.int64)

    @rt.function
    def f(x, scale):
        total.assign_add(rt.reduce_sum(x) * scale)
        return x * scale

    def work(i):
        for k in range(200):
            shape = (i % 3 + 1,)  # shared and distinct signatures, some traced concurrently
            out = f(rt.ones(shape, dtype=rt.int64), k % 2 + 1)
            np.testing.assert_array_equal(out.numpy(), np.full(shape, k % 2 + 1))
    run_in_threads(work)
    expected = sum((i % 3 + 1) * (k % 2 + 1) for i in range(THREADS) for k in range(200))
    assert int(total.numpy()) == expected
    assert f.experimental_get_tracing_count() <= 6


def test_concurrent_first_conversions_and_calls():
    def make():
        def body(n):
            acc = 0
            for i in range(n):
                if i % 2 == 0:
                    acc += i
            return acc
        return body
    functions = [rt.function(make()) for _ in range(4)]
    results = {}

    def work(i):
        fn = functions[i % 4]
        results[i] = [int(fn(rt.constant(n))) for n in range(10)]
    run_in_threads(work)
    expected = [sum(i for i in range(n) if i % 2 == 0) for n in range(10)]
    assert all(r == expected for r in results.values())


def test_optimizer_steps_from_threads_are_all_applied():
    v = rt.Variable(np.zeros(4))
    opt = rt.optimizers.SGD(learning_rate=1.0)
    grad = rt.constant(np.full(4, -1.0))

    @rt.function
    def step():
        opt.apply_gradients([(grad, v)])
    step()
    v.assign(np.zeros(4))
    run_in_threads(lambda i: [step() for _ in range(100)])
    np.testing.assert_array_equal(v.numpy(), np.full(4, THREADS * 100.0))


def test_cached_calls_do_not_wait_behind_another_threads_trace():
    import time
    slow = threading.Event()

    @rt.function
    def f(x, mode):
        if mode == "slow":
            slow.set()
            time.sleep(0.5)  # a Python side effect: only while tracing
        return x + 1
    x = rt.constant(1.0)
    f(x, "fast")
    tracer = threading.Thread(target=f, args=(x, "slow"))
    tracer.start()
    slow.wait()
    start = time.perf_counter()
    with rt.GradientTape():  # under a tape every call takes the cache's slow path
        assert float(f(x, "fast")) == 2.0
    waited = time.perf_counter() - start
    tracer.join()
    assert waited < 0.25
