"""Keras 3's audio layers: STFTSpectrogram (a short-time Fourier transform as a 1-D
convolution with trainable DFT kernels, `keras.initializers.STFT`) and MelSpectrogram (a
power spectrogram on the mel scale, optionally in decibels)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..ops import array_composed, array_math, math_composed, nn_conv
from ..ops.core import convert_to_tensor
from .base import Layer
from .initializers import STFT, get_window
from .input_spec import InputSpec
from .preprocessing._common import run_numpy

_EPSILON = 1e-7  # keras.config.epsilon()
_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")


class STFTSpectrogram(Layer):
    """Spectrogram of `(batch, time, channels)` signals (`channels_first`: `(batch, channels,
    time)`): frames of `frame_length` every `frame_step` (default half a frame), windowed and
    transformed to `fft_length` (default the next power of two) // 2 + 1 bins by convolving
    with the STFT kernels (trainable weights `real_kernel`, `imag_kernel`). `mode` "log"
    (log magnitude), "magnitude", "psd" (power, interior bins doubled), "real", "imag",
    "angle" or "stft" (real and imaginary parts side by side). Channels are stacked along
    the frequency axis, or on an axis of their own with `expand_dims`."""

    def __init__(self, mode: str = "log", frame_length: int = 256, frame_step=None,
                 fft_length=None, window="hann", periodic: bool = False, scaling="density",
                 padding: str = "valid", expand_dims: bool = False, data_format=None,
                 **kwargs: Any) -> None:
        if frame_step is not None and (frame_step > frame_length or frame_step < 1):
            raise ValueError("`frame_step` should be a positive integer not greater than "
                             f"`frame_length`. Received frame_step={frame_step}, "
                             f"frame_length={frame_length}")
        if fft_length is not None and fft_length < frame_length:
            raise ValueError("`fft_length` should be not less than `frame_length`. Received "
                             f"fft_length={fft_length}, frame_length={frame_length}")
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn("`fft_length` is recommended to be a power of two. Received "
                          f"fft_length={fft_length}", stacklevel=2)
        if mode not in _MODES:
            raise ValueError(f"Output mode is invalid, it must be one of {', '.join(_MODES)}. "
                             f"Received: mode={mode}")
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. "
                             f"Received scaling={scaling}")
        if padding not in ("valid", "same"):
            raise ValueError(f"Padding is invalid, it should be 'valid', 'same'. Received: "
                             f"padding={padding}")
        if isinstance(window, str):
            get_window(window, 1)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"STFTSpectrogram: `data_format` must be 'channels_last' or "
                             f"'channels_first', got data_format={data_format!r}.")
        super().__init__(**kwargs)
        self.mode, self.frame_length, self.frame_step = mode, frame_length, frame_step
        self._frame_step = frame_step or frame_length // 2
        self.fft_length = fft_length
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window, self.periodic, self.scaling = window, periodic, scaling
        self.padding, self.expand_dims = padding, expand_dims
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape=None) -> None:
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(
                name="real_kernel", shape=shape,
                initializer=STFT("real", self.window, self.scaling, self.periodic))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(
                name="imag_kernel", shape=shape,
                initializer=STFT("imag", self.window, self.scaling, self.periodic))
        self.built = True

    def _conv(self, x, kernel, channels):
        """(batch, channels, bins, frames) of each channel convolved with `kernel`."""
        y = nn_conv.conv1d(x, array_math.cast(kernel, x.dtype), self._frame_step,
                           self.padding.upper())
        y = array_math.transpose(y, [0, 2, 1])
        return array_math.reshape(y, [-1, channels, self._fft_length // 2 + 1,
                                      array_math.shape(y)[2]])

    def _arrange(self, y):
        channels, bins, frames = (array_math.shape(y)[i] for i in (1, 2, 3))
        if self.data_format == "channels_last":
            if self.expand_dims:
                return array_math.transpose(y, [0, 3, 2, 1])
            y = array_math.reshape(y, [-1, channels * bins, frames])
            return array_math.transpose(y, [0, 2, 1])
        if self.expand_dims:
            return array_math.transpose(y, [0, 1, 3, 2])
        return array_math.reshape(y, [-1, channels * bins, frames])

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        if x.dtype.name not in ("float16", "float32", "float64"):
            raise TypeError("Invalid input type. Expected `float16`, `float32` or `float64`. "
                            f"Received: input type={x.dtype.name}")
        channels_last = self.data_format == "channels_last"
        channels = x.shape.as_list()[2 if channels_last else 1]
        if channels is None:
            channels = array_math.shape(x)[2 if channels_last else 1]
        steps = array_math.shape(x)[1 if channels_last else 2]
        if channels_last:
            x = array_math.transpose(x, [0, 2, 1])
        x = array_math.reshape(x, [-1, steps, 1])
        real = self._conv(x, self.real_kernel, channels) if self.mode != "imag" else None
        imag = self._conv(x, self.imag_kernel, channels) if self.mode != "real" else None
        if self.mode in ("real", "imag"):
            return self._arrange(real if self.mode == "real" else imag)
        if self.mode == "angle":
            return self._arrange(math_composed.atan2(imag, real))
        if self.mode == "stft":
            return self._arrange(array_math.concat([real, imag], axis=2))
        power = array_math.add(array_math.square(real), array_math.square(imag))
        if self.mode == "psd":
            inner = array_composed.pad(power[:, :, 1:-1, :], [[0, 0], [0, 0], [1, 1], [0, 0]])
            return self._arrange(array_math.add(power, inner))
        magnitude = self._arrange(array_math.sqrt(array_math.maximum(power, _EPSILON)))
        if self.mode == "magnitude":
            return magnitude
        return array_math.log(array_math.maximum(magnitude, _EPSILON))

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        channels = shape[-1] if self.data_format == "channels_last" else shape[1]
        bins = self._fft_length // 2 + 1
        if self.mode == "stft":
            bins *= 2
        steps = shape[1] if self.data_format == "channels_last" else shape[2]
        if steps is not None:
            steps = (-(-steps // self._frame_step) if self.padding == "same"
                     else (steps - self.frame_length) // self._frame_step + 1)
        if self.expand_dims:
            return ((shape[0], steps, bins, channels) if self.data_format == "channels_last"
                    else (shape[0], channels, steps, bins))
        features = None if channels is None else bins * channels
        return ((shape[0], steps, features) if self.data_format == "channels_last"
                else (shape[0], features, steps))

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length,
                "window": self.window, "periodic": self.periodic, "scaling": self.scaling,
                "padding": self.padding, "data_format": self.data_format,
                "expand_dims": self.expand_dims}


_MEL_BREAK_HERTZ, _MEL_HIGH_Q = 700.0, 1127.0


def _hertz_to_mel(hertz):
    return _MEL_HIGH_Q * np.log(1.0 + hertz / _MEL_BREAK_HERTZ)


def mel_weight_matrix(num_mel_bins: int, num_spectrogram_bins: int, sampling_rate: float,
                      lower_edge_hertz: float, upper_edge_hertz: float) -> np.ndarray:
    """The (spectrogram bins, mel bins) matrix of triangular mel filters (the DC bin zero),
    as tf.signal.linear_to_mel_weight_matrix, in float32."""
    f32 = np.float32
    nyquist = f32(sampling_rate) / f32(2)
    linear = np.linspace(f32(0), nyquist, num_spectrogram_bins, dtype=f32)[1:]
    bins_mel = _hertz_to_mel(linear).astype(f32)[:, None]
    edges = np.linspace(_hertz_to_mel(f32(lower_edge_hertz)),
                        _hertz_to_mel(f32(upper_edge_hertz)), num_mel_bins + 2).astype(f32)
    lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    lower_slopes = (bins_mel - lower) / (center - lower)
    upper_slopes = (upper - bins_mel) / (upper - center)
    weights = np.maximum(f32(0), np.minimum(lower_slopes, upper_slopes))
    return np.pad(weights, [[1, 0], [0, 0]])


class MelSpectrogram(Layer):
    """Mel spectrogram of `(time,)` or `(batch, time)` signals: frames of
    `sequence_length` (default `fft_length`) every `sequence_stride`, centred (the signal
    reflected by fft_length // 2 at each end), a periodic `window`, |rfft| ** `mag_exp`,
    `num_mel_bins` triangular mel filters from `min_freq` to `max_freq` (default half the
    sampling rate), then (`power_to_db`) 10 log10(max(x, min_power) / ref_power) floored at
    the batch's maximum minus `top_db`. Output `(batch, num_mel_bins, frames)`."""

    def __init__(self, fft_length: int = 2048, sequence_stride: int = 512,
                 sequence_length=None, window="hann", sampling_rate: int = 16000,
                 num_mel_bins: int = 128, min_freq: float = 20.0, max_freq=None,
                 power_to_db: bool = True, top_db: float = 80.0, mag_exp: float = 2.0,
                 min_power: float = 1e-10, ref_power: float = 1.0, **kwargs: Any) -> None:
        self.fft_length, self.sequence_stride = fft_length, sequence_stride
        self.sequence_length = sequence_length or fft_length
        if self.fft_length < self.sequence_length:
            raise ValueError("`fft_length` must be greater than or equal to  "
                             f" `sequence_length`. Received: `sequence_length`="
                             f"{self.sequence_length}, `fft_length`={self.fft_length}.")
        self.window, self.sampling_rate, self.num_mel_bins = window, sampling_rate, num_mel_bins
        self.min_freq, self.max_freq = min_freq, max_freq or int(sampling_rate / 2)
        self.power_to_db, self.top_db, self.mag_exp = power_to_db, top_db, mag_exp
        self.min_power, self.ref_power = min_power, ref_power
        super().__init__(**kwargs)

    def _spectrogram(self, x: np.ndarray) -> np.ndarray:
        length, fft = self.sequence_length, self.fft_length
        if self.window is None:
            win = np.ones(length)
        elif isinstance(self.window, str):
            win = get_window(self.window, length, periodic=True)
        else:
            win = np.asarray(self.window, np.float64)
        left = (fft - length) // 2
        win = np.pad(win, (left, fft - length - left))
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(fft // 2, fft // 2)], mode="reflect")
        count = 1 + (x.shape[-1] - fft) // self.sequence_stride
        starts = np.arange(count) * self.sequence_stride
        frames = x[..., starts[:, None] + np.arange(fft)]
        spectrum = np.fft.rfft(frames * win, n=fft)
        return np.abs(spectrum) ** self.mag_exp

    def _mel(self, x: np.ndarray) -> np.ndarray:
        dtype = x.dtype
        x = np.asarray(x, np.float64)
        spec = self._spectrogram(x)
        matrix = mel_weight_matrix(self.num_mel_bins, spec.shape[-1], self.sampling_rate,
                                   self.min_freq, self.max_freq)
        out = np.tensordot(spec, matrix.astype(np.float64), axes=1)
        if self.power_to_db:
            out = 10.0 * np.log10(np.maximum(out, self.min_power))
            out -= 10.0 * np.log10(max(abs(self.ref_power), self.min_power))
            out = np.maximum(out, out.max() - self.top_db)
        return np.swapaxes(out, -1, -2).astype(dtype)

    def call(self, inputs):
        x = convert_to_tensor(inputs)
        dtype = self.dtype if self.dtype in ("float32", "float64") else "float32"
        x = array_math.cast(x, dtype)
        shape = None
        if x.shape.rank in (1, 2):  # the frames the centred signal holds
            dims = x.shape.as_list()
            n = dims[-1]
            count = None if n is None else (
                1 + (n + 2 * (self.fft_length // 2) - self.fft_length) // self.sequence_stride)
            shape = dims[:-1] + [self.num_mel_bins, count]
        return array_math.cast(run_numpy(self._mel, x, dtype, shape), self.dtype)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)

        def frames(n):
            return None if n is None else (n + self.sequence_stride + 1) // self.sequence_stride
        if len(shape) == 1:
            return [self.num_mel_bins, frames(shape[0])]
        return [shape[0], self.num_mel_bins, frames(shape[1])]

    def get_config(self) -> dict:
        return {**super().get_config(), "fft_length": self.fft_length,
                "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window,
                "sampling_rate": self.sampling_rate, "num_mel_bins": self.num_mel_bins,
                "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db,
                "mag_exp": self.mag_exp, "min_power": self.min_power,
                "ref_power": self.ref_power}
