"""String ops (`rt.strings`): string tensors hold `bytes`, as TensorFlow's do.

A string tensor's value is a NumPy object array of `bytes` (`str` is encoded as UTF-8 when a
tensor is made). Every op here is declared once with a NumPy kernel over such arrays, so it
runs eagerly and staged in `rt.function` on the NumPy tier; the Numba tier
(`jit_compile=True`) cannot hold strings and refuses these ops naming them.

Text attributes (separators, patterns, templates) are kept as `str`; bytes that are not UTF-8
are carried as lone surrogates (Python's "surrogateescape"), so any bytes round-trip through
them and through saved functions.

Differences from TensorFlow, by design of a dense-tensor runtime:
- `split`, `unicode_decode`, `unicode_split` and `bytes_split` of a scalar return a 1-D
  tensor; of a vector a RaggedTensor, as TensorFlow's, but the vector's length must be known
  when staged.
- Regular expressions run on Python's `re` over the UTF-8 text (RE2's syntax is mostly a
  subset of it; `\\z` and `\\x{...}` are understood, classes `\\d \\w \\s \\b` are ASCII as
  in RE2).
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, INT, OPT_AXES, STR, kind, one_of
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import EagerTensor, Tensor
from . import array_math
from . import ragged as _ragged
from .core import apply, convert_to_tensor
from .farmhash import fingerprint64
from .ragged import RaggedTensor
from .shape_rules import broadcast, normalize_axis, reduced_shape


def _define_string(name, infer, kernel=None, **kwargs):
    """An op on string tensors (`OpDef.strings`)."""
    return define(name, infer, kernel, strings=True, **kwargs)

_UNITS = ("BYTE", "UTF8_CHAR")
_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_ERRORS = ("strict", "replace", "ignore")
_FILLS = ("", " ", "+", "-", "0", "#")
_NUMBER_TYPES = ("float32", "float64", "int32", "int64")
_CONTINUATION = bytes(range(0x80, 0xC0))  # UTF-8 bytes that do not start a character

# attribute kinds of the string ops (runtime/attr_kinds.py)
_UNIT = one_of(*_UNITS)
_ENCODING = one_of(*_ENCODINGS)
_UNICODE = {"errors": one_of(*_ERRORS), "replacement_char": INT}
_CASE = {"encoding": one_of("", "utf-8")}


@kind("dtype to parse strings as")
def _PARSED_DTYPE(v, ctx):
    ok = isinstance(v, _dtypes.DType) and v.name in _NUMBER_TYPES
    return None if ok else f"one of {', '.join(_NUMBER_TYPES)}"


# -- helpers -----------------------------------------------------------------------------------

def _b(text: str) -> bytes:
    """An attribute's text as the bytes it stands for."""
    return text.encode("utf-8", "surrogateescape")


def _u(data: bytes) -> str:
    """Bytes as text that encodes back to the same bytes (see `_b`)."""
    return data.decode("utf-8", "surrogateescape")


def _objects(value) -> np.ndarray:
    """`value` (an array, or one bytes object from a 0-d map) as an object array."""
    return np.asarray(value, dtype=object)


def _vector(items: list) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _map(fn: Callable, x, dtype: Any = object) -> np.ndarray:
    """`fn` applied to every element of the object array `x`."""
    x = _objects(x)
    if x.size == 0:
        return np.empty(x.shape, dtype)
    return np.asarray(np.frompyfunc(fn, 1, 1)(x), dtype=dtype)


def _strings(value, fn: str, arg: str) -> Tensor:
    """`value` as a string tensor; TypeError naming the argument when it holds no strings."""
    try:
        t = convert_to_tensor(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{fn}: {arg} must be a string tensor: {exc}") from None
    if t.dtype is not _dtypes.string:
        raise TypeError(f"{fn}: {arg} must be a string tensor, got a tensor of dtype "
                        f"{t.dtype.name}.")
    return t


def _text(value, fn: str, arg: str) -> str:
    """A text attribute: a str, bytes, or a scalar string tensor whose value is known."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return _u(bytes(value))
    if isinstance(value, np.ndarray) and value.ndim == 0 and isinstance(value[()], (bytes, str)):
        return _text(value[()], fn, arg)
    if isinstance(value, EagerTensor) and value.dtype is _dtypes.string and value.shape.rank == 0:
        return _u(value.numpy())
    if isinstance(value, Tensor):
        raise TypeError(f"{fn}: {arg} must be a str, bytes or a scalar string tensor whose value "
                        f"is known when the function is traced, got {value!r:.80}.")
    raise TypeError(f"{fn}: {arg} must be a str or bytes, got {type(value).__name__}.")


def _choice(value, allowed, fn: str, arg: str):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{fn}: {arg} must be one of {list(allowed)}, got {value!r}.")
    return value


def _encoding(value, fn: str, arg: str) -> str:
    """An encoding name as the canonical key of `_ENCODINGS` ('utf-8' -> 'UTF-8')."""
    key = value.upper().replace("_", "-") if isinstance(value, str) else value
    return _choice(key, _ENCODINGS, fn, arg)


def _int(value, fn: str, arg: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{fn}: {arg} must be an int, got {value!r}.")
    return int(value)


def _bool(value, fn: str, arg: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{fn}: {arg} must be a bool, got {value!r}.")
    return bool(value)


def _code_point(value, fn: str, arg: str) -> int:
    c = _int(value, fn, arg)
    if not (0 <= c <= 0x10FFFF) or 0xD800 <= c <= 0xDFFF:
        raise ValueError(f"{fn}: {arg} must be a Unicode code point, got {c}.")
    return c


def _check_string(op_name: str, *tensors) -> None:
    for t in tensors:
        if t.dtype is not _dtypes.string:
            raise TypeError(f"{op_name}: expected string tensors, got {t.dtype.name}.")


def _elementwise(op_name: str, dtype=_dtypes.string):
    def infer(x, **attrs):
        _check_string(op_name, x)
        return x.shape, dtype
    return infer


def _to_vector(op_name: str):
    def infer(x, **attrs):
        _check_string(op_name, x)
        if x.shape.rank not in (0, None):
            raise ValueError(f"{op_name}: input must be a scalar, got shape {x.shape}.")
        return TensorShape([None]), _dtypes.string
    return infer


def _per_element(fn: str, x: Tensor, make: Callable[[Tensor], Tensor]) -> Any:
    """`make` of a scalar; of a vector, the list of `make` of each element."""
    rank = x.shape.rank
    if rank == 0:
        return make(x)
    if rank == 1:
        if x.shape.as_tuple()[0] is None:
            raise ValueError(f"{fn}: a vector input needs a length known when the function is "
                             "traced (its rows are split one by one).")
        return _ragged.stack([make(row) for row in array_math.unstack(x)])
    raise ValueError(f"{fn}: input must be a scalar or a vector, got shape {x.shape} (split "
                     "the rows of a matrix with rt.unstack).")


# -- length ------------------------------------------------------------------------------------

def _length_kernel(x, unit):
    if unit == "BYTE":
        return _map(len, x, np.int32)
    return _map(lambda b: len(b.translate(None, _CONTINUATION)), x, np.int32)


STRING_LENGTH = _define_string("StringLength", _elementwise("StringLength", _dtypes.int32),
                       _length_kernel, differentiable=False, attrs={"unit": _UNIT})


@export("strings.length")
def length(input, unit: str = "BYTE", name: str | None = None) -> Tensor:  # noqa: A002
    """The length of each string: in bytes (`unit='BYTE'`) or in UTF-8 characters
    (`unit='UTF8_CHAR'`, counting the bytes that start a character). int32, `input`'s shape."""
    x = _strings(input, "strings.length", "input")
    unit = _choice(unit, _UNITS, "strings.length", "unit")
    return apply(STRING_LENGTH, [x], {"unit": unit}, name=name)


# -- join, reduce_join -------------------------------------------------------------------------

def _join_infer(*xs, separator):
    _check_string("StringJoin", *xs)
    shape = xs[0].shape
    for t in xs[1:]:
        shape = broadcast(shape, t.shape, "StringJoin")
    return shape, _dtypes.string


def _join_kernel(*xs, separator):
    sep = _b(separator)
    joined = np.frompyfunc(lambda *parts: sep.join(parts), len(xs), 1)(*map(_objects, xs))
    return _objects(joined)


STRING_JOIN = _define_string("StringJoin", _join_infer, _join_kernel, differentiable=False,
                             attrs={"separator": STR})


@export("strings.join")
def join(inputs, separator: str = "", name: str | None = None) -> Tensor:
    """The strings of `inputs` (a list of string tensors or strings, broadcast together)
    joined elementwise with `separator`: `join(["a", ["x", "y"]], "-")` is `[b"a-x", b"a-y"]`."""
    if isinstance(inputs, (Tensor, str, bytes)) or not isinstance(inputs, (list, tuple)):
        raise TypeError("strings.join: inputs must be a list of string tensors, got "
                        f"{type(inputs).__name__}.")
    if not inputs:
        raise ValueError("strings.join: inputs must hold at least one tensor.")
    xs = [_strings(x, "strings.join", f"inputs[{i}]") for i, x in enumerate(inputs)]
    sep = _text(separator, "strings.join", "separator")
    return apply(STRING_JOIN, xs, {"separator": sep}, name=name)


def _reduce_join_infer(x, axis, keepdims, separator):
    _check_string("ReduceJoin", x)
    return reduced_shape(x.shape, axis, keepdims), _dtypes.string


def _reduce_join_kernel(x, axis, keepdims, separator):
    x = _objects(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(sorted({a % x.ndim for a in axis}))
    kept = [d for d in range(x.ndim) if d not in axes]
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = np.transpose(x, kept + list(axes)).reshape([x.shape[d] for d in kept] + [count])
    sep = _b(separator)
    out = np.empty(rows.shape[:-1], dtype=object)
    for index in np.ndindex(out.shape):
        out[index] = sep.join(rows[index])
    if keepdims:
        out = out.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
    return out


REDUCE_JOIN = _define_string("ReduceJoin", _reduce_join_infer, _reduce_join_kernel, differentiable=False,
                             attrs={"axis": OPT_AXES, "keepdims": BOOL, "separator": STR})


@export("strings.reduce_join")
def reduce_join(inputs, axis=None, keepdims: bool = False, separator: str = "",
                name: str | None = None) -> Tensor:
    """The strings of `inputs` joined with `separator` along `axis` (an int, a list of ints,
    or None for all axes), in row-major order; an empty reduction gives `b""`."""
    x = _strings(inputs, "strings.reduce_join", "inputs")
    if axis is not None:
        if isinstance(axis, (Tensor, np.ndarray)):
            axis = np.asarray(axis).tolist()
        items = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
        axis = tuple(_int(a, "strings.reduce_join", "axis") for a in items)
        axis = normalize_axis(axis, x.shape.rank, "strings.reduce_join")
    attrs = {"axis": axis, "keepdims": _bool(keepdims, "strings.reduce_join", "keepdims"),
             "separator": _text(separator, "strings.reduce_join", "separator")}
    return apply(REDUCE_JOIN, [x], attrs, name=name)


# -- split -------------------------------------------------------------------------------------

def _split_kernel(x, sep, maxsplit):
    data = _objects(x)[()]
    return _vector(data.split(_b(sep) if sep else None, maxsplit))


STRING_SPLIT = _define_string("StringSplitV2", _to_vector("StringSplitV2"), _split_kernel,
                      differentiable=False, attrs={"sep": STR, "maxsplit": INT})


@export("strings.split")
def split(input, sep=None, maxsplit: int = -1, name: str | None = None) -> Tensor | RaggedTensor:  # noqa: A002
    """`input` split at `sep` (at runs of ASCII whitespace when `sep` is None or empty, ends
    trimmed), at most `maxsplit` times (-1: no limit), as Python's `bytes.split`.

    A scalar gives a 1-D string tensor of the pieces. A vector gives a RaggedTensor with one
    row per element; its length must be known when the function is traced.
    """
    x = _strings(input, "strings.split", "input")
    attrs = {"sep": "" if sep is None else _text(sep, "strings.split", "sep"),
             "maxsplit": _int(maxsplit, "strings.split", "maxsplit")}
    return _per_element("strings.split", x, lambda s: apply(STRING_SPLIT, [s], attrs, name=name))


# -- upper, lower, strip -----------------------------------------------------------------------

def _case_kernel(method: str):
    def kernel(x, encoding):
        if encoding == "":
            return _map(getattr(bytes, method), x)
        return _map(lambda b: _b(getattr(_u(b), method)()), x)
    return kernel


STRING_UPPER = _define_string("StringUpper", _elementwise("StringUpper"), _case_kernel("upper"),
                      differentiable=False, attrs=_CASE)
STRING_LOWER = _define_string("StringLower", _elementwise("StringLower"), _case_kernel("lower"),
                      differentiable=False, attrs=_CASE)


def _case_function(op, public: str, what: str):
    def fn(input, encoding: str = "", name: str | None = None) -> Tensor:  # noqa: A002
        x = _strings(input, f"strings.{public}", "input")
        if encoding not in ("", "utf-8", "UTF-8"):
            raise ValueError(f"strings.{public}: encoding must be '' (ASCII letters only) or "
                             f"'utf-8', got {encoding!r}.")
        return apply(op, [x], {"encoding": "" if encoding == "" else "utf-8"}, name=name)
    fn.__doc__ = (f"Each string in {what}: ASCII letters only with `encoding=''` (bytes kept), "
                  "all of Unicode's letters with `encoding='utf-8'`.")
    return fn


upper = export("strings.upper")(_case_function(STRING_UPPER, "upper", "upper case"))
lower = export("strings.lower")(_case_function(STRING_LOWER, "lower", "lower case"))


STRING_STRIP = _define_string("StringStrip", _elementwise("StringStrip"),
                      lambda x: _map(bytes.strip, x), differentiable=False)


@export("strings.strip")
def strip(input, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string without its leading and trailing ASCII whitespace (`bytes.strip()`)."""
    return apply(STRING_STRIP, [_strings(input, "strings.strip", "input")], name=name)


# -- format ------------------------------------------------------------------------------------

def _show(value, summarize: int) -> str:
    """A value as `rt.print` prints it, with at most `summarize` items at each end of an axis."""
    array = np.asarray(value)
    if array.ndim == 0:
        item = array[()]
        return _u(item) if isinstance(item, bytes) else str(item)
    options = ({"threshold": sys.maxsize} if summarize < 0
               else {"threshold": 0, "edgeitems": summarize})
    with np.printoptions(**options):
        return str(array)


def _format_kernel(*values, template, placeholder, summarize):
    pieces = template.split(placeholder)
    text = pieces[0] + "".join(_show(v, summarize) + p for v, p in zip(values, pieces[1:]))
    return _objects(_b(text))


STRING_FORMAT = _define_string("StringFormat", lambda *xs, **attrs: (TensorShape([]), _dtypes.string),
                       _format_kernel, differentiable=False,
                       attrs={"template": STR, "placeholder": STR, "summarize": INT})


@export("strings.format")
def format(template, inputs, placeholder: str = "{}", summarize: int = 3,  # noqa: A001
           name: str | None = None) -> Tensor:
    """A scalar string: `template` with each `placeholder` replaced by the next of `inputs`
    (a tensor or a list of them), printed as `rt.print` prints it; an axis longer than
    `2 * summarize` shows its first and last `summarize` items (`-1`: every item)."""
    fn = "strings.format"
    template = _text(template, fn, "template")
    placeholder = _text(placeholder, fn, "placeholder")
    if not placeholder:
        raise ValueError(f"{fn}: placeholder must not be empty.")
    summarize = _int(summarize, fn, "summarize")
    if summarize == 0 or summarize < -1:
        raise ValueError(f"{fn}: summarize must be positive or -1 (show everything), got "
                         f"{summarize}.")
    items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    tensors = [convert_to_tensor(v) for v in items]
    count = template.count(placeholder)
    if count != len(tensors):
        raise ValueError(f"{fn}: the template has {count} placeholder(s) {placeholder!r} but "
                         f"{len(tensors)} input(s) were given.")
    attrs = {"template": template, "placeholder": placeholder, "summarize": summarize}
    return apply(STRING_FORMAT, tensors, attrs, name=name)


# -- as_string, to_number ----------------------------------------------------------------------

def _as_string_infer(x, precision, scientific, shortest, width, fill):
    if not (x.dtype.is_numeric or x.dtype.is_bool or x.dtype is _dtypes.string):
        raise TypeError(f"AsString: cannot format values of dtype {x.dtype.name}.")
    return x.shape, _dtypes.string


def _as_string_kernel(x, precision, scientific, shortest, width, fill):
    x = np.asarray(x)
    head = "%" + fill + (str(width) if width >= 0 else "")
    kind = x.dtype.kind
    if kind in "fc":
        spec = head + (f".{precision}" if precision >= 0 else "")
        spec += "e" if scientific else "g" if shortest else "f"
        if kind == "f":
            return _map(lambda v: (spec % float(v)).encode(), x.astype(object))
        return _map(lambda v: f"({spec % v.real},{spec % v.imag})".encode(), x.astype(object))
    if kind in "iu":
        return _map(lambda v: (head + "d").encode() % int(v), x.astype(object))
    if kind == "b":
        return _map(lambda v: ((head + "s") % ("true" if v else "false")).encode(),
                    x.astype(object))
    return _map(lambda v: (head + "s").encode() % v, x)


AS_STRING = _define_string("AsString", _as_string_infer, _as_string_kernel, differentiable=False,
                           attrs={"precision": INT, "scientific": BOOL, "shortest": BOOL,
                                  "width": INT, "fill": one_of(*_FILLS)})


@export("as_string", "strings.as_string")
def as_string(input, precision: int = -1, scientific: bool = False,  # noqa: A002
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> Tensor:
    """Each number as text, as C's printf writes it: floats `%f` (6 decimals) unless
    `scientific` (`%e`) or `shortest` (`%g`), with `precision` decimals when >= 0; ints `%d`;
    bools `true`/`false`; complex `(re,im)`. `width` pads to that many characters, with
    spaces, or with the printf flag `fill` (`'0'` pads with zeros, `'-'` aligns left, `'+'`
    shows the sign, `' '`, `'#'`). Strings pass through (padded to `width`)."""
    fn = "as_string"
    x = convert_to_tensor(input)
    if not (x.dtype.is_numeric or x.dtype.is_bool or x.dtype is _dtypes.string):
        raise TypeError(f"{fn}: input must be numbers, bools or strings, got {x.dtype.name}.")
    precision, width = _int(precision, fn, "precision"), _int(width, fn, "width")
    scientific, shortest = _bool(scientific, fn, "scientific"), _bool(shortest, fn, "shortest")
    if not isinstance(fill, str) or fill not in _FILLS:
        raise ValueError(f"{fn}: fill must be one of {list(_FILLS)}, got {fill!r}.")
    if scientific and shortest:
        raise ValueError(f"{fn}: scientific and shortest cannot both be True.")
    if not (x.dtype.is_floating or x.dtype.is_complex):
        for arg, given in (("precision", precision >= 0), ("scientific", scientific),
                           ("shortest", shortest)):
            if given:
                raise ValueError(f"{fn}: {arg} applies to floating-point and complex inputs "
                                 f"only, got {x.dtype.name}.")
    attrs = {"precision": precision, "scientific": scientific, "shortest": shortest,
             "width": width, "fill": fill}
    return apply(AS_STRING, [x], attrs, name=name)


def _to_number_infer(x, out_type):
    _check_string("StringToNumber", x)
    return x.shape, out_type


def _to_number_kernel(x, out_type):
    np_type = out_type.as_numpy_dtype
    integer = np.dtype(np_type).kind == "i"
    low, high = (np.iinfo(np_type).min, np.iinfo(np_type).max) if integer else (None, None)

    def parse(data: bytes):
        try:
            text = data.decode("ascii")
            if "_" in text:
                raise ValueError(text)
            value = int(text, 10) if integer else float(text)
        except (UnicodeDecodeError, ValueError):
            raise InvalidArgumentError(f"strings.to_number: cannot convert the string {data!r} "
                                       f"to {out_type.name}.") from None
        if integer and not low <= value <= high:
            raise InvalidArgumentError(f"strings.to_number: the string {data!r} is out of the "
                                       f"range of {out_type.name}.")
        return value

    with np.errstate(over="ignore"):
        return _map(parse, x).astype(np_type) if np.size(x) else np.zeros(np.shape(x), np_type)


STRING_TO_NUMBER = _define_string("StringToNumber", _to_number_infer, _to_number_kernel,
                          differentiable=False, attrs={"out_type": _PARSED_DTYPE})


@export("strings.to_number")
def to_number(string_tensor, out_type=_dtypes.float32, name: str | None = None) -> Tensor:
    """Each string parsed as a number of `out_type` (float32, float64, int32 or int64);
    leading and trailing whitespace is allowed. A string that is not such a number raises
    `InvalidArgumentError` naming it (when the op runs)."""
    x = _strings(string_tensor, "strings.to_number", "string_tensor")
    try:
        dtype = _dtypes.as_dtype(out_type)
    except (TypeError, ValueError, KeyError):
        dtype = None
    if dtype is None or dtype.name not in _NUMBER_TYPES:
        raise TypeError(f"strings.to_number: out_type must be one of {list(_NUMBER_TYPES)}, got "
                        f"{out_type!r}.")
    return apply(STRING_TO_NUMBER, [x], {"out_type": dtype}, name=name)


# -- regular expressions -----------------------------------------------------------------------

def _python_pattern(pattern: str) -> str:
    """RE2 spellings Python's `re` writes otherwise: `\\z` (end of text), `\\x{hex}`."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt == "z":
                out.append("\\Z")
                i += 2
                continue
            if nxt == "x" and pattern.startswith("{", i + 2) and "}" in pattern[i + 3:]:
                end = pattern.index("}", i + 3)
                digits = pattern[i + 3:end]
                if digits and all(d in "0123456789abcdefABCDEF" for d in digits) and len(digits) <= 8:
                    out.append(f"\\U{int(digits, 16):08x}")
                    i = end + 1
                    continue
            out.append(pattern[i:i + 2])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _regex(pattern: str, fn: str) -> re.Pattern:
    try:
        return re.compile(_python_pattern(pattern), re.ASCII)
    except (re.error, OverflowError) as exc:
        raise InvalidArgumentError(f"{fn}: invalid pattern {pattern!r}: {exc}.") from None


@functools.lru_cache(maxsize=256)
def _rewrite(rewrite: str, groups: int) -> tuple:
    """RE2's rewrite string as pieces: text, or the int of a group (`\\0` the whole match);
    `\\\\` is a backslash, any other backslash an error."""
    pieces: list = []
    i = 0
    while i < len(rewrite):
        c = rewrite[i]
        if c != "\\":
            pieces.append(c)
            i += 1
            continue
        nxt = rewrite[i + 1] if i + 1 < len(rewrite) else ""
        if nxt == "\\":
            pieces.append("\\")
        elif nxt.isdigit() and nxt.isascii():
            if int(nxt) > groups:
                raise InvalidArgumentError(
                    f"strings.regex_replace: rewrite {rewrite!r} refers to group \\{nxt} but the "
                    f"pattern has {groups} group(s).")
            pieces.append(int(nxt))
        else:
            raise InvalidArgumentError(
                f"strings.regex_replace: invalid rewrite {rewrite!r}: a backslash must be "
                "followed by a digit (a group) or a backslash.")
        i += 2
    return tuple(pieces)


def _regex_replace_kernel(x, pattern, rewrite, replace_global):
    regex = _regex(pattern, "strings.regex_replace")
    pieces = _rewrite(rewrite, regex.groups)

    def expand(match):
        return "".join(p if isinstance(p, str) else (match.group(p) or "") for p in pieces)

    count = 0 if replace_global else 1
    return _map(lambda b: _b(regex.sub(expand, _u(b), count=count)), x)


REGEX_REPLACE = _define_string("StaticRegexReplace", _elementwise("StaticRegexReplace"),
                       _regex_replace_kernel, differentiable=False,
                       attrs={"pattern": STR, "rewrite": STR, "replace_global": BOOL})


@export("strings.regex_replace")
def regex_replace(input, pattern, rewrite, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> Tensor:
    """Each string with the matches of `pattern` replaced by `rewrite` (all matches, or the
    first only when `replace_global=False`). In `rewrite`, `\\1`..`\\9` insert a group and `\\0`
    the whole match, `\\\\` a backslash. `pattern` is RE2-style syntax run by Python's `re` on
    the UTF-8 text (`.` is one character; `\\d \\w \\s` are ASCII)."""
    fn = "strings.regex_replace"
    x = _strings(input, fn, "input")
    pattern, rewrite = _text(pattern, fn, "pattern"), _text(rewrite, fn, "rewrite")
    _rewrite(rewrite, _regex(pattern, fn).groups)  # errors now, naming the argument
    attrs = {"pattern": pattern, "rewrite": rewrite,
             "replace_global": _bool(replace_global, fn, "replace_global")}
    return apply(REGEX_REPLACE, [x], attrs, name=name)


def _full_match_kernel(x, pattern):
    regex = _regex(pattern, "strings.regex_full_match")
    return _map(lambda b: regex.fullmatch(_u(b)) is not None, x, np.bool_)


REGEX_FULL_MATCH = _define_string("StaticRegexFullMatch",
                          _elementwise("StaticRegexFullMatch", _dtypes.bool_),
                          _full_match_kernel, differentiable=False, attrs={"pattern": STR})


@export("strings.regex_full_match")
def regex_full_match(input, pattern, name: str | None = None) -> Tensor:  # noqa: A002
    """True where the whole string matches `pattern` (syntax as in `regex_replace`)."""
    fn = "strings.regex_full_match"
    x = _strings(input, fn, "input")
    pattern = _text(pattern, fn, "pattern")
    _regex(pattern, fn)
    return apply(REGEX_FULL_MATCH, [x], {"pattern": pattern}, name=name)


# -- substr ------------------------------------------------------------------------------------

def _strict_utf8(data: bytes, fn: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidArgumentError(f"{fn}: the string {data!r} is not valid UTF-8 "
                                   f"({exc.reason} at byte {exc.start}).") from None


def _substr_infer(x, pos, len, unit):  # noqa: A002
    _check_string("Substr", x)
    for what, t in (("pos", pos), ("len", len)):
        if not t.dtype.is_integer:
            raise TypeError(f"Substr: {what} must be an integer tensor, got {t.dtype.name}.")
    return broadcast(broadcast(x.shape, pos.shape, "Substr"), len.shape, "Substr"), _dtypes.string


def _substr_kernel(x, pos, len, unit):  # noqa: A002
    chars = unit == "UTF8_CHAR"

    def one(data: bytes, p, n):
        seq = _strict_utf8(data, "strings.substr") if chars else data
        size = seq.__len__()
        p, n = int(p), int(n)
        start = p + size if p < 0 else p
        if not 0 <= start <= size:
            raise InvalidArgumentError(
                f"strings.substr: pos {p} is out of range for the string {data!r} of length "
                f"{size} ({'characters' if chars else 'bytes'}).")
        piece = seq[start:] if n < 0 else seq[start:start + n]
        return piece.encode("utf-8") if chars else piece

    out = np.frompyfunc(one, 3, 1)(_objects(x), np.asarray(pos), np.asarray(len))
    return _objects(out)


SUBSTR = _define_string("Substr", _substr_infer, _substr_kernel, differentiable=False,
                        attrs={"unit": _UNIT})


@export("strings.substr")
def substr(input, pos, len, unit: str = "BYTE", name: str | None = None) -> Tensor:  # noqa: A002
    """The `len` bytes (or UTF-8 characters, `unit='UTF8_CHAR'`) of each string from `pos`;
    `pos`, `len` broadcast with `input`. A negative `pos` counts from the end; a `len` past the
    end or negative takes the rest. `pos` outside the string raises InvalidArgumentError."""
    fn = "strings.substr"
    x = _strings(input, fn, "input")
    unit = _choice(unit, _UNITS, fn, "unit")
    ints = []
    for arg, value in (("pos", pos), ("len", len)):
        t = convert_to_tensor(value)
        if not t.dtype.is_integer:
            raise TypeError(f"{fn}: {arg} must be integers, got {t.dtype.name}.")
        ints.append(t)
    return apply(SUBSTR, [x, *ints], {"unit": unit}, name=name)


# -- unicode -----------------------------------------------------------------------------------

def _decode(data: bytes, input_encoding: str, errors: str, replacement_char: int) -> list[int]:
    """The code points of `data`; bad sequences raise, are replaced or are skipped."""
    encoding = input_encoding
    codec, points, i = _ENCODINGS[encoding], [], 0
    while True:
        try:
            points.extend(map(ord, data[i:].decode(codec)))
            return points
        except UnicodeDecodeError as exc:
            points.extend(map(ord, data[i:i + exc.start].decode(codec)))
            if errors == "strict":
                raise InvalidArgumentError(
                    f"strings.unicode_decode: the string {data!r} is not valid {encoding} "
                    f"({exc.reason} at byte {i + exc.start}).") from None
            if errors == "replace":
                points.append(replacement_char)
            i += exc.end


def _decode_infer(x, input_encoding, errors, replacement_char):
    _check_string("UnicodeDecode", x)
    if x.shape.rank not in (0, None):
        raise ValueError(f"UnicodeDecode: input must be a scalar, got shape {x.shape}.")
    return TensorShape([None]), _dtypes.int32


UNICODE_DECODE = _define_string(
    "UnicodeDecode", _decode_infer,
    lambda x, **attrs: np.array(_decode(_objects(x)[()], **attrs), dtype=np.int32),
    differentiable=False, attrs={"input_encoding": _ENCODING, **_UNICODE})


def _unicode_args(fn: str, encoding, errors, replacement_char, arg: str) -> dict:
    return {arg: _encoding(encoding, fn, arg), "errors": _choice(errors, _ERRORS, fn, "errors"),
            "replacement_char": _code_point(replacement_char, fn, "replacement_char")}


@export("strings.unicode_decode")
def unicode_decode(input, input_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 0xFFFD, name: str | None = None) -> Tensor | RaggedTensor:
    """The code points (int32) of a string in `input_encoding` ('UTF-8', 'UTF-16-BE' or
    'UTF-32-BE'). Invalid sequences become `replacement_char` (`errors='replace'`), are
    dropped ('ignore') or raise InvalidArgumentError ('strict'). A scalar gives a 1-D tensor;
    a vector a RaggedTensor of them, one row per string."""
    fn = "strings.unicode_decode"
    x = _strings(input, fn, "input")
    attrs = _unicode_args(fn, input_encoding, errors, replacement_char, "input_encoding")
    return _per_element(fn, x, lambda s: apply(UNICODE_DECODE, [s], attrs, name=name))


def _unicode_split_kernel(x, input_encoding, errors, replacement_char):
    codec = _ENCODINGS[input_encoding]
    points = _decode(_objects(x)[()], input_encoding, errors, replacement_char)
    return _vector([chr(c).encode(codec) for c in points])


UNICODE_SPLIT = _define_string("UnicodeSplit", _to_vector("UnicodeSplit"), _unicode_split_kernel,
                       differentiable=False, attrs={"input_encoding": _ENCODING, **_UNICODE})


@export("strings.unicode_split")
def unicode_split(input, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 0xFFFD, name: str | None = None) -> Tensor | RaggedTensor:
    """The characters of a string in `input_encoding`, each encoded alone (a 1-D string
    tensor for a scalar, a RaggedTensor for a vector); `errors` as in `unicode_decode`."""
    fn = "strings.unicode_split"
    x = _strings(input, fn, "input")
    attrs = _unicode_args(fn, input_encoding, errors, replacement_char, "input_encoding")
    return _per_element(fn, x, lambda s: apply(UNICODE_SPLIT, [s], attrs, name=name))


def _encode_infer(x, output_encoding, errors, replacement_char):
    if not x.dtype.is_integer:
        raise TypeError(f"UnicodeEncode: input must be integer code points, got {x.dtype.name}.")
    if x.shape.rank == 0:
        raise ValueError("UnicodeEncode: input must have rank >= 1 (code points along the last "
                         "axis), got a scalar.")
    dims = x.shape.as_tuple()
    return TensorShape(None if dims is None else dims[:-1]), _dtypes.string


def _encode_kernel(x, output_encoding, errors, replacement_char):
    x = np.asarray(x)
    codec = _ENCODINGS[output_encoding]
    rows = x.reshape(int(np.prod(x.shape[:-1], dtype=np.int64)), x.shape[-1])
    out = np.empty(rows.shape[0], dtype=object)
    for r, row in enumerate(rows.tolist()):
        chars = []
        for c in row:
            if 0 <= c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF:
                chars.append(chr(c))
            elif errors == "strict":
                raise InvalidArgumentError(f"strings.unicode_encode: {c} is not a Unicode code "
                                           "point.")
            elif errors == "replace":
                chars.append(chr(replacement_char))
        out[r] = "".join(chars).encode(codec)
    return out.reshape(x.shape[:-1])


UNICODE_ENCODE = _define_string("UnicodeEncode", _encode_infer, _encode_kernel, differentiable=False,
                                attrs={"output_encoding": _ENCODING, **_UNICODE})


@export("strings.unicode_encode")
def unicode_encode(input, output_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 0xFFFD, name: str | None = None) -> Tensor:
    """Code points (integers along the last axis) encoded as strings in `output_encoding`
    ('UTF-8', 'UTF-16-BE', 'UTF-32-BE'): a 1-D input gives a scalar string, a matrix a vector
    of its rows' strings. Values that are not code points become `replacement_char`
    (`errors='replace'`), are dropped ('ignore') or raise InvalidArgumentError ('strict')."""
    fn = "strings.unicode_encode"
    x = convert_to_tensor(input)
    if not x.dtype.is_integer:
        raise TypeError(f"{fn}: input must be integer code points, got {x.dtype.name}.")
    if x.shape.rank == 0:
        raise ValueError(f"{fn}: input must have rank >= 1 (code points along the last axis), "
                         "got a scalar.")
    attrs = _unicode_args(fn, output_encoding, errors, replacement_char, "output_encoding")
    return apply(UNICODE_ENCODE, [x], attrs, name=name)


STRING_BYTES_SPLIT = _define_string(
    "StringBytesSplit", _to_vector("StringBytesSplit"),
    lambda x: _vector([bytes([c]) for c in _objects(x)[()]]), differentiable=False)


@export("strings.bytes_split")
def bytes_split(input, name: str | None = None) -> Tensor | RaggedTensor:  # noqa: A002
    """The bytes of a string, each a 1-byte string (a 1-D tensor for a scalar, a RaggedTensor
    for a vector)."""
    x = _strings(input, "strings.bytes_split", "input")
    return _per_element("strings.bytes_split", x,
                        lambda s: apply(STRING_BYTES_SPLIT, [s], name=name))


# -- hashing -----------------------------------------------------------------------------------

def _hash_bucket_kernel(x, num_buckets):
    return _map(lambda data: fingerprint64(data) % num_buckets, x, np.int64)


STRING_TO_HASH_BUCKET = _define_string("StringToHashBucketFast",
                               _elementwise("StringToHashBucketFast", _dtypes.int64),
                               _hash_bucket_kernel, differentiable=False,
                               attrs={"num_buckets": INT})


@export("strings.to_hash_bucket_fast")
def to_hash_bucket_fast(input, num_buckets: int, name: str | None = None) -> Tensor:  # noqa: A002
    """Each string hashed to a bucket in [0, num_buckets) (int64): its FarmHash fingerprint
    modulo `num_buckets`, TensorFlow's buckets."""
    x = _strings(input, "strings.to_hash_bucket_fast", "input")
    num_buckets = _int(num_buckets, "strings.to_hash_bucket_fast", "num_buckets")
    if num_buckets < 1:
        raise ValueError(f"strings.to_hash_bucket_fast: num_buckets must be >= 1, got "
                         f"{num_buckets}.")
    return apply(STRING_TO_HASH_BUCKET, [x], {"num_buckets": num_buckets}, name=name)
