"""Values that stay on JAX's device: results of the XLA tier and the variables it stores
keep their JAX arrays until something reads them as NumPy, compared with the NumPy tier."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")

import runtime as rt  # noqa: E402
from runtime.tensor import DeviceTensor, DeviceValue, EagerTensor  # noqa: E402


def _chain(x):
    return rt.sqrt(rt.abs(rt.sin(x * 1.5 + 0.5) * rt.exp(-x) - 0.25)) + x * 0.5


def _unread(t) -> bool:
    """Whether DeviceTensor `t` still holds only its JAX array (nothing read it as NumPy)."""
    return type(t) is DeviceTensor and t._box._host is None and t._box.buffer is not None


@pytest.mark.parametrize("n", [5, 40_000])  # below and above the size taken over in place
def test_chained_calls_pass_jax_arrays_and_give_the_numpy_tiers_values(n):
    xla = rt.function(_chain, jit_compile="xla")
    ref = rt.function(_chain)
    x = np.linspace(-1.0, 2.0, n).astype(np.float32)
    a, b = x, x
    steps = []
    for _ in range(4):
        a, b = xla(a), ref(b)
        steps.append(a)
    assert all(_unread(t) for t in steps)  # each was passed on without a NumPy copy
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-6, atol=2e-6)
    assert not _unread(a) and all(_unread(t) for t in steps[:-1])


def test_a_device_tensor_shares_the_trace_of_an_eager_tensor():
    f = rt.function(lambda x: x * 2.0, jit_compile="xla")
    y = f(np.ones(3, np.float32))
    f(rt.constant(np.ones(3, np.float32)))
    f(y)
    f(y)
    assert f.experimental_get_tracing_count() == 1


def test_a_value_read_by_another_tier_materialises():
    xla = rt.function(_chain, jit_compile="xla")
    x = np.linspace(-1.0, 2.0, 7).astype(np.float32)
    want = rt.function(_chain)(x).numpy()
    # an eager op, a NumPy-tier function, printing, NumPy conversion and Python scalars
    y = xla(x)
    np.testing.assert_allclose((y + 1.0).numpy(), want + 1.0, rtol=2e-6)
    assert not _unread(y)
    y = xla(x)
    np.testing.assert_allclose(rt.function(lambda t: t * 3.0)(y).numpy(), want * 3.0, rtol=2e-6)
    y = xla(x)
    assert str(y) == str(rt.constant(y.numpy()))
    assert repr(y) == repr(rt.constant(y.numpy()))
    np.testing.assert_allclose(np.asarray(y), want, rtol=2e-6)
    s = rt.function(rt.reduce_sum, jit_compile="xla")(x)
    assert _unread(s) and s.shape == () and isinstance(s.numpy(), np.float32)
    assert float(s) == pytest.approx(float(np.sum(x)), rel=1e-6)


def test_a_device_tensor_is_an_eager_tensor_of_its_shape_and_dtype():
    y = rt.function(lambda x: x[:, :2], jit_compile="xla")(np.ones((3, 4)))
    assert isinstance(y, EagerTensor) and rt.is_tensor(y)
    assert y.shape == (3, 2) and y.dtype == rt.float64 and len(y) == 3 and _unread(y)
    assert y.device.endswith(":0")


@pytest.mark.parametrize("n", [4, 40_000])
def test_writing_into_numpy_of_a_result_is_what_the_next_call_reads(n):
    f = rt.function(lambda x: x + 1.0, jit_compile="xla")
    y = f(np.zeros(n, np.float32))
    view = y.numpy()
    view[0] = 41.0  # the result is the caller's, writable, as on the other tiers
    z = f(y)
    assert float(z.numpy()[0]) == 42.0 and float(z.numpy()[1]) == 2.0


def test_a_forwarded_input_is_copied_when_read():
    f = rt.function(lambda x: (x, x * 2.0), jit_compile="xla")
    x = np.arange(20_000, dtype=np.float32)
    same, twice = f(x)
    same.numpy()[0] = 7.0
    assert x[0] == 0.0
    np.testing.assert_array_equal(twice.numpy(), x * 2.0)


def _sgd_program():
    w = rt.Variable(np.linspace(-1.0, 1.0, 12).reshape(3, 4).astype(np.float32))
    b = rt.Variable(np.float32(0.5))

    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.tanh(rt.matmul(x, w) + b) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss
    return w, b, step


def test_variables_updated_by_the_xla_tier_stay_on_the_device_and_agree():
    x = np.linspace(0.0, 1.0, 6).reshape(2, 3).astype(np.float32)
    w1, b1, step1 = _sgd_program()
    w2, b2, step2 = _sgd_program()
    xla, ref = rt.function(step1, jit_compile="xla"), rt.function(step2)
    for _ in range(5):
        la, lb = xla(x), ref(x)
        assert type(w1._host) is DeviceValue and type(b1._host) is DeviceValue
        assert w1._host._host is None  # nothing read it in between
    np.testing.assert_allclose(la.numpy(), lb.numpy(), rtol=1e-5)
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-5, atol=1e-6)
    assert float(b1.numpy()) == pytest.approx(float(b2.numpy()), rel=1e-5)
    # a NumPy-tier assignment in between is what the next XLA step reads
    w1.assign(w1 * 0.5)
    w2.assign(w2 * 0.5)
    assert type(w1._host) is not DeviceValue
    xla(x), ref(x)
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-5, atol=1e-6)
    # an eager read-modify-write of a value the tier stored
    xla(x), ref(x)
    w1.assign_add(np.ones((3, 4), np.float32))
    w2.assign_add(np.ones((3, 4), np.float32))
    xla(x), ref(x)
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-5, atol=1e-6)


def test_a_tape_outside_differentiates_through_a_device_tensor():
    f = rt.function(lambda x: rt.sin(x) * x, jit_compile="xla")
    x = rt.constant(np.linspace(0.1, 1.0, 5).astype(np.float32))
    y = f(x)
    assert _unread(y)
    with rt.GradientTape() as tape:
        tape.watch(y)
        z = rt.reduce_sum(f(y))
    g = tape.gradient(z, y)
    v = y.numpy()
    np.testing.assert_allclose(g.numpy(), np.cos(v) * v + np.sin(v), rtol=1e-5)


def test_a_variable_assigned_a_forwarded_input_does_not_keep_the_callers_array():
    v = rt.Variable(np.zeros(20_000, np.float32))
    f = rt.function(lambda x: v.assign(x), jit_compile="xla")
    x = np.ones(20_000, np.float32)
    f(x)
    x[:] = 5.0
    assert float(v.numpy()[0]) == 1.0


@pytest.mark.skipif(not any(d.platform == "gpu" for d in jax.devices()),
                    reason="JAX sees no GPU")
def test_results_and_variables_stay_on_the_gpu():  # pragma: no cover - needs a GPU
    w1, _, step1 = _sgd_program()
    w2, _, step2 = _sgd_program()
    x = np.linspace(0.0, 1.0, 6).reshape(2, 3).astype(np.float32)
    xla = rt.function(step1, jit_compile="xla")
    for _ in range(3):
        loss = xla(x)
        rt.function(step2)(x)
    assert "GPU" in loss.device
    assert w1._host.buffer.device.platform == "gpu"
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-5, atol=1e-6)
    y = rt.function(_chain, jit_compile="xla")(x)
    assert _unread(y) and "GPU" in y.device
