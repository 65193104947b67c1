"""Tiered execution: a jit_compile=True function runs on the NumPy tier while its kernel
compiles in a worker process, then switches to the kernel (docs/jit.md)."""

import os
import subprocess
import sys
import uuid

import numpy as np
import pytest

import runtime as rt
from runtime.backends.numba import split as split_module
from runtime.backends.numba import tiered
from runtime.backends.numba.split import split

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _worker_at_normal_priority(monkeypatch):
    # on a busy test machine a worker at nice 15 waits for every other process
    monkeypatch.setattr(tiered, "NICE", 0)
    monkeypatch.setattr(tiered, "IDLE", False)


def _step(tiered: bool, scale: float):
    """A function that updates a variable and returns a value of it: its results and the
    variable's values tell which tier ran it only through float rounding."""
    v = rt.Variable(np.linspace(-1.0, 1.0, 64, dtype=np.float32))

    def f(x):
        v.assign_add(rt.tanh(x) * scale)
        return rt.reduce_sum(v * v) + rt.sqrt(rt.abs(x) + 1.0)

    if tiered:
        return rt.function(f, jit_compile=True, experimental_wait_for_compile=False), v
    return rt.function(f, jit_compile=False), v


def test_calls_run_the_numpy_tier_until_the_kernel_is_ready_then_the_kernel():
    scale = float(np.float32(1.0 + uuid.uuid4().int % 1000 / 1e6))  # a kernel not yet cached
    xs = [np.full(64, 0.01 * k, np.float32) for k in range(6)]
    tiered, v_tiered = _step(True, scale)
    numpy, v_numpy = _step(False, scale)
    first, expected = tiered(xs[0]).numpy(), numpy(xs[0]).numpy()
    np.testing.assert_array_equal(first, expected)  # the NumPy tier's own result, bit for bit
    compiled = tiered.get_concrete_function(xs[0]).compiled
    assert compiled.wait(600)
    assert compiled.background.error is None
    assert compiled.kernel.signatures  # calls now run the kernel
    for x in xs[1:]:
        np.testing.assert_allclose(tiered(x).numpy(), numpy(x).numpy(), rtol=1e-5)
    np.testing.assert_allclose(v_tiered.numpy(), v_numpy.numpy(), rtol=1e-5, atol=1e-6)


def test_waiting_compiles_on_the_first_call():
    f = rt.function(lambda x: rt.exp(x) * 2.0 - 1.0, jit_compile=True,
                    experimental_wait_for_compile=True)
    x = np.linspace(0.0, 1.0, 8, dtype=np.float32)
    np.testing.assert_allclose(f(x), np.exp(x) * 2.0 - 1.0, rtol=1e-6)
    compiled = f.get_concrete_function(x).compiled
    assert compiled.background is None and compiled.kernel.signatures
    assert compiled.wait(0)


def test_the_global_setting_is_the_default_of_each_function():
    assert rt.config.experimental.get_jit_wait_for_compile()  # set by tests/conftest.py
    rt.config.experimental.set_jit_wait_for_compile(False)
    try:
        f = rt.function(lambda x: x * 3.0 + 0.25, jit_compile=True)
        x = np.ones(4, np.float32)
        np.testing.assert_array_equal(f(x), np.full(4, 3.25, np.float32))
        compiled = f.get_concrete_function(x).compiled
        assert compiled.background is not None and compiled.wait(600)
        np.testing.assert_array_equal(f(x), np.full(4, 3.25, np.float32))
    finally:
        rt.config.experimental.set_jit_wait_for_compile(True)


def test_the_wait_options_refuse_values_that_are_not_bools():
    with pytest.raises(TypeError, match="experimental_wait_for_compile"):
        rt.function(lambda x: x, jit_compile=True, experimental_wait_for_compile="yes")
    with pytest.raises(TypeError, match="experimental_wait_for_compile"):
        rt.function(lambda x: x, jit_compile=True, experimental_wait_for_compile=1)
    with pytest.raises(TypeError, match="enabled must be a bool"):
        rt.config.experimental.set_jit_wait_for_compile(None)
    with pytest.raises(TypeError, match="experimental_wait_for_compil"):
        rt.function(lambda x: x, jit_compile=True, experimental_wait_for_compil=True)


def test_a_large_kernel_is_split_into_parts_and_its_repeats_compile_once(monkeypatch):
    monkeypatch.setattr(split_module, "SPLIT_MIN", 1000)  # this kernel is a small one
    monkeypatch.setattr(split_module, "PART_MIN", 100)
    steps = 30

    def unrolled(x, w):
        h = x
        for _ in range(steps):  # a Python loop: unrolled into the graph as an RNN's steps
            h = rt.tanh(rt.matmul(h, w)) * 0.5 + h * 0.5
        return h

    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    w = (np.random.default_rng(1).standard_normal((8, 8)) * 0.3).astype(np.float32)
    f = rt.function(unrolled, jit_compile=True, autograph=False)
    source = f.get_concrete_function(x, w).generated_source
    calls = [line.split("= ")[-1].split("(")[0] for line in source.splitlines()
             if "= part" in line]
    assert len(calls) >= 4 and len(set(calls)) < len(calls) / 2  # the steps share parts
    np.testing.assert_allclose(f(x, w), rt.function(unrolled, autograph=False)(x, w),
                               rtol=1e-5, atol=1e-6)


def test_a_small_kernel_is_not_split():
    source = ("import numba\n@numba.njit(cache=True)\ndef kernel(a0):\n    t0 = a0 + 1\n"
              "    return (t0, )\n")
    assert split(source) is None


SCRIPT = """
import sys, numpy as np, runtime as rt
from runtime.backends.numba import tiered
tiered.NICE, tiered.IDLE = 0, False  # a busy test machine
scale = float(sys.argv[1])
f = rt.function(lambda x: rt.sqrt(x * x + scale) * 0.5, jit_compile=True, autograph=False)
x = np.ones(8, np.float32)
first = f(x).numpy()
imported = "numba" in sys.modules  # not before the worker has the kernel
compiled = f.get_concrete_function(x).compiled
assert compiled.wait(600) and compiled.background.error is None
print(imported, compiled.background.worker["cache_hits"],
      sum(compiled.kernel.stats.cache_hits.values()),
      sum(compiled.kernel.stats.cache_misses.values()), float(f(x).numpy().sum()))
"""


@pytest.mark.slow
def test_a_second_process_loads_the_kernel_without_compiling(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    scale = str(1.0 + uuid.uuid4().int % 1000 / 1e4)
    runs = [subprocess.run([sys.executable, "-c", SCRIPT, scale], env=env, cwd=ROOT,
                           capture_output=True, text=True, check=True, timeout=900)
            for _ in range(2)]
    first, second = (run.stdout.split() for run in runs)
    # the first process's worker compiled the kernel, which the process loaded from the cache
    assert first[:4] == ["False", "0", "1", "0"]
    # the second's worker found it in the cache: nothing compiled it again
    assert second[:4] == ["False", "1", "1", "0"]
    assert first[4] == second[4]
