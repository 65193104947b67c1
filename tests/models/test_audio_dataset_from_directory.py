"""keras.utils.audio_dataset_from_directory as Keras 3 on TensorFlow 2.21 builds it (the
expected specs, values and labels below are what Keras printed for the same three files,
written here by Python's `wave` module)."""

import os
import wave

import numpy as np
import pytest

from runtime import keras


def _write(path, samples, rate=8000):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(str(path), "wb") as f:
        f.setnchannels(samples.shape[1])
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(samples.astype("<i2").tobytes())


@pytest.fixture
def root(tmp_path):
    _write(tmp_path / "no" / "a.wav", np.array([[100], [200], [300]]))
    _write(tmp_path / "no" / "b.wav", np.array([[-5], [7]]))
    _write(tmp_path / "yes" / "c.wav", np.array([[1000], [2000], [3000], [4000], [5000]]))
    (tmp_path / "yes" / "notes.txt").write_text("not audio")
    return str(tmp_path)


def test_padded_batches_as_keras(root, capsys):
    ds = keras.utils.audio_dataset_from_directory(root, batch_size=2, shuffle=False)
    assert capsys.readouterr().out == "Found 3 files belonging to 2 classes.\n"
    assert ds.class_names == ["no", "yes"]
    audio_spec, label_spec = ds.element_spec
    assert audio_spec.shape.as_list() == [None, None, None] and label_spec.shape.as_list() == [None]
    got = [(x.numpy(), y.numpy().tolist()) for x, y in ds]
    assert [y for _, y in got] == [[0, 0], [1]]
    np.testing.assert_array_equal(got[0][0][..., 0], np.array([[100, 200, 300], [-5, 7, 0]]) / 32768)
    np.testing.assert_array_equal(got[1][0][..., 0], np.array([[1000, 2000, 3000, 4000, 5000]]) / 32768)


def test_fixed_length_and_categorical_as_keras(root):
    ds = keras.utils.audio_dataset_from_directory(root, batch_size=None, shuffle=False,
                                                  output_sequence_length=4,
                                                  label_mode="categorical", verbose=False)
    audio_spec, label_spec = ds.element_spec
    assert audio_spec.shape.as_list() == [4, None] and label_spec.shape.as_list() == [2]
    got = [(x.numpy().ravel() * 32768, y.numpy().tolist()) for x, y in ds]
    np.testing.assert_array_equal(np.stack([a for a, _ in got]),
                                  [[100, 200, 300, 0], [-5, 7, 0, 0], [1000, 2000, 3000, 4000]])
    assert [y for _, y in got] == [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]


def test_split_both_as_keras(root, capsys):
    train, val = keras.utils.audio_dataset_from_directory(root, validation_split=0.4,
                                                          subset="both", seed=1,
                                                          output_sequence_length=2)
    assert capsys.readouterr().out.endswith("Using 2 files for training.\n"
                                            "Using 1 files for validation.\n")
    assert train.element_spec[0].shape.as_list() == [None, 2, None]
    (x, y), = list(val)
    np.testing.assert_array_equal(x.numpy().ravel() * 32768, [-5, 7])
    assert y.numpy().tolist() == [0]
    assert sorted(int(v) for _, ys in train for v in ys.numpy()) == [0, 1]


def test_errors(root):
    load = keras.utils.audio_dataset_from_directory
    with pytest.raises(ValueError, match="both `ragged` and `output_sequence_length`"):
        load(root, ragged=True, output_sequence_length=3)
    with pytest.raises(NotImplementedError, match="sampling_rate"):
        load(root, sampling_rate=16000)
    with pytest.raises(ValueError, match="exactly 2"):
        load(root, labels=[0, 1, 2], label_mode="binary", verbose=False)
    with pytest.raises(TypeError, match="did you mean"):
        load(root, output_sequence_lenght=3)
