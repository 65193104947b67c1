"""rt.signal against NumPy's FFT: eager, staged and with jit_compile=True."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(3)
REAL = RNG.standard_normal((3, 8))
CPLX = (RNG.standard_normal((3, 8)) + 1j * RNG.standard_normal((3, 8)))


def _tiers(fn, *args):
    return [fn(*args), rt.function(fn)(*args), rt.function(fn, jit_compile=True)(*args)]


def _check(fn, args, expected, dtype=None, rtol=1e-10):
    for got in _tiers(fn, *args):
        if dtype is not None:
            assert got.dtype == dtype
        np.testing.assert_allclose(np.asarray(got), expected, rtol=rtol, atol=1e-12)


def test_complex_transforms():
    _check(rt.signal.fft, (CPLX,), np.fft.fft(CPLX), rt.complex128)
    _check(rt.signal.ifft, (CPLX,), np.fft.ifft(CPLX))
    _check(rt.signal.fft2d, (CPLX,), np.fft.fft2(CPLX))
    _check(rt.signal.ifft2d, (CPLX,), np.fft.ifft2(CPLX))
    cube = CPLX.reshape(3, 2, 4)
    _check(rt.signal.fft3d, (cube,), np.fft.fftn(cube))
    _check(rt.signal.ifft3d, (cube,), np.fft.ifftn(cube))
    small = CPLX.astype(np.complex64)
    got = rt.signal.fft(small)
    assert got.dtype == rt.complex64
    np.testing.assert_allclose(got.numpy(), np.fft.fft(small), rtol=1e-5, atol=1e-5)


def test_real_transforms_and_fft_length():
    _check(rt.signal.rfft, (REAL,), np.fft.rfft(REAL), rt.complex128)
    _check(lambda x: rt.signal.rfft(x, [5]), (REAL,), np.fft.rfft(REAL, 5))
    _check(lambda x: rt.signal.rfft(x, fft_length=[12]), (REAL,), np.fft.rfft(REAL, 12))
    spectrum = np.fft.rfft(REAL)
    _check(rt.signal.irfft, (spectrum,), REAL, rt.float64)
    _check(lambda s: rt.signal.irfft(s, [7]), (spectrum,), np.fft.irfft(spectrum, 7))
    _check(lambda s: rt.signal.irfft(s, [20]), (spectrum,), np.fft.irfft(spectrum, 20))
    _check(rt.signal.rfft2d, (REAL,), np.fft.rfft2(REAL))
    _check(rt.signal.irfft2d, (np.fft.rfft2(REAL),), REAL)
    _check(lambda x: rt.signal.rfft2d(x, [4, 6]), (REAL,), np.fft.rfft2(REAL, (4, 6)))
    assert rt.signal.rfft(REAL.astype(np.float32)).dtype == rt.complex64


def test_static_shapes_when_staged():
    conc = rt.function(lambda x: rt.signal.rfft(x, [10])).get_concrete_function(
        rt.TensorSpec([None, 8], rt.float64))
    assert conc.structured_outputs.shape.as_list() == [None, 6]


def test_bad_input():
    with pytest.raises(TypeError, match="complex"):
        rt.signal.fft(REAL)
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.signal.rfft(CPLX)
    with pytest.raises(ValueError, match="fft_length"):
        rt.signal.rfft(REAL, [0])
    with pytest.raises(ValueError, match="rank at least 2"):
        rt.signal.fft2d(CPLX[0])
    with pytest.raises(TypeError):
        rt.signal.rfft(REAL, fft_lenght=[4])


def test_frame():
    x = np.arange(10.0)
    want = np.stack([x[i:i + 4] for i in range(0, 7, 3)])
    _check(lambda s: rt.signal.frame(s, 4, 3), (x,), want)
    padded = np.concatenate([x, [-1.0, -1.0, -1.0]])
    want_pad = np.stack([padded[i:i + 4] for i in range(0, 10, 3)])
    _check(lambda s: rt.signal.frame(s, 4, 3, pad_end=True, pad_value=-1.0), (x,), want_pad)
    batch = np.arange(20.0).reshape(2, 10)
    assert rt.signal.frame(batch, 4, 2).shape.as_list() == [2, 4, 4]
    assert rt.signal.frame(batch.T, 4, 2, axis=0).shape.as_list() == [4, 4, 2]
    with pytest.raises(ValueError, match="frame_step"):
        rt.signal.frame(x, 4, 0)
    t = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = rt.reduce_sum(rt.signal.frame(t, 4, 3))
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), [1, 1, 1, 2, 1, 1, 2, 1, 1, 1])


def test_windows_and_stft():
    n = np.arange(8)
    np.testing.assert_allclose(rt.signal.hann_window(8).numpy(), 0.5 - 0.5 * np.cos(2 * np.pi * n / 8),
                               atol=1e-7)
    np.testing.assert_allclose(rt.signal.hann_window(8, periodic=False).numpy(), np.hanning(8), atol=1e-7)
    np.testing.assert_allclose(rt.signal.hamming_window(8, periodic=False, dtype=rt.float64).numpy(),
                               np.hamming(8))
    assert rt.signal.hann_window(1).numpy().tolist() == [1.0]
    with pytest.raises(ValueError, match="floating"):
        rt.signal.hann_window(4, dtype=rt.int32)
    sig = RNG.standard_normal(64)
    got = rt.signal.stft(sig, 16, 8).numpy()
    frames = np.stack([sig[i:i + 16] for i in range(0, 49, 8)]) * np.hanning(17)[:16]
    np.testing.assert_allclose(got, np.fft.rfft(frames, 16), rtol=1e-10, atol=1e-12)


def test_save_and_load_round_trip(tmp_path):
    module = rt.Module()
    module.f = rt.function(lambda x: rt.signal.irfft(rt.signal.rfft(x, [8]), [8]),
                           input_signature=[rt.TensorSpec([3, 8], rt.float64)])
    rt.saved_model.save(module, str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(np.asarray(loaded.f(REAL)), REAL, atol=1e-12)
