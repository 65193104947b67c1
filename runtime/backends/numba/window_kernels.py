"""The Numba functions of the native window ops (their writers are in `windows.py`): max pools
and their gradients as loops over NHWC windows, convolutions and their two gradients as
im2col blocks times the filters through NumPy's BLAS (`_gemm`; Numba's `np.dot` where NumPy's
BLAS is not found). Each fills an array its kernel allocated (its last argument).
"""

from __future__ import annotations

import numba
import numpy as np

from .helpers import CACHE_HELPERS, NUMPY_BLAS

_jit = numba.njit(cache=CACHE_HELPERS, nogil=True)


@_jit
def max_pool(x, kh, kw, sh, sw, pt, pl, out):
    """`out` [N, OH, OW, C]: the maximum of each window of `x` (padding as -inf)."""
    n, h, w, c = x.shape
    oh, ow = out.shape[1], out.shape[2]
    low = x.dtype.type(-np.inf)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                o = out[b, i, j]
                first = True
                for di in range(kh):
                    r = i * sh + di - pt
                    for dj in range(kw):
                        q = j * sw + dj - pl
                        inside = 0 <= r < h and 0 <= q < w
                        if first:
                            if inside:
                                for k in range(c):
                                    o[k] = x[b, r, q, k]
                            else:
                                o[:] = low
                            first = False
                        elif inside:  # a later padding tap (-inf) changes no maximum
                            row = x[b, r, q]
                            for k in range(c):
                                a, v = o[k], row[k]
                                # np.maximum: the first operand when greater or NaN
                                o[k] = a if (a > v or a != a) else v
    return out


@_jit
def _first_maxima(x, b, i, j, kh, kw, sh, sw, pt, pl, best, at):
    """`at[k]`: the row-major index of the tap of window (b, i, j) holding channel k's first
    maximum (a NaN's first when the window holds one); `best` is scratch."""
    h, w, c = x.shape[1], x.shape[2], x.shape[3]
    low = x.dtype.type(-np.inf)
    t = 0
    for di in range(kh):
        r = i * sh + di - pt
        for dj in range(kw):
            q = j * sw + dj - pl
            inside = 0 <= r < h and 0 <= q < w
            for k in range(c):
                v = x[b, r, q, k] if inside else low
                a = best[k]
                # a later tap takes the window from a smaller value, or from a number by NaN
                take = t == 0 or v > a or (v != v and a == a)
                best[k] = v if take else a
                at[k] = t if take else at[k]
            t += 1


@_jit
def _zero_uncovered(out, rows, cols):
    """Zeros `out` [N, H, W, C] outside its first `rows` rows and `cols` columns."""
    n, h, w = out.shape[0], out.shape[1], out.shape[2]
    for b in range(n):
        for r in range(h):
            if r >= rows:
                out[b, r] = 0
            else:
                for q in range(min(cols, w), w):
                    out[b, r, q] = 0


@_jit
def max_pool_grad(x, g, kh, kw, sh, sw, pt, pl, out):
    """`out` [N, H, W, C]: `g` [N, OH, OW, C] sent to the first maximum of each window of
    `x`."""
    n, h, w, c = x.shape
    oh, ow = g.shape[1], g.shape[2]
    best = np.empty(c, x.dtype)
    disjoint = sh >= kh and sw >= kw  # each position in one window at most: written as it is
    if disjoint and sh == kh and sw == kw and pt <= 0 and pl <= 0:
        _zero_uncovered(out, oh * kh - pt, ow * kw - pl)  # windows tile the rest
    else:
        out[:] = 0
    taken = np.empty((1 if disjoint else n, oh, ow, c), np.int32)
    zero = g.dtype.type(0)
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                at = taken[0 if disjoint else b, i, j]
                _first_maxima(x, b, i, j, kh, kw, sh, sw, pt, pl, best, at)
                if not disjoint:
                    continue
                for t in range(kh * kw):
                    r, q = i * sh + t // kw - pt, j * sw + t % kw - pl
                    if 0 <= r < h and 0 <= q < w:
                        for k in range(c):
                            out[b, r, q, k] = g[b, i, j, k] if at[k] == t else zero
    if disjoint:
        return out
    # tap by tap, as the NumPy kernel adds its parts (the order of a position's sum)
    for t in range(kh * kw):
        di, dj = t // kw, t % kw
        for b in range(n):
            for i in range(oh):
                r = i * sh + di - pt
                if r < 0 or r >= h:
                    continue
                for j in range(ow):
                    q = j * sw + dj - pl
                    if q < 0 or q >= w:
                        continue
                    for k in range(c):
                        if taken[b, i, j, k] == t:
                            out[b, r, q, k] += g[b, i, j, k]
    return out


_BLOCK_BYTES = 512 << 10  # an im2col block: a few hundred rows, within the core's L2 cache
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112


def _gemm(a, trans_a, b, trans_b, c, beta):
    """c = op(a) @ op(b) + beta * c for C-contiguous matrices (op: transposed when asked),
    through NumPy's BLAS. Numba-only (see the overload)."""
    raise NotImplementedError("_gemm runs only in Numba kernels")


@numba.extending.overload(_gemm)
def _gemm_typed(a, trans_a, b, trans_b, c, beta):
    if NUMPY_BLAS is None:
        def fallback(a, trans_a, b, trans_b, c, beta):
            product = np.dot(a.T if trans_a else a, b.T if trans_b else b)
            if beta == 0:
                c[:] = product
            else:
                c[:] = c * beta + product
        return fallback
    single = c.dtype == numba.types.float32
    gemm = NUMPY_BLAS[0][0] if single else NUMPY_BLAS[0][1]
    real = np.float32 if single else np.float64

    def impl(a, trans_a, b, trans_b, c, beta):
        m, n = c.shape
        k = a.shape[0] if trans_a else a.shape[1]
        gemm(_ROW_MAJOR, _TRANS if trans_a else _NO_TRANS, _TRANS if trans_b else _NO_TRANS,
             m, n, k, real(1), a.ctypes.data, max(1, a.shape[1]), b.ctypes.data,
             max(1, b.shape[1]), real(beta), c.ctypes.data, max(1, n))
    return impl


@_jit
def _im2col(x, r0, r1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols):
    """cols[:r1 - r0]: the windows of output rows r0..r1 (flat over N, OH, OW) of `x`, one
    row each, its columns in the filters' (i, j, c) order; padding as zeros. A window's row
    inside the input with no dilation is one contiguous run of KW * C values."""
    h, w, c = x.shape[1], x.shape[2], x.shape[3]
    flat = x.reshape(x.size)
    run = kw * c
    zero = x.dtype.type(0)
    for r in range(r0, r1):
        b, rest = divmod(r, oh * ow)
        i, j = divmod(rest, ow)
        row = cols[r - r0]
        left = j * sw - pl
        whole = dw == 1 and left >= 0 and left + kw <= w
        for di in range(kh):
            src_r = i * sh + di * dh - pt
            if whole and 0 <= src_r < h:
                src = flat[((b * h + src_r) * w + left) * c:]
                dst = row[di * run:]
                for k in range(run):
                    dst[k] = src[k]
                continue
            for dj in range(kw):
                src_c = left + dj * dw
                at = (di * kw + dj) * c
                if 0 <= src_r < h and 0 <= src_c < w:
                    pixel = x[b, src_r, src_c]
                    for k in range(c):
                        row[at + k] = pixel[k]
                else:
                    for k in range(c):
                        row[at + k] = zero


@_jit
def flipped_filters(f):
    """[KH * KW * O, C]: the filters [KH, KW, C, O] flipped along both window axes, with the
    channel axes swapped (a stride-1 input gradient is the correlation of the output gradient
    with these)."""
    kh, kw, c, o = f.shape
    out = np.empty((kh * kw * o, c), f.dtype)
    for i in range(kh):
        for j in range(kw):
            for m in range(o):
                row = out[(i * kw + j) * o + m]
                for k in range(c):
                    row[k] = f[kh - 1 - i, kw - 1 - j, k, m]
    return out


@_jit
def _col2im(cols, r0, r1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, out):
    """Adds each row of cols[:r1 - r0] (output rows r0..r1) back into the input positions
    its window read, tap by tap; positions in the padding are dropped."""
    h, w, c = out.shape[1], out.shape[2], out.shape[3]
    for r in range(r0, r1):
        b, rest = divmod(r, oh * ow)
        i, j = divmod(rest, ow)
        row = cols[r - r0]
        for di in range(kh):
            dst_r = i * sh + di * dh - pt
            if dst_r < 0 or dst_r >= h:
                continue
            for dj in range(kw):
                dst_c = j * sw + dj * dw - pl
                if dst_c < 0 or dst_c >= w:
                    continue
                at = (di * kw + dj) * c
                pixel = out[b, dst_r, dst_c]
                for k in range(c):
                    pixel[k] += row[at + k]


@_jit
def _block_rows(rows, width, itemsize):
    return max(1, min(rows, _BLOCK_BYTES // max(1, width * itemsize)))


@_jit
def conv2d(x, f2, kh, kw, sh, sw, dh, dw, pt, pl, out):
    """`out` [N, OH, OW, O]: the cross-correlation of `x` with the filters `f2`
    [KH * KW * C, O], an im2col block of rows at a time times `f2` into the block's rows."""
    n, oh, ow = out.shape[0], out.shape[1], out.shape[2]
    k, o = f2.shape
    rows = n * oh * ow
    if rows == 0 or o == 0:
        return out
    flat = out.reshape(rows, o)
    step = _block_rows(rows, k, x.itemsize)
    cols = np.empty((step, k), x.dtype)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        _im2col(x, r0, r1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols)
        _gemm(cols[:r1 - r0], False, f2, False, flat[r0:r1], 0.0)
    return out


@_jit
def conv2d_backprop_filter(x, g, kh, kw, sh, sw, dh, dw, pt, pl):
    """[KH * KW * C, O]: the filter gradient of conv2d for output gradient `g`, the sum over
    im2col blocks of the block's columns (transposed) times its rows of `g`."""
    n, oh, ow, o = g.shape
    k = kh * kw * x.shape[3]
    dwt = np.zeros((k, o), g.dtype)
    rows = n * oh * ow
    if rows == 0 or o == 0 or k == 0:
        return dwt
    flat = g.reshape(rows, o)
    step = _block_rows(rows, k, x.itemsize)
    cols = np.empty((step, k), x.dtype)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        _im2col(x, r0, r1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, cols)
        _gemm(cols[:r1 - r0], True, flat[r0:r1], False, dwt, 1.0)
    return dwt


@_jit
def conv2d_backprop_input(g, f2, kh, kw, sh, sw, dh, dw, pt, pl, out):
    """`out` [N, H, W, C]: the input gradient of conv2d for output gradient `g`: each block
    of rows of `g` times `f2` transposed, added back into the positions its windows read."""
    n, oh, ow, o = g.shape
    k = f2.shape[0]
    out[:] = 0
    rows = n * oh * ow
    if rows == 0 or o == 0 or k == 0:
        return out
    flat = g.reshape(rows, o)
    step = _block_rows(rows, k, g.itemsize)
    cols = np.empty((step, k), g.dtype)
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        _gemm(flat[r0:r1], False, f2, True, cols[:r1 - r0], 0.0)
        _col2im(cols, r0, r1, kh, kw, sh, sw, dh, dw, pt, pl, oh, ow, out)
    return out
