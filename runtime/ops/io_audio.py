"""`rt.audio.decode_wav` / `encode_wav`: 16-bit PCM WAV files as float32 samples in [-1, 1),
[samples, channels], read and written here (no extra needed), byte for byte as TensorFlow's.

`DecodeWav` and `EncodeWav` are ops with NumPy kernels: eager, inside `rt.function` and
`Dataset.map` on the NumPy tier; the compiled tiers hold no strings and refuse them by name.
"""

from __future__ import annotations

import struct

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from .array_math import cast
from .core import apply, convert_to_tensor

_SCALE = 32768.0  # a 16-bit sample s is the float s / 32768


def _take(data: bytes, pos: int, size: int) -> bytes:
    if pos + size > len(data):
        raise InvalidArgumentError("Data too short when trying to read string")
    return data[pos:pos + size]


def _chunks(data: bytes):
    """(id, body) of each chunk after the RIFF/WAVE header."""
    if _take(data, 0, 4) != b"RIFF" or _take(data, 8, 4) != b"WAVE":
        raise InvalidArgumentError("Header mismatch: a WAV file starts with 'RIFF' and 'WAVE'")
    pos = 12
    while pos + 8 <= len(data):
        kind = data[pos:pos + 4]
        size = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        yield kind, data[pos + 8:pos + 8 + size]
        pos += 8 + size + (size & 1)


def read_wav(data: bytes) -> tuple[np.ndarray, int]:
    """(int16 samples [n, channels], sample rate) of 16-bit PCM WAV bytes."""
    fmt = None
    for kind, body in _chunks(data):
        if kind == b"fmt ":
            if len(body) < 16:
                raise InvalidArgumentError("Data too short when trying to read string")
            fmt = struct.unpack("<HHIIHH", body[:16])
        elif kind == b"data":
            if fmt is None:
                raise InvalidArgumentError("The 'data' chunk comes before the 'fmt ' chunk")
            encoding, channels, rate, _, _, bits = fmt
            if encoding not in (1, 0xFFFE):
                raise InvalidArgumentError(f"Bad audio format value of {encoding}: only PCM "
                                           "(1) is read")
            if bits != 16:
                raise InvalidArgumentError(f"Can only read 16-bit WAV files, but received {bits}")
            if channels < 1:
                raise InvalidArgumentError(f"Bad number of channels: {channels}")
            usable = len(body) // (2 * channels) * (2 * channels)
            samples = np.frombuffer(body[:usable], "<i2").reshape(-1, channels)
            return samples.astype(np.int16), rate
    raise InvalidArgumentError("Data too short when trying to read string: no 'data' chunk")


def write_wav(samples: np.ndarray, rate: int) -> bytes:
    """16-bit PCM WAV bytes of int16 samples [n, channels]."""
    frames, channels = samples.shape
    body = samples.astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(body), b"WAVE", b"fmt ", 16, 1,
                         channels, rate, rate * channels * 2, channels * 2, 16, b"data",
                         len(body))
    return header + body


def _decode_kernel(contents, desired_channels, desired_samples):
    value = contents.item() if isinstance(contents, np.ndarray) else contents
    samples, rate = read_wav(bytes(value))
    audio = samples.astype(np.float32) / np.float32(_SCALE)
    if desired_channels > 0:
        source = np.minimum(np.arange(desired_channels), audio.shape[1] - 1)
        audio = audio[:, source]
    if desired_samples >= 0:
        audio = audio[:desired_samples]
        if len(audio) < desired_samples:
            pad = np.zeros((desired_samples - len(audio), audio.shape[1]), np.float32)
            audio = np.concatenate([audio, pad])
    return np.ascontiguousarray(audio), np.int32(rate)


def _decode_infer(contents, desired_channels, desired_samples):
    if contents.dtype is not _dtypes.string or contents.shape.rank not in (0, None):
        raise InvalidArgumentError(f"decode_wav: `contents` must be a scalar string (the "
                                   f"file's bytes), got {contents.dtype.name} {contents.shape}.")
    samples = desired_samples if desired_samples >= 0 else None
    channels = desired_channels if desired_channels > 0 else None
    return [(TensorShape([samples, channels]), _dtypes.float32),
            (TensorShape([]), _dtypes.int32)]


DECODE_WAV = define("DecodeWav", _decode_infer, _decode_kernel, num_outputs=2,
                    differentiable=False, strings=True,
                    attrs={"desired_channels": INT, "desired_samples": INT})


@export("audio.decode_wav")
def decode_wav(contents, desired_channels: int = -1, desired_samples: int = -1,
               name=None) -> tuple[Tensor, Tensor]:
    """(audio, sample_rate) of the 16-bit PCM WAV bytes `contents`: float32 [samples,
    channels] in [-1, 1) and an int32 scalar. `desired_channels` keeps the first channels (the
    last one repeated when the file has fewer); `desired_samples` cuts or pads with zeros."""
    t = contents if isinstance(contents, Tensor) else convert_to_tensor(contents, dtype=_dtypes.string)
    audio, rate = apply(DECODE_WAV, [t], {"desired_channels": int(desired_channels),
                                          "desired_samples": int(desired_samples)}, name=name)
    return audio, rate


def _encode_kernel(audio, sample_rate):
    audio = np.asarray(audio, np.float32)
    if audio.ndim != 2:
        raise InvalidArgumentError(f"audio must be 2-dimensional{list(audio.shape)}")
    scaled = audio.astype(np.float64) * _SCALE
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # half away from zero
    samples = np.clip(rounded, -_SCALE, _SCALE - 1).astype(np.int16)
    return np.array(write_wav(samples, int(sample_rate)), dtype=object)


def _encode_infer(audio, sample_rate):
    if audio.shape.rank not in (2, None):
        raise InvalidArgumentError(f"audio must be 2-dimensional{audio.shape.as_list()}")
    if sample_rate.shape.rank not in (0, None):
        raise InvalidArgumentError(f"Input sample_rate should be a scalar tensor, got "
                                   f"{sample_rate.shape}")
    return TensorShape([]), _dtypes.string


ENCODE_WAV = define("EncodeWav", _encode_infer, _encode_kernel, differentiable=False,
                    strings=True)


@export("audio.encode_wav")
def encode_wav(audio, sample_rate, name=None) -> Tensor:
    """16-bit PCM WAV bytes (a scalar string) of float32 `audio` [samples, channels] (values
    clipped to [-1, 1)) at the int32 `sample_rate`."""
    # like TensorFlow's op wrapper: arrays and lists are made float32, tensors must be float32
    x = audio if isinstance(audio, Tensor) else convert_to_tensor(np.asarray(audio, np.float32))
    if x.dtype is not _dtypes.float32:
        raise TypeError(f"encode_wav: `audio` must be float32, got {x.dtype.name}.")
    rate = convert_to_tensor(sample_rate)
    if not rate.dtype.is_integer:
        raise TypeError(f"encode_wav: `sample_rate` must be an int32 scalar, got "
                        f"{rate.dtype.name}.")
    return apply(ENCODE_WAV, [x, cast(rate, _dtypes.int32)], name=name)
