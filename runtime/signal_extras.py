"""More of `tf.signal`: the discrete cosine transforms (`dct`, `idct`), the modified DCT
(`mdct`, `inverse_mdct`), `overlap_and_add`, `inverse_stft` with its window
(`inverse_stft_window_fn`), the mel filter bank (`linear_to_mel_weight_matrix`) and
`mfccs_from_log_mel_spectrograms`.

Each transform is a product with a constant matrix (built in float64 from the transform's
definition, then cast to the signal's dtype) or a sum of framed pieces, composed of rt ops, so
gradients and every tier follow from theirs. Loaded on first use of one of these names.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from . import dtypes as _dtypes
from .arguments import with_keyword_hints
from .exports import NAMESPACES as _NS
from .tensor import Tensor

_R = _NS[""]
_S = _NS["signal"]


def _t(x, dtype=None) -> Tensor:
    return _R["convert_to_tensor"](x, dtype=dtype)


def _float_signal(x, fn: str) -> Tensor:
    x = _t(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn} needs a float16, float32 or float64 signal, got {x.dtype.name}; "
                        "cast it first.")
    return x


def _last_dim(x: Tensor, fn: str) -> int:
    if x.shape.rank is None or x.shape.rank < 1 or x.shape[-1] is None:
        raise ValueError(f"{fn} needs the length of the last axis known while tracing, got "
                         f"shape {x.shape}.")
    return int(x.shape[-1])


def _apply_matrix(x: Tensor, matrix: np.ndarray) -> Tensor:
    """`x @ matrix` over x's last axis (the matrix cast to x's dtype)."""
    return _R["tensordot"](x, _t(matrix.astype(x.dtype.as_numpy_dtype)),
                           [[x.shape.rank - 1], [0]])


def _dct_matrix(kind: int, length: int, ortho: bool) -> np.ndarray:
    """M with `dct(x) = x @ M` for a length-`length` signal (SciPy's definitions of the
    types, unnormalized: a factor 2 on the cosine sums)."""
    n = np.arange(length)[:, None]
    k = np.arange(length)[None, :]
    if kind == 1:
        m = 2 * np.cos(np.pi * k * n / (length - 1))
        m[0, :] = 1.0
        m[-1, :] = (-1.0) ** np.arange(length)
    elif kind == 2:
        m = 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * length))
        if ortho:
            m[:, 0] *= math.sqrt(1 / (4 * length))
            m[:, 1:] *= math.sqrt(1 / (2 * length))
    elif kind == 3:
        if ortho:  # the inverse of the orthonormal type II: its transpose
            return _dct_matrix(2, length, True).T
        m = 2 * np.cos(np.pi * (2 * k + 1) * n / (2 * length))
        m[0, :] = 1.0
    else:
        m = 2 * np.cos(np.pi * (2 * k + 1) * (2 * n + 1) / (4 * length))
        if ortho:
            m *= math.sqrt(1 / (2 * length))
    return m


def _check_dct(type, n, axis, norm, fn):  # noqa: A002 - TensorFlow's argument name
    if axis != -1:
        raise NotImplementedError(f"{fn}: axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError(f"{fn}: n should be a positive integer or None, got {n}.")
    if type not in (1, 2, 3, 4):
        raise ValueError(f"{fn}: only Types I, II, III and IV (I)DCT are supported, got {type}.")
    if norm not in (None, "ortho"):
        raise ValueError(f"{fn}: unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")


def dct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002
    """The discrete cosine transform of types I-IV over the last axis (SciPy's `dct`
    definitions); `n` truncates or zero-pads the signal first; `norm='ortho'` scales it to
    an orthonormal transform (types II-IV)."""
    _check_dct(type, n, axis, norm, "dct")
    x = _float_signal(input, "dct")
    length = _last_dim(x, "dct")
    if n is not None and n != length:
        x = x[..., :n] if n < length else _R["pad"](
            x, [[0, 0]] * (x.shape.rank - 1) + [[0, n - length]])
        length = n
    if type == 1 and length < 2:
        raise ValueError("dct: a Type-I DCT needs a signal of length > 1.")
    return _apply_matrix(x, _dct_matrix(type, length, norm == "ortho"))


def idct(input, type=2, n=None, axis=-1, norm=None, name=None) -> Tensor:  # noqa: A002
    """The inverse DCT: the DCT of the inverse type (III for II, II for III; I and IV are their
    own), unscaled as SciPy's `idct` (`idct(dct(x, norm='ortho'), norm='ortho')` is `x`)."""
    _check_dct(type, n, axis, norm, "idct")
    return dct(input, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, axis, norm)


def _overlap_matrix(frames: int, frame_length: int, step: int) -> np.ndarray:
    out = (frames - 1) * step + frame_length
    m = np.zeros((frames * frame_length, out))
    for f in range(frames):
        m[f * frame_length + np.arange(frame_length), f * step + np.arange(frame_length)] = 1.0
    return m


def overlap_and_add(signal, frame_step, name=None) -> Tensor:
    """Sums frames `[..., frames, frame_length]` placed `frame_step` apart into a signal of
    `(frames - 1) * frame_step + frame_length` samples."""
    signal = _t(signal)
    step = int(frame_step.numpy() if isinstance(frame_step, Tensor) else frame_step)
    if signal.shape.rank is None or signal.shape.rank < 2:
        raise ValueError(f"overlap_and_add: signal must have rank >= 2, got shape "
                         f"{signal.shape}.")
    if step < 1:
        raise ValueError(f"overlap_and_add: frame_step must be positive, got {step}.")
    frames, length = signal.shape[-2], signal.shape[-1]
    if frames is None or length is None:
        raise ValueError("overlap_and_add needs the number and length of the frames known "
                         f"while tracing, got shape {signal.shape}.")
    frames, length = int(frames), int(length)
    lead = _R["shape"](signal)[:-2]
    flat = _R["reshape"](signal, _R["concat"]([lead, [frames * length]], 0))
    if signal.dtype.is_floating or signal.dtype.is_complex:
        return _apply_matrix(flat, _overlap_matrix(frames, length, step))
    as_float = _R["cast"](flat, _dtypes.float64)
    return _R["cast"](_apply_matrix(as_float, _overlap_matrix(frames, length, step)),
                      signal.dtype)


def _mdct_matrix(frame_length: int) -> np.ndarray:
    half = frame_length // 2
    t = np.arange(frame_length)[:, None]
    k = np.arange(half)[None, :]
    return np.cos(np.pi / half * (t + 0.5 + half / 2) * (k + 0.5))


def _check_mdct(frame_length, norm, fn) -> int:
    frame_length = int(frame_length)
    if frame_length % 4:
        raise ValueError(f"{fn}: the frame length must be a multiple of 4, got {frame_length}.")
    if norm not in (None, "ortho"):
        raise ValueError(f"{fn}: normalization must be None or 'ortho', got {norm!r}.")
    return frame_length


def mdct(signals, frame_length, window_fn=_S["vorbis_window"], pad_end=False, norm=None,
         name=None) -> Tensor:
    """The modified DCT of frames of `frame_length` (a multiple of 4) taken every
    `frame_length // 2` samples: `[..., frames, frame_length // 2]`. `window_fn` (default the
    Vorbis window; None for none) weights each frame; `norm='ortho'` makes it orthonormal."""
    frame_length = _check_mdct(frame_length, norm, "mdct")
    signals = _float_signal(signals, "mdct")
    framed = _S["frame"](signals, frame_length, frame_length // 2, pad_end=pad_end)
    window = _window(window_fn, frame_length, signals.dtype)
    if window is not None:
        framed = framed * window
    scale = math.sqrt(4 / frame_length) if norm == "ortho" else 2.0
    return _apply_matrix(framed, scale * _mdct_matrix(frame_length))


def inverse_mdct(mdcts, window_fn=_S["vorbis_window"], norm=None, name=None) -> Tensor:
    """The signal whose `mdct` (with the same window and norm) is `mdcts`, by the inverse
    transform of each frame, windowed (`window_fn=None`: by 1/sqrt(2)), overlapped and added
    (time-domain aliasing cancellation: exact for windows satisfying the Princen-Bradley
    condition)."""
    mdcts = _float_signal(mdcts, "inverse_mdct")
    half = _last_dim(mdcts, "inverse_mdct")
    frame_length = _check_mdct(2 * half, norm, "inverse_mdct")
    scale = math.sqrt(2 / half) if norm == "ortho" else 1 / half
    frames = _apply_matrix(mdcts, scale * _mdct_matrix(frame_length).T)
    window = _window(window_fn, frame_length, mdcts.dtype)
    # no window: the flat one that meets Princen-Bradley (w[n]^2 + w[n + half]^2 = 1)
    frames = frames * (window if window is not None else math.sqrt(0.5))
    return overlap_and_add(frames, half)


def _window(window_fn, frame_length: int, dtype):
    return None if window_fn is None else window_fn(frame_length, dtype=dtype)


def inverse_stft(stfts, frame_length, frame_step, fft_length=None,
                 window_fn=_S["hann_window"], name=None) -> Tensor:
    """The signal of a short-time Fourier transform `[..., frames, fft_length // 2 + 1]`:
    each frame's inverse real FFT, cut to `frame_length`, windowed (`window_fn`, default
    the Hann window; pass `inverse_stft_window_fn(frame_step)` to invert `stft` exactly),
    overlapped and added `frame_step` apart."""
    stfts = _t(stfts)
    if not stfts.dtype.is_complex:
        raise TypeError(f"inverse_stft needs complex64 or complex128 STFTs, got "
                        f"{stfts.dtype.name}.")
    frame_length, frame_step = int(frame_length), int(frame_step)
    if fft_length is None:
        fft_length = 1 << max(frame_length - 1, 0).bit_length()
    fft_length = int(fft_length)
    frames = _S["irfft"](stfts, [fft_length])
    if fft_length >= frame_length:
        frames = frames[..., :frame_length]
    else:
        frames = _R["pad"](frames, [[0, 0]] * (frames.shape.rank - 1) +
                           [[0, frame_length - fft_length]])
    if window_fn is not None:
        frames = frames * window_fn(frame_length, dtype=frames.dtype)
    return overlap_and_add(frames, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=_S["hann_window"],
                           name=None) -> Callable[..., Tensor]:
    """A window function for `inverse_stft` that undoes `stft` with `forward_window_fn`
    (default Hann) and `frame_step`: the forward window divided by the sum of the squared
    forward windows overlapping at each sample."""
    step = int(frame_step)
    forward = forward_window_fn

    def window(frame_length, dtype=_dtypes.float32) -> Tensor:
        length = int(frame_length)
        w = np.asarray(forward(length, dtype=_dtypes.float64).numpy(), np.float64)
        overlaps = -(-length // step)
        padded = np.zeros(overlaps * step)
        padded[:length] = w * w
        denominator = np.tile(padded.reshape(overlaps, step).sum(0), overlaps)[:length]
        return _t((w / denominator).astype(_dtypes.as_dtype(dtype).as_numpy_dtype))
    return window


def _hertz_to_mel(hz):
    return 1127.0 * np.log1p(np.asarray(hz, np.float64) / 700.0)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=_dtypes.float32, name=None) -> Tensor:
    """`[num_spectrogram_bins, num_mel_bins]` weights taking a linear-frequency magnitude
    spectrogram to the mel scale (HTK's mel = 1127 ln(1 + f / 700)): triangular filters
    spaced evenly in mel between the edges; the DC bin gets no weight."""
    num_mel_bins, bins = int(num_mel_bins), int(num_spectrogram_bins)
    sample_rate = float(sample_rate)
    lower, upper = float(lower_edge_hertz), float(upper_edge_hertz)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if lower < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower}")
    if lower >= upper:
        raise ValueError(f"lower_edge_hertz {lower} >= upper_edge_hertz {upper}")
    if upper > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got {upper} for sample_rate: {sample_rate}")
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype!r}")
    spectrum_mel = _hertz_to_mel(np.linspace(0.0, sample_rate / 2, bins))[1:, None]
    edges = np.linspace(_hertz_to_mel(lower), _hertz_to_mel(upper), num_mel_bins + 2)
    low, center, high = edges[:-2], edges[1:-1], edges[2:]
    rising = (spectrum_mel - low) / (center - low)
    falling = (high - spectrum_mel) / (high - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    weights = np.concatenate([np.zeros((1, num_mel_bins)), weights], 0)
    return _t(weights.astype(dtype.as_numpy_dtype))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None) -> Tensor:
    """Mel-frequency cepstral coefficients: the type-II DCT of log-mel spectrograms over the
    last axis, scaled by 1 / sqrt(2 * num_mel_bins)."""
    x = _float_signal(log_mel_spectrograms, "mfccs_from_log_mel_spectrograms")
    bins = _last_dim(x, "mfccs_from_log_mel_spectrograms")
    return dct(x, type=2) * (1 / math.sqrt(2.0 * bins))


__all__ = ["dct", "idct", "inverse_mdct", "inverse_stft", "inverse_stft_window_fn",
           "linear_to_mel_weight_matrix", "mdct", "mfccs_from_log_mel_spectrograms",
           "overlap_and_add"]

for _name in __all__:  # a misspelt keyword: "did you mean"
    globals()[_name] = with_keyword_hints(globals()[_name], _name)
