"""Writes keras3_audio.json: Keras 3.15's STFTSpectrogram and MelSpectrogram outputs and
STFT initializer kernels (TensorFlow 2.21 backend) on a fixed signal. Run it with a Python
that has TensorFlow and Keras: `python tests/models/data/make_keras3_audio.py`;
tests/models/test_audio_layers.py reads the file."""

import json
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

SIGNAL = np.random.default_rng(0).normal(size=(2, 120, 2)).astype("float32")
STFT_CASES = {
    "log": {"frame_length": 32},
    "magnitude_same": {"mode": "magnitude", "frame_length": 30, "frame_step": 10,
                       "fft_length": 32, "padding": "same"},
    "psd_hamming": {"mode": "psd", "frame_length": 16, "window": "hamming",
                    "scaling": "spectrum", "periodic": True},
    "stft_expand": {"mode": "stft", "frame_length": 16, "expand_dims": True},
    "angle": {"mode": "angle", "frame_length": 16},
    "real_none": {"mode": "real", "frame_length": 16, "window": None, "scaling": None},
    "imag": {"mode": "imag", "frame_length": 16, "frame_step": 5},
}
MEL_CASES = {
    "default_small": {"fft_length": 64, "sequence_stride": 16, "num_mel_bins": 12,
                      "sampling_rate": 8000},
    "power": {"fft_length": 64, "sequence_stride": 20, "sequence_length": 48,
              "num_mel_bins": 10, "power_to_db": False, "mag_exp": 1.0,
              "min_freq": 100.0, "max_freq": 3000},
    "db_ref": {"fft_length": 32, "sequence_stride": 8, "num_mel_bins": 8, "top_db": 20.0,
               "ref_power": 2.0, "window": "hamming"},
}


def main():
    record = {"signal": SIGNAL.tolist(), "stft": {}, "mel": {}, "initializer": {}}
    for name, kwargs in STFT_CASES.items():
        x = SIGNAL if kwargs.get("data_format") != "channels_first" else \
            SIGNAL.transpose(0, 2, 1)
        record["stft"][name] = {"kwargs": kwargs, "output": np.asarray(
            keras.layers.STFTSpectrogram(**kwargs)(x)).tolist()}
    for name, kwargs in MEL_CASES.items():
        record["mel"][name] = {"kwargs": kwargs, "output": np.asarray(
            keras.layers.MelSpectrogram(**kwargs)(SIGNAL[:, :, 0])).tolist()}
    for side in ("real", "imag"):
        for window, scaling, periodic in (("hann", "density", False),
                                          ("hamming", "spectrum", True), (None, None, False)):
            key = f"{side}-{window}-{scaling}-{periodic}"
            record["initializer"][key] = np.asarray(
                keras.initializers.STFT(side, window, scaling, periodic)((6, 1, 5))).tolist()
    path = os.path.join(os.path.dirname(__file__), "keras3_audio.json")
    with open(path, "w") as f:
        json.dump(record, f)


if __name__ == "__main__":
    main()
