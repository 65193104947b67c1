"""keras.layers.STFTSpectrogram and MelSpectrogram and keras.initializers.STFT against Keras
3.15's outputs on the TensorFlow backend (tests/models/data/keras3_audio.json, written by
make_keras3_audio.py there), a NumPy rfft, shapes, configs and errors."""

import json
import pathlib

import numpy as np
import pytest

import runtime as rt

k = rt.keras
RECORD = json.loads((pathlib.Path(__file__).parent / "data" / "keras3_audio.json").read_text())
SIGNAL = np.asarray(RECORD["signal"], "float32")


@pytest.mark.parametrize("name", sorted(RECORD["stft"]))
def test_stft_spectrogram_is_keras(name):
    case = RECORD["stft"][name]
    layer = k.layers.STFTSpectrogram(**case["kwargs"])
    out = layer(SIGNAL)
    want = np.asarray(case["output"])
    assert out.shape == want.shape
    atol = 2e-4 if case["kwargs"].get("mode") == "angle" else 1e-4
    if case["kwargs"].get("mode") == "angle":  # angles near +-pi may wrap
        diff = np.angle(np.exp(1j * (out.numpy() - want)))
        assert np.mean(np.abs(diff) < atol) > 0.99
    else:
        np.testing.assert_allclose(out, want, rtol=1e-4, atol=atol)
    assert tuple(layer.compute_output_shape(SIGNAL.shape)) == want.shape


@pytest.mark.parametrize("name", sorted(RECORD["mel"]))
def test_mel_spectrogram_is_keras(name):
    case = RECORD["mel"][name]
    out = k.layers.MelSpectrogram(**case["kwargs"])(SIGNAL[:, :, 0])
    want = np.asarray(case["output"])
    assert out.shape == want.shape and out.dtype == rt.float32
    np.testing.assert_allclose(out, want, rtol=2e-4, atol=2e-3)


def test_stft_initializer_is_keras():
    for key, want in RECORD["initializer"].items():
        side, window, scaling, periodic = key.split("-")
        init = k.initializers.STFT(side, None if window == "None" else window,
                                   None if scaling == "None" else scaling, periodic == "True")
        np.testing.assert_allclose(init((6, 1, 5)), want, atol=1e-6)
    assert k.initializers.get("stft").get_config() == {"side": "real", "window": "hann",
                                                       "periodic": False,
                                                       "scaling": "density"}
    assert k.initializers.STFTInitializer is k.initializers.stft is k.initializers.STFT
    with pytest.raises(ValueError, match="side"):
        k.initializers.STFT("both")


def test_stft_magnitude_is_numpy_rfft_and_channels_first_agrees():
    layer = k.layers.STFTSpectrogram(mode="magnitude", frame_length=16, window=None,
                                     scaling=None)
    out = layer(SIGNAL).numpy()
    frames = np.lib.stride_tricks.sliding_window_view(SIGNAL[0, :, 0], 16)[::8]
    np.testing.assert_allclose(out[0, :, :9], np.abs(np.fft.rfft(frames)), rtol=1e-4,
                               atol=1e-4)
    first = k.layers.STFTSpectrogram(mode="magnitude", frame_length=16, window=None,
                                     scaling=None, data_format="channels_first")
    np.testing.assert_allclose(first(SIGNAL.transpose(0, 2, 1)), out.transpose(0, 2, 1),
                               rtol=1e-5, atol=1e-5)
    assert [w.name for w in layer.trainable_weights] == ["real_kernel", "imag_kernel"]


def test_configs_and_errors():
    config = k.layers.STFTSpectrogram().get_config()
    for key in ("name", "dtype", "trainable"):
        config.pop(key)
    assert config == {"mode": "log", "frame_length": 256, "frame_step": None,
                      "fft_length": None, "window": "hann", "periodic": False,
                      "scaling": "density", "padding": "valid",
                      "data_format": "channels_last", "expand_dims": False}
    mel = k.layers.MelSpectrogram().get_config()
    assert mel["sequence_length"] == 2048 and mel["max_freq"] == 8000
    with pytest.raises(ValueError, match="frame_step"):
        k.layers.STFTSpectrogram(frame_length=16, frame_step=20)
    with pytest.raises(ValueError, match="mode"):
        k.layers.STFTSpectrogram(mode="power")
    with pytest.raises(ValueError, match="expected ndim=3"):
        k.layers.STFTSpectrogram(frame_length=16)(SIGNAL[0])
    with pytest.raises(TypeError, match="Invalid input type"):
        k.layers.STFTSpectrogram(frame_length=16)(np.zeros((1, 40, 1), "int32"))
    with pytest.raises(ValueError, match="fft_length"):
        k.layers.MelSpectrogram(fft_length=64, sequence_length=128)
