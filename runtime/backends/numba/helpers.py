"""Numba functions the generated kernels call: TensorArray buffers and reductions.

A TensorArray is (buffer, written, size): `written` marks the elements set so far, as the
NumPy tier's list holds None for the others; writes past the capacity double the buffer. A buffer made
before the element shape was known has zero-sized element dims and is replaced on first write.
"""

from __future__ import annotations

import ctypes
import glob
import os

import llvmlite.binding as ll
import numba
import numpy as np

# Numba keys its on-disk cache by source and signature, not by the optimisation level: a
# helper cached by a process at NUMBA_OPT=0 (the test suite's level, tests/conftest.py) would
# be linked, unoptimised, into the kernels of every later process at the default level (2x
# slower steps). Only the default level caches the helpers; the kernels' own files are salted
# with the level (compiler.cache_salt).
CACHE_HELPERS = int(numba.config.OPT) == 3
_jit = numba.njit(cache=CACHE_HELPERS, nogil=True)


@_jit
def _grown(buf, size, index, dynamic):
    if index < 0:
        raise IndexError("TensorArray write: the index is negative.")
    if index >= size:
        if not dynamic:
            raise IndexError("TensorArray write: the index is out of range for a TensorArray of "
                             "fixed size; create it with dynamic_size=True to let it grow.")
        size = index + 1
    return size, max(size, 2 * buf.shape[0])


@_jit
def copy_prefix(dst, src, n):
    """`dst[:n] = src[:n]` for two 1-D arrays, element by element: Numba's assignment of an
    array to a slice compiles its shape-mismatch message (string formatting, seconds of
    compile time in every process that compiles a kernel with one)."""
    for k in range(n):
        dst[k] = src[k]


@_jit
def set_row(buf, index, value):
    """`buf[index] = value` for a C-contiguous `buf` and a `value` of its rows' shape (a
    slice assignment without Numba's shape-mismatch message; see copy_prefix)."""
    row = buf[index]
    if row.shape != value.shape:
        raise ValueError("a row's shape differs from the buffer's rows")
    copy_prefix(row.reshape(row.size), np.ascontiguousarray(value).reshape(value.size),
                value.size)


@_jit
def _grown_mask(written, capacity):
    if capacity <= written.shape[0]:
        return written
    fresh = np.zeros(capacity, np.bool_)
    copy_prefix(fresh, written, written.shape[0])
    return fresh


@_jit
def write(buf, written, size, index, value, dynamic):
    """Writes the array `value` at `index`; returns the new (buffer, written, size)."""
    size, capacity = _grown(buf, size, index, dynamic)
    if buf.shape[1:] != value.shape:
        if buf.size != 0:
            raise ValueError("TensorArray write: the value's shape differs from the elements'.")
        buf = np.zeros((max(capacity, buf.shape[0]),) + value.shape, buf.dtype)
    elif index >= buf.shape[0]:
        fresh = np.zeros((capacity,) + value.shape, buf.dtype)
        copy_prefix(fresh.reshape(fresh.size), buf.reshape(buf.size), buf.size)
        buf = fresh
    written = _grown_mask(written, buf.shape[0])
    set_row(buf, index, value)
    written[index] = True
    return buf, written, size


@_jit
def write_scalar(buf, written, size, index, value, dynamic):
    """Writes the scalar `value` at `index`; returns the new (buffer, written, size)."""
    size, capacity = _grown(buf, size, index, dynamic)
    if index >= buf.shape[0]:
        fresh = np.zeros(capacity, buf.dtype)
        copy_prefix(fresh, buf, buf.shape[0])
        buf = fresh
    written = _grown_mask(written, buf.shape[0])
    buf[index] = value
    written[index] = True
    return buf, written, size


@_jit
def check_index(written, size, index):
    if index < 0 or index >= size or not written[index]:
        raise IndexError("TensorArray read: the index has not been written.")
    return index


@_jit
def stack(buf, written, size):
    """The first `size` elements; all must be written, or none (then they are zeros)."""
    count = 0
    for i in range(size):
        count += written[i]
    if count != 0 and count != size:
        raise IndexError("TensorArray stack: some elements have not been written.")
    return buf[:size].copy()


@_jit
def gather(buf, written, size, indices):
    for i in indices:
        check_index(written, size, i)
    return buf[indices]


@_jit
def concat(buf, written, size):
    part = stack(buf, written, size)
    return part.reshape((part.shape[0] * part.shape[1],) + part.shape[2:])


@_jit
def total(x):
    """The sum of all elements of a float array, accumulated in float64 (as NumPy's pairwise
    summation is about as accurate)."""
    flat = np.ascontiguousarray(x).reshape(x.size)
    acc = 0.0
    for i in range(flat.size):
        acc += flat[i]
    return acc



@_jit
def cross_entropy_rows(labels, log_p):
    """`-sum(labels * log_p, axis=1)` of two C-contiguous 2-D arrays, each row accumulated in
    float64 (Numba's `np.sum(..., axis=1)` costs seconds to compile: its bounds message)."""
    out = np.empty(labels.shape[0], log_p.dtype)
    for i in range(labels.shape[0]):
        acc = 0.0
        for j in range(labels.shape[1]):
            acc += labels[i, j] * log_p[i, j]
        out[i] = -acc
    return out


@_jit
def add_into(view, g):
    """`view += g` for a C-contiguous `view` and a `g` of its shape, element by element."""
    flat = view.reshape(view.size)
    src = np.ascontiguousarray(g).reshape(g.size)
    if src.size != flat.size:
        raise ValueError("a slice gradient's shape differs from the slice's")
    for i in range(flat.size):
        flat[i] += src[i]


@_jit
def copy_into(view, g):
    """`view[...] = g` for a C-contiguous `view` and a `g` of its shape."""
    flat = view.reshape(view.size)
    src = np.ascontiguousarray(g).reshape(g.size)
    if src.size != flat.size:
        raise ValueError("a slice gradient's shape differs from the slice's")
    for i in range(flat.size):
        flat[i] = src[i]


@_jit
def sum_leading(a):
    """The sum over axis 0 of a C-contiguous 2-D array: each row added into the result in
    order, as NumPy's `np.add.reduce(a, axis=0)` does."""
    if a.shape[0] == 0:
        return np.zeros(a.shape[1], a.dtype)
    out = a[0].copy()
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            out[j] += a[i, j]
    return out


MAX, MIN, PROD, ANY, ALL = range(5)


@_jit
def reduce_leading(a, mode):
    """Max/min/prod/any/all over axis 0 of a 2-D array (Numba's NumPy has no `axis` for them)."""
    out = a[0].copy()
    for i in range(1, a.shape[0]):
        for j in range(a.shape[1]):
            x = a[i, j]
            acc = out[j]
            if mode == 0:
                if acc == acc and (x > acc or x != x):
                    out[j] = x
            elif mode == 1:
                if acc == acc and (x < acc or x != x):
                    out[j] = x
            elif mode == 2:
                out[j] = acc * x
            elif mode == 3:
                out[j] = acc or x
            else:
                out[j] = acc and x
    return out


@_jit
def softmax_rows(x, log):
    """Softmax (or log-softmax) of each row of a 2-D float array, shifted by the row maximum."""
    out = np.empty_like(x)
    for r in range(x.shape[0]):
        top = x[r, 0]
        for j in range(1, x.shape[1]):
            top = max(top, x[r, j])
        total = 0.0
        for j in range(x.shape[1]):
            e = np.exp(x[r, j] - top)
            out[r, j] = e
            total += e
        for j in range(x.shape[1]):
            out[r, j] = (x[r, j] - top) - np.log(total) if log else out[r, j] / total
    return out


@_jit
def grown_rows(buf, count, value):
    """A loop accumulator's buffer with room for row `count` of `value`'s shape: double the
    capacity, the first `count` rows copied (later rows are never read before written)."""
    if count != 0 and buf.shape[1:] != value.shape:
        raise ValueError("loop accumulator: a saved value changed shape between iterations.")
    fresh = np.empty((max(2 * buf.shape[0], count + 1, 8),) + value.shape, buf.dtype)
    copy_prefix(fresh.reshape(fresh.size), buf.reshape(buf.size), count * value.size)
    return fresh


@_jit
def grown_scalars(buf, count):
    """`grown_rows` for a buffer of scalars."""
    fresh = np.empty(max(2 * buf.shape[0], count + 1, 8), buf.dtype)
    copy_prefix(fresh, buf, count)
    return fresh


# -- a loop's saves on stacks: (buffer, count, claim) --------------------------------------
# A stack is the first `count` rows of `buffer`; `claim` (one int64, shared by the stacks of
# one buffer) is the number of rows the longest of them uses. A push writes row `count` in
# place when that row is free (claim == count) and the buffer has room; otherwise (a stack
# that was popped, or pushed twice, or full) it copies the rows into a buffer of twice the
# count. Rows once written are never written again, so every stack of a buffer keeps its
# values, and a view of one (`buffer[:count]`) stays valid.

@_jit
def stack_of(rows):
    """The stack of the array `rows` [n, *shape]: full, so the first push copies it (an input
    or a constant of the kernel is never written)."""
    return rows, np.int64(rows.shape[0]), np.full(1, rows.shape[0], np.int64)


@_jit
def stack_push(buf, count, claim, value):
    """The stack with `value` (an array) on top, in place when row `count` is free."""
    if count != 0 and buf.shape[1:] != value.shape:
        raise ValueError("StackPush: a saved value changed shape between iterations.")
    if claim[0] == count and count < buf.shape[0]:
        set_row(buf, count, value)
        claim[0] = count + 1
        return buf, count + 1, claim
    fresh = np.empty((max(2 * count, 4),) + value.shape, buf.dtype)
    copy_prefix(fresh.reshape(fresh.size), buf.reshape(buf.size), count * value.size)
    set_row(fresh, count, value)
    return fresh, count + 1, np.full(1, count + 1, np.int64)


@_jit
def stack_push_scalar(buf, count, claim, value):
    """`stack_push` for a stack of scalars."""
    if claim[0] == count and count < buf.shape[0]:
        buf[count] = value
        claim[0] = count + 1
        return buf, count + 1, claim
    fresh = np.empty(max(2 * count, 4), buf.dtype)
    copy_prefix(fresh, buf, count)
    fresh[count] = value
    return fresh, count + 1, np.full(1, count + 1, np.int64)


def blas_ready(a):
    """`a` as np.dot takes it without a copy: C- or F-contiguous arrays (a transposed matrix)
    as they are, others (strided slices) copied to C order. Numba-only (see the overload)."""
    raise NotImplementedError("blas_ready runs only in Numba kernels")


@numba.extending.overload(blas_ready)
def _blas_ready(a):
    if isinstance(a, numba.types.Array) and a.layout in ("C", "F"):
        return lambda a: a
    return lambda a: np.ascontiguousarray(a)


def _numpy_blas():
    """NumPy's own `cblas_sgemm`/`cblas_dgemm` and `cblas_sgemv`/`cblas_dgemv` (64-bit ints)
    as ctypes functions, or None.

    Numba's `np.dot` calls SciPy's OpenBLAS, which is a different build from NumPy's and
    measured ~15% slower on the matrices of a training step; calling NumPy's library gives
    the NumPy tier's speed (and its results)."""
    here = os.path.dirname(np.__file__)
    i64, ptr = ctypes.c_int64, ctypes.c_void_p
    for path in sorted(glob.glob(os.path.join(here, os.pardir, "numpy.libs", "lib*openblas64*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_cblas_", "cblas_"):
            try:
                gemms = [getattr(lib, f"{prefix}{t}gemm64_") for t in "sd"]
                gemvs = [getattr(lib, f"{prefix}{t}gemv64_") for t in "sd"]
            except AttributeError:
                continue
            for fn, real in zip(gemms, (ctypes.c_float, ctypes.c_double)):
                fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, i64, i64, i64, real,
                               ptr, i64, ptr, i64, real, ptr, i64]
                fn.restype = None
            for fn, real in zip(gemvs, (ctypes.c_float, ctypes.c_double)):
                fn.argtypes = [ctypes.c_int, ctypes.c_int, i64, i64, real, ptr, i64, ptr, i64,
                               real, ptr, i64]
                fn.restype = None
            return gemms, gemvs
    return None


def _external_blas():
    """NumPy's gemm and gemv functions as Numba external functions (called by symbol name,
    which keeps kernels cacheable on disk, unlike ctypes pointers): ([sgemm, dgemm],
    [sgemv, dgemv]), or None."""
    found = _numpy_blas()
    if found is None:
        return None
    t = numba.types
    gemms, gemvs = [], []
    for fn, real, name in zip(found[0], (t.float32, t.float64), ("sgemm", "dgemm")):
        symbol = f"autograph_rt_numpy_{name}"
        ll.add_symbol(symbol, ctypes.cast(fn, ctypes.c_void_p).value)
        gemms.append(t.ExternalFunction(symbol, t.void(
            t.int32, t.int32, t.int32, t.int64, t.int64, t.int64, real, t.voidptr, t.int64,
            t.voidptr, t.int64, real, t.voidptr, t.int64)))
    for fn, real, name in zip(found[1], (t.float32, t.float64), ("sgemv", "dgemv")):
        symbol = f"autograph_rt_numpy_{name}"
        ll.add_symbol(symbol, ctypes.cast(fn, ctypes.c_void_p).value)
        gemvs.append(t.ExternalFunction(symbol, t.void(
            t.int32, t.int32, t.int64, t.int64, real, t.voidptr, t.int64, t.voidptr, t.int64,
            real, t.voidptr, t.int64)))
    return gemms, gemvs


NUMPY_BLAS = _external_blas()
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def dot(a, b):
    """`np.dot` of two matrices, through NumPy's BLAS where it is found (float32/float64
    C- or F-contiguous operands). Numba-only (see the overload)."""
    raise NotImplementedError("dot runs only in Numba kernels")


@numba.extending.overload(dot)
def _dot(a, b):
    if (NUMPY_BLAS is None or not isinstance(a, numba.types.Array) or a.dtype != b.dtype
            or a.dtype not in (numba.types.float32, numba.types.float64)
            or a.layout not in ("C", "F") or b.layout not in ("C", "F")):
        return lambda a, b: np.dot(a, b)
    single = a.dtype == numba.types.float32
    gemm = NUMPY_BLAS[0][0] if single else NUMPY_BLAS[0][1]
    gemv = NUMPY_BLAS[1][0] if single else NUMPY_BLAS[1][1]
    real = np.float32 if single else np.float64
    trans_a = _TRANS if a.layout == "F" else _NO_TRANS
    trans_b = _TRANS if b.layout == "F" else _NO_TRANS
    a_f, b_f = a.layout == "F", b.layout == "F"

    def impl(a, b):
        m, k = a.shape
        n = b.shape[1]
        if b.shape[0] != k:
            raise ValueError("dot: the matrices' inner dimensions differ")
        out = np.empty((m, n), a.dtype)
        if m == 0 or n == 0:
            return out
        if k == 0:
            out[:] = 0
            return out
        lda = max(1, m if a_f else k)
        ldb = max(1, k if b_f else n)
        # a row times a matrix, or a matrix times a column: gemv, as NumPy's matmul does
        # (gemm would pack the whole matrix first: 2.5x the time on a 256x256 one)
        if m == 1:  # out = b^T a: b is (k, n), C-ordered (rows of n) or F-ordered
            gemv(_ROW_MAJOR, _NO_TRANS if b_f else _TRANS, n if b_f else k, k if b_f else n,
                 real(1), b.ctypes.data, ldb, a.ctypes.data, 1, real(0), out.ctypes.data, 1)
        elif n == 1:  # out = a b: a is (m, k)
            gemv(_ROW_MAJOR, _TRANS if a_f else _NO_TRANS, k if a_f else m, m if a_f else k,
                 real(1), a.ctypes.data, lda, b.ctypes.data, 1, real(0), out.ctypes.data, 1)
        else:
            gemm(_ROW_MAJOR, trans_a, trans_b, m, n, k, real(1), a.ctypes.data, lda,
                 b.ctypes.data, ldb, real(0), out.ctypes.data, max(1, n))
        return out
    return impl


@_jit
def checked_index(i, size):
    """`i` as an index into an axis of `size` elements (negative ones count from the end, as
    NumPy's); IndexError, as NumPy raises it, when it is out of range."""
    if i < -size or i >= size:
        raise IndexError("index " + str(i) + " is out of bounds for size " + str(size))
    return i if i >= 0 else i + size


@_jit
def gather_index(i, size):
    """`i` as a gather index into an axis of `size` elements; IndexError, worded as
    TensorFlow's, when it is outside [0, size) (gather counts no index from the end)."""
    if i < 0 or i >= size:
        raise IndexError("indices = " + str(i) + " is not in [0, " + str(size) + ")")
    return i


@_jit
def gather_indices(indices, size):
    """A 1-D index array checked as `gather_index` does."""
    for k in range(indices.shape[0]):
        i = np.int64(indices[k])
        if i < 0 or i >= size:
            raise IndexError("indices[" + str(k) + "] = " + str(i) + " is not in [0, "
                             + str(size) + ")")
    return indices


def power(x, y):
    """`x ** y` as NumPy computes it: integers to negative integer powers raise ValueError
    (Numba's own integer power gives 0), and integer powers wrap around as NumPy's repeated
    squaring does (Numba's gave 0 or 1 for large exponents). Scalars or arrays (the Pow op's
    Numba form)."""
    return np.power(x, y)


@_jit
def _wrapping_power(x, y):
    """x ** y for integers y >= 0 by repeated squaring, wrapping around as NumPy's does (the
    low bits of a product depend only on the low bits of its factors)."""
    result, base = x - x + 1, x
    while y > 0:
        if y & 1:
            result *= base
        base *= base
        y >>= 1
    return result


@numba.extending.overload(power)
def _power(x, y):
    def integer(t):
        return isinstance(getattr(t, "dtype", t), numba.types.Integer)
    if not (integer(x) and integer(y)):
        return lambda x, y: x ** y
    if isinstance(x, numba.types.Array) or isinstance(y, numba.types.Array):
        def checked_array(x, y):
            bx, by = np.broadcast_arrays(np.asarray(x), np.asarray(y))
            out = np.empty(bx.shape, bx.dtype)
            flat = out.reshape(-1)
            k = 0
            for a, b in zip(bx.flat, by.flat):
                if b < 0:
                    raise ValueError("Integers to negative integer powers are not allowed.")
                flat[k] = _wrapping_power(a, b)
                k += 1
            return out
        return checked_array

    kind = numba.np.numpy_support.as_dtype(x).type  # Numba widens int32 arithmetic

    def checked(x, y):
        if y < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
        return kind(_wrapping_power(x, y))
    return checked


@_jit
def saturate_into(x, out, lo, hi, top):
    """The floats `x` written into the integer array `out` (fresh, of x's shape) as the Cast
    op converts them on every tier: truncated, NaN 0, below `lo` lo, from `top` on hi."""
    flat = out.reshape(-1)
    k = 0
    for v in x.flat:
        if v != v:
            flat[k] = 0
        elif v < lo:
            flat[k] = lo
        elif v >= top:
            flat[k] = hi
        else:
            flat[k] = v
        k += 1
    return out


# -- signed zeros as NumPy gives them ---------------------------------------------------------
# The kernels compile with fastmath's `nsz` (signed zeros may be ignored); these helpers do not
# (an overload is otherwise compiled with its caller's flags), and LLVM keeps each
# instruction's own flags when it inlines them, so sign, maximum and minimum give NumPy's
# zeros bit for bit: np.sign(-0.0) is +0.0, and maximum/minimum return
# their second operand when the two compare equal (np.maximum(-0.0, 0.0) is +0.0).


_EXACT = {"fastmath": False}  # compiled without the kernels' fastmath flags


def sign(x):
    """np.sign with a +0.0 for either zero, as NumPy's."""
    return np.sign(x)


def maximum(x, y):
    """np.maximum as NumPy computes it: x when x > y or x is NaN, else y."""
    return np.maximum(x, y)


def minimum(x, y):
    """np.minimum as NumPy computes it: x when x < y or x is NaN, else y."""
    return np.minimum(x, y)


@numba.extending.overload(sign, jit_options=_EXACT)
def _sign(x):
    if not isinstance(getattr(x, "dtype", x), (numba.types.Float, numba.types.Complex)):
        return lambda x: np.sign(x)
    return lambda x: np.sign(x) + 0.0  # -0.0 + 0.0 is +0.0; other values are unchanged


def _either_array(x, y) -> bool:
    return isinstance(x, numba.types.Array) or isinstance(y, numba.types.Array)


@numba.extending.overload(maximum, jit_options=_EXACT)
def _maximum(x, y):
    if _either_array(x, y):
        return lambda x, y: np.where((x > y) | (x != x), x, y)
    return lambda x, y: x if (x > y or x != x) else y


@numba.extending.overload(minimum, jit_options=_EXACT)
def _minimum(x, y):
    if _either_array(x, y):
        return lambda x, y: np.where((x < y) | (x != x), x, y)
    return lambda x, y: x if (x < y or x != x) else y


def _is_integer(t) -> bool:
    return isinstance(getattr(t, "dtype", t), numba.types.Integer)


def _integer_division(name: str, plain, by_minus_one=None):
    """An overload of the helper `name` (`plain`: `x // y` or `x % y`, as NumPy computes them)
    that raises for an integer zero divisor, as TensorFlow does (Numba's integers give 0).
    `by_minus_one(x)`: the result for a divisor of -1 where Numba's differs from NumPy's
    (the lowest integer // -1 wraps around to itself in NumPy; Numba gives 0)."""
    divide = numba.njit(plain)
    fix = numba.njit(by_minus_one) if by_minus_one is not None else None

    def checked_array(x, y):
        if (y == 0).any():
            raise ZeroDivisionError("Integer division by zero")
        if fix is None or not (y == -1).any():
            return divide(x, y)
        bx, by = np.broadcast_arrays(np.asarray(x), np.asarray(y))
        out = divide(bx, by)
        flat = out.reshape(-1)
        k = 0
        for a, b in zip(bx.flat, by.flat):
            if b == -1:
                flat[k] = fix(a)
            k += 1
        return out

    def checked(x, y):
        if y == 0:
            raise ZeroDivisionError("Integer division by zero")
        if fix is not None and y == -1:
            return fix(x)
        return divide(x, y)

    def typer(x, y):
        if not (_is_integer(x) and _is_integer(y)):
            return plain
        return checked_array if isinstance(y, numba.types.Array) else checked
    typer.__name__ = f"_{name}"
    return typer


def rint(x):
    """np.rint that keeps integers as they are (Numba's goes through float64, which rounds
    int64 values beyond 2**53 and overflows near the ends of the range)."""
    return np.rint(x)


@numba.extending.overload(rint)
def _rint(x):
    if not _is_integer(x):
        return lambda x: np.rint(x)
    if isinstance(x, numba.types.Array):
        return lambda x: x.copy()  # a fresh array, as every elementwise result is
    return lambda x: x


def floordiv(x, y):
    """`x // y` as NumPy computes it; integer division by zero raises ZeroDivisionError."""
    return np.floor_divide(x, y)


def floormod(x, y):
    """`x % y` as NumPy computes it; integer division by zero raises ZeroDivisionError."""
    return np.remainder(x, y)


numba.extending.overload(floordiv)(_integer_division("floordiv", lambda x, y: x // y,
                                                    by_minus_one=lambda x: -x))
numba.extending.overload(floormod)(_integer_division("floormod", lambda x, y: x % y))


# -- TensorArray gradients ------------------------------------------------------------------
# The gradient of a TensorArray is a map {index: element gradient}; in a kernel it is a triple
# (buffer, present, size) like the array itself. A map's triples are never written in place.

@_jit
def grad_add(abuf, amask, asize, bbuf, bmask, bsize):
    """The sum of two maps: elements present in both are added, others kept."""
    if asize == 0:
        return bbuf, bmask, bsize
    if bsize == 0:
        return abuf, amask, asize
    if abuf.shape[1:] != bbuf.shape[1:]:
        raise ValueError("TensorArray gradient: element gradients of different shapes.")
    size = max(asize, bsize)
    buf = np.zeros((size,) + abuf.shape[1:], abuf.dtype)
    mask = np.zeros(size, np.bool_)
    for i in range(asize):
        if amask[i]:
            buf[i] = abuf[i]
            mask[i] = True
    for i in range(bsize):
        if bmask[i]:
            if mask[i]:
                buf[i] = buf[i] + bbuf[i]
            else:
                buf[i] = bbuf[i]
                mask[i] = True
    return buf, mask, size


@_jit
def grad_from_stack(g):
    n = g.shape[0]
    return np.ascontiguousarray(g), np.ones(n, np.bool_), np.int64(n)


@_jit
def grad_from_read(g, index):
    buf = np.zeros((index + 1,) + g.shape, g.dtype)
    buf[index] = g
    mask = np.zeros(index + 1, np.bool_)
    mask[index] = True
    return buf, mask, np.int64(index + 1)


@_jit
def grad_from_read_scalar(g, index):
    buf = np.full(index + 1, g)
    buf[:index] = 0
    mask = np.zeros(index + 1, np.bool_)
    mask[index] = True
    return buf, mask, np.int64(index + 1)


@_jit
def grad_from_gather(g, indices):
    flat = indices.ravel()
    size = 0
    for i in flat:
        size = max(size, np.int64(i) + 1)
    buf = np.zeros((size,) + g.shape[1:], g.dtype)
    mask = np.zeros(size, np.bool_)
    for row in range(flat.shape[0]):
        i = np.int64(flat[row])
        if mask[i]:
            buf[i] = buf[i] + g[row]
        else:
            buf[i] = g[row]
            mask[i] = True
    return buf, mask, np.int64(size)


@_jit
def grad_from_concat(g, size):
    """Rows of `g` split into `size` elements of equal length (the array's elements share
    one shape)."""
    n = g.shape[0] // size if size else 0
    buf = np.ascontiguousarray(g).reshape((size, n) + g.shape[1:])
    return buf, np.ones(size, np.bool_), np.int64(size)


@_jit
def write_grad(buf, mask, size, index, shape):
    """The gradient of the element written at `index` (zeros when the map has none) and the
    map without it."""
    if 0 <= index < size and mask[index]:
        rest = mask.copy()
        rest[index] = False
        return (buf, rest, size), buf[index].copy()
    return (buf, mask, size), np.zeros(shape, buf.dtype)


@_jit
def write_grad_scalar(buf, mask, size, index):
    if 0 <= index < size and mask[index]:
        rest = mask.copy()
        rest[index] = False
        return (buf, rest, size), buf[index]
    return (buf, mask, size), np.zeros(1, buf.dtype)[0]


@_jit
def scatter_grad(buf, mask, size, count, shape):
    """The gradients of elements 0..count-1 stacked (zeros where absent), and the map
    without them."""
    out = np.zeros((count,) + shape, buf.dtype)
    rest = mask.copy()
    for i in range(min(count, size)):
        if mask[i]:
            out[i] = buf[i]
            rest[i] = False
    return (buf, rest, size), out


# Element gradients taken out of a map (a higher-order gradient: the adjoints of the
# `grad_from_*` forms); a missing element is zeros.

@_jit
def grad_get(buf, mask, size, index, like):
    """The element gradient at `index`, or zeros like `like`."""
    if 0 <= index < size and mask[index]:
        return buf[index].copy()
    return np.zeros_like(like)


@_jit
def grad_get_scalar(buf, mask, size, index):
    if 0 <= index < size and mask[index]:
        return buf[index]
    return np.zeros(1, buf.dtype)[0]


@_jit
def grad_get_stacked(buf, mask, size, like):
    """Elements 0 .. len(like) - 1 stacked."""
    out = np.zeros_like(like)
    for k in range(min(like.shape[0], size)):
        if mask[k]:
            out[k] = buf[k]
    return out


@_jit
def grad_get_gathered(buf, mask, size, indices, like):
    """The elements at `indices` stacked."""
    out = np.zeros_like(like)
    for row in range(indices.shape[0]):
        i = np.int64(indices[row])
        if 0 <= i < size and mask[i]:
            out[row] = buf[i]
    return out


@_jit
def grad_get_concat(buf, mask, size, count, like):
    """The first `count` elements (of equal length) concatenated."""
    out = np.zeros_like(like)
    n = like.shape[0] // count if count else 0
    for i in range(min(count, size)):
        if mask[i]:
            out[i * n:(i + 1) * n] = buf[i]
    return out
