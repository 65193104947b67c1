"""The attribute schema: for every op type that can be saved, its attributes and their kinds.

Loading checks each op's attributes against this table, never against anything in the file:
the exact set of names, each value's type, and the range of numbers and sizes. A value that
passes reaches the executor only as a bool, int, float, str (written into generated code with
`repr`), a registered dtype, a shape, a NumPy array read without pickle, or a loaded variable.
"""

from __future__ import annotations

import math
import re
from typing import Callable

import numpy as np

from ..dtypes import DType
from ..shapes import TensorShape

MAX_ELEMENTS = 2 ** 31  # no shape, size or array may describe more elements than this
MAX_DIM = 2 ** 31
MAX_RANK = 32
MAX_STR = 4096


class AttrKind:
    """One kind of attribute value: a name for messages and a check returning an error or None."""

    __slots__ = ("name", "check")

    def __init__(self, name: str, check: Callable[[object, "AttrContext"], str | None]):
        self.name = name
        self.check = check

    def __repr__(self) -> str:
        return self.name


class AttrContext:
    """What a check may need to know about the op: its input count and the loaded variables."""

    __slots__ = ("n_inputs", "variable_type", "slot_type")

    def __init__(self, n_inputs: int, variable_type: type, slot_type: type):
        self.n_inputs = n_inputs
        self.variable_type = variable_type
        self.slot_type = slot_type


def _is_int(v) -> bool:
    return type(v) is int


def _int_in(v, low: int, high: int) -> bool:
    return _is_int(v) and low <= v < high


def _kind(name):
    def wrap(fn):
        return AttrKind(name, fn)
    return wrap


@_kind("bool")
def BOOL(v, ctx):
    return None if type(v) is bool else "a bool"


@_kind("int")
def INT(v, ctx):
    return None if _int_in(v, -MAX_DIM, MAX_DIM) else f"an int in [-{MAX_DIM}, {MAX_DIM})"


@_kind("axis")
def AXIS(v, ctx):
    return None if _int_in(v, -MAX_RANK, MAX_RANK) else f"an axis in [-{MAX_RANK}, {MAX_RANK})"


@_kind("optional int")
def OPT_INT(v, ctx):
    return None if v is None else INT.check(v, ctx)


@_kind("float")
def FLOAT(v, ctx):
    return None if type(v) is float else "a float"


@_kind("number")
def NUMBER(v, ctx):
    return None if type(v) is float or _int_in(v, -2 ** 63, 2 ** 64) else "an int or a float"


@_kind("str")
def STR(v, ctx):
    return None if type(v) is str and len(v) <= MAX_STR else f"a str of at most {MAX_STR} characters"


_EQUATION = re.compile(r"^[A-Za-z.,\- >]{0,256}$")


@_kind("einsum equation")
def EQUATION(v, ctx):
    return None if type(v) is str and _EQUATION.match(v) else "an einsum equation (letters , -> ...)"


@_kind("dtype")
def DTYPE(v, ctx):
    return None if isinstance(v, DType) else "a dtype"


@_kind("optional dtype")
def OPT_DTYPE(v, ctx):
    return None if v is None or isinstance(v, DType) else "a dtype or null"


@_kind("NumPy dtype")
def NP_DTYPE(v, ctx):
    return None if isinstance(v, np.dtype) and v.kind in "biufc" else "a numeric NumPy dtype"


def _ints(v, low, high, max_len=MAX_RANK) -> bool:
    return type(v) is tuple and len(v) <= max_len and all(_int_in(d, low, high) for d in v)


@_kind("tuple of axes")
def AXES(v, ctx):
    return None if _ints(v, -MAX_RANK, MAX_RANK) else f"a tuple of at most {MAX_RANK} axes"


@_kind("optional tuple of axes")
def OPT_AXES(v, ctx):
    return None if v is None else AXES.check(v, ctx)


@_kind("tuple of ints")
def INTS(v, ctx):
    return None if _ints(v, -MAX_DIM, MAX_DIM, 4096) else "a tuple of at most 4096 ints"


def _product_ok(dims) -> bool:
    return math.prod(d for d in dims if d is not None and d > 0) <= MAX_ELEMENTS


@_kind("dims")
def DIMS(v, ctx):
    """A static shape: dims >= -1 (Reshape's -1), at most MAX_ELEMENTS elements in all."""
    if _ints(v, -1, MAX_DIM) and _product_ok(v):
        return None
    return f"a tuple of at most {MAX_RANK} dims (>= -1) of at most {MAX_ELEMENTS} elements"


@_kind("optional dims")
def OPT_DIMS(v, ctx):
    return None if v is None else DIMS.check(v, ctx)


@_kind("partial dims")
def PARTIAL_DIMS(v, ctx):
    if v is None or (type(v) is tuple and len(v) <= MAX_RANK
                     and all(d is None or _int_in(d, 0, MAX_DIM) for d in v) and _product_ok(v)):
        return None
    return "null or a tuple of dims (ints >= 0 or null)"


@_kind("TensorShape")
def SHAPE(v, ctx):
    if isinstance(v, TensorShape) and PARTIAL_DIMS.check(v.as_tuple(), ctx) is None:
        return None
    return "a TensorShape"


@_kind("variable")
def VARIABLE(v, ctx):
    return None if isinstance(v, ctx.variable_type) else "a variable reference"


@_kind("array")
def ARRAY(v, ctx):
    ok = isinstance(v, (np.ndarray, np.generic)) and (v.dtype.kind in "biufc" or (
        v.dtype == object and all(type(b) is bytes for b in np.asarray(v).reshape(-1).tolist())))
    return None if ok else "a numeric NumPy array or an object array of bytes"


def _enum(*values):
    return AttrKind(f"one of {list(values)}", lambda v, ctx: None if v in values and type(v) in (
        str, type(None)) else f"one of {list(values)}")


MODE = _enum("assign", "add", "sub")
STREAM = _enum(None, "stdout", "stderr")


@_kind("print parts")
def PARTS(v, ctx):
    """(("t", input index) | ("s", text) | ("g", (("t", i) | ("s", text), ...)), ...) of
    PrintV2 and Assert; a "g" part (a container holding tensors) is one level deep."""
    if type(v) is not tuple or len(v) > 4096:
        return "a tuple of parts"
    for part in v:
        if type(part) is not tuple or len(part) != 2:
            return "parts of two items"
        tag, value = part
        if tag == "g" and type(value) is tuple and len(value) <= 4096 and all(
                type(p) is tuple and len(p) == 2 and _plain_part(p, ctx) for p in value):
            continue
        if _plain_part(part, ctx):
            continue
        return (f'("t", input index < {ctx.n_inputs}), ("s", text) or ("g", (such parts)) '
                "parts")
    return None


def _plain_part(part, ctx) -> bool:
    tag, value = part
    return ((tag == "t" and _int_in(value, 0, ctx.n_inputs))
            or (tag == "s" and type(value) is str and len(value) <= MAX_STR))


@_kind("index key")
def KEY(v, ctx):
    """A StridedSlice key: ints, None, Ellipsis, slices of ints/None, and input slots."""
    if type(v) is not tuple or len(v) > MAX_RANK:
        return f"a tuple of at most {MAX_RANK} index items"

    def item_ok(k, in_slice=False) -> bool:
        if k is None or _int_in(k, -MAX_DIM, MAX_DIM):
            return True
        if isinstance(k, ctx.slot_type):
            return _int_in(k.index, 0, ctx.n_inputs - 1)
        if in_slice:
            return False
        if k is Ellipsis:
            return True
        return type(k) is slice and all(item_ok(p, True) for p in (k.start, k.stop, k.step))
    if all(item_ok(k) for k in v) and sum(k is Ellipsis for k in v) <= 1:
        return None
    return "index items (int, null, ..., slices, input slots in range)"


@_kind("tensordot axes")
def AXES_PAIR(v, ctx):
    if type(v) is tuple and len(v) == 2 and all(AXES.check(a, ctx) is None for a in v):
        return None
    return "a pair of tuples of axes"


_REDUCE = {"axis": OPT_AXES, "keepdims": BOOL}
_TA_ELEMENT = {"dtype": DTYPE, "element_shape": SHAPE}
_RANDOM = {"shape": DIMS, "a": NUMBER, "b": NUMBER, "dtype": DTYPE, "seed": OPT_INT}
_RANDOM_DYNAMIC = {"a": NUMBER, "b": NUMBER, "dtype": DTYPE, "seed": OPT_INT}  # shape: an input

PADDING = _enum("SAME", "VALID")
_CONV = {"strides": INTS, "padding": PADDING, "dilations": INTS}
_POOL = {"ksize": INTS, "strides": INTS, "padding": PADDING}
_CONV_ATTRS = {
    "Conv2D": _CONV,
    "Conv2DBackpropInput": {"input_size": INTS, **_CONV},
    "Conv2DBackpropFilter": {"filter_size": INTS, **_CONV},
    "MaxPool": _POOL,
    "MaxPoolGrad": _POOL,
    "MaxPoolGradGrad": _POOL,
    "AvgPool": _POOL,
    "AvgPoolGrad": {"input_size": INTS, **_POOL},
}

_SIDE = _enum("left", "right")
_SCATTER_SORT_ATTRS = {
    "BatchGather": {"axis": AXIS, "batch_dims": INT},
    "BatchGatherGrad": {"axis": AXIS, "batch_dims": INT, "shape": OPT_DIMS},
    "BatchGatherNd": {"batch_dims": INT},
    "BatchGatherNdGrad": {"batch_dims": INT, "shape": OPT_DIMS},
    "TakeAlongAxis": {"axis": AXIS},
    "ScatterAlongAxis": {"axis": AXIS, "shape": OPT_DIMS},
    "Sort": {"axis": AXIS, "descending": BOOL},
    "ArgSort": {"axis": AXIS, "descending": BOOL, "stable": BOOL},
    "TopKV2": {"sorted": BOOL},
    "SearchSorted": {"side": _SIDE, "out_type": DTYPE},
    "Unique": {"out_idx": DTYPE},
    "UniqueWithCounts": {"out_idx": DTYPE},
    "Repeat": {"axis": OPT_INT},
    "RepeatGrad": {"axis": OPT_INT},
    "Bincount": {"minlength": OPT_INT, "maxlength": OPT_INT, "dtype": DTYPE, "binary_output": BOOL},
    "HistogramFixedWidth": {"nbins": INT, "dtype": DTYPE},
    "Cumprod": {"axis": AXIS, "exclusive": BOOL, "reverse": BOOL},
    "ArgMaxDynamic": {"output_type": DTYPE},
    "ArgMinDynamic": {"output_type": DTYPE},
}

@_kind("dtype to parse strings as")
def _PARSED_DTYPE(v, ctx):
    ok = isinstance(v, DType) and v.name in ("float32", "float64", "int32", "int64")
    return None if ok else "one of float32, float64, int32, int64"


_UNICODE = {"errors": _enum("strict", "replace", "ignore"), "replacement_char": INT}
_ENCODING = _enum("UTF-8", "UTF-16-BE", "UTF-32-BE")
_STRING_ATTRS = {
    "StringLength": {"unit": _enum("BYTE", "UTF8_CHAR")},
    "StringJoin": {"separator": STR},
    "ReduceJoin": {"axis": OPT_AXES, "keepdims": BOOL, "separator": STR},
    "StringSplitV2": {"sep": STR, "maxsplit": INT},
    "StringUpper": {"encoding": _enum("", "utf-8")},
    "StringLower": {"encoding": _enum("", "utf-8")},
    "StringFormat": {"template": STR, "placeholder": STR, "summarize": INT},
    "AsString": {"precision": INT, "scientific": BOOL, "shortest": BOOL, "width": INT,
                 "fill": _enum("", " ", "+", "-", "0", "#")},
    "StringToNumber": {"out_type": _PARSED_DTYPE},
    "DecodeRaw": {"out_type": DTYPE, "little_endian": BOOL, "fixed_length": OPT_INT},
    "StaticRegexReplace": {"pattern": STR, "rewrite": STR, "replace_global": BOOL},
    "StaticRegexFullMatch": {"pattern": STR},
    "Substr": {"unit": _enum("BYTE", "UTF8_CHAR")},
    "UnicodeDecode": {"input_encoding": _ENCODING, **_UNICODE},
    "UnicodeSplit": {"input_encoding": _ENCODING, **_UNICODE},
    "UnicodeEncode": {"output_encoding": _ENCODING, **_UNICODE},
    "StringToHashBucketFast": {"num_buckets": INT},
}


def _is_step(v) -> bool:
    return v is None or _int_in(v, -2 ** 63, 2 ** 63)


def _text(v, depth: int = 0) -> bool:
    """A str, or nested tuples of str (text a summary writes)."""
    if type(v) is str:
        return len(v) <= MAX_STR
    return (type(v) is tuple and depth < MAX_RANK and len(v) <= 4096
            and all(_text(x, depth + 1) for x in v))


_SUMMARY_OPTIONS = {
    "description": lambda v: v is None or (type(v) is str and len(v) <= MAX_STR),
    "buckets": lambda v: v is None or _int_in(v, 1, MAX_DIM),
    "max_outputs": lambda v: _int_in(v, 0, MAX_DIM),
    "constant": _text,
}


@_kind("summary slots")
def _SUMMARY_SLOTS(v, ctx):
    ok = (type(v) is tuple and len(v) == ctx.n_inputs and len(set(v)) == len(v)
          and all(s in ("data", "step", "cond") for s in v))
    return None if ok else f"a tuple of {ctx.n_inputs} distinct of 'data', 'step', 'cond'"


@_kind("summary options")
def _SUMMARY_OPTS(v, ctx):
    ok = type(v) is tuple and all(
        type(item) is tuple and len(item) == 2 and item[0] in _SUMMARY_OPTIONS
        and _SUMMARY_OPTIONS[item[0]](item[1]) for item in v)
    return None if ok else ("a tuple of (name, value) pairs: description, buckets, "
                            "max_outputs, constant")


_NONE = AttrKind("None", lambda v, ctx: None if v is None else "None")
_WRITE_SUMMARY = {
    "kind": _enum("scalar", "histogram", "text", "image"), "tag": STR,
    "slots": _SUMMARY_SLOTS, "options": _SUMMARY_OPTS,
    "step": AttrKind("an optional int64 step",
                     lambda v, ctx: None if _is_step(v) else "None or an int64 step"),
    "writer": _NONE, "record": _NONE,  # host objects: never saved (summary_ops.saved_attrs)
}

OP_ATTRS: dict[str, dict[str, AttrKind]] = {
    **{name: _REDUCE for name in ("Sum", "Mean", "Max", "Min", "Prod", "Any", "All")},
    "ProdOthers": {"axis": OPT_AXES},
    "ArgMax": {"axis": AXIS, "output_type": DTYPE},
    "ArgMin": {"axis": AXIS, "output_type": DTYPE},
    "Assert": {"message": STR, "parts": PARTS},
    "PrintV2": {"parts": PARTS, "sep": STR, "end": STR, "stream": STREAM},
    "WriteSummary": _WRITE_SUMMARY,
    "ReadVariableOp": {"var": VARIABLE},
    "AssignVariableOp": {"var": VARIABLE, "mode": MODE},
    "VarInitIfNeeded": {"var": VARIABLE},
    "BroadcastTo": {"shape": OPT_DIMS},
    "Cast": {"dtype": DTYPE},
    "ConcatV2": {"axis": AXIS},
    "Const": {"value": ARRAY},
    "Cumsum": {"axis": AXIS, "exclusive": BOOL, "reverse": BOOL},
    "Dropout": {"rate": FLOAT, "noise_shape": OPT_DIMS, "seed": OPT_INT},
    "Einsum": {"equation": EQUATION},
    "ExpandDims": {"axis": AXIS},
    "GatherV2": {"axis": AXIS},
    "Softmax": {"axis": AXIS},
    "ReverseSequence": {"seq_axis": INT, "batch_axis": INT},
    **{name: {"rank": INT} for name in ("FFT", "IFFT")},
    **{name: {"rank": INT, "fft_length": INTS} for name in ("RFFT", "IRFFT")},
    "LogSoftmax": {"axis": AXIS},
    "SoftmaxCrossEntropyWithLogits": {"axis": AXIS},
    "Pack": {"axis": AXIS},
    "Unpack": {"axis": AXIS, "num": INT},
    "Split": {"axis": AXIS, "sizes": INTS},
    "SplitLike": {"axis": AXIS},
    "MaskScatter": {"shape": DIMS},
    "MatMul": {"transpose_a": BOOL, "transpose_b": BOOL},
    "MatrixSolve": {"adjoint": BOOL},
    "MatrixTriangularSolve": {"lower": BOOL, "adjoint": BOOL},
    "Qr": {"full_matrices": BOOL},
    "Svd": {"full_matrices": BOOL, "compute_uv": BOOL},
    "OneHot": {"depth": INT, "on_value": NUMBER, "off_value": NUMBER, "axis": AXIS, "dtype": DTYPE},
    "OnesLike": {"dtype": OPT_DTYPE},
    "ZerosLike": {"dtype": OPT_DTYPE},
    "RandomUniform": _RANDOM,
    "RandomStandardNormal": _RANDOM,
    "TruncatedNormal": _RANDOM,
    "RandomShuffle": {"seed": OPT_INT},
    **{name: {"dtype": DTYPE} for name in (
        "StatelessRandomUniform", "StatelessRandomUniformInt", "StatelessRandomUniformFullInt",
        "StatelessRandomNormal", "StatelessTruncatedNormal", "StatelessRandomBinomial")},
    "StatelessMultinomial": {"num_samples": INT, "dtype": DTYPE},
    **{name: _RANDOM_DYNAMIC for name in ("RandomUniformDynamic", "RandomStandardNormalDynamic",
                                          "TruncatedNormalDynamic")},
    **{f"{name}Dynamic": {"keepdims": BOOL}
       for name in ("Sum", "Mean", "Max", "Min", "Prod", "Any", "All")},
    "Range": {"dtype": DTYPE},
    "Reshape": {"shape": DIMS},
    "ReverseV2": {"axis": AXES},
    "ScatterAddAxis": {"axis": AXIS, "shape": DIMS},
    "ScatterNdAdd": {"shape": DIMS},
    "Shape": {"out_type": DTYPE},
    "Size": {"out_type": DTYPE},
    "Squeeze": {"axis": OPT_AXES},
    "StridedSlice": {"key": KEY},
    "StridedSliceGrad": {"key": KEY, "shape": DIMS},
    "Tensordot": {"axes": AXES_PAIR},
    "Tile": {"multiples": DIMS},
    "Transpose": {"perm": AXES},
    "TensorArrayV3": {"dtype": DTYPE, "element_shape": PARTIAL_DIMS, "dynamic_size": BOOL},
    "TensorArrayWriteV3": {"dynamic_size": BOOL},
    "TensorArrayReadV3": _TA_ELEMENT,
    "TensorArrayStack": _TA_ELEMENT,
    "TensorArrayGatherV3": _TA_ELEMENT,
    "TensorArrayConcatV3": _TA_ELEMENT,
    "TensorArrayScatterGrad": {"count": INT, "dtype": DTYPE, "shape": DIMS},
    "TensorArrayWriteGrad": {"dtype": DTYPE, "shape": DIMS},
    "AccumulatorRead": {"dtype": DTYPE, "index": INT, "shape": SHAPE},
    "Undefined": {"dtype": DTYPE, "shape": SHAPE},
    "Zeros": {"shape": DIMS, "dtype": NP_DTYPE},
    **_SCATTER_SORT_ATTRS,
    **_CONV_ATTRS,
    **_STRING_ATTRS,
}

# ops that hold Python callables or live only on tapes: never written, never read
UNSAVABLE = frozenset({"Placeholder", "CustomGradient", "PartitionedCall"})


def attr_kinds(op_type: str) -> dict[str, AttrKind]:
    """The declared attributes of a savable op type (empty for ops without attributes)."""
    return OP_ATTRS.get(op_type, {})


def attr_errors(op_type: str, attrs: dict, ctx: AttrContext) -> list[str]:
    """What is wrong with `attrs` for an op of `op_type` (empty when they fit the schema)."""
    kinds = attr_kinds(op_type)
    problems = []
    for name in sorted(set(attrs) - set(kinds)):
        problems.append(f"unknown attribute {name!r}")
    for name in sorted(set(kinds) - set(attrs)):
        problems.append(f"missing attribute {name!r}")
    for name, kind in kinds.items():
        if name in attrs:
            wrong = kind.check(attrs[name], ctx)
            if wrong is not None:
                problems.append(f"attribute {name!r} must be {wrong}, got {_short(attrs[name])}")
    return problems


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
