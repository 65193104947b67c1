"""Staged printing and assertions; both run in program order when a graph runs."""

from __future__ import annotations

import copy
import sys

import numpy as np

from .. import context, errors
from .. import dtypes as _dtypes
from ..attr_kinds import PARTS, STR, STREAM
from ..exports import export
from ..opdef import Effect, define
from ..tensor import Tensor
from . import array_math
from .core import apply, binary_operands, convert_to_tensor


def _format(value) -> str:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode()
    return str(value)


def _resolve_stream(stream):
    if stream is None or stream == "stdout":
        return sys.stdout
    if stream == "stderr":
        return sys.stderr
    return stream


def _render(part, values) -> str:
    tag, body = part
    if tag == "t":
        return _format(values[body])
    if tag == "g":  # a list/tuple/dict holding tensors: its pieces, joined without `sep`
        return "".join(_render(p, values) for p in body)
    return body


def _print_kernel(*values, parts, sep, end, stream):
    pieces = [_render(p, values) for p in parts]
    out = _resolve_stream(stream)
    out.write(sep.join(pieces) + end)
    if hasattr(out, "flush"):
        out.flush()


PRINT = define("PrintV2", lambda *xs, **attrs: [], _print_kernel, effects=Effect.IO, num_outputs=0,
               differentiable=False, attrs={"parts": PARTS, "sep": STR, "end": STR, "stream": STREAM})


@export("print")
def print(*inputs, sep=" ", end="\n", output_stream=None, summarize=None, name=None) -> None:  # noqa: A001
    """Prints tensors and Python values when the op runs (at every call of a graph).

    `output_stream` defaults to the `sys.stdout` of the moment the op runs, so redirection
    works; pass `sys.stderr` (or the names "stdout"/"stderr") for the other stream.
    """
    if output_stream is sys.stdout:
        output_stream = "stdout"
    elif output_stream is sys.stderr:
        output_stream = "stderr"
    tensors, parts = [], []
    for value in inputs:
        if _is_tensor(value):
            tensors.append(convert_to_tensor(value))
            parts.append(("t", len(tensors) - 1))
        elif _holds_tensor(value):
            parts.append(("g", tuple(_pieces(value, tensors))))
        else:
            parts.append(("s", str(value)))
    attrs = {"parts": tuple(parts), "sep": str(sep), "end": str(end), "stream": output_stream}
    if context.current_graph() is None:
        _print_kernel(*[t._value for t in tensors], **attrs)
        return None
    apply(PRINT, tensors, attrs, name=name)
    return None


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


def _holds_tensor(value) -> bool:
    if type(value) in (list, tuple) or isinstance(value, tuple):
        return any(_holds_tensor(v) or _is_tensor(v) for v in value)
    if isinstance(value, dict):
        return any(_holds_tensor(v) or _is_tensor(v) for v in value.values())
    return False


def _pieces(value, tensors) -> list:
    """The print parts of a list/tuple/dict holding tensors, formatted as Python shows the
    container, each tensor shown by its value when the op runs (as TF's print does)."""
    raw = []

    def walk(v):
        if _is_tensor(v):
            tensors.append(convert_to_tensor(v))
            raw.append(("t", len(tensors) - 1))
        elif isinstance(v, dict) and _holds_tensor(v):
            raw.append(("s", "{"))
            for i, (k, x) in enumerate(v.items()):
                raw.append(("s", (", " if i else "") + repr(k) + ": "))
                walk(x)
            raw.append(("s", "}"))
        elif isinstance(v, (list, tuple)) and _holds_tensor(v):
            named = isinstance(v, tuple) and hasattr(v, "_fields")
            opening, closing = ("[", "]") if isinstance(v, list) else ("(", ")")
            raw.append(("s", type(v).__name__ + "(" if named else opening))
            for i, x in enumerate(v):
                prefix = (", " if i else "") + (f"{v._fields[i]}=" if named else "")
                raw.append(("s", prefix))
                walk(x)
            if isinstance(v, tuple) and not named and len(v) == 1:
                raw.append(("s", ","))
            raw.append(("s", closing))
        else:
            raw.append(("s", repr(v)))
    walk(value)
    merged = []
    for tag, body in raw:
        if tag == "s" and merged and merged[-1][0] == "s":
            merged[-1] = ("s", merged[-1][1] + body)
        elif not (tag == "s" and body == ""):
            merged.append((tag, body))
    return merged


def _assert_kernel(condition, *data, message, parts):
    if not np.all(condition):
        shown = " ".join(_format(data[p[1]]) if p[0] == "t" else p[1] for p in parts)
        text = message if not shown else (f"{message}\n{shown}" if message else shown)
        raise errors.InvalidArgumentError(text or "assertion failed")


ASSERT = define("Assert", lambda *xs, **attrs: [], _assert_kernel, effects=Effect.IO, num_outputs=0,
                differentiable=False, attrs={"message": STR, "parts": PARTS})


def _raise_unless_kernel(condition, exception):
    if not condition:
        raise copy.copy(exception).with_traceback(None)


# a `raise` under a staged condition (autograph stages it): raises (a copy of) the user's
# exception when it runs
RAISE_UNLESS = define("RaiseUnless", lambda *xs, **attrs: [], _raise_unless_kernel,
                      stateful=True, num_outputs=0, differentiable=False,
                      savable=False)  # holds the exception object


@export("Assert", "debugging.Assert")
def Assert(condition, data, summarize=None, name=None) -> None:  # noqa: N802 - TensorFlow's name
    """Raises rt.errors.InvalidArgumentError (with `data` shown) when `condition` is false."""
    condition = convert_to_tensor(condition, dtype_hint=_dtypes.bool_)
    if not condition.dtype.is_bool:
        raise TypeError(f"Assert needs a bool condition, got {condition.dtype.name}.")
    tensors, parts = [], []
    for value in data or ():
        if isinstance(value, Tensor):
            tensors.append(value)
            parts.append(("t", len(tensors) - 1))
        else:
            parts.append(("s", str(value)))
    attrs = {"message": "", "parts": tuple(parts)}
    if context.current_graph() is None:
        _assert_kernel(condition._value, *[convert_to_tensor(t)._value for t in tensors], **attrs)
        return None
    apply(ASSERT, [condition, *[convert_to_tensor(t) for t in tensors]], attrs, name=name)
    return None


def _assert_op(condition, message, data, name) -> None:
    condition = convert_to_tensor(condition)
    tensors = [convert_to_tensor(d) for d in data]
    parts = []
    for i in range(len(tensors)):
        parts.append(("t", i))
    attrs = {"message": message, "parts": tuple(parts)}
    if context.current_graph() is None:
        _assert_kernel(condition._value, *[t._value for t in tensors], **attrs)
        return None
    apply(ASSERT, [condition, *tensors], attrs, name=name)
    return None


def _make_assert(name, compare, describe):
    def check(x, y=None, message=None, summarize=None, name=None) -> None:
        if y is None:
            x = convert_to_tensor(x)
            cond = array_math.reduce_all(compare(x, array_math.multiply(x, 0)))
            data = [x]
            text = f"{message + ': ' if message else ''}Condition x {describe} 0 did not hold " \
                   "for every element. x ="
        else:
            x, y = binary_operands(x, y)
            cond = array_math.reduce_all(compare(x, y))
            data = [x, y]
            text = f"{message + ': ' if message else ''}Condition x {describe} y did not hold " \
                   "for every element. x and y ="
        return _assert_op(cond, text, data, name)
    check.__name__ = check.__qualname__ = name
    check.__doc__ = (f"Checks `x {describe} y` for every element (`x {describe} 0` when y is "
                     "omitted); raises rt.errors.InvalidArgumentError with `message` and the "
                     "values when it does not hold. Staged inside compiled functions.")
    return check


def _exported_assert(name, compare, describe):
    return export(f"debugging.{name}")(_make_assert(name, compare, describe))


assert_equal = _exported_assert("assert_equal", array_math.equal, "==")
assert_none_equal = _exported_assert("assert_none_equal", array_math.not_equal, "!=")
assert_less = _exported_assert("assert_less", array_math.less, "<")
assert_less_equal = _exported_assert("assert_less_equal", array_math.less_equal, "<=")
assert_greater = _exported_assert("assert_greater", array_math.greater, ">")
assert_greater_equal = _exported_assert("assert_greater_equal", array_math.greater_equal, ">=")


@export("debugging.assert_positive")
def assert_positive(x, message=None, summarize=None, name=None) -> None:
    """Checks `x > 0` for every element; raises rt.errors.InvalidArgumentError otherwise."""
    return assert_greater(x, None, message=message, name=name)


@export("debugging.assert_negative")
def assert_negative(x, message=None, summarize=None, name=None) -> None:
    """Checks `x < 0` for every element; raises rt.errors.InvalidArgumentError otherwise."""
    return assert_less(x, None, message=message, name=name)


@export("debugging.assert_non_negative")
def assert_non_negative(x, message=None, summarize=None, name=None) -> None:
    """Checks `x >= 0` for every element; raises rt.errors.InvalidArgumentError otherwise."""
    return assert_greater_equal(x, None, message=message, name=name)



@export("debugging.assert_rank")
def assert_rank(x, rank, message=None, name=None) -> None:
    """Checks that `x` has rank `rank`: ValueError at once when the rank is known statically,
    else a staged check that raises rt.errors.InvalidArgumentError."""
    x = convert_to_tensor(x)
    rank = int(rank)
    prefix = f"{message}: " if message else ""
    if x.shape.rank is not None:
        if x.shape.rank != rank:
            raise ValueError(f"{prefix}the tensor must have rank {rank}, but its shape is "
                             f"{x.shape} (rank {x.shape.rank}).")
        return None
    text = f"{prefix}the tensor must have rank {rank}. Its shape ="
    dims = array_math.shape(x)
    return _assert_op(array_math.equal(array_math.size(dims), rank), text, [dims], name)
