"""The Numba tier's native pools and convolutions (runtime/backends/numba/windows.py).

Max pools and their gradients equal the NumPy tier's bit for bit (NaN, -inf, ties, signed
zeros, padding, overlapping windows); convolutions, forward and both gradients, equal it to
float rounding (they sum in another order: an im2col block times the filters through the same
BLAS) and are checked against a direct NumPy sum too. Cases the native forms leave to the NumPy
kernel (few channels, a 1x1 window, height and width not static) still compile and agree."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import runtime as rt


def _source(fn, *args):
    source = fn.get_concrete_function(*args).generated_source
    return source() if callable(source) else source


def _tiers(fn, *args):
    """(Numba tier's results, NumPy tier's results, the kernel's source)."""
    jit, numpy_tier = rt.function(fn, jit_compile=True), rt.function(fn, jit_compile=False)
    got = [t.numpy() for t in rt.nest.flatten(jit(*args))]
    want = [t.numpy() for t in rt.nest.flatten(numpy_tier(*args))]
    return got, want, _source(jit, *args)


def _special(shape, seed, dtype=np.float32):
    """Values with ties (ReLU zeros, +-0), NaN and -inf."""
    rng = np.random.default_rng(seed)
    x = np.maximum(rng.standard_normal(shape), 0).astype(dtype)
    x[:, ::3, ::2] = -0.0
    x[:, 1::5, 1::3] = -np.inf
    x.reshape(-1)[::37] = np.nan
    return x


POOLS = [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"), ((3, 3), (1, 1), "SAME"),
         ((2, 3), (1, 2), "VALID"), ((3, 2), (3, 2), "SAME"), ((2, 2), (3, 3), "VALID")]


@pytest.mark.parametrize("ksize, strides, padding", POOLS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_and_its_gradient_equal_the_numpy_tier_bit_for_bit(ksize, strides, padding,
                                                                     dtype):
    x = rt.constant(_special((3, 9, 11, 5), 0, dtype))
    shape = rt.nn.max_pool2d(x, ksize, strides, padding).shape
    g = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    g.reshape(-1)[::5] = -0.0

    def f(x, g):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.max_pool2d(x, ksize, strides, padding)
        return y, tape.gradient(y, x, output_gradients=g)

    got, want, source = _tiers(f, x, rt.constant(g))
    assert "_w.max_pool(" in source and "_w.max_pool_grad(" in source
    for mine, theirs in zip(got, want):
        assert mine.tobytes() == theirs.tobytes()


def test_max_pool_gradient_of_uneven_parts_equals_the_numpy_tier():
    x = rt.constant(_special((2, 10, 10, 6), 1))
    g = rt.constant(np.random.default_rng(2).standard_normal((2, 5, 5, 6)).astype(np.float32))

    def f(x, g):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.max_pool2d(x, 3, 2, "SAME")
        return tape.gradient(y, x, output_gradients=g)

    got, want, _ = _tiers(f, x, g)
    assert got[0].tobytes() == want[0].tobytes()
    # each window's gradient lands on one position: the gradient's total is g's (NaN aside)
    assert np.isclose(np.nansum(got[0]), np.nansum(g.numpy()), rtol=1e-5)


def _taps(x, ksize, strides, padding):
    """((i, j), the input values tap (i, j) of each window reads [N, OH, OW, C]) for every
    tap of a NHWC cross-correlation, in float64 (zeros in the padding)."""
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = ksize, strides
    if padding == "SAME":
        oh, ow = -(-h // sh), -(-w // sw)
        ph, pw = max((oh - 1) * sh + kh - h, 0), max((ow - 1) * sw + kw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    x = x.astype(np.float64)
    return [((i, j), x[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw])
            for i in range(kh) for j in range(kw)]


CONVS = [((3, 3), (1, 1), "VALID", 16, 24), ((3, 3), (1, 1), "SAME", 24, 16),
         ((3, 2), (2, 1), "SAME", 17, 16), ((5, 5), (2, 2), "VALID", 7, 16),
         ((3, 3), (1, 1), "SAME", 6, 17), ((3, 3), (1, 1), "SAME", 2, 16),
         ((3, 3), (1, 1), "SAME", 20, 6), ((1, 1), (1, 1), "VALID", 16, 16)]


@pytest.mark.parametrize("ksize, strides, padding, channels, out_channels", CONVS)
def test_convolution_and_its_gradients_agree_with_the_numpy_tier(ksize, strides, padding,
                                                                 channels, out_channels):
    rng = np.random.default_rng(3)
    x = rt.constant(rng.standard_normal((4, 12, 11, channels)).astype(np.float32))
    f = rt.constant(rng.standard_normal((*ksize, channels, out_channels)).astype(np.float32))

    def step(x, f):
        with rt.GradientTape() as tape:
            tape.watch([x, f])
            y = rt.nn.conv2d(x, f, strides, padding)
            loss = rt.reduce_sum(y * y) * 0.5
        dx, df = tape.gradient(loss, [x, f])
        return y, dx, df

    got, want, source = _tiers(step, x, f)
    window = ksize != (1, 1) and out_channels >= 16
    # with 16 outputs or more, the forward pass and the filter gradient from 16 channels; the
    # input gradient from 5, as the correlation with the flipped filters when stride 1 and
    # fewer outputs than inputs
    assert ("_w.conv2d_backprop_filter(" in source) == (window and channels >= 16)
    correlation = window and channels > 4 and strides == (1, 1) and out_channels < channels
    assert ("_w.flipped_filters(" in source) == correlation
    assert ("_w.conv2d_backprop_input(" in source) == (window and channels > 4
                                                        and not correlation)
    assert source.count("_w.conv2d(") == (window and channels >= 16) + correlation
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5 * np.abs(w).max())
    # against direct sums: the forward pass, and the filter gradient of 0.5 * sum(y^2), which
    # is each tap's input values times y
    taps = _taps(x.numpy(), ksize, strides, padding)
    direct = sum(patch @ f.numpy()[i, j].astype(np.float64) for (i, j), patch in taps)
    np.testing.assert_allclose(got[0], direct, rtol=1e-4, atol=1e-4)
    y = got[0].astype(np.float64)
    for (i, j), patch in taps:
        np.testing.assert_allclose(got[2][i, j], np.tensordot(patch, y, ([0, 1, 2], [0, 1, 2])),
                                   rtol=1e-4, atol=1e-3)


def test_a_pool_of_unknown_height_runs_the_numpy_kernel():
    spec = rt.TensorSpec([None, None, None, 6], rt.float32)

    @rt.function(input_signature=[spec], jit_compile=True)
    def f(x):
        return rt.nn.max_pool2d(x, 2, 2, "VALID")

    x = _special((2, 8, 6, 6), 4)
    want = rt.function(lambda x: rt.nn.max_pool2d(x, 2, 2, "VALID"))(rt.constant(x)).numpy()
    assert f(rt.constant(x)).numpy().tobytes() == want.tobytes()
    assert "_w.max_pool(" not in _source(f, rt.constant(x))


def test_a_convolution_layer_trains_alike_on_both_tiers():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 10, 10, 3)).astype(np.float32)
    y = rng.integers(0, 4, 8)

    def run(jit_compile):
        rt.keras.utils.set_random_seed(7)
        model = rt.keras.Sequential([
            rt.keras.layers.Input((10, 10, 3)),
            rt.keras.layers.Conv2D(8, 3, activation="relu"), rt.keras.layers.MaxPooling2D(2),
            rt.keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
            rt.keras.layers.Flatten(), rt.keras.layers.Dense(4)])
        optimizer = rt.keras.optimizers.Adam(1e-2)
        loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

        @rt.function(jit_compile=jit_compile)
        def step(x, y):
            with rt.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        return [float(step(rt.constant(x), rt.constant(y))) for _ in range(4)]

    np.testing.assert_allclose(run(True), run(False), rtol=1e-4)


FALLBACK = """
import numpy as np
from runtime.backends.numba import window_kernels
from runtime.ops import conv_kernels
window_kernels.NUMPY_BLAS = None  # as where NumPy's BLAS library is not found
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 7, 6, 5)).astype(np.float32)
f = rng.standard_normal((3, 3, 5, 4)).astype(np.float32)
g = rng.standard_normal((2, 5, 4, 4)).astype(np.float32)
out = np.empty((2, 5, 4, 4), np.float32)
window_kernels.conv2d(x, f.reshape(45, 4), 3, 3, 1, 1, 1, 1, 0, 0, out)
pads = ((0, 0), (0, 0))
np.testing.assert_allclose(out, conv_kernels.conv2d(x, f, (1, 1), pads, (1, 1), (5, 4)), rtol=1e-5)
dw = window_kernels.conv2d_backprop_filter(x, g, 3, 3, 1, 1, 1, 1, 0, 0).reshape(f.shape)
np.testing.assert_allclose(dw, conv_kernels.conv2d_backprop_filter(x, g, (3, 3), (1, 1), pads,
                                                                   (1, 1)), rtol=1e-4)
dx = np.empty_like(x)
window_kernels.conv2d_backprop_input(g, f.reshape(45, 4), 3, 3, 1, 1, 1, 1, 0, 0, dx)
np.testing.assert_allclose(dx, conv_kernels.conv2d_backprop_input(g, f, (7, 6), (1, 1), pads,
                                                                  (1, 1)), rtol=1e-4, atol=1e-5)
print("ok")
"""


@pytest.mark.slow
def test_convolutions_without_numpys_blas_use_numbas_dot(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))  # compiled afresh
    run = subprocess.run([sys.executable, "-c", FALLBACK], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["ok"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_dilated_convolution_and_an_empty_batch_agree_with_the_numpy_tier(dtype):
    rng = np.random.default_rng(6)
    f = rt.constant(rng.standard_normal((3, 3, 16, 16)).astype(dtype))

    def step(x, f):
        with rt.GradientTape() as tape:
            tape.watch([x, f])
            y = rt.nn.conv2d(x, f, 1, "SAME", dilations=2)
            loss = rt.reduce_sum(y * y)
        return (y, *tape.gradient(loss, [x, f]))

    tolerance = 1e-4 if dtype == np.float32 else 1e-10
    for batch in (3, 0):
        x = rt.constant(rng.standard_normal((batch, 9, 10, 16)).astype(dtype))
        got, want, source = _tiers(step, x, f)
        assert "_w.conv2d(" in source and "_w.conv2d_backprop_filter(" in source
        for mine, theirs in zip(got, want):
            assert mine.shape == theirs.shape and mine.dtype == theirs.dtype
            np.testing.assert_allclose(mine, theirs, rtol=tolerance,
                                       atol=tolerance * max(1.0, np.abs(theirs).max(initial=0)))


def test_a_change_of_the_window_loops_changes_the_kernels_cache_key(monkeypatch, tmp_path):
    from runtime.backends.numba import compiler
    copy = tmp_path / "window_kernels.py"
    copy.write_bytes(open(os.path.join(os.path.dirname(compiler.__file__),
                                       "window_kernels.py"), "rb").read() + b"\n# changed\n")
    digest = compiler._helpers_digest.__wrapped__  # not the process's cached value
    before = digest()
    real_join = os.path.join

    def join(*parts):
        if parts[-1] == "window_kernels.py":
            return str(copy)
        return real_join(*parts)
    monkeypatch.setattr(compiler.os.path, "join", join)
    assert digest() != before
