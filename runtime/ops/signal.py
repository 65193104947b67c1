"""`rt.signal`: discrete Fourier transforms over the innermost axes, framing and windows.

`fft`/`ifft` (and their 2-D and 3-D forms) transform complex tensors; `rfft`/`irfft` go
between real signals and the non-negative half of their spectrum, with an optional
`fft_length` that crops or zero-pads the input. The transforms are four ops (`FFT`, `IFFT`,
`RFFT`, `IRFFT`, with the number of innermost axes as attribute `rank`) whose gradients are
their adjoint transforms; `frame`, `stft` and the windows are composed from other ops.
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import INT, INTS
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor
from . import array_composed as _composed
from . import array_math
from .core import apply, convert_to_tensor
from .math_special import real as _real

_COMPLEX_OF = {"float32": _dtypes.complex64, "float64": _dtypes.complex128}
_REAL_OF = {"complex64": _dtypes.float32, "complex128": _dtypes.float64}


def _axes(rank: int) -> tuple:
    return tuple(range(-rank, 0))


def _check_rank(name, x, rank):
    if x.shape.rank is not None and x.shape.rank < rank:
        raise ValueError(f"{name} needs `input` of rank at least {rank}, got shape {x.shape}.")


def _complex_infer(name):
    def infer(x, rank):
        if not x.dtype.is_complex:
            raise TypeError(f"{name} needs a complex64 or complex128 `input`, got {x.dtype.name}; "
                            "make one with rt.cast(x, rt.complex64) or rt.complex(re, im).")
        _check_rank(name, x, rank)
        return x.shape, x.dtype
    return infer


def _fft_kernel(x, rank):
    return np.fft.fftn(x, axes=_axes(rank)).astype(x.dtype, copy=False)


def _ifft_kernel(x, rank):
    return np.fft.ifftn(x, axes=_axes(rank)).astype(x.dtype, copy=False)


FFT = define("FFT", _complex_infer("FFT"), _fft_kernel, attrs={"rank": INT})
IFFT = define("IFFT", _complex_infer("IFFT"), _ifft_kernel, attrs={"rank": INT})


def _count(x, rank):
    """The number of points transformed (the product of the innermost `rank` sizes)."""
    dims = array_math.shape(x)
    total = dims[-1]
    for i in builtins.range(2, rank + 1):
        total = array_math.multiply(total, dims[-i])
    return array_math.cast(total, x.dtype)


@FFT.def_grad
def _fft_grad(op, g):
    rank = op.attrs["rank"]
    return [array_math.multiply(apply(IFFT, [g], {"rank": rank}), _count(g, rank))]


@IFFT.def_grad
def _ifft_grad(op, g):
    rank = op.attrs["rank"]
    return [array_math.divide(apply(FFT, [g], {"rank": rank}), _count(g, rank))]


def _rfft_infer(x, rank, fft_length):
    if x.dtype.name not in _COMPLEX_OF:
        raise TypeError(f"rfft needs a float32 or float64 `input_tensor`, got {x.dtype.name}.")
    _check_rank("rfft", x, rank)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None:
        return TensorShape(None), _COMPLEX_OF[x.dtype.name]
    dims[-rank:] = list(fft_length[:-1]) + [fft_length[-1] // 2 + 1]
    return TensorShape(dims), _COMPLEX_OF[x.dtype.name]


def _rfft_kernel(x, rank, fft_length):
    out = np.fft.rfftn(x, s=fft_length, axes=_axes(rank))
    return out.astype(_COMPLEX_OF[np.dtype(x.dtype).name].as_numpy_dtype, copy=False)


def _irfft_infer(x, rank, fft_length):
    if not x.dtype.is_complex:
        raise TypeError(f"irfft needs a complex64 or complex128 `input_tensor`, got {x.dtype.name}.")
    _check_rank("irfft", x, rank)
    dims = x.shape.as_list() if x.shape.rank is not None else None
    if dims is None:
        return TensorShape(None), _REAL_OF[x.dtype.name]
    dims[-rank:] = list(fft_length)
    return TensorShape(dims), _REAL_OF[x.dtype.name]


def _irfft_kernel(x, rank, fft_length):
    x = np.asarray(x)
    # irfftn wants exactly n // 2 + 1 entries on the last axis: crop or zero-pad to that first
    half = fft_length[-1] // 2 + 1
    have = x.shape[-1]
    if have > half:
        x = x[..., :half]
    elif have < half:
        x = np.concatenate([x, np.zeros(x.shape[:-1] + (half - have,), x.dtype)], axis=-1)
    out = np.fft.irfftn(x, s=fft_length, axes=_axes(rank))
    return out.astype(_REAL_OF[x.dtype.name].as_numpy_dtype, copy=False)


RFFT = define("RFFT", _rfft_infer, _rfft_kernel, attrs={"rank": INT, "fft_length": INTS})
IRFFT = define("IRFFT", _irfft_infer, _irfft_kernel, attrs={"rank": INT, "fft_length": INTS})


def _fit(t, sizes):
    """`t` cropped or zero-padded at the end of its innermost len(sizes) axes to `sizes`."""
    rank = len(sizes)
    have = t.shape.as_list()[-rank:]
    for i, (n, h) in enumerate(zip(sizes, have)):
        axis = t.shape.rank - rank + i
        if h is None:
            raise ValueError("rt.signal gradients need the transformed axes' sizes known.")
        if h > n:
            key = (builtins.slice(None),) * axis + (builtins.slice(0, n),)
            t = t[key]
        elif h < n:
            paddings = [[0, 0]] * t.shape.rank
            paddings[axis] = [0, n - h]
            t = _composed.pad(t, paddings)
    return t


@RFFT.def_grad
def _rfft_grad(op, g):
    rank, lengths = op.attrs["rank"], op.attrs["fft_length"]
    full = _fit(g, lengths)  # the missing (negative-frequency) half of the spectrum as zeros
    total = float(np.prod(lengths))
    back = _real(array_math.multiply(apply(IFFT, [full], {"rank": rank}),
                                     np.asarray(total, g.dtype.as_numpy_dtype)))
    x = op.inputs[0]
    return [_fit(back, x.shape.as_list()[-rank:])]


@IRFFT.def_grad
def _irfft_grad(op, g):
    rank, lengths = op.attrs["rank"], op.attrs["fft_length"]
    n = lengths[-1]
    half = n // 2 + 1
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    x = op.inputs[0]
    spectrum = apply(RFFT, [g], {"rank": rank, "fft_length": tuple(lengths)})
    scaled = array_math.multiply(spectrum, (weights / float(np.prod(lengths))).astype(x.dtype.as_numpy_dtype))
    return [_fit(scaled, x.shape.as_list()[-rank:])]


# -- public functions ----------------------------------------------------------------------------

def _complex_fn(op, rank, public, doc):
    def fn(input, name=None) -> Tensor:  # noqa: A002 - TensorFlow's name
        x = convert_to_tensor(input)
        return apply(op, [x], {"rank": rank}, name=name)
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{doc} over the innermost {rank} ax{'is' if rank == 1 else 'es'} of a complex "
                  f"tensor (op `{op.name}`).")
    return fn


fft = export("signal.fft")(_complex_fn(FFT, 1, "fft", "The discrete Fourier transform"))
ifft = export("signal.ifft")(_complex_fn(IFFT, 1, "ifft", "The inverse discrete Fourier transform"))
fft2d = export("signal.fft2d")(_complex_fn(FFT, 2, "fft2d", "The discrete Fourier transform"))
ifft2d = export("signal.ifft2d")(_complex_fn(IFFT, 2, "ifft2d",
                                             "The inverse discrete Fourier transform"))
fft3d = export("signal.fft3d")(_complex_fn(FFT, 3, "fft3d", "The discrete Fourier transform"))
ifft3d = export("signal.ifft3d")(_complex_fn(IFFT, 3, "ifft3d",
                                             "The inverse discrete Fourier transform"))


def _lengths(fft_length, x, rank, inverse, public):
    if fft_length is None:
        dims = x.shape.as_list()[-rank:] if x.shape.rank is not None else [None]
        if None in dims:
            raise ValueError(f"{public} needs `fft_length` when the innermost axes of "
                             "`input_tensor` are not known.")
        if inverse:
            dims[-1] = 2 * (dims[-1] - 1)
        return tuple(dims)
    value = fft_length.numpy() if isinstance(fft_length, EagerTensor) else fft_length
    if isinstance(value, Tensor):
        value = constant_value(value)
        if value is None:
            raise ValueError(f"{public} needs `fft_length` known when tracing.")
    lengths = tuple(int(v) for v in np.asarray(value).reshape(-1))
    if len(lengths) != rank or builtins.any(n <= 0 for n in lengths):
        raise ValueError(f"{public} needs `fft_length` as {rank} positive int"
                         f"{'s' if rank > 1 else ''}, got {list(lengths)}.")
    return lengths


def _real_fn(op, rank, inverse, public, doc):
    def fn(input_tensor, fft_length=None, name=None) -> Tensor:
        x = convert_to_tensor(input_tensor)
        _check_rank(public, x, rank)
        lengths = _lengths(fft_length, x, rank, inverse, public)
        return apply(op, [x], {"rank": rank, "fft_length": lengths}, name=name)
    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (f"{doc} over the innermost {rank} ax{'is' if rank == 1 else 'es'}; "
                  "`fft_length` (one int per axis) crops or zero-pads the input "
                  f"(op `{op.name}`).")
    return fn


rfft = export("signal.rfft")(_real_fn(RFFT, 1, False, "rfft",
                                      "The non-negative frequencies of a real signal's DFT"))
irfft = export("signal.irfft")(_real_fn(IRFFT, 1, True, "irfft",
                                        "The real signal of a half spectrum (inverse of rfft)"))
rfft2d = export("signal.rfft2d")(_real_fn(RFFT, 2, False, "rfft2d",
                                          "The half spectrum of a real signal's 2-D DFT"))
irfft2d = export("signal.irfft2d")(_real_fn(IRFFT, 2, True, "irfft2d",
                                            "The real signal of a 2-D half spectrum"))
rfft3d = export("signal.rfft3d")(_real_fn(RFFT, 3, False, "rfft3d",
                                          "The half spectrum of a real signal's 3-D DFT"))
irfft3d = export("signal.irfft3d")(_real_fn(IRFFT, 3, True, "irfft3d",
                                            "The real signal of a 3-D half spectrum"))


# -- framing and windows -------------------------------------------------------------------------

def _positive_int(value, what, public):
    if isinstance(value, Tensor):
        value = value.numpy() if isinstance(value, EagerTensor) else constant_value(value)
        if value is None:
            raise ValueError(f"{public} needs `{what}` known when tracing.")
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{public} needs an int `{what}`, got {value!r}.") from None
    if n <= 0:
        raise ValueError(f"{public} needs a positive `{what}`, got {n}.")
    return n


@export("signal.frame")
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1,
          name=None) -> Tensor:
    """Overlapping frames of `frame_length` samples, `frame_step` apart, along `axis`: that
    axis becomes two, [frames, frame_length]. `pad_end` pads with `pad_value` so that every
    sample starts a frame at a multiple of `frame_step` (ceil(n / frame_step) frames)."""
    x = convert_to_tensor(signal)
    length = _positive_int(frame_length, "frame_length", "frame")
    step = _positive_int(frame_step, "frame_step", "frame")
    rank = x.shape.rank
    if rank is None or rank == 0:
        raise ValueError(f"frame needs a `signal` of rank at least 1, got shape {x.shape}.")
    if not -rank <= int(axis) < rank:
        raise ValueError(f"frame: `axis` {axis} is out of range for `signal` of rank {rank}.")
    ax = int(axis) % rank
    n = x.shape.as_list()[ax]
    if n is None:
        raise ValueError("frame needs the size of `axis` known.")
    if pad_end:
        frames = -(-n // step)
        extra = builtins.max(0, (frames - 1) * step + length - n)
        if extra:
            paddings = [[0, 0]] * rank
            paddings[ax] = [0, extra]
            x = _composed.pad(x, paddings, constant_values=pad_value)
    else:
        frames = builtins.max(0, 1 + (n - length) // step) if n >= length else 0
    index = np.arange(frames)[:, None] * step + np.arange(length)[None, :]
    return array_math.gather(x, index.astype(np.int32), axis=ax, name=name)


def _window(window_length, periodic, dtype, a0, public):
    n = _positive_int(window_length, "window_length", public) if not (
        isinstance(window_length, (int, np.integer)) and window_length == 0) else 0
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{public} needs a floating-point `dtype`, got {dtype.name}.")
    if n == 1:
        return array_math.ones([1], dtype)
    denominator = n if bool(periodic) else n - 1
    values = a0 - (1 - a0) * np.cos(2 * np.pi * np.arange(n) / builtins.max(denominator, 1))
    return convert_to_tensor(values.astype(dtype.as_numpy_dtype))


@export("signal.hann_window")
def hann_window(window_length, periodic=True, dtype=_dtypes.float32, name=None) -> Tensor:
    """The Hann window 0.5 - 0.5 cos(2 pi n / N), N = window_length if `periodic` else
    window_length - 1."""
    return _window(window_length, periodic, dtype, 0.5, "hann_window")


@export("signal.hamming_window")
def hamming_window(window_length, periodic=True, dtype=_dtypes.float32, name=None) -> Tensor:
    """The Hamming window 0.54 - 0.46 cos(2 pi n / N), N = window_length if `periodic` else
    window_length - 1."""
    return _window(window_length, periodic, dtype, 0.54, "hamming_window")


@export("signal.stft")
def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None) -> Tensor:
    """The short-time Fourier transform of real `signals` along the last axis: frames,
    windowed by `window_fn(frame_length, dtype=...)` (None: no window), then `rfft` of
    `fft_length` (default: the smallest power of 2 >= frame_length)."""
    x = convert_to_tensor(signals)
    if x.dtype.name not in _COMPLEX_OF:
        raise TypeError(f"stft needs float32 or float64 `signals`, got {x.dtype.name}.")
    length = _positive_int(frame_length, "frame_length", "stft")
    if fft_length is None:
        fft_length = 1 << (length - 1).bit_length()
    frames = frame(x, length, frame_step, pad_end=pad_end, axis=-1)
    if window_fn is not None:
        frames = array_math.multiply(frames, window_fn(length, dtype=x.dtype))
    return rfft(frames, [int(fft_length)], name=name)

