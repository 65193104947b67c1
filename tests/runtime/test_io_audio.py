"""rt.audio.decode_wav / encode_wav against TensorFlow 2.21 (stereo.wav was written by
tf.audio.encode_wav; decoded.npz holds tf.audio.decode_wav's results) and Python's `wave`
module as an independent reader and writer."""

import io
import os
import wave

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

HERE = os.path.join(os.path.dirname(__file__), "..", "data", "fixtures", "images")
TF = np.load(os.path.join(HERE, "decoded.npz"))
AUDIO = np.array([[0.5, -0.5], [1.0, -1.0], [0.25, 0.0], [0.9, -0.9], [2.0, -0.00001]],
                 np.float32)


def _file(name: str) -> bytes:
    with open(os.path.join(HERE, name), "rb") as fh:
        return fh.read()


def _wave_bytes(samples: np.ndarray, rate: int, width: int = 2) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())
    return out.getvalue()


def test_encode_wav_writes_tensorflows_bytes():
    data = rt.audio.encode_wav(AUDIO, 16000)
    assert data.dtype == rt.string and data.shape.as_tuple() == ()
    assert data.numpy() == _file("stereo.wav")


def test_decode_wav_as_tensorflow():
    audio, rate = rt.audio.decode_wav(_file("stereo.wav"))
    assert audio.dtype == rt.float32 and rate.dtype == rt.int32
    np.testing.assert_array_equal(audio.numpy(), TF["wav_audio"])
    assert rate.numpy() == TF["wav_rate"] == 16000
    wav = _file("stereo.wav")
    np.testing.assert_array_equal(rt.audio.decode_wav(wav, desired_channels=1)[0].numpy(),
                                  TF["wav_mono"])
    np.testing.assert_array_equal(
        rt.audio.decode_wav(wav, desired_channels=3, desired_samples=7)[0].numpy(),
        TF["wav_3ch_7"])
    np.testing.assert_array_equal(rt.audio.decode_wav(wav, desired_samples=2)[0].numpy(),
                                  TF["wav_2"])


def test_round_trip_through_pythons_wave_module():
    samples = np.array([[0, 1], [-32768, 32767], [1234, -4321]], np.int16)
    audio, rate = rt.audio.decode_wav(_wave_bytes(samples, 22050))
    np.testing.assert_array_equal(audio.numpy(), samples / 32768.0)
    assert rate.numpy() == 22050
    written = rt.audio.encode_wav(audio, rate).numpy()
    with wave.open(io.BytesIO(written)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (2, 2, 22050)
        back = np.frombuffer(w.readframes(w.getnframes()), "<i2").reshape(-1, 2)
    np.testing.assert_array_equal(back, samples)


def test_staged_and_in_dataset_map():
    wav = _file("stereo.wav")

    @rt.function
    def decode(contents):
        audio, rate = rt.audio.decode_wav(contents, desired_channels=1, desired_samples=4)
        return audio, rate

    audio, rate = decode(rt.constant(wav))
    np.testing.assert_array_equal(audio.numpy(), TF["wav_mono"][:4])
    graph = decode.get_concrete_function(rt.TensorSpec([], rt.string)).graph
    assert graph.outputs[0].shape.as_list() == [4, 1]
    ds = rt.data.Dataset.from_tensor_slices([wav, wav]).map(
        lambda s: rt.squeeze(rt.audio.decode_wav(s, desired_channels=1)[0], axis=-1))
    assert [x.numpy().tolist() for x in ds] == [TF["wav_mono"][:, 0].tolist()] * 2


def test_errors_as_tensorflow():
    with pytest.raises(InvalidArgumentError, match="Can only read 16-bit WAV files, but received 8"):
        rt.audio.decode_wav(_wave_bytes(np.array([[0], [128]], np.uint8), 8000, width=1))
    with pytest.raises(InvalidArgumentError, match="Data too short"):
        rt.audio.decode_wav(b"RIFF")
    with pytest.raises(InvalidArgumentError, match="audio must be 2-dimensional"):
        rt.audio.encode_wav(np.array([0.5], np.float32), 8000)
    with pytest.raises(TypeError, match="float32"):
        rt.audio.encode_wav(rt.constant(np.zeros((2, 1), np.float64)), 8000)
    # a float64 array is made float32 first, as TensorFlow's op wrapper does
    assert rt.audio.encode_wav(np.full((2, 1), 0.5), 8000).numpy() == \
        rt.audio.encode_wav(np.full((2, 1), 0.5, np.float32), 8000).numpy()
    with pytest.raises(TypeError, match="did you mean"):
        rt.audio.decode_wav(_file("stereo.wav"), desired_channel=1)
