"""More of `tf.experimental.numpy`, composed of its other functions: the axis splits, `fix`,
the infinity and complex tests, `logaddexp2`, `kron`, `vander`, `select`, `diagflat`,
`broadcast_arrays`, `take_along_axis`, `compress`, `ix_`, `diag_indices`, `divmod`,
`polyval`, `cross`, `nextafter`, `flatten`, the bitwise functions, `gcd`, `lcm` and NumPy's
abstract type names."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from ..exports import NAMESPACES as _NS
from ..tensor import Tensor

_tnp: ModuleType  # rt.experimental.numpy, given by bind() (it imports this module)

inexact, object_, string_, unicode_ = np.inexact, np.object_, np.bytes_, np.str_

__all__ = ["bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "gcd", "lcm",
           "broadcast_arrays", "compress", "cross", "diag_indices", "diagflat", "divmod",
           "dsplit", "fix", "flatten", "hsplit", "inexact", "iscomplex", "isneginf",
           "isposinf", "isreal", "ix_", "kron", "logaddexp2", "nextafter", "object_", "polyval",
           "select", "string_", "take_along_axis", "unicode_", "vander", "vsplit"]


def bind(tnp: ModuleType) -> dict:
    """These functions by name, built over `tnp` (rt.experimental.numpy calls it when loaded)."""
    global _tnp
    _tnp = tnp
    return {name: globals()[name] for name in __all__}


def _rank(a: Tensor, least: int, fn: str) -> int:
    rank = a.shape.rank
    if rank is None or rank < least:
        raise ValueError(f"{fn} needs an array of at least {least} dimensions, got shape "
                         f"{a.shape}.")
    return rank


def hsplit(ary, indices_or_sections) -> list:
    """Splits along axis 1 (axis 0 of a 1-D array)."""
    a = _tnp.asarray(ary)
    return _tnp.split(a, indices_or_sections, axis=1 if _rank(a, 1, "hsplit") > 1 else 0)


def vsplit(ary, indices_or_sections) -> list:
    """Splits along axis 0 (at least 2-D)."""
    a = _tnp.asarray(ary)
    _rank(a, 2, "vsplit")
    return _tnp.split(a, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections) -> list:
    """Splits along axis 2 (at least 3-D)."""
    a = _tnp.asarray(ary)
    _rank(a, 3, "dsplit")
    return _tnp.split(a, indices_or_sections, axis=2)


def fix(x) -> Tensor:
    """Rounds toward zero."""
    return _tnp.trunc(x)


def isneginf(x) -> Tensor:
    """Whether each element is -inf."""
    return _tnp.logical_and(_tnp.isinf(x), _tnp.signbit(x))


def isposinf(x) -> Tensor:
    """Whether each element is +inf."""
    return _tnp.logical_and(_tnp.isinf(x), _tnp.logical_not(_tnp.signbit(x)))


def iscomplex(x) -> Tensor:
    """Whether each element has a non-zero imaginary part."""
    return _tnp.not_equal(_tnp.imag(x), 0)


def isreal(x) -> Tensor:
    """Whether each element has a zero imaginary part."""
    return _tnp.equal(_tnp.imag(x), 0)


def logaddexp2(x1, x2) -> Tensor:
    """log2(2**x1 + 2**x2), computed without overflow."""
    high = _tnp.maximum(x1, x2)
    low = _tnp.minimum(x1, x2)
    return _tnp.add(high, _tnp.log2(_tnp.add(1.0, _tnp.exp2(_tnp.subtract(low, high)))))


def kron(a, b) -> Tensor:
    """The Kronecker product (arrays of known shape; the lower rank padded with 1s)."""
    a, b = _tnp.asarray(a), _tnp.asarray(b)
    rank = max(_rank(a, 0, "kron"), _rank(b, 0, "kron"))
    sa = (1,) * (rank - a.shape.rank) + tuple(a.shape.as_list())
    sb = (1,) * (rank - b.shape.rank) + tuple(b.shape.as_list())
    if None in sa or None in sb:
        raise ValueError("kron needs both shapes known.")
    a = _tnp.reshape(a, [d for s in sa for d in (s, 1)])
    b = _tnp.reshape(b, [d for s in sb for d in (1, s)])
    return _tnp.reshape(_tnp.multiply(a, b), [x * y for x, y in zip(sa, sb)])


def vander(x, N=None, increasing=False) -> Tensor:  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of a 1-D `x`: columns x**(N-1), ..., x**0 (reversed when
    `increasing`)."""
    x = _tnp.asarray(x)
    if _rank(x, 1, "vander") != 1:
        raise ValueError(f"vander needs a 1-D array, got shape {x.shape}.")
    n = x.shape.as_list()[0] if N is None else int(N)
    powers = _tnp.arange(n) if increasing else _tnp.arange(n - 1, -1, -1)
    return _tnp.power(_tnp.expand_dims(x, 1), _tnp.asarray(powers, dtype=x.dtype))


def select(condlist, choicelist, default=0) -> Tensor:
    """The element of the first choice whose condition holds, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError("select: `condlist` and `choicelist` must have the same length.")
    out = _tnp.asarray(default)
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = _tnp.where(cond, choice, out)
    return out


def diagflat(v, k=0) -> Tensor:
    """A matrix with the flattened `v` on its k-th diagonal."""
    return _tnp.diag(_tnp.reshape(_tnp.asarray(v), [-1]), k)


def flatten(a) -> Tensor:
    """`a` as a 1-D array."""
    return _tnp.reshape(_tnp.asarray(a), [-1])


def broadcast_arrays(*args) -> list:
    """The arguments broadcast to one shape."""
    arrays = [_tnp.asarray(a) for a in args]
    shapes = [tuple(a.shape.as_list()) for a in arrays]
    if any(None in s for s in shapes):
        raise ValueError("broadcast_arrays needs the shapes known.")
    shape = np.broadcast_shapes(*shapes)
    return [_tnp.broadcast_to(a, shape) for a in arrays]


def take_along_axis(arr, indices, axis) -> Tensor:
    """`arr` indexed by `indices` along `axis` (NumPy's take_along_axis; known shapes)."""
    arr, indices = _tnp.asarray(arr), _tnp.asarray(indices)
    if axis is None:
        return _tnp.take(flatten(arr), flatten(indices))
    rank = _rank(arr, 1, "take_along_axis")
    axis = axis % rank
    shape = indices.shape.as_list()
    if None in shape or len(shape) != rank:
        raise ValueError(f"take_along_axis needs `indices` of rank {rank} and known shape, got "
                         f"{indices.shape}.")
    grids = np.meshgrid(*[np.arange(d) for d in shape], indexing="ij")
    parts = [_tnp.asarray(g, dtype=indices.dtype) for g in grids]
    parts[axis] = indices
    gather_nd = _NS[""]["gather_nd"]
    return gather_nd(arr, _tnp.stack(parts, axis=-1))


def compress(condition, a, axis=None) -> Tensor:
    """The slices of `a` along `axis` where the 1-D `condition` is true (flattened when
    `axis` is None)."""
    a = _tnp.asarray(a)
    cond = np.asarray(condition) if not isinstance(condition, Tensor) else condition
    if axis is None:
        a, axis = flatten(a), 0
    n = cond.shape[0] if not isinstance(cond, Tensor) else cond.shape.as_list()[0]
    a = _tnp.take(a, _tnp.arange(n), axis=axis)
    boolean_mask = _NS[""]["boolean_mask"]
    picked = boolean_mask(_tnp.moveaxis(a, axis, 0), _tnp.asarray(cond, dtype=bool))
    return _tnp.moveaxis(picked, 0, axis)


def ix_(*args) -> tuple:
    """Open mesh index arrays: the i-th 1-D argument shaped to vary along axis i."""
    n = len(args)
    return tuple(_tnp.reshape(_tnp.asarray(a), [1] * i + [-1] + [1] * (n - i - 1))
                 for i, a in enumerate(args))


def diag_indices(n, ndim=2) -> tuple:
    """The indices of the main diagonal of an n x ... x n array."""
    idx = _tnp.arange(n)
    return (idx,) * ndim


def divmod(x1, x2) -> tuple:  # noqa: A001 - NumPy's name
    """(x1 // x2, x1 % x2), elementwise."""
    return _tnp.floor_divide(x1, x2), _tnp.mod(x1, x2)


def polyval(p, x) -> Tensor:
    """p[0] * x**(n-1) + ... + p[n-1] (Horner's rule; `p` of known length)."""
    p = _tnp.asarray(p)
    if p.shape.rank != 1 or p.shape.as_list()[0] is None:
        raise ValueError(f"polyval needs a 1-D `p` of known length, got shape {p.shape}.")
    out = _tnp.zeros_like(_tnp.asarray(x))
    for i in range(p.shape.as_list()[0]):
        out = _tnp.add(_tnp.multiply(out, x), p[i])
    return out


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> Tensor:
    """The cross product of 3-vectors along the last axis."""
    if axis is not None or (axisa, axisb, axisc) != (-1, -1, -1):
        raise NotImplementedError("cross takes vectors along the last axis only here; move the "
                                  "axis last with tnp.moveaxis first.")
    a, b = broadcast_arrays(a, b)
    return _NS["linalg"]["cross"](a, b)


def nextafter(x1, x2) -> Tensor:
    """The next float after x1 toward x2."""
    return _NS["math"]["nextafter"](_tnp.asarray(x1), _tnp.asarray(x2))


def _integer_pair(x1, x2):
    """Both operands as arrays of their promoted dtype (a Python number takes the other's)."""
    x, y = (v if isinstance(v, (bool, int, float)) else _tnp.asarray(v) for v in (x1, x2))
    dtype = _tnp.result_type(x, y)
    return _tnp.asarray(x, dtype), _tnp.asarray(y, dtype)


def _bitwise(name: str, logical: str, fn: str):
    def op(x1, x2) -> Tensor:
        x, y = _integer_pair(x1, x2)
        if x.dtype.is_bool:  # on bools NumPy's bitwise ops are the logical ones
            return _NS["math"][logical](x, y)
        return _NS["bitwise"][name](x, y)
    op.__name__ = op.__qualname__ = fn
    op.__doc__ = f"NumPy's `{fn}`: elementwise over integers, the logical op over bools."
    return op


bitwise_and = _bitwise("bitwise_and", "logical_and", "bitwise_and")
bitwise_or = _bitwise("bitwise_or", "logical_or", "bitwise_or")
bitwise_xor = _bitwise("bitwise_xor", "logical_xor", "bitwise_xor")


def bitwise_not(x) -> Tensor:
    """NumPy's `bitwise_not`: every bit flipped; `not` of a bool."""
    x = _tnp.asarray(x)
    return _NS["math"]["logical_not"](x) if x.dtype.is_bool else _NS["bitwise"]["invert"](x)


def _integers(x1, x2, fn: str):
    x, y = _integer_pair(x1, x2)
    if not (x.dtype.is_integer and y.dtype.is_integer):
        raise ValueError(f"Arguments to {fn} must be integers, got {x.dtype.name} and "
                         f"{y.dtype.name}.")
    return x, y


def gcd(x1, x2) -> Tensor:
    """The greatest common divisor of |x1| and |x2|, elementwise (gcd(0, 0) is 0): Euclid's
    algorithm, looped while any element still has a nonzero remainder."""
    x, y = _integers(x1, x2, "gcd")
    a, b = _tnp.broadcast_arrays(_tnp.abs(x), _tnp.abs(y))

    def step(a, b):
        live = _tnp.not_equal(b, 0)
        divisor = _tnp.where(live, b, _tnp.ones_like(b))
        return _tnp.where(live, b, a), _tnp.where(live, _tnp.remainder(a, divisor), b)

    a, _ = _NS[""]["while_loop"](lambda a, b: _tnp.any(_tnp.not_equal(b, 0)), step, [a, b])
    return a


def lcm(x1, x2) -> Tensor:
    """The least common multiple of |x1| and |x2|, elementwise (0 where either is 0)."""
    x, y = _integers(x1, x2, "lcm")
    divisor = gcd(x, y)
    safe = _tnp.where(_tnp.equal(divisor, 0), _tnp.ones_like(divisor), divisor)
    return _tnp.abs(_tnp.multiply(_tnp.floor_divide(x, safe), y))
