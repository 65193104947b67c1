"""More of `tf.debugging`: numeric checks, dtype, rank and shape assertions.

Checks that the static shapes and dtypes decide raise at once (`ValueError` for shapes and
ranks, `TypeError` for dtypes); value checks run where they stand, eagerly or as a staged
`Assert` op that raises `rt.errors.InvalidArgumentError` when the graph runs.
"""

from __future__ import annotations

import numbers
from typing import Any, Iterable

import numpy as np

from .. import dtypes as _dtypes
from ..exports import export
from ..tensor import EagerTensor, Tensor
from . import array_composed as _composed
from . import array_math
from .core import binary_operands, convert_to_tensor
from .debugging import _assert_op


def _prefix(message) -> str:
    return f"{message}: " if message else ""


@export("debugging.check_numerics")
def check_numerics(tensor, message, name=None) -> Tensor:
    """`tensor` unchanged when it holds no NaN or infinity; otherwise raises
    rt.errors.InvalidArgumentError with `message` (when the graph runs, if staged)."""
    x = convert_to_tensor(tensor)
    if not x.dtype.is_floating:
        raise TypeError(f"check_numerics needs a floating-point `tensor`, got {x.dtype.name}.")
    if not isinstance(message, str):
        raise TypeError(f"check_numerics needs a str `message`, got {type(message).__name__}.")
    ok = array_math.reduce_all(_composed.is_finite(x))
    _assert_op(ok, f"{message} : Tensor had NaN or Inf values", [], name)
    return array_math.identity(x, name=name)


@export("debugging.assert_all_finite")
def assert_all_finite(t, msg, name=None) -> Tensor:
    """`check_numerics` under the older name: `t` unchanged, or an error with `msg`."""
    return check_numerics(t, msg, name=name)


@export("debugging.enable_check_numerics")
def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """Accepted for compatibility and does nothing: ops are not instrumented to check their
    outputs here. Call `rt.debugging.check_numerics(t, message)` on the tensors to watch."""
    int(stack_height_limit), int(path_length_limit)


@export("debugging.disable_check_numerics")
def disable_check_numerics() -> None:
    """The counterpart of `enable_check_numerics`; does nothing."""


@export("debugging.is_numeric_tensor")
def is_numeric_tensor(tensor: Any) -> bool:
    """True for a tensor of a numeric dtype (bools and strings are not numeric)."""
    return isinstance(tensor, Tensor) and tensor.dtype.is_numeric and not tensor.dtype.is_bool


@export("debugging.assert_proper_iterable")
def assert_proper_iterable(values: Any) -> None:
    """TypeError unless `values` is an iterable other than a tensor, an array or a string."""
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(f"Expected a proper iterable (list, tuple, set, ...) as `values`, got "
                        f"{type(values).__name__}.")
    if not isinstance(values, Iterable):
        raise TypeError(f"Expected an iterable as `values`, got {type(values).__name__}.")


@export("debugging.assert_type")
def assert_type(tensor, tf_type, message=None, name=None) -> None:
    """TypeError unless `tensor` has dtype `tf_type`."""
    x = convert_to_tensor(tensor)
    want = _dtypes.as_dtype(tf_type)
    if x.dtype is not want:
        raise TypeError(f"{_prefix(message)}`tensor` must have dtype {want.name}, got "
                        f"{x.dtype.name}.")


@export("debugging.assert_integer")
def assert_integer(x, message=None, name=None) -> None:
    """TypeError unless `x` has an integer dtype."""
    x = convert_to_tensor(x)
    if not x.dtype.is_integer:
        raise TypeError(f"{_prefix(message)}`x` must have an integer dtype, got {x.dtype.name}.")


def _rank_of(x, fn_name):
    rank = x.shape.rank
    if rank is None:
        raise ValueError(f"{fn_name} needs a tensor of known rank.")
    return rank


@export("debugging.assert_scalar")
def assert_scalar(tensor, message=None, name=None) -> Tensor:
    """`tensor` unchanged when it is a scalar; ValueError otherwise."""
    x = convert_to_tensor(tensor)
    if _rank_of(x, "assert_scalar") != 0:
        raise ValueError(f"{_prefix(message)}`tensor` must be a scalar, got shape {x.shape}.")
    return x


def _int_rank(rank, what):
    value = rank.numpy() if isinstance(rank, EagerTensor) else rank
    if isinstance(value, Tensor):
        raise ValueError(f"`{what}` must be known when tracing.")
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            raise ValueError(f"`{what}` must be a scalar, got shape {value.shape}.")
        value = value[()]
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, bool):
        raise TypeError(f"`{what}` must be an int, got {value!r}.")
    return int(value)


@export("debugging.assert_rank_at_least")
def assert_rank_at_least(x, rank, message=None, name=None) -> None:
    """ValueError unless `x` has rank >= `rank`."""
    x = convert_to_tensor(x)
    want = _int_rank(rank, "rank")
    have = _rank_of(x, "assert_rank_at_least")
    if have < want:
        raise ValueError(f"{_prefix(message)}`x` must have rank at least {want}, but its shape "
                         f"is {x.shape} (rank {have}).")


@export("debugging.assert_rank_in")
def assert_rank_in(x, ranks, message=None, name=None) -> None:
    """ValueError unless the rank of `x` is one of `ranks`."""
    x = convert_to_tensor(x)
    if isinstance(ranks, (numbers.Integral, Tensor)) or not isinstance(ranks, Iterable):
        raise TypeError(f"`ranks` must be a list of ints, got {type(ranks).__name__}.")
    wanted = [_int_rank(r, "ranks") for r in ranks]
    have = _rank_of(x, "assert_rank_in")
    if have not in wanted:
        raise ValueError(f"{_prefix(message)}`x` must have one of the ranks {wanted}, but its "
                         f"shape is {x.shape} (rank {have}).")


def _eps(dtype) -> float:
    return float(np.finfo(dtype.as_numpy_dtype).eps) if (dtype.is_floating or dtype.is_complex) else 0.0


@export("debugging.assert_near")
def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None) -> None:
    """Checks |x - y| <= atol + rtol * |y| for every element (tolerances default to 10 machine
    epsilons of the dtype); raises rt.errors.InvalidArgumentError with the values otherwise."""
    x, y = binary_operands(x, y)
    if not (x.dtype.is_floating or x.dtype.is_complex or x.dtype.is_integer):
        raise TypeError(f"assert_near needs numeric tensors, got {x.dtype.name}.")
    eps = 10 * _eps(x.dtype)
    rtol = eps if rtol is None else rtol
    atol = eps if atol is None else atol
    gap = array_math.abs(array_math.subtract(x, y))
    bound = array_math.add(atol, array_math.multiply(rtol, array_math.abs(y)))
    ok = array_math.reduce_all(array_math.less_equal(gap, bound))
    text = (f"{_prefix(message)}x and y are not equal to tolerance rtol = {rtol}, atol = {atol}."
            " x and y =")
    _assert_op(ok, text, [x, y], name)


def _dims(spec, what):
    if isinstance(spec, (str, bytes)):
        spec = [spec] if spec else []
    try:
        items = list(spec)
    except TypeError:
        raise TypeError(f"assert_shapes: the shape of {what} must be a list of dimensions, "
                        f"got {spec!r}.") from None
    ellipsis = [i for i, d in enumerate(items) if d is Ellipsis or d in ("...", "*")]
    if len(ellipsis) > 1 or (ellipsis and ellipsis[0] not in (0, len(items) - 1)):
        raise ValueError(f"assert_shapes: the shape of {what} may have one '...', first or "
                         f"last, got {spec!r}.")
    return items, (ellipsis[0] if ellipsis else None)


@export("debugging.assert_shapes")
def assert_shapes(shapes, data=None, summarize=None, message=None, name=None) -> None:
    """Checks tensors against shape patterns: `shapes` is a list of (tensor, shape) pairs (or
    a dict from tensor to shape), each shape a list whose entries are ints (that size), strs
    (a symbol: every use of it must have one size), None or '.' (any size), and '...' first
    or last (any number of leading or trailing axes). ValueError when the static shapes
    disagree; dimensions unknown when tracing are checked when the graph runs."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict[str, tuple] = {}  # symbol -> (size or tensor, where it was seen)
    for k, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise TypeError(f"assert_shapes needs (tensor, shape) pairs, got entry {k}: {pair!r}.")
        x = convert_to_tensor(pair[0])
        what = f"tensor {k}" + (f" ({x.name})" if getattr(x, "name", None) else "")
        items, at = _dims(pair[1], what)
        rank = _rank_of(x, "assert_shapes")
        fixed = [d for d in items if not (d is Ellipsis or d in ("...", "*"))]
        if (at is None and rank != len(fixed)) or (at is not None and rank < len(fixed)):
            raise ValueError(f"{_prefix(message)}{what} must have rank "
                             f"{'at least ' if at is not None else ''}{len(fixed)}, but its "
                             f"shape is {x.shape}.")
        offset = rank - len(fixed) if at == 0 else 0
        dims = x.shape.as_tuple()
        dynamic = None
        for i, d in enumerate(fixed):
            axis = i + offset
            have = dims[axis]
            if d is None or d == ".":
                continue
            if isinstance(d, (numbers.Integral, np.integer)):
                want = int(d)
            elif isinstance(d, str):
                if d not in sizes:
                    if have is None:
                        dynamic = array_math.shape(x) if dynamic is None else dynamic
                        sizes[d] = (dynamic[axis], f"axis {axis} of {what}")
                    else:
                        sizes[d] = (have, f"axis {axis} of {what}")
                    continue
                want, seen = sizes[d]
                if isinstance(want, Tensor) or have is None:
                    dynamic = array_math.shape(x) if dynamic is None else dynamic
                    _assert_op(array_math.equal(dynamic[axis], want),
                               f"{_prefix(message)}axis {axis} of {what} must have the size of "
                               f"{seen} (symbol {d!r})", [], name)
                    continue
                if have != want:
                    raise ValueError(f"{_prefix(message)}axis {axis} of {what} has size {have}, "
                                     f"but symbol {d!r} is {want} from {seen}; shape "
                                     f"{x.shape}.")
                continue
            else:
                raise TypeError(f"assert_shapes: dimension {d!r} of {what} must be an int, a "
                                "str, None, '.' or '...'.")
            if have is None:
                dynamic = array_math.shape(x) if dynamic is None else dynamic
                _assert_op(array_math.equal(dynamic[axis], want),
                           f"{_prefix(message)}axis {axis} of {what} must have size {want}",
                           [], name)
            elif have != want:
                raise ValueError(f"{_prefix(message)}axis {axis} of {what} must have size {want}, "
                                 f"but its shape is {x.shape}.")
