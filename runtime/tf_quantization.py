"""`tf.quantization`: fake quantization (quantize then dequantize in float, with
TensorFlow's nudged ranges and straight-through gradients), `quantize_and_dequantize_v2`, and
`quantize` / `dequantize` between floats and the quantized dtypes (qint8, quint8, ...).

The fake-quantization functions and `quantize_and_dequantize*` are composed of the runtime's
ops, so they run eagerly and staged and are differentiable as TensorFlow's. `quantize` and
`dequantize` run host-side in NumPy (eagerly); `quantize(mode="MIN_FIRST")` to qint32 and
`axis=` (per-axis ranges) raise NotImplementedError; `quantized_concat` takes quint8 tensors.
"""

from __future__ import annotations

import collections

import numpy as np

from . import dtypes as _dtypes
from .errors import InvalidArgumentError
from .exports import export
from .gradients import custom_gradient
from .ops import array_math as _am
from .ops.core import convert_to_tensor
from .tensor import EagerTensor, Tensor

_VarsGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient", "backprops_wrt_input backprop_wrt_min backprop_wrt_max")
_PerChannelGradient = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    "backprops_wrt_input backprop_wrt_min backprop_wrt_max")
_Quantized = collections.namedtuple("QuantizeV2", "output output_min output_max")


def _check_bits(num_bits, what: str) -> None:
    if not isinstance(num_bits, int) or isinstance(num_bits, bool) or not 2 <= num_bits <= 16:
        raise InvalidArgumentError(f"{what}: num_bits must be between 2 and 16, inclusive; got "
                                   f"{num_bits!r}.")


def _float32(x, what: str) -> Tensor:
    t = convert_to_tensor(x, _dtypes.float32) if not isinstance(x, Tensor) else x
    if t.dtype is not _dtypes.float32:
        raise TypeError(f"{what} must be float32, got {t.dtype.name}.")
    return t


def _nudged(mn, mx, num_bits: int, narrow_range: bool):
    """TensorFlow's nudged (min, max, scale): the range moved so that 0.0 is exactly
    representable."""
    qmin = 1.0 if narrow_range else 0.0
    qmax = float(2 ** num_bits - 1)
    scale = _am.divide(_am.subtract(mx, mn), qmax - qmin)
    zero = _am.subtract(qmin, _am.divide(mn, scale))
    rounded = _am.multiply(_am.sign(zero), _am.floor(_am.add(_am.abs(zero), 0.5)))
    nudged_zero = _am.clip_by_value(rounded, qmin, qmax)
    return (_am.multiply(_am.subtract(qmin, nudged_zero), scale),
            _am.multiply(_am.subtract(qmax, nudged_zero), scale), scale)


def _fake_quant(x, mn, mx, num_bits, narrow_range, wide_inverse=False):
    lo, hi, scale = _nudged(mn, mx, num_bits, narrow_range)
    clamped = _am.minimum(_am.maximum(x, lo), hi)
    shifted = _am.subtract(clamped, lo)
    if wide_inverse:
        # TensorFlow's args and per-channel kernels multiply by 1 / scale computed in double
        # precision (7.0, not 6.9999995, for 3 bits over [0, 1]); its vars kernel divides by
        # the float scale. Which decides ties such as 0.5 there.
        steps_count = float(2 ** num_bits - 1) - (1.0 if narrow_range else 0.0)
        wide = _am.subtract(_am.cast(mx, _dtypes.float64), _am.cast(mn, _dtypes.float64))
        inverse = _am.cast(_am.divide(steps_count, wide), scale.dtype)
        steps = _am.floor(_am.add(_am.multiply(shifted, inverse), 0.5))
    else:
        steps = _am.floor(_am.add(_am.divide(shifted, scale), 0.5))
    return _am.add(_am.multiply(steps, scale), lo), lo, hi


def _masks(x, lo, hi):
    inside = _am.logical_and(_am.greater_equal(x, lo), _am.less_equal(x, hi))
    return (_am.cast(inside, x.dtype), _am.cast(_am.less(x, lo), x.dtype),
            _am.cast(_am.greater(x, hi), x.dtype))


@export("quantization.fake_quant_with_min_max_args")
def fake_quant_with_min_max_args(inputs, min=-6.0, max=6.0, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None) -> Tensor:
    """`inputs` (float32) quantized to `num_bits` over [min, max] (nudged so that 0 is
    exact) and back to float. The gradient passes where the input is inside the range."""
    _check_bits(num_bits, "fake_quant_with_min_max_args")
    if not min < max:
        raise InvalidArgumentError(f"min has to be smaller than max, was: {min} >= {max}")
    x = _float32(inputs, "inputs")

    @custom_gradient
    def run(v):
        out, lo, hi = _fake_quant(v, convert_to_tensor(np.float32(min)),
                                  convert_to_tensor(np.float32(max)), num_bits, narrow_range,
                                  wide_inverse=True)

        def grad(dy):
            return _am.multiply(dy, _masks(v, lo, hi)[0])
        return out, grad
    return run(x)


@export("quantization.fake_quant_with_min_max_args_gradient")
def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6.0, max=6.0,  # noqa: A002
                                          num_bits=8, narrow_range=False, name=None) -> Tensor:
    """The gradient of `fake_quant_with_min_max_args`: `gradients` where `inputs` is inside
    the nudged range, zero elsewhere."""
    _check_bits(num_bits, "fake_quant_with_min_max_args_gradient")
    if not min < max:
        raise InvalidArgumentError(f"min has to be smaller than max, was: {min} >= {max}")
    x, dy = _float32(inputs, "inputs"), _float32(gradients, "gradients")
    lo, hi, _ = _nudged(np.float32(min), np.float32(max), num_bits, narrow_range)
    return _am.multiply(dy, _masks(x, lo, hi)[0])


def _vars_grads(dy, x, mn, mx, num_bits, narrow_range, axes):
    lo, hi, _ = _nudged(mn, mx, num_bits, narrow_range)
    inside, below, above = _masks(x, lo, hi)
    return (_am.multiply(dy, inside), _am.reduce_sum(_am.multiply(dy, below), axis=axes),
            _am.reduce_sum(_am.multiply(dy, above), axis=axes))


def _vars_fake_quant(inputs, min, max, num_bits, narrow_range, per_channel):  # noqa: A002
    what = "fake_quant_with_min_max_vars" + ("_per_channel" if per_channel else "")
    _check_bits(num_bits, what)
    x = _float32(inputs, "inputs")
    mn, mx = _float32(min, "min"), _float32(max, "max")
    axes = _axes(x, mn, per_channel, what)

    @custom_gradient
    def run(v, lo_in, hi_in):
        out, _, _ = _fake_quant(v, lo_in, hi_in, num_bits, narrow_range,
                                wide_inverse=per_channel)

        def grad(dy):
            return _vars_grads(dy, v, lo_in, hi_in, num_bits, narrow_range, axes)
        return out, grad
    return run(x, mn, mx)


def _axes(x, mn, per_channel, what):
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{what} needs the inputs' rank known.")
    if per_channel:
        if mn.shape.rank != 1:
            raise InvalidArgumentError(f"{what}: min and max must be vectors (one value per "
                                       "channel, the last axis).")
        return list(range(rank - 1)) or None
    if mn.shape.rank != 0:
        raise InvalidArgumentError(f"{what}: min and max must be scalars.")
    return None


@export("quantization.fake_quant_with_min_max_vars")
def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                 name=None) -> Tensor:
    """As `fake_quant_with_min_max_args`, the range given by the float32 scalar tensors (or
    variables) `min` and `max`, which get gradients: the sums of the incoming gradient below
    and above the nudged range."""
    return _vars_fake_quant(inputs, min, max, num_bits, narrow_range, False)


@export("quantization.fake_quant_with_min_max_vars_per_channel")
def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8,  # noqa: A002
                                             narrow_range=False, name=None) -> Tensor:
    """As `fake_quant_with_min_max_vars`, with one range per channel (the last axis of
    `inputs`): `min` and `max` are vectors."""
    return _vars_fake_quant(inputs, min, max, num_bits, narrow_range, True)


def _vars_gradient(gradients, inputs, min, max, num_bits, narrow_range, per_channel):  # noqa: A002
    what = "fake_quant_with_min_max_vars" + ("_per_channel" if per_channel else "") + \
        "_gradient"
    _check_bits(num_bits, what)
    x, dy = _float32(inputs, "inputs"), _float32(gradients, "gradients")
    mn, mx = _float32(min, "min"), _float32(max, "max")
    return _vars_grads(dy, x, mn, mx, num_bits, narrow_range, _axes(x, mn, per_channel, what))


@export("quantization.fake_quant_with_min_max_vars_gradient")
def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max, num_bits=8,  # noqa: A002
                                          narrow_range=False,
                                          name=None) -> tuple[Tensor, Tensor, Tensor]:
    """The gradients of `fake_quant_with_min_max_vars`: (backprops_wrt_input,
    backprop_wrt_min, backprop_wrt_max)."""
    return _VarsGradient(*_vars_gradient(gradients, inputs, min, max, num_bits, narrow_range,
                                         False))


@export("quantization.fake_quant_with_min_max_vars_per_channel_gradient")
def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max,  # noqa: A002
                                                      num_bits=8, narrow_range=False,
                                                      name=None) -> tuple[Tensor, Tensor, Tensor]:
    """The gradients of `fake_quant_with_min_max_vars_per_channel`, per channel for min and
    max."""
    return _PerChannelGradient(*_vars_gradient(gradients, inputs, min, max, num_bits,
                                               narrow_range, True))


# -- quantize_and_dequantize -------------------------------------------------------------------

_ROUND_MODES = ("HALF_TO_EVEN", "HALF_UP")


def _qdq(x, input_min, input_max, signed_input, num_bits, range_given, round_mode,
         narrow_range, axis, what):
    if round_mode not in _ROUND_MODES:
        raise ValueError(f"{what}: round_mode must be 'HALF_TO_EVEN' or 'HALF_UP', got "
                         f"{round_mode!r}.")
    if axis is not None:
        raise NotImplementedError(f"{what}(axis=...): per-axis ranges are not implemented here; "
                                  "leave axis None.")
    if not isinstance(num_bits, int) or not 1 <= num_bits <= (63 if signed_input else 64):
        raise InvalidArgumentError(f"{what}: num_bits is out of range: {num_bits!r}.")
    x = convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise TypeError(f"{what} needs a float input, got {x.dtype.name}.")
    lo_in = _am.cast(convert_to_tensor(input_min), x.dtype)
    hi_in = _am.cast(convert_to_tensor(input_max), x.dtype)
    if range_given:
        lo, hi = lo_in, hi_in
    else:
        lo, hi = _am.reduce_min(x), _am.reduce_max(x)
    if signed_input:
        qmin = -(2.0 ** (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = 2.0 ** (num_bits - 1) - 1
    else:
        qmin, qmax = 0.0, 2.0 ** num_bits - 1
    big = np.finfo(x.dtype.as_numpy_dtype).max
    from_min = _am.where(_am.greater(_am.multiply(lo, qmin), 0), _am.divide(qmin, lo), big)
    from_max = _am.where(_am.greater(_am.multiply(hi, qmax), 0), _am.divide(qmax, hi), big)
    use_min = _am.less(from_min, from_max)
    scale = _am.where(use_min, from_min, from_max)
    inverse = _am.where(use_min, _am.divide(lo, qmin if qmin else 1.0),
                        _am.divide(hi, qmax))
    lo = _am.where(use_min, lo, _am.multiply(inverse, qmin))
    hi = _am.where(use_min, _am.multiply(inverse, qmax), hi)
    scaled = _am.multiply(_am.minimum(_am.maximum(x, lo), hi), scale)
    steps = _am.round(scaled) if round_mode == "HALF_TO_EVEN" else \
        _am.floor(_am.add(scaled, 0.5))
    return _am.multiply(steps, inverse), lo_in, hi_in


@export("quantization.quantize_and_dequantize_v2")
def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True,  # noqa: A002
                               num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                               name=None, narrow_range=False, axis=None) -> Tensor:
    """`input` quantized to `num_bits` and back: the range is [input_min, input_max] with
    `range_given`, else the input's min and max, scaled (as TensorFlow does) so that one
    side's end is exact. The gradient passes where input_min <= input <= input_max."""
    x = convert_to_tensor(input)

    @custom_gradient
    def run(v):
        out, lo_in, hi_in = _qdq(v, input_min, input_max, signed_input, num_bits, range_given,
                                 round_mode, narrow_range, axis, "quantize_and_dequantize_v2")

        def grad(dy):
            inside = _am.logical_and(_am.greater_equal(v, lo_in), _am.less_equal(v, hi_in))
            return _am.multiply(dy, _am.cast(inside, dy.dtype))
        return out, grad
    return run(x)


@export("quantization.quantize_and_dequantize")
def quantize_and_dequantize(input, input_min, input_max, signed_input=True,  # noqa: A002
                            num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                            name=None, narrow_range=False, axis=None) -> Tensor:
    """As `quantize_and_dequantize_v2` (TensorFlow's deprecated first version), with the
    gradient passing through unchanged everywhere."""
    x = convert_to_tensor(input)

    @custom_gradient
    def run(v):
        out, _, _ = _qdq(v, input_min, input_max, signed_input, num_bits, range_given,
                         round_mode, narrow_range, axis, "quantize_and_dequantize")
        return out, lambda dy: dy
    return run(x)


# -- quantize / dequantize ---------------------------------------------------------------------

_QUANTIZED = {"qint8": np.int8, "quint8": np.uint8, "qint16": np.int16, "quint16": np.uint16,
              "qint32": np.int32}


def _host_float(value, what: str) -> np.ndarray:
    t = convert_to_tensor(value)
    if not isinstance(t, EagerTensor):
        raise NotImplementedError(f"{what} runs eagerly here (host-side); call it outside "
                                  "rt.function.")
    return np.asarray(t.numpy(), np.float32)


def _round(values: np.ndarray, mode: str) -> np.ndarray:
    if mode == "HALF_TO_EVEN":
        return np.round(values)
    return np.sign(values) * np.floor(np.abs(values) + 0.5)


def _min_first_codes(x, lo: float, hi: float, info, round_mode="HALF_AWAY_FROM_ZERO"):
    """MIN_FIRST codes (unclipped): the value and min_range rounded apart on
    (2**bits - 1) / (max - min) steps, offset to the lowest code."""
    factor = (float(info.max) - float(info.min)) / (hi - lo)
    return _round(np.asarray(x, np.float64) * factor, round_mode) - \
        _round(np.float64(lo) * factor, round_mode) + float(info.min)


def _min_first_values(q, lo: float, hi: float, info):
    """The floats of MIN_FIRST codes: min_range rounded to a whole step, plus the code's
    offset from the lowest code."""
    step = (hi - lo) / (float(info.max) - float(info.min))
    return np.round(lo / step) * step + (np.asarray(q, np.float64) - float(info.min)) * step


@export("quantization.quantize")
def quantize(input, min_range, max_range, T, mode="MIN_COMBINED",  # noqa: A002, N803
             round_mode="HALF_AWAY_FROM_ZERO", name=None, narrow_range=False, axis=None,
             ensure_minimum_range=0.01) -> tuple[Tensor, Tensor, Tensor]:
    """`input` (float) as the quantized dtype `T` over [min_range, max_range]: (output,
    output_min, output_max). Modes MIN_COMBINED, MIN_FIRST (but to qint32) and SCALED,
    TensorFlow's formulas."""
    dtype = _dtypes.as_dtype(T)
    if dtype.name not in _QUANTIZED:
        raise TypeError(f"quantize: T must be a quantized dtype (qint8, quint8, qint16, "
                        f"quint16, qint32), got {dtype.name}.")
    if mode == "MIN_FIRST" and dtype.name == "qint32":
        raise NotImplementedError("quantize(mode='MIN_FIRST') to qint32 is not implemented "
                                  "here (TensorFlow rounds it in single precision).")
    if mode not in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        raise ValueError(f"quantize: mode must be 'MIN_COMBINED', 'MIN_FIRST' or 'SCALED', got "
                         f"{mode!r}.")
    if round_mode not in ("HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN"):
        raise ValueError(f"quantize: round_mode must be 'HALF_AWAY_FROM_ZERO' or "
                         f"'HALF_TO_EVEN', got {round_mode!r}.")
    if round_mode == "HALF_TO_EVEN" and mode != "SCALED":
        raise ValueError(f"Round mode 'HALF_TO_EVEN' is only supported for mode 'SCALED', but "
                         f"mode is '{mode}'.")
    if axis is not None:
        raise NotImplementedError("quantize(axis=...): per-axis ranges are not implemented "
                                  "here; leave axis None.")
    if narrow_range and mode != "SCALED":
        raise ValueError("quantize: narrow_range needs mode 'SCALED'.")
    x = _host_float(input, "quantize")
    lo_in = float(_host_float(min_range, "quantize"))
    hi_in = float(_host_float(max_range, "quantize"))
    if lo_in > hi_in:
        raise InvalidArgumentError(f"quantize: min_range ({lo_in}) must be <= max_range "
                                   f"({hi_in}).")
    np_int = _QUANTIZED[dtype.name]
    info = np.iinfo(np_int)
    lo = min(0.0, lo_in)
    epsilon = max(1.0, abs(lo_in), abs(hi_in)) * ensure_minimum_range
    hi = max(0.0, hi_in, lo + epsilon)
    if mode == "MIN_COMBINED":
        span = float(info.max) - float(info.min)
        scaled = (np.clip(x, lo, hi) - lo) * (span / (hi - lo))
        if info.min < 0:
            scaled = scaled - (span + 1) / 2.0
        q = _round(scaled, round_mode)
    elif mode == "MIN_FIRST" and dtype.name == "quint8":
        # TensorFlow's quint8 kernel rounds the offset from min_range (half up)
        q = np.floor((np.clip(x, lo, hi) - lo) * (255.0 / (hi - lo)) + 0.5)
    elif mode == "MIN_FIRST":
        q = _min_first_codes(x, lo, hi, info, round_mode)
    else:
        qmin = float(info.min) + (1 if narrow_range else 0)
        qmax = float(info.max)
        from_min = qmin / lo if qmin * lo > 0 else np.finfo(np.float32).max
        from_max = qmax / hi if qmax * hi > 0 else np.finfo(np.float32).max
        factor = min(from_min, from_max)
        lo, hi = qmin / factor, qmax / factor
        q = _round(np.clip(x, lo, hi) * factor, round_mode)
    q = np.clip(q, info.min, info.max).astype(np_int)
    out = _am.cast(convert_to_tensor(q), dtype)
    return _Quantized(out, convert_to_tensor(np.float32(lo)), convert_to_tensor(np.float32(hi)))


@export("quantization.dequantize")
def dequantize(input, min_range, max_range, mode="MIN_COMBINED", name=None,  # noqa: A002
               axis=None, narrow_range=False, dtype=_dtypes.float32) -> Tensor:
    """The floats the quantized tensor `input` stands for over [min_range, max_range]
    (modes MIN_COMBINED, MIN_FIRST and SCALED, as `quantize`)."""
    t = convert_to_tensor(input)
    if t.dtype.name not in _QUANTIZED:
        raise TypeError(f"dequantize needs a quantized tensor (qint8, quint8, ...), got "
                        f"{t.dtype.name}.")
    if mode not in ("MIN_COMBINED", "MIN_FIRST", "SCALED"):
        raise ValueError(f"dequantize: mode must be 'MIN_COMBINED', 'MIN_FIRST' or 'SCALED', "
                         f"got {mode!r}.")
    if axis is not None:
        raise NotImplementedError("dequantize(axis=...): per-axis ranges are not implemented "
                                  "here; leave axis None.")
    out_dtype = _dtypes.as_dtype(dtype)
    if out_dtype not in (_dtypes.float32, _dtypes.as_dtype("bfloat16")):
        raise TypeError(f"dequantize: dtype must be float32 or bfloat16, got {out_dtype.name}.")
    if not isinstance(t, EagerTensor):
        raise NotImplementedError("dequantize runs eagerly here (host-side); call it outside "
                                  "rt.function.")
    np_int = _QUANTIZED[t.dtype.name]
    q = np.asarray(_am.cast(t, _dtypes.as_dtype(np.dtype(np_int).name)).numpy(), np.float64)
    lo = float(_host_float(min_range, "dequantize"))
    hi = float(_host_float(max_range, "dequantize"))
    info = np.iinfo(np_int)
    if mode == "MIN_COMBINED":
        span = float(info.max) - float(info.min)
        if info.min < 0:
            q = q + (span + 1) / 2.0
        values = q * ((hi - lo) / span) + lo
    elif mode == "MIN_FIRST":
        values = _min_first_values(q, lo, hi, info)
    else:
        qmin = float(info.min) + (1 if narrow_range else 0)
        factor = max(lo / qmin if qmin else 0.0, hi / float(info.max))
        values = q * factor
    out = convert_to_tensor(values.astype(np.float32))
    return out if out_dtype is _dtypes.float32 else _am.cast(out, out_dtype)


@export("quantization.quantized_concat")
def quantized_concat(concat_dim, values, input_mins, input_maxes,
                     name=None) -> tuple[Tensor, Tensor, Tensor]:
    """quint8 tensors concatenated along `concat_dim`, each requantized (MIN_FIRST) from its
    [input_mins[i], input_maxes[i]] to the common range [min(input_mins), max(input_maxes)]:
    (output, output_min, output_max)."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise ValueError("quantized_concat needs at least one tensor.")
    kinds = {t.dtype.name for t in tensors}
    if kinds == {"qint32"}:
        raise NotImplementedError("quantized_concat of qint32 tensors is not implemented here "
                                  "(quint8 is).")
    if kinds != {"quint8"}:
        raise TypeError(f"quantized_concat takes quint8 tensors, got {sorted(kinds)}.")
    mins = [float(v) for v in np.asarray(_host_float(input_mins, "quantized_concat")).ravel()]
    maxes = [float(v) for v in np.asarray(_host_float(input_maxes, "quantized_concat")).ravel()]
    if len(mins) != len(tensors) or len(maxes) != len(tensors):
        raise InvalidArgumentError(f"quantized_concat: {len(tensors)} tensors need as many "
                                   f"input_mins and input_maxes, got {len(mins)} and "
                                   f"{len(maxes)}.")
    lo, hi = min(mins), max(maxes)
    info = np.iinfo(np.uint8)
    parts = []
    for t, t_lo, t_hi in zip(tensors, mins, maxes):
        if not isinstance(t, EagerTensor):
            raise NotImplementedError("quantized_concat runs eagerly here (host-side).")
        codes = np.asarray(_am.cast(t, _dtypes.uint8).numpy())
        if (t_lo, t_hi) != (lo, hi):
            floats = _min_first_values(codes, t_lo, t_hi, info)
            codes = np.clip(_min_first_codes(floats, lo, hi, info), 0, 255).astype(np.uint8)
        parts.append(codes)
    axis = int(np.asarray(_host_float(concat_dim, "quantized_concat")))
    try:
        joined = np.concatenate(parts, axis=axis)
    except ValueError as e:  # NumPy's AxisError is one
        raise InvalidArgumentError(f"quantized_concat: {e}") from None
    return _Quantized(_am.cast(convert_to_tensor(joined), _dtypes.quint8),
                      convert_to_tensor(np.float32(lo)), convert_to_tensor(np.float32(hi)))


__all__ = ["dequantize", "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
           "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
           "fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient", "quantize",
           "quantize_and_dequantize", "quantize_and_dequantize_v2", "quantized_concat"]
