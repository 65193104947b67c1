"""The XLA tier end to end: control flow, variables, gradients, random numbers, the
missing-JAX error."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.backends.base import JitCompileError  # noqa: E402
from runtime.backends.xla import compiler, host_memory  # noqa: E402
from runtime.passes import run_passes  # noqa: E402


def _both(fn, *args, **options):
    """fn on the XLA tier and on the NumPy tier."""
    return (rt.function(fn, jit_compile="xla", **options)(*args),
            rt.function(fn, **options)(*args))


def _strict(fn, *args):
    concrete = rt.function(fn).get_concrete_function(*args)
    return compiler.compile_graph(run_passes(concrete.graph), "f")


def test_loops_and_branches_match_the_numpy_tier():
    def f(x, n):
        i = rt.constant(0)
        s = rt.zeros_like(x)
        while i < n:
            if rt.reduce_sum(s) > 10.0:
                s = s * 0.5
            else:
                s = s + x * rt.cast(i, x.dtype)
            i += 1
        return s, i
    x = np.linspace(0.1, 1.0, 5)
    for n in (0, 3, 17):
        (a, ai), (b, bi) = _both(f, x, np.int32(n))
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)
        assert ai.numpy() == bi.numpy() == n
    assert isinstance(_strict(f, x, np.int32(3)), compiler.XlaCompiled)


def test_maximum_iterations():
    f = lambda x: rt.while_loop(lambda v: v < 100.0, lambda v: v + 1.0, [x],  # noqa: E731
                                maximum_iterations=5)
    a, b = _both(f, np.float64(0.0))
    assert a[0].numpy() == b[0].numpy() == 5.0


def test_a_loop_variable_that_changes_shape_is_refused():
    def f(x):
        return rt.while_loop(lambda v: rt.size(v) < 8, lambda v: rt.concat([v, v], 0), [x],
                             shape_invariants=[rt.TensorShape([None])])
    with pytest.raises(JitCompileError, match="While"):
        _strict(f, np.ones(1))
    with pytest.raises(JitCompileError, match=r"loop variable #0 enters the loop with shape"):
        rt.function(f, jit_compile="xla")(np.ones(1))


def test_variables_are_read_and_stored_after_the_call():
    v = rt.Variable(np.zeros(3))
    k = rt.Variable(0, dtype=rt.int64)

    @rt.function(jit_compile="xla")
    def step(x):
        v.assign_add(x)
        k.assign_add(1)
        if k > 2:
            v.assign(v * 2.0)
        return v.read_value() + 1.0
    for _ in range(4):
        out = step(np.ones(3))
    assert k.numpy() == 4
    np.testing.assert_allclose(v.numpy(), [14.0, 14.0, 14.0])  # (((1+1+1)*2)+1)*2
    np.testing.assert_allclose(out.numpy(), v.numpy() + 1.0)
    assert isinstance(k.numpy(), np.int64)


def test_concurrent_updates_are_not_lost():
    v = rt.Variable(0.0, dtype=rt.float64)
    inc = rt.function(lambda: v.assign_add(1.0), jit_compile="xla")
    inc()
    threads = [threading.Thread(target=lambda: [inc() for _ in range(50)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert v.numpy() == 201.0


def test_a_variable_created_in_the_function_is_initialised_on_the_first_call():
    holder = []

    @rt.function(jit_compile="xla")
    def f(x):
        if not holder:
            holder.append(rt.Variable(rt.ones([2]) * 3.0))
        holder[0].assign_add(x)
        return holder[0].read_value()
    np.testing.assert_allclose(f(np.ones(2, np.float32)).numpy(), [4.0, 4.0])
    np.testing.assert_allclose(f(np.ones(2, np.float32)).numpy(), [5.0, 5.0])


def test_gradients_under_an_outer_tape_match_the_numpy_tier():
    w = rt.Variable(np.linspace(-1, 1, 12).reshape(4, 3))

    def loss(x):
        h = rt.tanh(rt.matmul(x, w))
        if rt.reduce_sum(h) > 0.0:
            h = h * 2.0
        return rt.reduce_mean(rt.nn.softmax(h) * h) + rt.reduce_sum(x * x)
    x = rt.constant(np.linspace(0.1, 0.9, 8).reshape(2, 4))
    grads = []
    for tier in ("xla", False):
        f = rt.function(loss, jit_compile=tier)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        grads.append([g.numpy() for g in tape.gradient(y, [x, w])])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    # against finite differences
    eps, x0 = 1e-6, x.numpy()
    f = rt.function(loss, jit_compile="xla")
    bump = np.zeros_like(x0)
    bump[1, 2] = eps
    fd = (f(x0 + bump).numpy() - f(x0 - bump).numpy()) / (2 * eps)
    np.testing.assert_allclose(grads[0][0][1, 2], fd, rtol=1e-6)


def test_random_numbers_are_reproducible_with_set_seed():
    f = rt.function(lambda: (rt.random.uniform([1000]), rt.random.normal([2000], seed=3)),
                    jit_compile="xla")
    rt.random.set_seed(7)
    a = [t.numpy() for t in f()]
    b = [t.numpy() for t in f()]
    rt.random.set_seed(7)
    c = [t.numpy() for t in f()]
    for x, y in zip(a, c):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], b[0])  # a fresh draw at every call
    assert 0.0 <= a[0].min() and a[0].max() < 1.0 and abs(a[0].mean() - 0.5) < 0.05
    assert abs(a[1].std() - 1.0) < 0.1 and a[1].dtype == np.float32


def test_float64_stays_float64_and_scalars_are_numpy_scalars():
    a, b = _both(lambda x: (rt.reduce_sum(x), x * 2.0), np.arange(3.0))
    assert a[0].numpy().dtype == np.float64 and isinstance(a[0].numpy(), np.float64)
    assert a[1].numpy().dtype == b[1].numpy().dtype == np.float64


def test_without_jax_the_error_names_the_extra():
    # a fresh process where importing jax fails, as when it is not installed
    code = textwrap.dedent("""
        import sys
        sys.modules["jax"] = None
        import runtime as rt
        f = rt.function(lambda x: x, jit_compile=True)  # the other tiers are unaffected
        try:
            rt.function(lambda x: x, jit_compile="xla")
        except ImportError as exc:
            print(exc)
        else:
            print("no error")
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "pip install 'autograph-rt[xla]'" in out.stdout, out.stdout


def test_stateless_random_ops_depend_only_on_the_seed():
    def draw(seed):
        return (rt.random.stateless_uniform([1000], seed),
                rt.random.stateless_normal([2000], seed, dtype=rt.float64),
                rt.random.stateless_truncated_normal([2000], seed),
                rt.random.stateless_uniform([1000], seed, minval=-4, maxval=9, dtype=rt.int32),
                rt.random.stateless_uniform([1000], seed, minval=None, maxval=None,
                                            dtype=rt.int64))
    f = rt.function(draw, jit_compile="xla")
    a = [t.numpy() for t in f(np.array([1, 2], np.int64))]
    b = [t.numpy() for t in f(np.array([1, 2], np.int64))]
    c = [t.numpy() for t in f(np.array([1, 3], np.int64))]
    want = [t.numpy() for t in rt.function(draw)(np.array([1, 2], np.int64))]
    for x, y, z, w in zip(a, b, c, want):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
        assert x.dtype == w.dtype and x.shape == w.shape
    u, n, t, i, full = a
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.05
    assert abs(n.mean()) < 0.1 and abs(n.std() - 1.0) < 0.1
    assert np.abs(t).max() <= 2.0 and abs(t.std() - 0.88) < 0.05
    assert i.min() == -4 and i.max() == 8
    assert full.min() < -2**61 and full.max() > 2**61


@pytest.mark.parametrize("seed_dtype", [np.int64, np.int32])
def test_stateless_draws_equal_the_numpy_tiers(seed_dtype):
    # both tiers draw TensorFlow's Philox streams (runtime/ops/philox.py): the same bits,
    # whether the seed is a constant or an argument; the truncated normal is JAX's own
    def draw(seed, lo):
        return (rt.random.stateless_uniform([5, 7], seed),
                rt.random.stateless_uniform([9], seed, dtype=rt.float64),
                rt.random.stateless_uniform([4], seed, dtype=rt.float16),
                rt.random.stateless_normal([13], seed),
                rt.random.stateless_normal([6], seed, dtype=rt.float64),
                rt.random.stateless_uniform([11], seed, minval=lo, maxval=1000, dtype=rt.int32),
                rt.random.stateless_uniform([5], seed, minval=-2**40, maxval=2**40,
                                            dtype=rt.int64),
                rt.random.stateless_uniform([5], seed, minval=None, maxval=None,
                                            dtype=rt.int64))
    for seed in ([1, 2], [-3, 2**31 - 1], [0, 0]):
        args = (np.array(seed, seed_dtype), np.int32(-7))
        xla = rt.function(draw, jit_compile="xla")(*args)
        numpy_tier = rt.function(draw)(*args)
        for x, y in zip(xla, numpy_tier):
            assert x.dtype == y.dtype
            np.testing.assert_array_equal(x.numpy(), y.numpy())
    g, h = rt.random.Generator.from_seed(3), rt.random.Generator.from_seed(3)
    compiled = rt.function(lambda: g.normal([4]), jit_compile="xla")
    for _ in range(2):  # the compiled draw advances the state as the eager one does
        np.testing.assert_array_equal(compiled().numpy(), h.normal([4]).numpy())
    np.testing.assert_array_equal(g.state.numpy(), h.state.numpy())


def test_dropout_keeps_the_rate_and_scales_and_its_gradient_is_the_mask():
    x = rt.constant(np.ones((200, 100), np.float32))

    @rt.function(jit_compile="xla")
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.dropout(x, rate=0.25)
            total = rt.reduce_sum(y * 3.0)
        return y, tape.gradient(total, x)
    y, g = (t.numpy() for t in f(x))
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    np.testing.assert_allclose(g, 3.0 * y, rtol=1e-6)
    rows = rt.function(lambda x: rt.nn.dropout(x, rate=0.5, noise_shape=[200, 1]),
                       jit_compile="xla")(x).numpy()
    assert all(len(set(r)) == 1 for r in rows)  # one draw per row


def _offset_view(shape, dtype, offset):
    """An array of `shape` whose data starts `offset` bytes past a 64-byte boundary."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(n + 128, np.uint8)
    start = -raw.ctypes.data % 64 + offset
    return raw[start:start + n].view(dtype).reshape(shape)


@pytest.mark.parametrize("offset", [0, 16, 8])
def test_large_inputs_at_any_alignment_give_the_numpy_values(offset):
    x = _offset_view((300, 200), np.float32, offset)
    x[...] = np.random.default_rng(0).standard_normal(x.shape)
    before = x.copy()

    def f(x):
        return rt.nn.softmax(x * 2.0, axis=1), rt.transpose(x)
    got, want = _both(f, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(x, before)  # the caller's array is not written
    strided = np.asfortranarray(x)  # not C-ordered: copied in order before the call
    got, want = _both(f, strided)
    np.testing.assert_allclose(np.asarray(got[0]), np.asarray(want[0]), rtol=1e-6, atol=1e-6)


def test_aligned_copies_are_aligned_writable_and_equal():
    x = _offset_view((128, 129), np.float64, 16)
    x[...] = np.arange(x.size).reshape(x.shape)
    copy = compiler._aligned(x)
    assert copy.ctypes.data % 64 == 0 and copy.flags.writeable and copy.flags.c_contiguous
    np.testing.assert_array_equal(copy, x)
    assert not np.shares_memory(copy, x)
    aligned = _offset_view((128, 129), np.float64, 0)
    assert compiler._aligned(aligned) is aligned  # read in place: no copy
    small = np.ones(3)
    assert compiler._aligned(small) is small


def test_stored_variables_stay_aligned_and_writable():
    v = rt.Variable(np.zeros((256, 128), np.float32))

    @rt.function(jit_compile="xla")
    def step(x):
        v.assign_add(x)
        return rt.reduce_sum(v)
    x = np.ones((256, 128), np.float32)
    for k in range(1, 4):
        assert float(step(x)) == pytest.approx(k * x.size)
        value = v._value
        assert value.ctypes.data % 64 == 0 and value.flags.writeable
    np.testing.assert_array_equal(v.numpy(), 3 * x)


def test_small_pure_branches_select_and_match_python():
    def f(n, eos):
        i = rt.constant(0)
        tok = rt.constant(1)
        total = rt.constant(0)
        while i < n and (i == 0 or tok != eos):
            tok = (tok * 7 + 3) % 11
            total += tok if tok % 2 == 0 else -tok
            i += 1
        return i, total

    def python(n, eos):
        i, tok, total = 0, 1, 0
        while i < n and (i == 0 or tok != eos):
            tok = (tok * 7 + 3) % 11
            total += tok if tok % 2 == 0 else -tok
            i += 1
        return i, total
    xla = rt.function(f, jit_compile="xla")
    for n, eos in [(0, 5), (1, 5), (30, 5), (30, 4), (30, 99)]:
        got = xla(np.int32(n), np.int32(eos))
        assert tuple(int(v) for v in got) == python(n, eos)
    compiled = _strict(f, np.int32(30), np.int32(5))
    assert "cond[" not in str(jax.make_jaxpr(compiled.jitted)(np.int32(30), np.int32(5)))


def test_host_allocator_is_tuned_once_unless_asked_not_to():
    rt.function(lambda x: x + 1.0, jit_compile="xla")(np.ones(3))
    expected = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert host_memory.tune() is expected
    code = textwrap.dedent("""
        import numpy as np, runtime as rt
        from runtime.backends.xla import host_memory
        rt.function(lambda x: x + 1.0, jit_compile="xla")(np.ones(3))
        print(host_memory.tune())
    """)
    env = dict(os.environ, RT_XLA_HOST_ALLOCATOR="system")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True).stdout.strip()
    assert out == "False"


def _gpus() -> list:
    try:
        return jax.devices("gpu")
    except RuntimeError:  # this JAX has no GPU backend
        return []


def _default_device_run(platform_name: str):
    def f(x):
        return rt.reduce_sum(rt.tanh(rt.matmul(x, x)), axis=1)
    x = np.random.default_rng(5).standard_normal((64, 64)).astype(np.float32)
    got, want = _both(f, x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)
    outs = _strict(f, x).jitted(x)  # a graph without variables: its outputs alone
    assert {d.platform for d in outs[0].devices()} == {platform_name}
    assert outs[0].devices() == {jax.devices()[0]}


def test_runs_on_jaxs_default_device():
    _default_device_run(jax.devices()[0].platform)


@pytest.mark.skipif(not _gpus(), reason="no GPU visible to JAX on this machine")
def test_runs_on_the_gpu_when_jax_has_one():
    assert jax.default_backend() == "gpu"
    _default_device_run("gpu")


def test_read_only_variables_are_realigned_once_with_the_same_values():
    start = _offset_view((256, 128), np.float32, 16)
    start[...] = np.random.default_rng(6).standard_normal(start.shape)
    v = rt.Variable(start)
    if v._value.ctypes.data % 64 == 0:  # the variable copied its initial value aligned
        v._value = start
    f = rt.function(lambda x: rt.matmul(x, v), jit_compile="xla")
    x = np.ones((2, 256), np.float32)
    # a float32 sum of 256 products in XLA's order: within float32 rounding of the exact product
    np.testing.assert_allclose(np.asarray(f(x)), x.astype(np.float64) @ start.astype(np.float64),
                               rtol=1e-5, atol=256 * 4 * np.finfo(np.float32).eps)
    first = v._value
    assert first.ctypes.data % 64 == 0
    np.testing.assert_array_equal(first, start)
    f(x)
    assert v._value is first  # realigned once, then read in place
    v.assign(np.zeros((256, 128), np.float32))  # a later assignment is seen by the next call
    np.testing.assert_array_equal(np.asarray(f(x)), np.zeros((2, 128), np.float32))
