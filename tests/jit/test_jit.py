"""jit_compile=True: the Numba tier gives the NumPy tier's results, and says what it cannot do."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from runtime.backends import numba as jit
from runtime.backends.numba import fusion

from .corpus import CASES


def _both(fn, args):
    jitted = rt.function(fn, jit_compile=True)(*args)
    plain = rt.function(fn)(*args)
    return rt.nest.flatten(jitted), rt.nest.flatten(plain)


@pytest.mark.parametrize("name, fn, args", CASES, ids=[c[0] for c in CASES])
def test_corpus_matches_the_numpy_tier(name, fn, args):
    jitted, plain = _both(fn, args)
    assert len(jitted) == len(plain)
    for a, b in zip(jitted, plain):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (name, a.dtype, b.dtype, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)


def test_the_kernel_is_numba_source_with_fused_loops(monkeypatch):
    monkeypatch.setattr(fusion, "PARALLEL_MIN_SIZE", 100_000)
    # (no transcendental function: those run NumPy's vectorised routine, vectorised.py)
    f = rt.function(lambda x: rt.sqrt(x * 2.0 + 1.0) - x, jit_compile=True)
    x = np.linspace(-1, 1, 200_000, dtype=np.float32)
    source = f.get_concrete_function(x).generated_source
    assert "@numba.njit(cache=True" in source and "parallel=True" in source
    assert source.count("numba.prange(200000)") == 1  # three ops, one loop
    np.testing.assert_allclose(f(x), np.sqrt(x * 2 + 1) - x, rtol=1e-6)
    small = f.get_concrete_function(np.ones(10, np.float32)).generated_source
    assert "for i0_ in range(10):" in small and "parallel" not in small


def test_while_and_cond_become_native_control_flow():
    f = rt.function(lambda n: rt.while_loop(lambda i: i < n, lambda i: rt.cond(
        i % 2 == 0, lambda: i + 1, lambda: i + 3), [0]), jit_compile=True, autograph=False)
    source = f.get_concrete_function(np.int32(5)).generated_source
    assert "while True:" in source and "if " in source
    assert int(f(np.int32(10))[0]) == 12  # 0 1 4 5 8 9 12


def test_variables_are_read_and_assigned_inside_kernels():
    v = rt.Variable(np.zeros(3, np.float32))
    count = rt.Variable(0)

    @rt.function(jit_compile=True)
    def step(x):
        for _ in rt.range(4):
            v.assign_add(x)
            count.assign_add(1)
        return v.read_value() * 2.0

    np.testing.assert_allclose(step(np.ones(3, np.float32)), [8.0, 8.0, 8.0])
    np.testing.assert_allclose(step(np.ones(3, np.float32)), [16.0, 16.0, 16.0])
    assert int(count.numpy()) == 8 and count.numpy().dtype == np.int32


def test_variables_created_on_the_first_call_run_it_on_the_numpy_tier():
    made = []

    @rt.function(jit_compile=True)
    def f(x):
        if not made:
            made.append(rt.Variable(np.ones(2, np.float32)))
        made[0].assign_add(x)
        return made[0].read_value()

    np.testing.assert_allclose(f(np.ones(2, np.float32)), [2.0, 2.0])
    np.testing.assert_allclose(f(np.ones(2, np.float32)), [3.0, 3.0])


def test_gradients_taken_inside_a_compiled_function_are_compiled_too():
    w = rt.Variable(np.array([0.5, -1.0, 2.0], np.float32))

    def train_step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.tanh(x * w) ** 2.0)
        g = tape.gradient(loss, w)
        w.assign_sub(0.1 * g)
        return loss

    x = np.array([1.0, 2.0, -0.5], np.float32)
    jitted = rt.function(train_step, jit_compile=True)
    losses = [float(jitted(x)) for _ in range(3)]
    jitted_w = w.numpy().copy()
    w.assign(np.array([0.5, -1.0, 2.0], np.float32))
    plain = rt.function(train_step)
    expected = [float(plain(x)) for _ in range(3)]
    np.testing.assert_allclose(losses, expected, rtol=1e-5)
    np.testing.assert_allclose(jitted_w, w.numpy(), rtol=1e-5)


def test_gradients_of_a_call_through_an_outer_tape_use_the_numpy_tier():
    f = rt.function(lambda x: rt.reduce_sum(x * x), jit_compile=True)
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x), [2.0, 4.0])
    assert float(y) == 5.0


def test_an_unsupported_op_names_the_op_and_the_users_line():
    def f(x):
        return rt.cast(x * 2.0, rt.float16)  # the line the error names: no float16 in kernels

    line = f.__code__.co_firstlineno + 1
    with pytest.raises(jit.JitCompileError, match=rf"Cast.*test_jit.py:{line} in f\(\).*float16"):
        rt.function(f, jit_compile=True)(np.ones((2, 2), np.float32))
    np.testing.assert_allclose(rt.function(f)(np.ones((2, 2), np.float32)), [[2, 2], [2, 2]])


def test_jit_compile_false_or_none_stays_on_the_numpy_tier():
    for flag in (None, False):
        f = rt.function(lambda x: x + 1.0, jit_compile=flag)
        assert "numba" not in f.get_concrete_function(np.ones(2, np.float32)).generated_source


def test_without_numba_jit_compile_asks_for_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` now fails as if absent
    with pytest.raises(ImportError, match=r"pip install 'autograph-rt\[jit\]'"):
        rt.function(lambda x: x, jit_compile=True)
    assert rt.function(lambda x: x + 1, jit_compile=False)(rt.constant(1)).numpy() == 2


def test_compile_time_is_logged_at_verbosity_1(capsys):
    old = ag.get_verbosity()
    ag.set_verbosity(1, alsologtostdout=True)
    try:
        rt.function(lambda x: x * 3.0, jit_compile=True)(np.ones(4, np.float32))
    finally:
        ag.set_verbosity(old)
    assert "jit_compile:" in capsys.readouterr().out


SCRIPT = """
import logging, numpy as np, runtime as rt
logging.basicConfig(level=logging.INFO, format="%(message)s")
f = rt.function(lambda x: rt.sqrt(x * x + 1.0) * 0.5, jit_compile=True, autograph=False,
                experimental_wait_for_compile=True)
print(float(rt.reduce_sum(f(np.ones(8, np.float32)))))
"""


def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    runs = [subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root, capture_output=True,
                           text=True, check=True) for _ in range(2)]
    assert " compiled with numba" in runs[0].stderr
    assert "loaded from the on-disk cache" in runs[1].stderr
    assert runs[0].stdout == runs[1].stdout
    assert os.listdir(tmp_path / "autograph-rt" / "numba")


def test_kernels_of_another_optimisation_level_are_cached_apart(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kernels = []
    for level in ("0", "1", "0"):
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path), NUMBA_OPT=level)
        run = subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=root,
                             capture_output=True, text=True, check=True)
        kernels.append(sorted(f for f in os.listdir(tmp_path / "autograph-rt" / "numba")
                              if f.endswith(".py")))
        assert ("loaded from the on-disk cache" in run.stderr) == (len(kernels) == 3)
    assert len(kernels[0]) == 1 and len(kernels[1]) == 2 and kernels[2] == kernels[1]


def test_tensor_array_misuse_raises_as_on_the_numpy_tier():
    @rt.function(autograph=False, jit_compile=True)
    def unwritten():
        t = rt.TensorArray(rt.float32, size=3)
        t = t.write(0, 1.0)
        return t.read(2)

    @rt.function(autograph=False, jit_compile=True)
    def past_the_end():
        t = rt.TensorArray(rt.float32, size=2)
        return t.write(3, rt.constant([1.0])).stack()

    for f in (unwritten, past_the_end):
        with pytest.raises(rt.errors.InvalidArgumentError):
            f()


def test_a_fill_joins_the_loop_that_uses_it():
    from .corpus import appended_rows
    source = rt.function(appended_rows, jit_compile=True).get_concrete_function(
        np.int32(3)).generated_source
    assert "np.full" not in source and source.count("for i") == 1


def _erf_in_a_loop_then_after(x):
    i = rt.constant(0)
    while i < 3:
        x = rt.math.erf(x) + 0.5  # Erf has no native form: an objmode block inside the loop
        i += 1
    return rt.math.erf(x)  # and one after it


def test_object_mode_blocks_inside_and_after_a_loop_compile():
    # Numba sets up its Python API at the first objmode block it lowers; nested in the loop,
    # that did not dominate the block after it ("Instruction does not dominate all uses!")
    x = np.linspace(-1.0, 1.0, 5)
    jitted, plain = _both(rt.function(_erf_in_a_loop_then_after, autograph=True).python_function,
                          (x,))
    np.testing.assert_array_max_ulp(jitted[0], plain[0], maxulp=2)


def test_a_failure_inside_numba_or_llvm_is_a_jit_compile_error(monkeypatch):
    import numba

    def rejects(self, sig):
        raise RuntimeError("Instruction does not dominate all uses!")

    monkeypatch.setattr(numba.core.dispatcher.Dispatcher, "compile", rejects)
    f = rt.function(lambda x: x * 3.0 + 1.0, jit_compile=True)
    with pytest.raises(jit.JitCompileError, match=r"RuntimeError: Instruction does not dominate"):
        f(np.ones(3))
