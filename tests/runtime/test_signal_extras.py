"""tf.signal's cosine transforms, overlap_and_add, inverse_stft and the mel filter bank: against
SciPy's DCTs, NumPy loops of their definitions, and the reconstructions TensorFlow documents."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import runtime as rt

sfft = pytest.importorskip("scipy.fft")
RNG = np.random.default_rng(0)
S = rt.signal


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
@pytest.mark.parametrize("n", [None, 5, 11])
def test_dct_and_idct_match_scipy(kind, norm, n):
    if kind == 1 and norm == "ortho":
        with pytest.raises(ValueError, match="Type-I"):
            S.dct(np.ones(4), type=1, norm="ortho")
        return
    x = RNG.normal(size=(2, 3, 8))
    np.testing.assert_allclose(S.dct(x, type=kind, n=n, norm=norm).numpy(),
                               sfft.dct(x, type=kind, n=n, norm=norm), atol=1e-10)
    np.testing.assert_allclose(S.idct(x, type=kind, n=n, norm=norm).numpy(),
                               sfft.dct(x, type={1: 1, 2: 3, 3: 2, 4: 4}[kind], n=n,
                                        norm=norm), atol=1e-10)


def test_dct_round_trip_errors_and_gradient():
    x = RNG.normal(size=(4, 16)).astype(np.float32)
    back = S.idct(S.dct(x, norm="ortho"), norm="ortho")
    np.testing.assert_allclose(back.numpy(), x, atol=1e-5)
    assert S.dct(x).dtype == rt.float32
    with pytest.raises(NotImplementedError, match="axis must be -1"):
        S.dct(x, axis=0)
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        S.dct(x, type=5)
    with pytest.raises(TypeError, match="float"):
        S.dct(np.arange(4))
    with pytest.raises(TypeError, match="did you mean"):
        S.dct(x, nrom="ortho")
    w = RNG.normal(size=(16,))
    v = rt.constant(x.astype(np.float64))
    with rt.GradientTape() as tape:
        tape.watch(v)
        y = rt.reduce_sum(S.dct(v, type=2) * w)
    # d/dx sum_k w_k dct(x)_k = sum_k w_k * 2 cos(pi k (2n + 1) / 2N): the transform's adjoint
    expected = (sfft.dct(w, type=3) + w[0]) * np.ones((4, 1))  # SciPy counts w[0] once
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), expected, atol=1e-9)


def test_overlap_and_add_matches_its_definition():
    frames = RNG.normal(size=(2, 5, 6))
    step = 2
    expected = np.zeros((2, 4 * step + 6))
    for f in range(5):
        expected[:, f * step:f * step + 6] += frames[:, f]
    np.testing.assert_allclose(S.overlap_and_add(frames, step).numpy(), expected)
    ints = np.arange(12).reshape(3, 4)
    got = S.overlap_and_add(ints, 3)
    assert got.dtype == rt.int64 and got.numpy().tolist() == [0, 1, 2, 3 + 4, 5, 6, 7 + 8, 9, 10, 11]
    with pytest.raises(ValueError, match="rank >= 2"):
        S.overlap_and_add(np.ones(3), 1)


def test_mdct_matches_its_definition_and_reconstructs():
    signal = RNG.normal(size=(2, 64))
    frame_length, half = 16, 8
    t = np.arange(frame_length)[:, None]
    k = np.arange(half)[None, :]
    basis = np.cos(np.pi / half * (t + 0.5 + half / 2) * (k + 0.5))
    window = S.vorbis_window(frame_length, dtype=rt.float64).numpy()
    frames = np.stack([signal[:, i:i + frame_length] for i in range(0, 64 - 16 + 1, half)], 1)
    np.testing.assert_allclose(S.mdct(signal, frame_length).numpy(),
                               2 * (frames * window) @ basis, atol=1e-10)
    ortho = S.mdct(signal, frame_length, norm="ortho")
    np.testing.assert_allclose(ortho.numpy(), np.sqrt(2 / half) * (frames * window) @ basis,
                               atol=1e-10)
    # TensorFlow's documented property: with the Vorbis window the inverse reconstructs every
    # sample covered by two frames
    for norm in (None, "ortho"):
        back = S.inverse_mdct(S.mdct(signal, frame_length, norm=norm), norm=norm).numpy()
        np.testing.assert_allclose(back[:, half:-half], signal[:, half:-half], atol=1e-10)
    with pytest.raises(ValueError, match="multiple of 4"):
        S.mdct(signal, 10)


def test_inverse_stft_undoes_stft():
    signal = RNG.normal(size=(2, 128)).astype(np.float32)
    frame_length, step = 32, 8
    stft = S.stft(signal, frame_length, step)
    back = S.inverse_stft(stft, frame_length, step,
                          window_fn=S.inverse_stft_window_fn(step)).numpy()
    inner = slice(frame_length, 128 - frame_length)
    np.testing.assert_allclose(back[:, inner], signal[:, inner], atol=1e-5)
    # default window: each frame's irfft, Hann-windowed, overlapped and added
    plain = S.inverse_stft(stft, frame_length, step).numpy()
    frames = np.fft.irfft(stft.numpy(), 32)[..., :frame_length] * S.hann_window(32).numpy()
    expected = np.zeros_like(plain)
    for f in range(frames.shape[1]):
        expected[:, f * step:f * step + frame_length] += frames[:, f]
    np.testing.assert_allclose(plain, expected, atol=1e-5)
    window = S.inverse_stft_window_fn(3)(10, dtype=rt.float64).numpy()
    hann = S.hann_window(10, dtype=rt.float64).numpy()
    denominator = np.array([sum(hann[j] ** 2 for j in range(10) if j % 3 == i % 3)
                            for i in range(10)])
    np.testing.assert_allclose(window, hann / denominator, atol=1e-12)
    with pytest.raises(TypeError, match="complex"):
        S.inverse_stft(np.ones((2, 17), np.float32), 32, 8)


def test_mel_weight_matrix():
    weights = S.linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129,
                                            sample_rate=8000, lower_edge_hertz=125.0,
                                            upper_edge_hertz=3800.0).numpy()
    assert weights.shape == (129, 20) and weights.dtype == np.float32
    assert not weights[0].any() and (weights >= 0).all() and weights.max() <= 1.0
    # each filter is a triangle in mel: zero outside its band edges, rising then falling
    mel = 1127.0 * np.log1p(np.linspace(0, 4000, 129) / 700.0)
    edges = np.linspace(1127.0 * np.log1p(125 / 700), 1127.0 * np.log1p(3800 / 700), 22)
    for j in range(20):
        outside = (mel <= edges[j]) | (mel >= edges[j + 2])
        assert not weights[outside, j].any()
        rising = (mel > edges[j]) & (mel <= edges[j + 1])
        np.testing.assert_allclose(weights[rising, j],
                                   (mel[rising] - edges[j]) / (edges[j + 1] - edges[j]),
                                   rtol=1e-5)
    with pytest.raises(ValueError, match="Nyquist"):
        S.linear_to_mel_weight_matrix(20, 129, 8000, 125.0, 5000.0)
    with pytest.raises(ValueError, match="num_mel_bins must be positive"):
        S.linear_to_mel_weight_matrix(0)


def test_mfccs_are_a_scaled_dct():
    log_mel = RNG.normal(size=(3, 40)).astype(np.float32)
    np.testing.assert_allclose(S.mfccs_from_log_mel_spectrograms(log_mel).numpy(),
                               sfft.dct(log_mel.astype(np.float64), type=2) / np.sqrt(80),
                               rtol=1e-4, atol=1e-5)


def test_loaded_on_first_use():
    code = ("import sys, runtime as rt; assert 'runtime.signal_extras' not in sys.modules; "
            "rt.signal.dct; assert 'runtime.signal_extras' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
