"""`keras.quantizers`: Keras 3's quantizers, quantization configs and quantization math.

    from runtime import keras

    q, scale = keras.quantizers.abs_max_quantize(x, axis=-1)       # int8 values, x * scale
    packed, shape, rows = keras.quantizers.pack_int4(q4)            # two int4 per byte
    y = keras.quantizers.fake_quant_with_min_max_vars(x, -1.0, 1.0) # TF's fake quantization

The functions give Keras's numbers (those of its TensorFlow backend): `abs_max_quantize`
(and `AbsMaxQuantizer`), `abs_max_quantize_grouped_with_zero_point`, `pack_int4` /
`unpack_int4`, `fake_quant_with_min_max_vars` (TensorFlow's `FakeQuantWithMinMaxVars` and its
per-channel form, with their gradient: the input's where it lies in the nudged range, the
rest to `min_vals` / `max_vals`), `compute_float8_scale`, `compute_float8_amax_history` and
`quantize_and_dequantize`. They compose this runtime's ops, so they run eagerly and inside a
traced function, except `pack_int4` and the `to_numpy=True` paths, which work on the host as
Keras's do.

The configs (`Int8QuantizationConfig`, `Int4QuantizationConfig`, `Float8QuantizationConfig`,
`GPTQConfig`, `AWQConfig`) hold and check their arguments as Keras does and round-trip
through `get_config` / `from_config` and `serialize` / `deserialize`. Quantized layers are
not implemented: `Model.quantize` checks its arguments as Keras does and then raises
`NotImplementedError` naming the mode (for GPTQ and AWQ, the calibration run they need).

Differences from Keras: `get("AbsMaxQuantizer", **kwargs)` makes the class with `kwargs` as
keyword arguments (Keras passes the dict as the first positional argument), and
`AbsMaxQuantizer` keeps `value_range` as a tuple (so a config read back from JSON still
passes `Int4QuantizationConfig`'s `(-8, 7)` check), and `deserialize` rebuilds a `GPTQConfig`
(Keras's returns the string `"GPTQConfig"`).
"""

from __future__ import annotations

import inspect
import math
import re
from typing import Any

import numpy as np

from .. import context as _context
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..gradients.custom import custom_gradient as _custom_gradient
from ..layers import serialization as _serialization
from . import ops as _ops

QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")
_EPSILON = 1e-7  # keras.backend.epsilon() when Keras's defaults were written


def _dtype_name(value) -> str:
    """The dtype name of a tensor, array or dtype-like value."""
    dtype = getattr(value, "dtype", value)
    return _dtypes.as_dtype(dtype).name


# -- quantizers ------------------------------------------------------------------------------

class Quantizer:
    """The base class of quantizers: called on a tensor, a quantizer returns its quantized
    form (the base class returns the input unchanged). `output_dtype` names the quantized
    values' dtype."""

    def __init__(self, output_dtype: str = "int8") -> None:
        self.output_dtype = output_dtype

    def __call__(self, x):
        return x

    @classmethod
    def from_config(cls, config: dict) -> "Quantizer":
        """The quantizer of a `get_config` dict."""
        return cls(**config)

    def get_config(self) -> dict:
        """The arguments that make this quantizer again; subclasses define it."""
        raise NotImplementedError(f"{self} does not implement get_config()")


def abs_max_quantize(inputs, axis, value_range=(-127, 127), dtype: str = "int8",
                     epsilon: float = _EPSILON, to_numpy: bool = False):
    """`(quantized, scale)`: `scale = value_range[1] / (max(|inputs|) + epsilon)` along `axis`
    (kept as a size-1 axis; `axis=None` takes the whole tensor) and
    `quantized = clip(round(inputs * scale), *value_range)` cast to `dtype`. `to_numpy=True`
    computes on the host with NumPy (eager tensors and arrays only)."""
    if to_numpy:
        array = np.asarray(_ops.convert_to_numpy(inputs))
        original = _dtype_name(array)
        np_axis = tuple(axis) if isinstance(axis, list) else axis
        scale = np.divide(value_range[1],
                          np.add(np.max(np.abs(array), axis=np_axis, keepdims=True), epsilon))
        outputs = np.clip(np.round(np.multiply(array, scale)), value_range[0], value_range[1])
        return (_ops.convert_to_tensor(outputs.astype(_dtypes.as_dtype(dtype).as_numpy_dtype)),
                _ops.convert_to_tensor(scale, dtype=original))
    x = _ops.convert_to_tensor(inputs)
    original = _dtype_name(x)
    work = x if x.dtype.is_floating else _ops.cast(x, "float32")
    peak = _ops.max(_ops.abs(work), axis=axis, keepdims=True)
    scale = _ops.divide(_ops.convert_to_tensor(value_range[1], dtype=work.dtype),
                        _ops.add(peak, _ops.convert_to_tensor(epsilon, dtype=work.dtype)))
    scale = _ops.cast(scale, original)
    outputs = _ops.clip(_ops.round(_ops.multiply(x, scale)), value_range[0], value_range[1])
    return _ops.cast(outputs, dtype), scale


class AbsMaxQuantizer(Quantizer):
    """Quantizes by `abs_max_quantize` along `axis` (given at the call, else here, else -1)
    into `value_range`; `__call__(x, axis=None, to_numpy=False)` returns
    `(quantized, scale)`."""

    def __init__(self, axis=None, value_range=(-127, 127), epsilon: float = _EPSILON,
                 output_dtype: str = "int8") -> None:
        Quantizer.__init__(self, output_dtype=output_dtype)
        if axis is not None:
            axis = (axis,) if isinstance(axis, int) else tuple(axis)
        self.axis = axis
        self.value_range = tuple(value_range)
        self.epsilon = epsilon
        if output_dtype == "int8" and (value_range[0] < -128 or value_range[1] > 127):
            raise ValueError(
                "Quantizer with output_dtype='int8' requires value_range to be within the "
                f"interval [-128, 127]. Received: value_range={value_range}")

    def __call__(self, x, axis=None, to_numpy: bool = False):
        if axis is None:
            axis = self.axis if self.axis is not None else -1
        return abs_max_quantize(x, axis, self.value_range, self.output_dtype, self.epsilon,
                                to_numpy)

    def get_config(self) -> dict:
        config = {"value_range": self.value_range, "epsilon": self.epsilon,
                  "output_dtype": self.output_dtype}
        if self.axis is not None:
            config["axis"] = self.axis
        return config


def abs_max_quantize_grouped_with_zero_point(inputs, block_size: int, value_range=(-8, 7),
                                             dtype: str = "int8", epsilon: float = _EPSILON,
                                             to_numpy: bool = False):
    """Asymmetric quantization of a 2-D `(input_dim, output_dim)` tensor in groups of
    `block_size` rows: `(quantized, scale, zero_point)`, the last two of shape
    `(ceil(input_dim / block_size), output_dim)` (`zero_point` int8), with
    `quantized = clip(round(inputs / scale) + zero_point, *value_range)`. As in Keras, the
    device path (the default) widens an empty range by 1 on each side and takes the zero point
    in the signed range of the bit width, the NumPy path (`to_numpy=True`) does not."""
    if int(block_size) <= 0:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}.")
    if to_numpy:
        return _grouped_numpy(inputs, int(block_size), value_range, dtype, epsilon)
    x = _ops.convert_to_tensor(inputs)
    if len(x.shape) != 2:
        raise ValueError("abs_max_quantize_grouped_with_zero_point takes a 2-D "
                         f"(input_dim, output_dim) tensor, got shape {x.shape}.")
    original = _dtype_name(x)
    input_dim, output_dim = int(x.shape[0]), int(x.shape[1])
    qmin, qmax = value_range
    bits = int(math.log2(qmax - qmin + 1))
    n_groups = -(-input_dim // int(block_size))
    padded_dim = n_groups * int(block_size)
    padded = x
    if padded_dim > input_dim:
        padded = _ops.concatenate(
            [x, _ops.zeros((padded_dim - input_dim, output_dim), dtype=original)], axis=0)
    if n_groups > 1:
        grouped = _ops.reshape(padded, (n_groups, int(block_size), output_dim))
        low, high = _ops.min(grouped, axis=1), _ops.max(grouped, axis=1)
    else:  # one group: the statistics of the unpadded rows
        low, high = _ops.min(x, axis=0, keepdims=True), _ops.max(x, axis=0, keepdims=True)
    empty = _ops.equal(low, high)
    low = _ops.where(empty, _ops.subtract(low, 1), low)
    high = _ops.where(empty, _ops.add(high, 1), high)
    span = _ops.subtract(high, low)
    if epsilon > 0:
        span = _ops.add(span, _ops.convert_to_tensor(epsilon, dtype=original))
    scale = _ops.divide(span, _ops.convert_to_tensor(2.0 ** bits - 1, dtype=original))
    scale = _ops.where(_ops.less_equal(scale, 0), _ops.convert_to_tensor(1e-8, dtype=original),
                       scale)
    signed_min, signed_max = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    zero = _ops.add(_ops.round(_ops.divide(_ops.negative(low), scale)), signed_min)
    zero = _ops.cast(_ops.clip(zero, signed_min, signed_max), "int8")
    grouped = _ops.reshape(padded, (n_groups, int(block_size), output_dim))
    outputs = _ops.add(_ops.round(_ops.divide(grouped, _ops.expand_dims(scale, 1))),
                       _ops.cast(_ops.expand_dims(zero, 1), original))
    outputs = _ops.cast(_ops.clip(outputs, qmin, qmax), dtype)
    outputs = _ops.reshape(outputs, (padded_dim, output_dim))[:input_dim, :]
    return outputs, scale, zero


def _grouped_numpy(inputs, block_size, value_range, dtype, epsilon):
    """The host path of `abs_max_quantize_grouped_with_zero_point` (Keras's NumPy one)."""
    array = np.asarray(_ops.convert_to_numpy(inputs))
    if array.ndim != 2:
        raise ValueError("abs_max_quantize_grouped_with_zero_point takes a 2-D "
                         f"(input_dim, output_dim) tensor, got shape {array.shape}.")
    original = _dtype_name(array)
    input_dim, output_dim = array.shape
    n_groups = -(-input_dim // block_size)
    padded_dim = n_groups * block_size
    if padded_dim > input_dim:
        array = np.concatenate(
            [array, np.zeros((padded_dim - input_dim, output_dim), array.dtype)], axis=0)
    grouped = array.reshape(n_groups, block_size, output_dim)
    qmin, qmax = value_range
    low = np.min(grouped, axis=1, keepdims=True)
    high = np.max(grouped, axis=1, keepdims=True)
    scale = np.divide(np.subtract(high, low) + epsilon, qmax - qmin)
    zero = np.clip(np.round(np.divide(-low, scale)) + qmin, qmin, qmax)
    outputs = np.clip(np.round(np.divide(grouped, scale)) + zero, qmin, qmax)
    outputs = outputs.astype(_dtypes.as_dtype(dtype).as_numpy_dtype)
    outputs = outputs.reshape(padded_dim, output_dim)[:input_dim, :]
    return (_ops.convert_to_tensor(outputs),
            _ops.convert_to_tensor(np.squeeze(scale, axis=1), dtype=original),
            _ops.convert_to_tensor(np.squeeze(zero, axis=1).astype(np.int8)))


# -- int4 packing ------------------------------------------------------------------------------

def pack_int4(arr, axis: int = 0, dtype: str = "int8"):
    """Packs int4 values (an `int8` tensor in [-8, 7], or `uint8` with `dtype="uint8"`) two
    to a byte along `axis`: the first of each pair in the low nibble, the second in the high
    one (an odd length is padded with a zero). Returns `(packed, packed_shape, orig_len)`.
    Runs on the host, as Keras's does."""
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    given = _dtype_name(arr)
    if given != dtype:
        raise TypeError(f"Expected {dtype} tensor for packing, got {given}.")
    np_dtype = np.dtype(dtype)
    array = np.asarray(_ops.convert_to_numpy(arr))
    axis = axis + array.ndim if axis < 0 else axis
    array = np.moveaxis(array, axis, 0)
    length = array.shape[0]
    if length % 2:
        array = np.concatenate([array, np.zeros((1,) + array.shape[1:], array.dtype)], axis=0)
    mask = np_dtype.type(0x0F)
    low = np.bitwise_and(array[::2].astype(np_dtype), mask)
    high = np.bitwise_and(array[1::2].astype(np_dtype), mask)
    packed = np.bitwise_or(low, np.left_shift(high, np_dtype.type(4))).astype(np_dtype)
    packed = np.moveaxis(packed, 0, axis)
    return _ops.convert_to_tensor(packed), tuple(packed.shape), length


def unpack_int4(packed, orig_len: int, axis: int = 0, dtype: str = "int8"):
    """Undoes `pack_int4`: the `orig_len` int4 values along `axis`, as `dtype` (`"int8"`:
    signed, in [-8, 7]; `"uint8"`: the nibbles, in [0, 15])."""
    if dtype not in ("int8", "uint8"):
        raise ValueError(f"Expected dtype to be 'int8' or 'uint8', but got '{dtype}'.")
    packed = _ops.convert_to_tensor(packed)
    if _dtype_name(packed) not in ("int8", "uint8"):
        raise TypeError(f"Expected int8 or uint8 tensor for unpacking, got {_dtype_name(packed)}")
    rank = len(packed.shape)
    axis = axis + rank if axis < 0 else axis
    perm = [axis] + [i for i in range(rank) if i != axis]
    inverse = [perm.index(i) for i in range(rank)]
    moved = _ops.transpose(packed, perm)
    mask = _ops.convert_to_tensor(0x0F, dtype=packed.dtype)
    low = _ops.bitwise_and(moved, mask)
    high = _ops.bitwise_and(_ops.right_shift(moved, 4), mask)
    if dtype == "int8":  # nibbles 8..15 are -8..-1: (x ^ 8) - 8
        eight = _ops.convert_to_tensor(8, dtype=packed.dtype)
        low = _ops.subtract(_ops.bitwise_xor(low, eight), eight)
        high = _ops.subtract(_ops.bitwise_xor(high, eight), eight)
    stacked = _ops.stack([_ops.cast(low, dtype), _ops.cast(high, dtype)], axis=1)
    unpacked = _ops.reshape(stacked, (-1,) + tuple(int(d) for d in moved.shape[1:]))
    return _ops.transpose(unpacked[:orig_len], inverse)


# -- fake quantization (TensorFlow's FakeQuantWithMinMaxVars) ----------------------------------

def _round_half_away(x):
    """std::round for the non-negative zero points: ties away from zero, exactly."""
    whole = _ops.floor(x)
    return _ops.add(whole, _ops.cast(_ops.greater_equal(_ops.subtract(x, whole), _f32(0.5)),
                                     x.dtype))


def _nudge(low, high, num_bits: int, narrow_range: bool):
    """TensorFlow's Nudge in float32: `(nudged_min, nudged_max, scale)`."""
    quant_min = _f32(1.0 if narrow_range else 0.0)
    quant_max = _f32(2.0 ** num_bits - 1)
    steps = _ops.subtract(quant_max, quant_min)
    span = _ops.subtract(high, low)
    scale = _ops.divide(span, steps)
    from_min = _ops.subtract(quant_min, _ops.divide(low, scale))
    zero_point = _ops.where(_ops.less(from_min, quant_min), quant_min,
                            _ops.where(_ops.greater(from_min, quant_max), quant_max,
                                       _round_half_away(from_min)))
    nudged_min = _ops.multiply(_ops.subtract(quant_min, zero_point), scale)
    nudged_max = _ops.multiply(_ops.subtract(quant_max, zero_point), scale)
    return nudged_min, nudged_max, scale


def _f32(value):
    """A float32 constant (keras.ops here widens a Python float with a float32 tensor)."""
    return _ops.convert_to_tensor(value, dtype="float32")


def _fake_quant_last_axis(x, low, high, num_bits: int, narrow_range: bool, per_channel: bool):
    """Fake quantization of float32 `x` by the range `[low, high]` (scalars, or one per
    entry of the last axis), with TensorFlow's gradient."""
    @_custom_gradient
    def fake_quant(x, low, high):
        half, zero = _f32(0.5), _f32(0.0)
        both_zero = _ops.logical_and(_ops.equal(low, zero), _ops.equal(high, zero))
        safe_high = _ops.where(both_zero, _f32(1.0), high)  # TF gives zeros for [0, 0]
        nudged_min, nudged_max, scale = _nudge(low, safe_high, num_bits, narrow_range)
        quant_zero = _ops.floor(_ops.add(_ops.divide(_ops.negative(nudged_min), scale), half))
        shifted = _ops.subtract(_ops.maximum(_ops.minimum(x, nudged_max), nudged_min), nudged_min)
        steps = _ops.floor(_ops.add(_ops.subtract(_ops.divide(shifted, scale), quant_zero),
                                    half))
        outputs = _ops.where(both_zero, zero, _ops.multiply(steps, scale))
        inside = _ops.logical_or(both_zero, _ops.logical_and(
            _ops.greater_equal(x, nudged_min), _ops.less_equal(x, nudged_max)))
        below = _ops.logical_and(_ops.logical_not(both_zero), _ops.less(x, nudged_min))
        above = _ops.logical_and(_ops.logical_not(both_zero), _ops.greater(x, nudged_max))

        def grad(upstream):
            zero = _ops.zeros_like(upstream)
            axes = tuple(range(len(x.shape) - 1)) if per_channel else None
            d_low = _ops.sum(_ops.where(below, upstream, zero), axis=axes)
            d_high = _ops.sum(_ops.where(above, upstream, zero), axis=axes)
            return (_ops.where(inside, upstream, zero), _ops.reshape(d_low, _ops.shape(low)),
                    _ops.reshape(d_high, _ops.shape(high)))

        return outputs, grad

    return fake_quant(x, low, high)


def fake_quant_with_min_max_vars(inputs, min_vals, max_vals, num_bits: int = 8,
                                 narrow_range: bool = False, axis=None):
    """TensorFlow's fake quantization: `inputs` clamped to the nudged `[min_vals, max_vals]`
    and rounded to its `2**num_bits - 1` steps (`narrow_range`: one step fewer), computed in
    float32 and returned in the input's dtype. `axis=None` takes one scalar range; an axis
    takes one range per entry of that axis. Differentiable: the gradient passes to `inputs`
    inside the nudged range, and to `min_vals` / `max_vals` from the values below / above
    it."""
    num_bits = int(num_bits)
    if not 2 <= num_bits <= 16:
        raise InvalidArgumentError("num_bits must be between 2 and 16, inclusive")
    x = _ops.convert_to_tensor(inputs)
    dtype = _dtype_name(x)
    low = _ops.cast(_ops.convert_to_tensor(min_vals), "float32")
    high = _ops.cast(_ops.convert_to_tensor(max_vals), "float32")
    x32 = _ops.cast(x, "float32")
    if axis is None:
        outputs = _fake_quant_last_axis(x32, _ops.reshape(low, ()), _ops.reshape(high, ()),
                                        num_bits, bool(narrow_range), per_channel=False)
        return _ops.cast(outputs, dtype)
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"axis {axis} is out of bounds for a tensor of rank {rank}.")
    axis = axis % rank
    channels = x.shape[axis]
    for name, value in (("min", low), ("max", high)):
        if tuple(value.shape) != (channels,):
            raise InvalidArgumentError(
                f"{name} has incorrect shape {tuple(value.shape)}: per-channel "
                f"fake quantization along axis {axis} needs shape ({channels},)")
    last = rank - 1
    moved = _ops.swapaxes(x32, axis, last)
    outputs = _fake_quant_last_axis(moved, low, high, num_bits, bool(narrow_range),
                                    per_channel=True)
    return _ops.swapaxes(_ops.cast(outputs, dtype), last, axis)


# -- float8 ------------------------------------------------------------------------------------

def compute_float8_scale(amax, scale, dtype_max, margin: int = 0):
    """The next float8 scale: `amax / dtype_max * 2**margin`, or `scale` unchanged where
    `amax` is zero or not finite."""
    amax = _ops.convert_to_tensor(amax)
    scale = _ops.cast(scale, amax.dtype)
    inverse = _ops.reciprocal(scale)
    usable = _ops.logical_and(_ops.greater(amax, _ops.zeros_like(amax)), _ops.isfinite(amax))
    safe = _ops.where(usable, amax, _ops.ones_like(amax))
    factor = _ops.divide(_ops.divide(_ops.convert_to_tensor(dtype_max, dtype=amax.dtype), safe),
                         _ops.convert_to_tensor(2.0 ** margin, dtype=amax.dtype))
    return _ops.reciprocal(_ops.where(usable, factor, inverse))


def compute_float8_amax_history(x, amax_history):
    """`amax_history` rolled one step to the front with `max(|x|)` written at index 0."""
    history = _ops.convert_to_tensor(amax_history)
    peak = _ops.cast(_ops.max(_ops.abs(x)), history.dtype)
    return _ops.scatter_update(_ops.roll(history, shift=-1), [[0]], _ops.reshape(peak, [1]))


def quantize_and_dequantize(inputs, scale, quantized_dtype, compute_dtype):
    """`inputs / scale` clipped to the finite range of `quantized_dtype` (a float8 dtype),
    cast to it, and back to `compute_dtype` times `scale`."""
    quantized = _dtypes.as_dtype(quantized_dtype)
    peak = _ops.convert_to_tensor(float(quantized.max), dtype=compute_dtype)
    scale = _ops.cast(scale, compute_dtype)
    x = _ops.clip(_ops.divide(inputs, scale), _ops.negative(peak), peak)
    x = _ops.cast(x, quantized)
    return _ops.multiply(_ops.cast(x, compute_dtype), scale)


# -- quantization configs ----------------------------------------------------------------------

class QuantizationConfig:
    """The base class of quantization configs: the quantizers of a layer's weights and
    activations; a subclass names its `mode`."""

    def __init__(self, weight_quantizer=None, activation_quantizer=None) -> None:
        self.weight_quantizer = weight_quantizer
        self.activation_quantizer = activation_quantizer

    @property
    def mode(self) -> str:
        raise NotImplementedError("Subclasses must implement this property. Do not "
                                  "instantiate QuantizationConfig directly.")

    def get_config(self) -> dict:
        return {"weight_quantizer": serialize(self.weight_quantizer),
                "activation_quantizer": serialize(self.activation_quantizer)}

    @classmethod
    def from_config(cls, config: dict) -> "QuantizationConfig":
        return cls(weight_quantizer=deserialize(config.get("weight_quantizer")),
                   activation_quantizer=deserialize(config.get("activation_quantizer")))

    @staticmethod
    def weight_quantizer_or_default(config, default):
        """`config.weight_quantizer` if a config gives one, else `default`."""
        if config is not None and config.weight_quantizer is not None:
            return config.weight_quantizer
        return default

    @staticmethod
    def activation_quantizer_or_default(config, default):
        """`config.activation_quantizer` (None too) if there is a config, else `default`."""
        return config.activation_quantizer if config is not None else default


class Int8QuantizationConfig(QuantizationConfig):
    """int8 quantization; `activation_quantizer="default"` is `AbsMaxQuantizer()` (axis -1)."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default") -> None:
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = AbsMaxQuantizer()
        super().__init__(weight_quantizer, activation_quantizer)
        if self.weight_quantizer is not None and self.weight_quantizer.output_dtype != "int8":
            raise ValueError(
                "Int8QuantizationConfig requires a weight_quantizer with output_dtype='int8'. "
                f"Received: output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self) -> str:
        return "int8"


class Int4QuantizationConfig(QuantizationConfig):
    """int4 weight quantization (no activation quantizer by default), in groups of
    `block_size` input rows (`None` or -1: one scale per output channel). Custom quantizers
    need per-channel quantization, and a weight quantizer must give int8 values in (-8, 7)."""

    def __init__(self, weight_quantizer=None, activation_quantizer="default",
                 block_size=128) -> None:
        if isinstance(activation_quantizer, str) and activation_quantizer == "default":
            activation_quantizer = None
        super().__init__(weight_quantizer, activation_quantizer)
        if block_size is not None and block_size != -1 and block_size <= 0:
            raise ValueError("block_size must be None, -1, or a positive integer. "
                             f"Received: block_size={block_size}")
        self.block_size = block_size
        sub_channel = block_size is not None and block_size > 0
        if sub_channel and (self.weight_quantizer is not None
                            or self.activation_quantizer is not None):
            raise ValueError(
                "Int4 sub-channel quantization (block_size > 0) does not support custom "
                "quantizers. Either set block_size to None or -1 for per-channel "
                "quantization, or remove the custom quantizer arguments. Received: "
                f"block_size={block_size}")
        if self.weight_quantizer is not None:
            if tuple(self.weight_quantizer.value_range) != (-8, 7):
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with "
                    f"value_range=(-8, 7). Received: "
                    f"value_range={self.weight_quantizer.value_range}")
            if self.weight_quantizer.output_dtype != "int8":
                raise ValueError(
                    "Int4QuantizationConfig requires a weight_quantizer with "
                    f"output_dtype='int8'. Received: "
                    f"output_dtype={self.weight_quantizer.output_dtype}")

    @property
    def mode(self) -> str:
        return "int4"

    def get_config(self) -> dict:
        return {**super().get_config(), "block_size": self.block_size}

    @classmethod
    def from_config(cls, config: dict) -> "Int4QuantizationConfig":
        return cls(weight_quantizer=deserialize(config.get("weight_quantizer")),
                   activation_quantizer=deserialize(config.get("activation_quantizer")),
                   block_size=config.get("block_size", None))


class Float8QuantizationConfig(QuantizationConfig):
    """float8 training; it takes no quantizers."""

    def __init__(self) -> None:
        super().__init__(None, None)

    @property
    def mode(self) -> str:
        return "float8"

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Float8QuantizationConfig":
        return cls()


def _check_calibration(num_samples, sequence_length, group_size, whole: str,
                       hessian_damping=None) -> None:
    """GPTQConfig's and AWQConfig's checks, in Keras's order."""
    if num_samples <= 0:
        raise ValueError("num_samples must be a positive integer.")
    if sequence_length <= 0:
        raise ValueError("sequence_length must be a positive integer.")
    if hessian_damping is not None and not 0 <= hessian_damping <= 1:
        raise ValueError("hessian_damping must be between 0 and 1.")
    if group_size < -1 or group_size == 0:
        raise ValueError(f"Invalid group_size. Supported values are -1 ({whole}) or a "
                         f"positive integer, but got {group_size}.")


class GPTQConfig(QuantizationConfig):
    """The settings of GPTQ post-training quantization: the calibration `dataset` and its
    `tokenizer` (neither is saved in the config), `weight_bits` (2, 3, 4 or 8), `num_samples`,
    `per_channel`, `sequence_length`, `hessian_damping` (in [0, 1]), `group_size` (-1: whole
    rows), `symmetric`, `activation_order` and `quantization_layer_structure`. GPTQ's
    calibration run is not implemented: `Model.quantize` with this config raises
    `NotImplementedError`."""

    def __init__(self, dataset, tokenizer, *, weight_bits: int = 4, num_samples: int = 128,
                 per_channel: bool = True, sequence_length: int = 512,
                 hessian_damping: float = 0.01, group_size: int = 128,
                 symmetric: bool = False, activation_order: bool = False,
                 quantization_layer_structure: dict | None = None) -> None:
        super().__init__()
        if weight_bits not in (2, 3, 4, 8):
            raise ValueError(f"Unsupported weight_bits {weight_bits}. Supported values are "
                             "2, 3, 4, and 8.")
        _check_calibration(num_samples, sequence_length, group_size, "whole-tensor",
                           hessian_damping)
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.num_samples = num_samples
        self.per_channel = per_channel
        self.sequence_length = sequence_length
        self.hessian_damping = hessian_damping
        self.weight_bits = weight_bits
        self.group_size = group_size
        self.symmetric = symmetric
        self.activation_order = activation_order
        self.quantization_layer_structure = quantization_layer_structure

    def get_config(self) -> dict:
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "per_channel": self.per_channel,
                "sequence_length": self.sequence_length,
                "hessian_damping": self.hessian_damping, "group_size": self.group_size,
                "symmetric": self.symmetric, "activation_order": self.activation_order,
                "quantization_layer_structure": self.quantization_layer_structure}

    @classmethod
    def from_config(cls, config: dict) -> "GPTQConfig":
        return cls(**config)

    @property
    def mode(self) -> str:
        return "gptq"

    def dtype_policy_string(self) -> str:
        """The mode of the layers' dtype policy: `"gptq/<weight_bits>/<group_size>"`."""
        return f"gptq/{self.weight_bits}/{self.group_size}"


class AWQConfig(QuantizationConfig):
    """The settings of AWQ (activation-aware weight quantization): the calibration `dataset`
    and `tokenizer` (not saved in the config), `weight_bits` (4 only), `num_samples`,
    `sequence_length`, `group_size` (-1: per channel), `num_grid_points` and
    `quantization_layer_structure`. AWQ's calibration run is not implemented:
    `Model.quantize` with this config raises `NotImplementedError`."""

    def __init__(self, dataset, tokenizer, *, weight_bits: int = 4, num_samples: int = 128,
                 sequence_length: int = 512, group_size: int = 128, num_grid_points: int = 20,
                 quantization_layer_structure: dict | None = None) -> None:
        super().__init__()
        if weight_bits != 4:
            raise ValueError("AWQ only supports 4-bit quantization. "
                             f"Received weight_bits={weight_bits}.")
        _check_calibration(num_samples, sequence_length, group_size, "per-channel")
        if num_grid_points <= 0:
            raise ValueError("num_grid_points must be a positive integer.")
        self.dataset = dataset
        self.tokenizer = tokenizer
        self.weight_bits = weight_bits
        self.num_samples = num_samples
        self.sequence_length = sequence_length
        self.group_size = group_size
        self.num_grid_points = num_grid_points
        self.quantization_layer_structure = quantization_layer_structure

    @property
    def mode(self) -> str:
        return "awq"

    def dtype_policy_string(self) -> str:
        """The mode of the layers' dtype policy: `"awq/<weight_bits>/<group_size>"`."""
        return f"awq/{self.weight_bits}/{self.group_size}"

    def get_config(self) -> dict:
        return {"dataset": None, "tokenizer": None, "weight_bits": self.weight_bits,
                "num_samples": self.num_samples, "sequence_length": self.sequence_length,
                "group_size": self.group_size, "num_grid_points": self.num_grid_points,
                "quantization_layer_structure": self.quantization_layer_structure}

    @classmethod
    def from_config(cls, config: dict) -> "AWQConfig":
        return cls(**config)


# -- serialization -----------------------------------------------------------------------------

def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])|(?<=[A-Z])([A-Z][a-z])",
                  lambda m: "_" + (m.group(1) or m.group(2)), name).lower()


_CLASSES = (Quantizer, AbsMaxQuantizer, QuantizationConfig, Int8QuantizationConfig,
            Int4QuantizationConfig, Float8QuantizationConfig, GPTQConfig, AWQConfig)
ALL_OBJECTS_DICT = {cls.__name__: cls for cls in _CLASSES}
ALL_OBJECTS_DICT.update({_snake(cls.__name__): cls for cls in _CLASSES})


def serialize(quantizer) -> Any:
    """Keras 3's config of a quantizer or quantization config,
    `{"module": "keras.quantizers", "class_name": ..., "config": ..., "registered_name": ...}`
    (None stays None)."""
    if quantizer is None:
        return None
    if not hasattr(quantizer, "get_config"):
        raise TypeError(f"serialize takes a quantizer or a quantization config, got "
                        f"{type(quantizer).__name__}.")
    cls = type(quantizer)
    builtin = ALL_OBJECTS_DICT.get(cls.__name__) is cls
    registered = _serialization.get_registered_name(cls)
    return {"module": "keras.quantizers" if builtin else cls.__module__,
            "class_name": cls.__name__, "config": quantizer.get_config(),
            "registered_name": None if builtin or registered == cls.__name__ else registered}


def deserialize(config, custom_objects: dict | None = None):
    """The quantizer or quantization config of a `serialize` config (None stays None).
    Classes are found by name: this module's, registered ones and `custom_objects`."""
    if config is None:
        return None
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Could not interpret quantizer config: {config!r}")
    name = config.get("registered_name") or config["class_name"]
    cls = _serialization.get_registered_object(name, custom_objects, ALL_OBJECTS_DICT)
    if cls is None and name != config["class_name"]:
        cls = _serialization.get_registered_object(config["class_name"], custom_objects,
                                                   ALL_OBJECTS_DICT)
    if cls is None:
        raise ValueError(f"Unknown quantizer class {config['class_name']!r}: register it with "
                         "keras.saving.register_keras_serializable or pass it in "
                         "custom_objects.")
    return cls.from_config(dict(config.get("config") or {}))


def get(identifier, **kwargs):
    """A quantizer from `identifier`: None (None), a quantizer (itself), its `serialize`
    config, or a class name (the class made with `kwargs`). Anything not callable is a
    ValueError, as in Keras (so quantization configs are refused)."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        found = deserialize(identifier)
    elif isinstance(identifier, str):
        found = ALL_OBJECTS_DICT.get(identifier)
    else:
        found = identifier
    if inspect.isclass(found) and callable(found):
        found = found(**kwargs)
    if callable(found):
        return found
    raise ValueError(f"Could not interpret quantizer identifier: {identifier}")


# -- Model.quantize ----------------------------------------------------------------------------

def validate_and_resolve_config(mode, config) -> QuantizationConfig:
    """The config `Model.quantize(mode, config)` works with, checked as Keras checks it."""
    if isinstance(config, str):
        mode, config = config, None
    _check_mode(mode)
    if config is None:
        if mode in ("gptq", "awq"):
            raise ValueError(f"For {'GPTQ' if mode == 'gptq' else 'AWQ'}, you must pass a "
                             f"`{'GPTQConfig' if mode == 'gptq' else 'AWQConfig'}` object in "
                             "the `config` argument.")
        if mode is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        config = {"int8": Int8QuantizationConfig, "int4": Int4QuantizationConfig,
                  "float8": Float8QuantizationConfig}[mode]()
    elif not isinstance(config, QuantizationConfig):
        raise ValueError("Argument `config` must be an instance of `QuantizationConfig`. "
                         f"Received: config={config} (of type {type(config)})")
    if mode is not None and config.mode != mode:
        raise ValueError(f"Contradictory arguments: mode='{mode}' but "
                         f"config.mode='{config.mode}'")
    _check_mode(config.mode)
    for name, cls in (("gptq", GPTQConfig), ("awq", AWQConfig)):
        if config.mode == name and not isinstance(config, cls):
            raise ValueError(f"Mode '{name}' requires a valid `config` argument of type "
                             f"`{cls.__name__}`. Received: {type(config)}")
    return config


def _check_mode(mode) -> None:
    if mode is not None and mode not in QUANTIZATION_MODES:
        raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                         f"Received: mode={mode}")


def quantize_model(model, mode=None, config=None, filters=None) -> None:
    """`Model.quantize`: checks `mode`, `config` and `filters` as Keras does, then raises
    `NotImplementedError` (quantized layers and the GPTQ / AWQ calibration runs are not
    implemented here)."""
    if filters is not None and not (isinstance(filters, (str, list, tuple))
                                    or callable(filters)):
        raise ValueError("The `filters` argument must be a regex string, a list of regex "
                         f"strings, or a callable. Received: {type(filters)}")
    config = validate_and_resolve_config(mode, config)
    name = type(model).__name__
    if config.mode in ("gptq", "awq"):
        algorithm = config.mode.upper()
        raise NotImplementedError(
            f"{name}.quantize({config.mode!r}): {algorithm} quantization needs a calibration "
            f"run over `config.dataset` ({algorithm}'s layer-by-layer weight search), which is "
            "not implemented in this runtime.")
    raise NotImplementedError(
        f"{name}.quantize({config.mode!r}): quantized layers ({config.mode} kernels for "
        "Dense, EinsumDense and Embedding) are not implemented in this runtime.")


_context.hooks.quantize_model = quantize_model  # Model.quantize (in the layers below) calls it

__all__ = ["AWQConfig", "AbsMaxQuantizer", "Float8QuantizationConfig", "GPTQConfig",
           "Int4QuantizationConfig", "Int8QuantizationConfig", "QuantizationConfig",
           "Quantizer", "abs_max_quantize", "abs_max_quantize_grouped_with_zero_point",
           "compute_float8_amax_history", "compute_float8_scale", "deserialize",
           "fake_quant_with_min_max_vars", "get", "pack_int4", "quantize_and_dequantize",
           "serialize", "unpack_int4"]
