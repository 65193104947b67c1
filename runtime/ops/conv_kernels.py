"""NumPy kernels of the NHWC convolutions and pools: each convolution one matrix product.

A convolution copies the windows of its (padded) input once into a contiguous im2col matrix
[N * OH * OW, KH * KW * C] and multiplies it by the filters seen as [KH * KW * C, O]; the
filter gradient is the same matrix's transpose times the output gradient, and the input
gradient is the output gradient times the filters' transpose, added back tap by tap
(col2im). With one input channel the matrix is built tap-major, [KH * KW, N * OH * OW], so
each tap is one contiguous copy; a 1x1 stride-1 convolution uses its input as the matrix.
Pools run one elementwise pass a window tap over strided views. The max-pool gradient copies
the windows tap-major once and goes to the first maximum of each window in row-major order,
as TensorFlow's does.

Scratch arrays (the padded input, the im2col matrix, the pool's window copies) are reused
across calls of one thread: they never leave a kernel, so no result aliases them. Every
kernel's result is a new array (the ops declare `fresh_output`, so the elementwise ops after
them may write into it).
"""

from __future__ import annotations

import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

_local = threading.local()
_CACHED_BYTES = 64 << 20   # larger scratch arrays are allocated per call, not kept
_CACHED_TOTAL = 128 << 20  # what a thread keeps at most; the least recently used goes first
_CACHED_COUNT = 16


def scratch(tag: str, shape: tuple, dtype) -> np.ndarray:
    """An uninitialised array of `shape` this thread reuses for `tag` at every call."""
    cache = getattr(_local, "buffers", None)
    if cache is None:
        cache = _local.buffers = {}
    key = (tag, shape, np.dtype(dtype))
    buf = cache.pop(key, None)
    if buf is None:
        buf = np.empty(shape, dtype)
        if buf.nbytes > _CACHED_BYTES:
            return buf
        total = sum(b.nbytes for b in cache.values()) + buf.nbytes
        while cache and (len(cache) >= _CACHED_COUNT or total > _CACHED_TOTAL):
            total -= cache.pop(next(iter(cache))).nbytes
    cache[key] = buf  # last: the most recently used
    return buf


def taps(ksize, strides, dilations, oh, ow):
    """The index of the padded input positions each tap (i, j) reads, [N, OH, OW, C], in
    row-major tap order."""
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    return [(slice(None), slice(i * dh, i * dh + (oh - 1) * sh + 1, sh),
             slice(j * dw, j * dw + (ow - 1) * sw + 1, sw))
            for i in range(kh) for j in range(kw)]


def padded(x, ph, pw, value, tag: str) -> np.ndarray:
    """`x` with `value` rows and columns around its height and width (a scratch array)."""
    if ph == (0, 0) and pw == (0, 0):
        return x
    n, h, w, c = x.shape
    buf = scratch(tag, (n, h + ph[0] + ph[1], w + pw[0] + pw[1], c), x.dtype)
    buf[:, :ph[0]] = value
    buf[:, ph[0] + h:] = value
    buf[:, ph[0]:ph[0] + h, :pw[0]] = value
    buf[:, ph[0]:ph[0] + h, pw[0] + w:] = value
    buf[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w] = x
    return buf


def _crop(out, size, ph, pw):
    if out.shape[1:3] == tuple(size) and ph[0] == 0 and pw[0] == 0:
        return out
    (h, w) = size
    return np.ascontiguousarray(out[:, ph[0]:ph[0] + h, pw[0]:pw[0] + w, :])


def _padded_zeros(n, size, c, ksize, strides, dilations, ph, pw, oh, ow, dtype):
    """Zeros the size of the padded input, at least as large as every tap's positions."""
    (h, w), (kh, kw), (sh, sw), (dh, dw) = size, ksize, strides, dilations
    hp = max(h + ph[0] + ph[1], (kh - 1) * dh + (oh - 1) * sh + 1)
    wp = max(w + pw[0] + pw[1], (kw - 1) * dw + (ow - 1) * sw + 1)
    return np.zeros((n, hp, wp, c), dtype)


def im2col(xp, ksize, strides, dilations, oh, ow) -> np.ndarray:
    """The [N * OH * OW, KH * KW * C] matrix of the windows of the padded input `xp`
    (a view of a scratch array: tap-major and transposed when C is 1)."""
    n, _, _, c = xp.shape
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    m, k = n * oh * ow, kh * kw * c
    if k == c and xp.shape[1:3] == (oh, ow):  # 1x1 windows at every position: x itself
        return xp.reshape(m, k)
    if c == 1:
        cols = scratch("im2col_t", (kh * kw, n, oh, ow, 1), xp.dtype)
        for t, index in enumerate(taps(ksize, strides, dilations, oh, ow)):
            cols[t] = xp[index]
        return cols.reshape(k, m).T
    s0, s1, s2, s3 = xp.strides
    view = as_strided(xp, (n, oh, ow, kh, kw, c), (s0, s1 * sh, s2 * sw, s1 * dh, s2 * dw, s3),
                      writeable=False)
    cols = scratch("im2col", (n, oh, ow, kh, kw, c), xp.dtype)
    np.copyto(cols, view)
    return cols.reshape(m, k)


def conv2d(x, filters, strides, padding_hw, dilations, out_hw) -> np.ndarray:
    """[N, OH, OW, O]: the cross-correlation of `x` with `filters` [KH, KW, C, O]."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    kh, kw, c, o = filters.shape
    n = x.shape[0]
    dtype = np.result_type(x, filters)
    if 0 in (n, oh, ow, o) or c == 0:
        return np.zeros((n, oh, ow, o), dtype)
    cols = im2col(padded(x, ph, pw, 0, "conv_pad"), (kh, kw), strides, dilations, oh, ow)
    out = np.matmul(cols, filters.reshape(kh * kw * c, o))
    return out.reshape(n, oh, ow, o)


def conv2d_backprop_filter(x, g, filter_hw, strides, padding_hw, dilations) -> np.ndarray:
    """[KH, KW, C, O]: the gradient of conv2d's filters for output gradient `g`."""
    (ph, pw), (kh, kw) = padding_hw, filter_hw
    n, oh, ow, o = g.shape
    c = x.shape[3]
    dtype = np.result_type(x, g)
    if 0 in (n, oh, ow, o, c):
        return np.zeros((kh, kw, c, o), dtype)
    cols = im2col(padded(x, ph, pw, 0, "conv_pad"), (kh, kw), strides, dilations, oh, ow)
    # [O, K] then transposed: OpenBLAS runs this orientation a little faster than [K, O]
    dw = np.matmul(g.reshape(n * oh * ow, o).T, cols)
    return np.ascontiguousarray(dw.T).reshape(kh, kw, c, o)


def conv2d_backprop_input(g, filters, input_hw, strides, padding_hw, dilations) -> np.ndarray:
    """[N, H, W, C]: the gradient of conv2d's input for output gradient `g` (also the
    transposed convolution of `g`)."""
    (ph, pw) = padding_hw
    kh, kw, c, o = filters.shape
    n, oh, ow, _ = g.shape
    dtype = np.result_type(g, filters)
    if 0 in (n, oh, ow, o, c):
        return np.zeros((n, *input_hw, c), dtype)
    g2, f2 = g.reshape(n * oh * ow, o), filters.reshape(kh * kw * c, o)
    out = _padded_zeros(n, input_hw, c, (kh, kw), strides, dilations, ph, pw, oh, ow, dtype)
    index = taps((kh, kw), strides, dilations, oh, ow)
    # each tap's columns contiguous, so adding them back runs over whole rows (the columns
    # of one product [N, OH, OW, KH * KW, C] would be added C values at a time)
    if c == 1:  # one product, tap-major [KH * KW, N * OH * OW]
        cols = np.matmul(f2, g2.T).reshape(kh * kw, n, oh, ow, c)
        for t, at in enumerate(index):
            out[at] += cols[t]
    else:  # a product a tap, into one scratch block that stays in cache for its addition
        per_tap = filters.reshape(kh * kw, c, o)
        block = scratch("col2im", (n * oh * ow, c), dtype)
        for t, at in enumerate(index):
            np.matmul(g2, per_tap[t].T, out=block)
            out[at] += block.reshape(n, oh, ow, c)
    return _crop(out, input_hw, ph, pw)


# -- pools ---------------------------------------------------------------------------------------


def max_pool(x, ksize, strides, padding_hw, out_hw) -> np.ndarray:
    """[N, OH, OW, C]: the maximum of each window (NaN when the window holds one)."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    if 0 in (x.shape[0], oh, ow, x.shape[3]):
        return np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    return _window_max(padded(x, ph, pw, -np.inf, "pool_pad"),
                       taps(ksize, strides, (1, 1), oh, ow))


def _window_max(xp, index):
    out = xp[index[0]].copy()
    for at in index[1:]:
        np.maximum(out, xp[at], out=out)
    return out


def _nan_windows(y):
    """Where the windows' maximum is NaN, or None when none is."""
    return np.isnan(y) if y.dtype.kind == "f" and np.isnan(y.sum()) else None


def _first_max_masks(xp, y, index):
    """For each tap, where its position is the first (row-major) maximum of the window.

    A window holding NaN has NaN as its maximum, and its first NaN is that position."""
    nan = _nan_windows(y)
    taken = None
    last = len(index) - 1
    for t, at in enumerate(index):
        mask = np.equal(xp[at], y)
        if nan is not None:
            mask |= np.isnan(xp[at]) & nan
        if taken is None:
            taken = mask.copy() if t < last else None
        else:
            mask &= ~taken
            if t < last:
                taken |= mask
        yield at, mask


def _window_major(xp, ksize, strides, oh, ow):
    """[KH, KW, N, OH, OW, C] view of the windows of `xp` (any array of its layout)."""
    n, _, _, c = xp.shape
    s0, s1, s2, s3 = xp.strides
    return as_strided(xp, (*ksize, n, oh, ow, c),
                      (s1, s2, s0, s1 * strides[0], s2 * strides[1], s3), writeable=False)


def max_pool_grad(x, g, ksize, strides, padding_hw, out_hw) -> np.ndarray:
    """[N, H, W, C]: `g` sent to the first maximum of each window."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    n, h, w, c = x.shape
    if 0 in (n, oh, ow, c):
        return np.zeros(x.shape, g.dtype)
    xp = padded(x, ph, pw, -np.inf, "pool_pad")
    # the windows copied once, tap-major: every later pass runs over contiguous rows
    view = _window_major(xp, ksize, strides, oh, ow)
    taps_count = ksize[0] * ksize[1]
    cols = scratch("pool_cols", (taps_count, n, oh, ow, c), x.dtype)
    np.copyto(cols.reshape(view.shape), view)
    y = cols.max(axis=0)
    nan = _nan_windows(y)
    # in the integers of g's bits: a window's gradient multiplied by 0 or 1 (bit for bit,
    # NaN and inf too, +0 elsewhere), taken out of `rest` once a maximum has it
    ints = np.dtype(f"i{g.dtype.itemsize}")
    rest = g.view(ints).copy()
    parts = scratch("pool_parts", cols.shape, ints)
    for t in range(taps_count):
        hit = np.equal(cols[t], y)
        if nan is not None:
            hit |= np.isnan(cols[t]) & nan
        np.multiply(rest, hit, out=parts[t])
        if t < taps_count - 1:
            rest -= parts[t]
    out = _padded_zeros(n, (h, w), c, ksize, strides, (1, 1), ph, pw, oh, ow, g.dtype)
    if strides[0] >= ksize[0] and strides[1] >= ksize[1]:
        # disjoint windows: each position in one window at most, so one copy puts them back
        np.copyto(as_strided(out.view(ints), view.shape,
                             _window_major(out, ksize, strides, oh, ow).strides),
                  parts.reshape(view.shape))
    else:
        for t, at in enumerate(taps(ksize, strides, (1, 1), oh, ow)):
            out[at] += parts[t].view(g.dtype)
    return _crop(out, (h, w), ph, pw)


def max_pool_grad_grad(x, gg, ksize, strides, padding_hw, out_hw) -> np.ndarray:
    """[N, OH, OW, C]: `gg` [N, H, W, C] read at the first maximum of each window."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    n, _, _, c = x.shape
    if 0 in (n, oh, ow, c):
        return np.zeros((n, oh, ow, c), gg.dtype)
    xp = padded(x, ph, pw, -np.inf, "pool_pad")
    index = taps(ksize, strides, (1, 1), oh, ow)
    y = _window_max(xp, index)
    ggp = padded(gg, ph, pw, 0, "pool_pad_grad")
    out = np.zeros((n, oh, ow, c), gg.dtype)
    for at, mask in _first_max_masks(xp, y, index):
        out += np.where(mask, ggp[at], 0)
    return out


def window_counts(h, w, ksize, strides, ph, pw, oh, ow, dtype) -> np.ndarray:
    """[OH, OW]: how many input (not padding) elements each pooling window covers."""
    def along(size, k, s, pad, out):
        start = np.arange(out) * s - pad[0]
        return np.minimum(start + k, size) - np.maximum(start, 0)
    rows = along(h, ksize[0], strides[0], ph, oh)
    cols = along(w, ksize[1], strides[1], pw, ow)
    return np.multiply.outer(rows, cols).astype(dtype)


def avg_pool(x, ksize, strides, padding_hw, out_hw) -> np.ndarray:
    """[N, OH, OW, C]: the mean of each window over its input (not padding) elements."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    n, h, w, c = x.shape
    if 0 in (n, oh, ow, c):
        return np.zeros((n, oh, ow, c), x.dtype)
    xp = padded(x, ph, pw, 0, "pool_pad")
    out = None
    for at in taps(ksize, strides, (1, 1), oh, ow):
        if out is None:
            out = xp[at].copy()
        else:
            out += xp[at]
    counts = window_counts(h, w, ksize, strides, ph, pw, oh, ow, x.dtype)
    out /= counts[None, :, :, None]
    return out


def avg_pool_grad(g, input_hw, ksize, strides, padding_hw) -> np.ndarray:
    """[N, H, W, C]: each window's `g` shared evenly by its input elements."""
    (ph, pw) = padding_hw
    n, oh, ow, c = g.shape
    h, w = input_hw
    if 0 in (n, oh, ow, c):
        return np.zeros((n, h, w, c), g.dtype)
    counts = window_counts(h, w, ksize, strides, ph, pw, oh, ow, g.dtype)
    share = g / counts[None, :, :, None]
    out = _padded_zeros(n, (h, w), c, ksize, strides, (1, 1), ph, pw, oh, ow, g.dtype)
    if strides[0] >= ksize[0] and strides[1] >= ksize[1]:  # disjoint windows: one copy
        view = _window_major(out, ksize, strides, oh, ow)
        np.copyto(as_strided(out, view.shape, view.strides), share)
    else:
        for at in taps(ksize, strides, (1, 1), oh, ow):
            out[at] += share
    return _crop(out, (h, w), ph, pw)
