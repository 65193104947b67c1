"""rt.experimental.numpy: TensorFlow's `tf.experimental.numpy` (tnp), the NumPy API over tensors.

    import runtime.experimental.numpy as tnp

Its functions take NumPy's arguments and return tensors (`tnp.ndarray` is `rt.Tensor`), so
they run eagerly, on a GradientTape and inside `rt.function`. They are the implementations
that already stage `np.*` calls on tensors (runtime/numpy_api): an argument is made a tensor
first (a NumPy array keeps its dtype, a Python number is inferred as NumPy infers it, float32
for floats after `experimental_enable_numpy_behavior(prefer_float32=True)`), then the NumPy
function runs on it. `experimental_enable_numpy_behavior()` also makes operators and binary
ops on tensors of different dtypes promote (docs/numpy.md, "TensorFlow NumPy").
"""

from __future__ import annotations

import builtins as _builtins
import math as _math
import sys as _sys
import weakref as _weakref
from types import SimpleNamespace as _Namespace

import numpy as np

from .. import dtypes as _dtypes
from .. import tensor as _tensor_module
from ..arguments import strict_keywords
from ..exports import NAMESPACES as _NS
from ..graph import constant_value as _constant_value
from ..numpy_api import promotion as _promotion
from ..numpy_api import protocols as _protocols
from ..numpy_api import registry as _registry
from ..ops import array_math as _array_math
from ..ops import array_scatter as _scatter
from ..ops import core as _core
from ..ops import random as _random
from ..ops import variables as _variables
from ..tensor import Tensor

ndarray = Tensor  # as TensorFlow's tnp.ndarray is tf.Tensor
newaxis = None
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
# the scalar types are NumPy's, as in TensorFlow (tnp.float32 is numpy.float32: callable, as
# `tnp.float32(0.1)`); every dtype= takes them, and a tensor's dtype compares equal to them
bool_, int8, int16, int32, int64 = np.bool_, np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128
float_, complex_, int_ = float64, complex128, int64

_STATE = {"prefer_float32": False, "mode": None}
_MODES = ("legacy", "all", "safe", "off")


# -- arrays --------------------------------------------------------------------------------

def _weak_defaults() -> bool:
    """TensorFlow's "all" and "safe" modes infer float32, complex64 and int32 for Python
    values (as if weakly typed), as prefer_float32 does for floats."""
    return _STATE["mode"] in ("all", "safe")


def _default_float(dtype: np.dtype, ints: bool = False) -> np.dtype:
    """float64 inferred from Python floats becomes float32 when prefer_float32 is set or in
    the "all"/"safe" modes (then int64 from Python ints becomes int32 too, with `ints`)."""
    narrow = _STATE["prefer_float32"] or _weak_defaults()
    if narrow and dtype == np.float64:
        return np.dtype(np.float32)
    if narrow and dtype == np.complex128:
        return np.dtype(np.complex64)
    if ints and _weak_defaults() and dtype == np.int64:
        return np.dtype(np.int32)
    return dtype


def _inferred(value) -> np.ndarray:
    array = np.asarray(value)
    python = not isinstance(value, (np.ndarray, np.generic))
    if not python and not _STATE["prefer_float32"]:
        return array
    return array.astype(_default_float(array.dtype, ints=python), copy=False)


@strict_keywords("tnp.asarray")
def asarray(a, dtype=None) -> Tensor:
    """`a` as a tensor (a tensor of the same dtype is returned as is)."""
    if isinstance(a, Tensor) or hasattr(a, "_as_tensor") or _promotion.is_tensor_like(a):
        tensor = _core.convert_to_tensor(a)
    else:
        tensor = _core.convert_to_tensor(_inferred(a))
        if _weak_defaults():
            _mark_weak(tensor, a)
    if dtype is None:
        return tensor
    return _promotion.cast_to(tensor, _promotion.to_numpy_dtype(dtype))


@strict_keywords("tnp.array")
def array(val, dtype=None, copy=True, ndmin=0) -> Tensor:
    """A tensor of `val` (of `dtype`), with at least `ndmin` dimensions."""
    tensor = asarray(val, dtype)
    while tensor.shape.rank is not None and tensor.shape.rank < ndmin:
        tensor = _array_math.expand_dims(tensor, 0)
    return tensor


asanyarray = ascontiguousarray = asarray


def _creation_dtype(dtype) -> _dtypes.DType:
    default = np.float32 if _STATE["prefer_float32"] or _weak_defaults() else np.float64
    return _dtypes.from_numpy(np.dtype(default if dtype is None else
                                       _promotion.to_numpy_dtype(dtype)))


def _shape_of(shape) -> tuple:
    if isinstance(shape, Tensor):
        return tuple(int(d) for d in np.asarray(shape).reshape(-1))
    return (int(shape),) if np.ndim(shape) == 0 else tuple(int(d) for d in shape)


@strict_keywords("tnp.zeros")
def zeros(shape, dtype=None) -> Tensor:
    """A tensor of zeros (float64 by default, as NumPy)."""
    return _core.constant(np.zeros(_shape_of(shape), _creation_dtype(dtype).as_numpy_dtype))


@strict_keywords("tnp.ones")
def ones(shape, dtype=None) -> Tensor:
    """A tensor of ones (float64 by default, as NumPy)."""
    return _core.constant(np.ones(_shape_of(shape), _creation_dtype(dtype).as_numpy_dtype))


empty = zeros


@strict_keywords("tnp.full")
def full(shape, fill_value, dtype=None) -> Tensor:
    """A tensor of `fill_value`, of its inferred dtype unless `dtype` is given."""
    value = asarray(fill_value, dtype)
    return _array_math.fill(list(_shape_of(shape)), value) if value.shape.rank == 0 else \
        _array_math.add(value, _array_math.zeros(list(_shape_of(shape)), value.dtype))


@strict_keywords("tnp.eye")
def eye(N, M=None, k=0, dtype=None) -> Tensor:  # noqa: N803 - NumPy's names
    """The `N` x `M` matrix with ones on diagonal `k`."""
    return _core.constant(np.eye(N, M, k, _creation_dtype(dtype).as_numpy_dtype))


@strict_keywords("tnp.identity")
def identity(n, dtype=None) -> Tensor:
    """The `n` x `n` identity matrix."""
    return eye(n, dtype=dtype)


@strict_keywords("tnp.arange")
def arange(start, stop=None, step=1, dtype=None) -> Tensor:
    """NumPy's arange (int64 for integers, float64 for floats unless prefer_float32)."""
    values = np.arange(start, stop, step) if stop is not None else np.arange(start, step=step)
    if dtype is None:
        values = values.astype(_default_float(values.dtype, ints=True))
    return asarray(values, dtype)


@strict_keywords("tnp.linspace")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from `start` to `stop`."""
    values, step = np.linspace(start, stop, num, endpoint, retstep=True, axis=axis)
    out = _core.constant(values.astype(_creation_dtype(dtype).as_numpy_dtype))
    return (out, step) if retstep else out


def _like(name: str, make):
    @strict_keywords(f"tnp.{name}")
    def like(a, dtype=None, shape=None):
        x = asarray(a)
        out = make(x if shape is None else _array_math.reshape(x, list(_shape_of(shape))))
        return out if dtype is None else _promotion.cast_to(out, _promotion.to_numpy_dtype(dtype))
    like.__name__ = like.__qualname__ = name
    like.__doc__ = f"NumPy's {name} as a tensor."
    return like


zeros_like = _like("zeros_like", _array_math.zeros_like)
ones_like = _like("ones_like", _array_math.ones_like)
empty_like = zeros_like


@strict_keywords("tnp.full_like")
def full_like(a, fill_value, dtype=None, shape=None) -> Tensor:
    """A tensor shaped as `a`, of `fill_value` (of `a`'s dtype unless `dtype` is given)."""
    x = asarray(a)
    target = _promotion.to_numpy_dtype(dtype) if dtype is not None else x.dtype.as_numpy_dtype
    return _array_math.fill(list(_shape_of(shape)) if shape is not None else _array_math.shape(x),
                            asarray(fill_value, target))


# -- the NumPy functions that run on tensors -----------------------------------------------

def _strong(value):
    """NumPy arrays and scalars become tensors of their dtype (tnp promotes them as arrays)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return _core.convert_to_tensor(value)
    if isinstance(value, (list, tuple)) and value and _builtins.all(
            isinstance(v, (Tensor, np.ndarray, np.generic)) for v in value):
        return type(value)(_strong(v) for v in value)
    return value


def _first(value):
    """The first argument: anything array-like becomes a tensor so NumPy dispatches to it."""
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return value
    if isinstance(value, (list, tuple)) and value and _builtins.all(
            isinstance(v, (Tensor, np.ndarray, np.generic)) or hasattr(v, "_as_tensor")
            for v in value):
        return type(value)(_first(v) for v in value)
    return asarray(value)


def _as_result(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return _core.convert_to_tensor(value)
    if isinstance(value, tuple):
        return tuple(_as_result(v) for v in value)
    if isinstance(value, list):
        return [_as_result(v) for v in value]
    return value


def _function(name: str, impl):
    def call(*args, **kwargs):
        if args:
            args = (_first(args[0]),) + tuple(_strong(a) for a in args[1:])
        return _as_result(impl(*args, **{k: _strong(v) for k, v in kwargs.items()}))
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"NumPy's {name} on tensors (staged as {_registry.NAMES.get(impl, name)})."
    return call


def _ufunc(name: str, ufunc: np.ufunc):
    def call(*args, **kwargs):
        if len(args) > ufunc.nin:
            raise TypeError(f"tnp.{name} takes {ufunc.nin} array arguments, got {len(args)}; "
                            "`out` is not supported (tensors are immutable).")
        inputs = [_first(args[0])] + [_strong(a) for a in args[1:]]
        return _protocols.array_ufunc(None, ufunc, "__call__", *inputs, **kwargs)
    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"NumPy's ufunc {name} on tensors."
    return call


def _install_numpy_functions(namespace: dict) -> None:
    for label, _, _ in _registry.supported():   # every name (np.abs and np.absolute, ...)
        name = label.removeprefix("np.")
        if "." in name or name in namespace:
            continue
        fn = _registry.numpy_callable(name)
        if fn in _registry.UFUNCS:
            namespace[name] = _ufunc(name, fn)
        elif fn in _registry.FUNCTIONS:
            namespace[name] = _function(name, _registry.FUNCTIONS[fn])


_install_numpy_functions(globals())


def copy(a) -> Tensor:
    """A tensor holding `a`'s values."""
    return _array_math.identity(asarray(a))


def result_type(*arrays_and_dtypes) -> _dtypes.DType:
    """The dtype NumPy's promotion gives these arrays and dtypes."""
    keys = [a.dtype.as_numpy_dtype if isinstance(a, Tensor) else
            _promotion.to_numpy_dtype(a) if isinstance(a, (_dtypes.DType, type, np.dtype, str))
            else a for a in arrays_and_dtypes]
    return _dtypes.from_numpy(np.result_type(*keys))


# -- NumPy functions composed here from rt ops (no np.* implementation stages them) ----------

def _known_dims(x: Tensor, what: str) -> tuple:
    dims = x.shape.as_tuple()
    if dims is None or None in dims:
        raise ValueError(f"tnp.{what} needs a tensor of known shape while tracing, got "
                         f"{x.shape}.")
    return dims


def _positions(x: Tensor, select, what: str) -> Tensor:
    """The elements of `x` at the flat positions `select(np.arange(size).reshape(shape))`."""
    dims = _known_dims(x, what)
    chosen = select(np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims))
    return _scatter.gather(_array_math.reshape(x, [-1]), np.asarray(chosen))


def sort(a, axis=-1, kind=None, order=None) -> Tensor:
    """`a` sorted along `axis` (flattened first when None)."""
    x = asarray(a)
    if axis is None:
        x, axis = _array_math.reshape(x, [-1]), -1
    return _NS[""]["sort"](x, axis=axis)


def argsort(a, axis=-1, kind=None, order=None) -> Tensor:
    """The int64 indices that sort `a` along `axis` (stable)."""
    x = asarray(a)
    if axis is None:
        x, axis = _array_math.reshape(x, [-1]), -1
    return _array_math.cast(_NS[""]["argsort"](x, axis=axis, stable=True), _dtypes.int64)


def cumprod(a, axis=None, dtype=None) -> Tensor:
    """Cumulative products along `axis` (of the flattened array when None)."""
    x = asarray(a, dtype)
    if axis is None:
        x, axis = _array_math.reshape(x, [-1]), 0
    return _NS["math"]["cumprod"](x, axis=axis)


def diagonal(a, offset=0, axis1=0, axis2=1) -> Tensor:
    """NumPy's diagonal (a tensor of known shape)."""
    return _positions(asarray(a), lambda p: np.diagonal(p, offset, axis1, axis2), "diagonal")


def diag(v, k=0) -> Tensor:
    """The diagonal `k` of a matrix, or the matrix with the vector `v` on diagonal `k`."""
    x = asarray(v)
    if x.shape.rank == 2:
        return diagonal(x, k)
    n = _known_dims(x, "diag")[0] + abs(int(k))
    spots = np.nonzero(np.eye(n, k=int(k), dtype=bool).reshape(-1))[0]
    flat = _scatter.scatter_nd(spots.reshape(-1, 1), x, np.array([n * n], np.int64))
    return _array_math.reshape(flat, [n, n])


def _triangle(m, k: int, lower: bool) -> Tensor:
    x = asarray(m)
    dims = _known_dims(x, "tril" if lower else "triu")
    mask = np.tri(dims[-2], dims[-1], k, dtype=bool)
    mask = mask if lower else ~np.tri(dims[-2], dims[-1], k - 1, dtype=bool)
    return _array_math.where(mask, x, _array_math.zeros_like(x))


def tril(m, k=0) -> Tensor:
    """`m` with the elements above diagonal `k` zeroed."""
    return _triangle(m, int(k), True)


def triu(m, k=0) -> Tensor:
    """`m` with the elements below diagonal `k` zeroed."""
    return _triangle(m, int(k), False)


def tri(N, M=None, k=0, dtype=None) -> Tensor:  # noqa: N803 - NumPy's names
    """Ones at and below diagonal `k` of an `N` x `M` matrix."""
    return _core.constant(np.tri(N, M, k, _creation_dtype(dtype).as_numpy_dtype))


def _at_least(rank: int):
    def atleast(*arys):
        out = []
        for a in arys:
            x = asarray(a)
            while x.shape.rank < rank:
                x = _array_math.expand_dims(x, 0 if x.shape.rank < 2 or rank == 2 else -1)
            out.append(x)
        return out[0] if len(out) == 1 else out
    atleast.__name__ = f"atleast_{rank}d"
    atleast.__doc__ = f"Each array with at least {rank} dimensions, as NumPy's."
    return atleast


atleast_1d, atleast_2d, atleast_3d = _at_least(1), _at_least(2), _at_least(3)


def meshgrid(*xi, indexing="xy", **_ignored) -> list:
    """Coordinate matrices of the vectors `xi`."""
    return _NS[""]["meshgrid"](*[asarray(x) for x in xi], indexing=indexing)


def repeat(a, repeats, axis=None) -> Tensor:
    """Each element of `a` repeated `repeats` times (along `axis`; flattened when None)."""
    return _NS[""]["repeat"](asarray(a), repeats, axis=axis)


def pad(array, pad_width, mode="constant", constant_values=0) -> Tensor:
    """`array` padded by `pad_width` (`mode` "constant", "reflect" or "symmetric")."""
    x = asarray(array)
    widths = np.broadcast_to(np.asarray(pad_width, np.int64), (x.shape.rank, 2))
    return _NS[""]["pad"](x, widths, mode=mode.upper(), constant_values=constant_values)


def flipud(m) -> Tensor:
    """`m` with its first axis reversed."""
    return _array_math.reverse(asarray(m), [0])


def fliplr(m) -> Tensor:
    """`m` with its second axis reversed."""
    return _array_math.reverse(asarray(m), [1])


def rot90(m, k=1, axes=(0, 1)) -> Tensor:
    """`m` rotated by 90 degrees `k` times in the plane of `axes`."""
    x = asarray(m)
    a, b = axes
    perm = list(range(x.shape.rank))
    perm[a], perm[b] = perm[b], perm[a]
    for _ in range(int(k) % 4):
        x = _array_math.transpose(_array_math.reverse(x, [b]), perm)
    return x


def dstack(tup) -> Tensor:
    """The arrays stacked along a third axis."""
    return _array_math.concat(_at_least(3)(*tup) if len(tup) > 1 else [_at_least(3)(tup[0])], 2)


def append(arr, values, axis=None) -> Tensor:
    """`values` appended to `arr` (both flattened when `axis` is None)."""
    x, y = asarray(arr), asarray(values)
    if axis is None:
        x, y, axis = _array_math.reshape(x, [-1]), _array_math.reshape(y, [-1]), 0
    dtype = _promotion.result_dtype(x, y)
    return _array_math.concat([_promotion.cast_to(x, dtype), _promotion.cast_to(y, dtype)], axis)


def nonzero(a) -> tuple:
    """The indices of the nonzero elements, one int64 vector an axis."""
    x = asarray(a)
    where = _array_math.cast(_array_math.where(_array_math.not_equal(
        x, _array_math.zeros_like(x))), _dtypes.int64)
    return tuple(_array_math.unstack(_array_math.transpose(where), num=x.shape.rank))


def ptp(a, axis=None, keepdims=False) -> Tensor:
    """Maximum minus minimum along `axis`."""
    x = asarray(a)
    return _array_math.subtract(_array_math.reduce_max(x, axis=axis, keepdims=keepdims),
                                _array_math.reduce_min(x, axis=axis, keepdims=keepdims))


def _nan_reduce(name: str, reduce, fill: float):
    def reduced(a, axis=None, dtype=None, keepdims=False):
        x = asarray(a, dtype)
        clean = _array_math.where(_NS["math"]["is_nan"](x), _array_math.fill(
            _array_math.shape(x), _core.convert_to_tensor(fill, dtype=x.dtype)), x)
        return reduce(clean, axis=axis, keepdims=keepdims)
    reduced.__name__ = name
    reduced.__doc__ = f"NumPy's {name}: NaNs count as {fill}."
    return reduced


nansum = _nan_reduce("nansum", _array_math.reduce_sum, 0.0)
nanprod = _nan_reduce("nanprod", _array_math.reduce_prod, 1.0)


def nanmean(a, axis=None, dtype=None, keepdims=False) -> Tensor:
    """The mean of the elements that are not NaN."""
    x = asarray(a, dtype)
    kept = _array_math.logical_not(_NS["math"]["is_nan"](x))
    total = nansum(x, axis=axis, keepdims=keepdims)
    count = _array_math.reduce_sum(_array_math.cast(kept, x.dtype), axis=axis, keepdims=keepdims)
    return _array_math.divide(total, count)


def _scaled(name: str, factor: float):
    def scaled(x) -> Tensor:
        t = asarray(x)
        if not t.dtype.is_floating:
            t = _promotion.cast_to(t, np.float64)
        return _array_math.multiply(t, factor)
    scaled.__name__ = name
    scaled.__doc__ = f"NumPy's {name}."
    return scaled


deg2rad, rad2deg = _scaled("deg2rad", _math.pi / 180), _scaled("rad2deg", 180 / _math.pi)
radians, degrees = deg2rad, rad2deg


def cbrt(x) -> Tensor:
    """The real cube root."""
    t = asarray(x)
    t = t if t.dtype.is_floating else _promotion.cast_to(t, np.float64)
    return _array_math.multiply(_array_math.sign(t), _array_math.pow(_array_math.abs(t), 1 / 3))


def signbit(x) -> Tensor:
    """True where `x` is negative."""
    t = asarray(x)
    return _array_math.less(t, _array_math.zeros_like(t))


def heaviside(x1, x2) -> Tensor:
    """0 below zero, 1 above, `x2` at zero."""
    x, h = asarray(x1), asarray(x2)
    dtype = _promotion.result_dtype(x, h)
    x, h = _promotion.cast_to(x, dtype), _promotion.cast_to(h, dtype)
    zero = _array_math.zeros_like(x)
    step = _array_math.cast(_array_math.greater(x, zero), x.dtype)
    return _array_math.where(_array_math.equal(x, zero), _array_math.add(zero, h), step)


def sinc(x) -> Tensor:
    """sin(pi x) / (pi x), 1 at zero."""
    t = asarray(x)
    t = t if t.dtype.is_floating else _promotion.cast_to(t, np.float64)
    zero = _array_math.equal(t, _array_math.zeros_like(t))
    safe = _array_math.multiply(_array_math.where(zero, _array_math.ones_like(t), t), _math.pi)
    return _array_math.where(zero, _array_math.ones_like(t),
                             _array_math.divide(_array_math.sin(safe), safe))


def _complex_part(name: str, op):
    def part(val) -> Tensor:
        return op(asarray(val))
    part.__name__ = name
    part.__doc__ = f"NumPy's {name}."
    return part


real = _complex_part("real", lambda t: _NS["math"]["real"](t))
imag = _complex_part("imag", lambda t: _NS["math"]["imag"](t))
conj = conjugate = _complex_part("conj", lambda t: _NS["math"]["conj"](t))


def angle(z, deg=False) -> Tensor:
    """The angle of complex `z` (in degrees with `deg`)."""
    out = _NS["math"]["angle"](asarray(z))
    return rad2deg(out) if deg else out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0) -> Tensor:
    """`base ** linspace(start, stop)`."""
    values = np.logspace(start, stop, num, endpoint, base, axis=axis)
    return _core.constant(values.astype(_creation_dtype(dtype).as_numpy_dtype))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0) -> Tensor:
    """Numbers spaced evenly on a log scale from `start` to `stop`."""
    values = np.geomspace(start, stop, num, endpoint, axis=axis)
    return _core.constant(values.astype(_creation_dtype(dtype).as_numpy_dtype))


def isscalar(num) -> bool:
    """Whether `num` is a scalar (a rank-0 tensor counts, as in TensorFlow NumPy)."""
    return num.shape.rank == 0 if isinstance(num, Tensor) else bool(np.isscalar(num))


def iscomplexobj(x) -> bool:
    """Whether `x` has a complex dtype."""
    return asarray(x).dtype.is_complex


def isrealobj(x) -> bool:
    """Whether `x` has a non-complex dtype."""
    return not iscomplexobj(x)


def promote_types(type1, type2) -> _dtypes.DType:
    """NumPy's promotion of two dtypes."""
    return result_type(type1, type2)


finfo, iinfo, issubdtype = np.finfo, np.iinfo, np.issubdtype


# -- random --------------------------------------------------------------------------------

def _random_dtype() -> _dtypes.DType:
    return _dtypes.float32 if _STATE["prefer_float32"] or _weak_defaults() else _dtypes.float64


def _randn(*size) -> Tensor:
    """Standard normal draws of shape `size` (a fresh draw each time a graph runs)."""
    return _random.normal(list(size), dtype=_random_dtype())


def _rand(*size) -> Tensor:
    """Uniform draws in [0, 1) of shape `size`."""
    return _random.uniform(list(size), dtype=_random_dtype())


@strict_keywords("tnp.random.standard_normal")
def _standard_normal(size=None) -> Tensor:
    return _randn(*(_shape_of(size) if size is not None else ()))


@strict_keywords("tnp.random.uniform")
def _uniform(low=0.0, high=1.0, size=None) -> Tensor:
    shape = list(_shape_of(size)) if size is not None else []
    return _random.uniform(shape, minval=low, maxval=high, dtype=_random_dtype())


@strict_keywords("tnp.random.randint")
def _randint(low, high=None, size=None, dtype=np.int64) -> Tensor:
    low, high = (0, low) if high is None else (low, high)
    shape = list(_shape_of(size)) if size is not None else []
    return _random.uniform(shape, minval=low, maxval=high,
                           dtype=_dtypes.from_numpy(_promotion.to_numpy_dtype(dtype)))


@strict_keywords("tnp.random.poisson")
def _poisson(lam=1.0, size=None) -> Tensor:
    from ..ops import random_distributions  # loads on first use

    return random_distributions.numpy_poisson(lam, size)


random = _Namespace(randn=_randn, rand=_rand, standard_normal=_standard_normal,
                    uniform=_uniform, randint=_randint, random=lambda size=None: _uniform(size=size),
                    seed=_random.set_seed, poisson=_poisson)


# -- NumPy behaviour of tensors ------------------------------------------------------------

_LATTICE = {  # TensorFlow's "all" mode promotion lattice (without weak types): dtype -> above
    "bool": ("uint8", "int8"), "uint8": ("uint16", "int16"), "uint16": ("uint32", "int32"),
    "uint32": ("uint64", "int64"), "uint64": ("float16",), "int8": ("int16",),
    "int16": ("int32",), "int32": ("int64",), "int64": ("float16",), "float16": ("float32",),
    "float32": ("float64", "complex64"), "float64": ("complex128",),
    "complex64": ("complex128",), "complex128": (),
}


def _above(name: str) -> set:
    found = {name}
    for parent in _LATTICE[name]:
        found |= _above(parent)
    return found


def _lattice_join(a: str, b: str) -> str:
    common = _above(a) & _above(b)
    return next(c for c in common if common <= _above(c))


def _kind(dtype: _dtypes.DType) -> str:
    return "int" if np.dtype(dtype.as_numpy_dtype).kind in "biu" else "float"


def promote_dtypes(a: _dtypes.DType, b: _dtypes.DType) -> _dtypes.DType:
    """The dtype two tensors of dtypes `a` and `b` promote to in the current mode."""
    mode = _STATE["mode"]
    if mode == "legacy":
        return _dtypes.from_numpy(np.result_type(a.as_numpy_dtype, b.as_numpy_dtype))
    joined = _dtypes.as_dtype(_lattice_join(a.name, b.name))
    if mode == "safe" and (joined not in (a, b) or _kind(a) != _kind(b)):
        raise _safe_refusal(a, b, False)
    return joined


# the constants made of Python numbers in the "all" and "safe" modes (by id): weakly typed,
# as TensorFlow's WeakTensor (the results of ops on them are not)
_WEAK_TENSORS: "_weakref.WeakValueDictionary[int, Tensor]" = _weakref.WeakValueDictionary()
_PY_KINDS = {int: "i", float: "f", complex: "c"}


def _python_numbers(value) -> bool:
    if type(value) in _PY_KINDS:
        return True
    return isinstance(value, (list, tuple)) and bool(value) and \
        _builtins.all(_python_numbers(v) for v in value)


def _mark_weak(tensor: Tensor, value) -> Tensor:
    """`rt.constant`'s hook: a constant of Python numbers (not bools) is weakly typed."""
    if _python_numbers(value):
        _WEAK_TENSORS[id(tensor)] = tensor
    return tensor


def _is_weak(value) -> bool:
    """Whether `value` is weakly typed in the "all"/"safe" modes: a Python number, or a
    constant made of Python numbers by `rt.constant`."""
    if type(value) in _PY_KINDS:
        return True
    return isinstance(value, Tensor) and _WEAK_TENSORS.get(id(value)) is value


def _is_weak_tensor(tensor: Tensor) -> bool:
    return _WEAK_TENSORS.get(id(tensor)) is tensor


def _weak_kind(value) -> str:
    if isinstance(value, Tensor):
        return np.dtype(value.dtype.as_numpy_dtype).kind
    return _PY_KINDS[type(value)]


def _strong_dtype(value):
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biufc":
        return _dtypes.from_numpy(value.dtype)
    return None


def _weak_target(dtype: _dtypes.DType, kind: str):
    """TensorFlow's "all"-mode result of a `dtype` tensor and a weak value of `kind` ("i",
    "f", "c"), or None when it is `dtype`: a float turns an integer into float64 (a bool
    into float32), a complex turns float16/32 into complex64 and the rest into complex128."""
    mine = np.dtype(dtype.as_numpy_dtype).kind
    if kind == "i":
        return _dtypes.int32 if mine == "b" else None
    if kind == "f":
        if mine in "fc":
            return None
        return _dtypes.float32 if mine == "b" else _dtypes.float64
    if mine == "c":
        return None
    return _dtypes.complex64 if dtype in (_dtypes.float16, _dtypes.float32) else \
        _dtypes.complex128


def _weak_kind_dtype(tensor_dtype: _dtypes.DType, value):
    """A Python number of a higher kind than the tensor's promotes it; else None."""
    kind = {bool: "b", int: "i", float: "f", complex: "c"}.get(type(value))
    order = "biufc"
    mine = np.dtype(tensor_dtype.as_numpy_dtype).kind
    if kind is None or order.index(kind) <= order.index(mine) or (kind, mine) == ("i", "u"):
        return None
    if _STATE["mode"] == "legacy":
        return _dtypes.from_numpy(np.result_type(tensor_dtype.as_numpy_dtype, type(value)(0)))
    return _weak_target(tensor_dtype, kind)


def _both_weak_target(x, y):
    """Two weak operands: the higher kind wins (in its default dtype when a Python number)."""
    order = "iufc"
    kx, ky = _weak_kind(x), _weak_kind(y)
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        return None if x.dtype is y.dtype else promote_dtypes(x.dtype, y.dtype)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):  # two Python numbers
        return _WEAK_DTYPES[_builtins.max(kx, ky, key=order.index)]
    tensor, number = (x, y) if isinstance(x, Tensor) else (y, x)
    if order.index(_weak_kind(number)) <= order.index(_weak_kind(tensor)) or kx == ky:
        return None
    return _WEAK_DTYPES[_weak_kind(number)]


def _promote_operands(x, y):
    """The hook of binary ops under NumPy behaviour: both operands cast to the promoted dtype,
    or None when the ordinary rule applies (same dtypes, or a Python number of the same kind).
    In the "all" and "safe" modes weak values (Python numbers, constants made of them) take
    the other operand's dtype unless of a higher kind (TensorFlow's table)."""
    if _STATE["mode"] != "legacy":
        wx, wy = _is_weak(x), _is_weak(y)
        if wx and wy:
            target = _both_weak_target(x, y)
            return None if target is None else tuple(_cast(v, target) for v in (x, y))
        if wx or wy:
            weak, strong = (x, y) if wx else (y, x)
            dtype = _strong_dtype(strong)
            if dtype is None:
                return None
            target = _weak_target(dtype, _weak_kind(weak)) or dtype
            if _STATE["mode"] == "safe" and target is not dtype:
                raise _safe_refusal(dtype, _WEAK_DTYPES[_weak_kind(weak)], True)
            if target is dtype and not isinstance(weak, Tensor):
                return None
            return tuple(_cast(v, target) for v in (x, y))
    dx, dy = _strong_dtype(x), _strong_dtype(y)
    if dx is not None and dy is not None:
        if dx is dy:
            return None
        target = promote_dtypes(dx, dy)
    elif dx is not None:
        target = _weak_kind_dtype(dx, y)
    elif dy is not None:
        target = _weak_kind_dtype(dy, x)
    else:
        return None
    if target is None:
        return None
    return tuple(_cast(v, target) for v in (x, y))


_WEAK_DTYPES = {"i": _dtypes.int32, "f": _dtypes.float32, "c": _dtypes.complex64}


def _safe_refusal(a: _dtypes.DType, b: _dtypes.DType, b_weak: bool) -> TypeError:
    return TypeError(
        f"In promotion mode PromoMode.SAFE, implicit dtype promotion between ({a!r}, "
        f"weak=False) and ({b!r}, weak={b_weak}) is disallowed. You need to explicitly specify "
        "the dtype in your op, or relax your dtype promotion rules (such as from SAFE mode "
        "to ALL mode).")


def _value_text(value) -> str:
    if isinstance(value, Tensor):
        known = _constant_value(value)
        return str(known) if known is not None else repr(value)
    return str(value)


def _variable_write(dtype: _dtypes.DType, value, method: str):
    """The hook of variable writes in the `"all"` and `"safe"` modes, as TensorFlow's: the
    value converts when it promotes with the variable's dtype to that dtype (a Python number
    or list is weak: it takes the variable's dtype when of its kind or a lower one), and
    raises TypeError otherwise (a variable's dtype does not change)."""
    strong = None if _is_weak(value) else _strong_dtype(value)
    if strong is not None:
        target = promote_dtypes(dtype, strong)
    else:
        try:
            kind = _weak_kind(value) if isinstance(value, Tensor) else np.asarray(value).dtype.kind
        except (TypeError, ValueError):
            return value
        if kind not in "biufc":
            return value   # strings and other values: the variable's own checks
        mine = np.dtype(dtype.as_numpy_dtype).kind
        if kind == "b":
            target = promote_dtypes(dtype, _dtypes.bool_)
        elif mine in {"i": "iufc", "f": "fc", "c": "c"}[kind]:
            target = dtype
        elif _STATE["mode"] == "safe":
            raise _safe_refusal(dtype, _WEAK_DTYPES[kind], True)
        else:
            target = promote_dtypes(dtype, _WEAK_DTYPES[kind])
    if target is not dtype:
        text = _value_text(value)
        raise TypeError(
            f"Variable dtype is immutable. Calling {method} of Variable (with dtype {dtype!r}) "
            f"on {text} requires converting {text} to {dtype!r}. This is disabled in the "
            f"current promotion semantics. Please convert {text} manually before calling "
            f"{method}.")
    return _cast(value, dtype)


def _advanced_positions(tensor: Tensor, key):
    """The flat positions NumPy's indexing of `tensor` by `key` selects (an int64 array of the
    result's shape), or None when the shape or a tensor in the key is not known."""
    dims = tensor.shape.as_tuple()
    if dims is None or None in dims:
        return None
    parts = key if isinstance(key, tuple) else (key,)
    known = []
    for part in parts:
        if isinstance(part, Tensor):
            part = _constant_value(part)
            if part is None:
                return None
        known.append(part)
    positions = np.arange(int(np.prod(dims)), dtype=np.int64).reshape(dims)
    return positions[tuple(known) if isinstance(key, tuple) else known[0]]


def _numpy_getitem(self, key):
    """Tensor indexing with NumPy's boolean and integer-array forms (`x[:, (True, False)]`,
    `x[1, (0, 0, 1), idx]`): a gather of the positions NumPy selects."""
    try:
        return _PLAIN["getitem"](self, key)
    except TypeError:
        positions = _advanced_positions(self, key)
        if positions is None:
            raise
        return _scatter.gather(_array_math.reshape(self, [-1]), positions)


_PLAIN = {"getitem": Tensor.__getitem__}
_OPERATORS = [f"__{r}{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod",
                                             "pow", "and", "or", "xor") for r in ("", "r")]
_OPERATORS += ["__lt__", "__le__", "__gt__", "__ge__"]
_PLAIN.update({name: getattr(Tensor, name) for name in _OPERATORS})


def _promoting(name: str):
    plain = _PLAIN[name]

    def operator(self, other):
        promoted = _promote_operands(self, other)
        return plain(self, other) if promoted is None else plain(*promoted)
    operator.__name__ = name
    return operator


def _install(legacy: bool) -> None:
    """`"legacy"` promotes in operators only (`tf.add(int8, int32)` still raises, as in
    TensorFlow); the other modes in every binary op (through ops.core.promotion_hook)."""
    for name in _OPERATORS:
        setattr(Tensor, name, _promoting(name) if legacy else _PLAIN[name])
    Tensor.__getitem__ = _numpy_getitem


def _cast(value, dtype):
    tensor = value if isinstance(value, Tensor) else _core.convert_to_tensor(np.asarray(value))
    return tensor if tensor.dtype is dtype else _array_math.cast(tensor, dtype)


@strict_keywords("tnp.experimental_enable_numpy_behavior")
def experimental_enable_numpy_behavior(prefer_float32: bool = False,
                                       dtype_conversion_mode: str = "legacy") -> None:
    """TensorFlow's switch: tensors of different dtypes promote (`"legacy"`: by NumPy's rule,
    in operators only; `"all"`: by TensorFlow's lattice, in every binary op; `"safe"`: only
    within a kind; `"off"`: not), tensors take NumPy's boolean and integer-array indexing, and
    tnp infers float32 for Python floats when `prefer_float32`."""
    if dtype_conversion_mode not in _MODES:
        raise ValueError(f"experimental_enable_numpy_behavior(dtype_conversion_mode="
                         f"{dtype_conversion_mode!r}): expected one of {', '.join(_MODES)}.")
    _STATE["prefer_float32"] = bool(prefer_float32)
    _STATE["mode"] = None if dtype_conversion_mode == "off" else dtype_conversion_mode
    _core.promotion_hook = None if _STATE["mode"] in (None, "legacy") else _promote_operands
    _variables.numpy_write_hook = None if _STATE["mode"] in (None, "legacy") else _variable_write
    _core.weak_constant_hook = None if _STATE["mode"] in (None, "legacy") else _mark_weak
    _tensor_module.weak_hook = None if _STATE["mode"] in (None, "legacy") else _is_weak_tensor
    _protocols.binary_promotion = None if _STATE["mode"] in (None, "legacy") else _promote_operands
    _install(legacy=_STATE["mode"] == "legacy")


def _disable_numpy_behavior() -> None:
    """Back to the runtime's own rules (tests use it; TensorFlow has no way back)."""
    _STATE.update(prefer_float32=False, mode=None)
    _core.promotion_hook = None
    _variables.numpy_write_hook = None
    _core.weak_constant_hook = None
    _tensor_module.weak_hook = None
    _protocols.binary_promotion = None
    for name, plain in _PLAIN.items():
        setattr(Tensor, f"__{name}__" if name == "getitem" else name, plain)


def __getattr__(name):
    if hasattr(np, name):
        raise AttributeError(
            f"rt.experimental.numpy has no {name!r}: np.{name} has no runtime op (docs/numpy.md "
            f"lists the NumPy calls that run on tensors). Instead: {_registry.hint(name)}.")
    raise AttributeError(f"module 'runtime.experimental.numpy' has no attribute {name!r}")


from . import numpy_more as _numpy_more  # noqa: E402 - kron, vander, hsplit, ...: over the above

globals().update(_numpy_more.bind(_sys.modules[__name__]))

__all__ = sorted(name for name in globals() if not name.startswith("_")
                 and name not in ("annotations", "np", "Tensor", "strict_keywords"))
