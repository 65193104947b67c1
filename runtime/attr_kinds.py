"""The vocabulary of op attributes: kinds of values and the limits they are checked against.

An op declares its attributes where it is defined, `define(..., attrs={"axis": AXIS})`; the
saved-model loader checks a file's attributes against those declarations (the exact set of
names, each value's type, the range of numbers and sizes), so that a value reaching the
executor is only a bool, int, float, str, registered dtype, shape, NumPy array read without
pickle, or a loaded variable. Nothing here runs when an op is applied.
"""

from __future__ import annotations

import math
import re
from typing import Callable

import numpy as np

from .dtypes import DType
from .shapes import TensorShape

MAX_ELEMENTS = 2 ** 31  # no shape, size or array may describe more elements than this
MAX_DIM = 2 ** 31
MAX_RANK = 32
MAX_STR = 4096
MAX_ITEMS = 4096  # items of a tuple attribute that is not a shape


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


def is_int_in(v, low: int, high: int) -> bool:
    """True when `v` is an int (not a bool) in [low, high)."""
    return type(v) is int and low <= v < high


def kind(name: str) -> Callable[[Callable], AttrKind]:
    """Decorator: `check(value, ctx) -> error or None` becomes an AttrKind called `name`."""
    def wrap(fn):
        return AttrKind(name, fn)
    return wrap


def one_of(*values) -> AttrKind:
    """The kind of a str (or None) attribute that takes one of `values`."""
    allowed = f"one of {list(values)}"
    return AttrKind(allowed, lambda v, ctx: None if v in values and type(v) in (
        str, type(None)) else allowed)


@kind("bool")
def BOOL(v, ctx):
    return None if type(v) is bool else "a bool"


@kind("int")
def INT(v, ctx):
    return None if is_int_in(v, -MAX_DIM, MAX_DIM) else f"an int in [-{MAX_DIM}, {MAX_DIM})"


@kind("axis")
def AXIS(v, ctx):
    return None if is_int_in(v, -MAX_RANK, MAX_RANK) else f"an axis in [-{MAX_RANK}, {MAX_RANK})"


@kind("optional int")
def OPT_INT(v, ctx):
    return None if v is None else INT.check(v, ctx)


@kind("float")
def FLOAT(v, ctx):
    return None if type(v) is float else "a float"


@kind("number")
def NUMBER(v, ctx):
    return None if type(v) is float or is_int_in(v, -2 ** 63, 2 ** 64) else "an int or a float"


@kind("str")
def STR(v, ctx):
    return None if type(v) is str and len(v) <= MAX_STR else f"a str of at most {MAX_STR} characters"


_EQUATION = r"^[A-Za-z.,\- >]{0,256}$"  # compiled on first use (re's cache), not at import


@kind("einsum equation")
def EQUATION(v, ctx):
    if type(v) is str and re.match(_EQUATION, v):
        return None
    return "an einsum equation (letters , -> ...)"


@kind("dtype")
def DTYPE(v, ctx):
    return None if isinstance(v, DType) else "a dtype"


@kind("optional dtype")
def OPT_DTYPE(v, ctx):
    return None if v is None or isinstance(v, DType) else "a dtype or null"


@kind("NumPy dtype")
def NP_DTYPE(v, ctx):
    return None if isinstance(v, np.dtype) and v.kind in "biufc" else "a numeric NumPy dtype"


def _ints(v, low, high, max_len=MAX_RANK) -> bool:
    return type(v) is tuple and len(v) <= max_len and all(is_int_in(d, low, high) for d in v)


@kind("tuple of axes")
def AXES(v, ctx):
    return None if _ints(v, -MAX_RANK, MAX_RANK) else f"a tuple of at most {MAX_RANK} axes"


@kind("optional tuple of axes")
def OPT_AXES(v, ctx):
    return None if v is None else AXES.check(v, ctx)


@kind("tuple of ints")
def INTS(v, ctx):
    ok = _ints(v, -MAX_DIM, MAX_DIM, MAX_ITEMS)
    return None if ok else f"a tuple of at most {MAX_ITEMS} ints"


def _product_ok(dims) -> bool:
    return math.prod(d for d in dims if d is not None and d > 0) <= MAX_ELEMENTS


@kind("dims")
def DIMS(v, ctx):
    """A static shape: dims >= -1 (Reshape's -1), at most MAX_ELEMENTS elements in all."""
    if _ints(v, -1, MAX_DIM) and _product_ok(v):
        return None
    return f"a tuple of at most {MAX_RANK} dims (>= -1) of at most {MAX_ELEMENTS} elements"


@kind("optional dims")
def OPT_DIMS(v, ctx):
    return None if v is None else DIMS.check(v, ctx)


@kind("partial dims")
def PARTIAL_DIMS(v, ctx):
    if v is None or (type(v) is tuple and len(v) <= MAX_RANK
                     and all(d is None or is_int_in(d, 0, MAX_DIM) for d in v) and _product_ok(v)):
        return None
    return "null or a tuple of dims (ints >= 0 or null)"


@kind("TensorShape")
def SHAPE(v, ctx):
    if isinstance(v, TensorShape) and PARTIAL_DIMS.check(v.as_tuple(), ctx) is None:
        return None
    return "a TensorShape"


@kind("variable")
def VARIABLE(v, ctx):
    return None if isinstance(v, ctx.variable_type) else "a variable reference"


@kind("array")
def ARRAY(v, ctx):
    ok = isinstance(v, (np.ndarray, np.generic)) and (v.dtype.kind in "biufc" or (
        v.dtype == object and all(type(b) is bytes for b in np.asarray(v).reshape(-1).tolist())))
    return None if ok else "a numeric NumPy array or an object array of bytes"


NONE = AttrKind("None", lambda v, ctx: None if v is None else "None")
MODE = one_of("assign", "add", "sub")
STREAM = one_of(None, "stdout", "stderr")
PADDING = one_of("SAME", "VALID")


@kind("print parts")
def PARTS(v, ctx):
    """(("t", input index) | ("s", text) | ("g", (("t", i) | ("s", text), ...)), ...) of
    PrintV2 and Assert; a "g" part (a container holding tensors) is one level deep."""
    if type(v) is not tuple or len(v) > MAX_ITEMS:
        return "a tuple of parts"
    for part in v:
        if type(part) is not tuple or len(part) != 2:
            return "parts of two items"
        tag, value = part
        if tag == "g" and type(value) is tuple and len(value) <= MAX_ITEMS and all(
                type(p) is tuple and len(p) == 2 and _plain_part(p, ctx) for p in value):
            continue
        if _plain_part(part, ctx):
            continue
        return (f'("t", input index < {ctx.n_inputs}), ("s", text) or ("g", (such parts)) '
                "parts")
    return None


def _plain_part(part, ctx) -> bool:
    tag, value = part
    return ((tag == "t" and is_int_in(value, 0, ctx.n_inputs))
            or (tag == "s" and type(value) is str and len(value) <= MAX_STR))


@kind("index key")
def KEY(v, ctx):
    """A StridedSlice key: ints, None, Ellipsis, slices of ints/None, and input slots."""
    if type(v) is not tuple or len(v) > MAX_RANK:
        return f"a tuple of at most {MAX_RANK} index items"

    def item_ok(k, in_slice=False) -> bool:
        if k is None or is_int_in(k, -MAX_DIM, MAX_DIM):
            return True
        if isinstance(k, ctx.slot_type):
            return is_int_in(k.index, 0, ctx.n_inputs - 1)
        if in_slice:
            return False
        if k is Ellipsis:
            return True
        return type(k) is slice and all(item_ok(p, True) for p in (k.start, k.stop, k.step))
    if all(item_ok(k) for k in v) and sum(k is Ellipsis for k in v) <= 1:
        return None
    return "index items (int, null, ..., slices, input slots in range)"


@kind("tensordot axes")
def AXES_PAIR(v, ctx):
    if type(v) is tuple and len(v) == 2 and all(AXES.check(a, ctx) is None for a in v):
        return None
    return "a pair of tuples of axes"
