"""NumPy kernels of the NHWC convolutions and pools: each convolution matrix products over
im2col blocks that stay in cache.

A convolution copies the windows of its (padded) input into an im2col matrix a block of
output rows at a time (whole images, or a few rows of one image; about `_BLOCK_BYTES`), so
the copy is read back by the matrix product from the core's cache instead of memory, and the
product writes the block's rows of the result in place. The matrix is [rows, KH * KW * C]
copied from a strided view of the windows, or with few input channels its transpose, copied
tap by tap from the input laid out one plane a channel (long contiguous runs where a
window's row would be a few values), in smaller blocks (`_PLANAR_BLOCK_BYTES`: their
products are narrow). The filter gradient is the output gradient's transpose times the same
blocks (a plane-wise block times the output gradient: [KH * KW * C, O] directly), summed.
The input gradient of a stride-1 convolution is the correlation of the padded output
gradient with the flipped, transposed filters (the same blocked product); with strides, or
when the input is much larger than the output, each tap's product is added back into its
input positions (col2im), a few images at a time. A 1x1 stride-1 convolution uses its input
as the matrix.
Pools run one elementwise pass a window tap over strided views, a few images at a time. The
max-pool gradient goes to the first maximum of each window in row-major order, as
TensorFlow's does.

Scratch arrays (the padded input, the im2col blocks, the pool's per-block maxima) are reused
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
_CACHED_COUNT = 48  # the blocked kernels keep several small arrays a layer shape


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


_BLOCK_BYTES = 512 << 10  # an im2col block: a few hundred rows, within the core's L2 cache
_PLANAR_BLOCK_BYTES = 128 << 10  # a plane-wise block (few channels): its products are narrow
PLANAR_CHANNELS = 4  # up to this many input channels, the windows are copied plane by plane


def _blocks(n, oh, row_bytes, block_bytes=_BLOCK_BYTES):
    """(n0, n1, h0, h1): the output rows of each im2col block, whole images when one fits
    in a block, else a few rows of one image (either way a contiguous part of the output)."""
    rows = max(1, block_bytes // max(row_bytes, 1))
    if rows >= oh:
        step = rows // oh
        for n0 in range(0, n, step):
            yield n0, min(n, n0 + step), 0, oh
        return
    for n0 in range(n):
        for h0 in range(0, oh, rows):
            yield n0, n0 + 1, h0, min(oh, h0 + rows)


def _window_view(xp, ksize, strides, dilations, oh, ow):
    """[N, OH, OW, KH, KW * C] strided view of the windows of `xp` (KW and C one axis when
    a window's row is contiguous, else [N, OH, OW, KH, KW, C])."""
    n, _, _, c = xp.shape
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    s0, s1, s2, s3 = xp.strides
    if dw == 1 and s2 == c * s3:
        return as_strided(xp, (n, oh, ow, kh, kw * c), (s0, s1 * sh, s2 * sw, s1 * dh, s3),
                          writeable=False)
    return as_strided(xp, (n, oh, ow, kh, kw, c), (s0, s1 * sh, s2 * sw, s1 * dh, s2 * dw, s3),
                      writeable=False)


def _planar(x, ph, pw):
    """[C, N, H', W']: `x` padded with zeros, one plane a channel (a scratch array)."""
    n, h, w, c = x.shape
    buf = scratch("conv_planes", (c, n, h + ph[0] + ph[1], w + pw[0] + pw[1]), x.dtype)
    if ph != (0, 0) or pw != (0, 0):
        buf[:, :, :ph[0]] = 0
        buf[:, :, ph[0] + h:] = 0
        buf[:, :, ph[0]:ph[0] + h, :pw[0]] = 0
        buf[:, :, ph[0]:ph[0] + h, pw[0] + w:] = 0
    buf[:, :, ph[0]:ph[0] + h, pw[0]:pw[0] + w] = x.transpose(3, 0, 1, 2)
    return buf


def _column_blocks(x, ksize, strides, dilations, padding_hw, out_hw):
    """(n0, n1, h0, h1, cols, planar) for each block of output rows: `cols` the block's
    im2col matrix, [rows, KH * KW * C] (columns in the filters' (i, j, c) order), or its
    transpose [KH * KW * C, rows] when `planar`, both views of one scratch array the next
    block overwrites."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    n, _, _, c = x.shape
    k = kh * kw * c
    planar = c <= PLANAR_CHANNELS
    if planar:
        xp = _planar(x, ph, pw)
    else:
        xp = padded(x, ph, pw, 0, "conv_pad")
        view = _window_view(xp, ksize, strides, dilations, oh, ow)
    block_bytes = _PLANAR_BLOCK_BYTES if planar else _BLOCK_BYTES
    buf = scratch("im2col", (max(block_bytes // x.itemsize, ow * k),), x.dtype)
    for n0, n1, h0, h1 in _blocks(n, oh, ow * k * x.itemsize, block_bytes):
        rows = (n1 - n0) * (h1 - h0) * ow
        if planar:
            cols = buf[:rows * k].reshape(kh, kw, c, n1 - n0, h1 - h0, ow)
            for i in range(kh):
                top = h0 * sh + i * dh
                for j in range(kw):
                    cols[i, j] = xp[:, n0:n1, top:top + (h1 - h0 - 1) * sh + 1:sh,
                                    j * dw:j * dw + (ow - 1) * sw + 1:sw]
            yield n0, n1, h0, h1, cols.reshape(k, rows), True
        else:
            cols = buf[:rows * k].reshape(view[n0:n1, h0:h1].shape)
            np.copyto(cols, view[n0:n1, h0:h1])
            yield n0, n1, h0, h1, cols.reshape(rows, k), False


def _correlate(x, f2, ksize, strides, dilations, padding_hw, out_hw) -> np.ndarray:
    """[N, OH, OW, O]: the windows of `x` times `f2` [KH * KW * C, O], block by block."""
    (oh, ow), o = out_hw, f2.shape[1]
    out = np.empty((x.shape[0], oh, ow, o), np.result_type(x, f2))
    for n0, n1, h0, h1, cols, planar in _column_blocks(x, ksize, strides, dilations,
                                                        padding_hw, out_hw):
        block = out[n0:n1, h0:h1].reshape(-1, o)
        np.matmul(cols.T if planar else cols, f2, out=block)
    return out


def conv2d(x, filters, strides, padding_hw, dilations, out_hw) -> np.ndarray:
    """[N, OH, OW, O]: the cross-correlation of `x` with `filters` [KH, KW, C, O]."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    kh, kw, c, o = filters.shape
    n = x.shape[0]
    dtype = np.result_type(x, filters)
    if 0 in (n, oh, ow, o) or c == 0:
        return np.zeros((n, oh, ow, o), dtype)
    f2 = filters.reshape(kh * kw * c, o)
    if kh == kw == 1 and x.shape[1:3] == (oh, ow) and ph == pw == (0, 0):
        return np.matmul(x.reshape(n * oh * ow, c), f2).reshape(n, oh, ow, o)
    return _correlate(x, f2, (kh, kw), strides, dilations, padding_hw, out_hw)


def conv2d_backprop_filter(x, g, filter_hw, strides, padding_hw, dilations) -> np.ndarray:
    """[KH, KW, C, O]: the gradient of conv2d's filters for output gradient `g`."""
    (kh, kw) = filter_hw
    n, oh, ow, o = g.shape
    c = x.shape[3]
    dtype = np.result_type(x, g)
    if 0 in (n, oh, ow, o, c):
        return np.zeros((kh, kw, c, o), dtype)
    k = kh * kw * c
    # summed over the blocks: [K, O] = cols^T g from planar blocks (their columns already
    # rows of K), else [O, K] = g^T cols, transposed at the end
    planar = c <= PLANAR_CHANNELS
    dw = np.zeros((k, o) if planar else (o, k), dtype)
    part = scratch("conv_dw", dw.shape, dtype)
    for n0, n1, h0, h1, cols, planar in _column_blocks(x, (kh, kw), strides, dilations,
                                                        padding_hw, (oh, ow)):
        gb = g[n0:n1, h0:h1].reshape(-1, o)
        if planar:
            np.matmul(cols, gb, out=part)
        else:
            np.matmul(gb.T, cols, out=part)
        dw += part
    return (dw if planar else np.ascontiguousarray(dw.T)).reshape(kh, kw, c, o)


def conv2d_backprop_input(g, filters, input_hw, strides, padding_hw, dilations) -> np.ndarray:
    """[N, H, W, C]: the gradient of conv2d's input for output gradient `g` (also the
    transposed convolution of `g`)."""
    (ph, pw) = padding_hw
    kh, kw, c, o = filters.shape
    n, oh, ow, _ = g.shape
    dtype = np.result_type(g, filters)
    if 0 in (n, oh, ow, o, c):
        return np.zeros((n, *input_hw, c), dtype)
    h, w = input_hw
    if strides == (1, 1) and c > PLANAR_CHANNELS and 5 * h * w <= 6 * oh * ow:
        # a stride-1 convolution's input gradient is the correlation of `g`, padded by the
        # window's extent less the forward padding, with the filters flipped and transposed
        # (one product over K = KH * KW * O; when the input is much larger than the output,
        # as with small 'VALID' inputs, most of that product would run over the padding)
        (dh, dw) = dilations
        eh, ew = (kh - 1) * dh, (kw - 1) * dw
        flipped = np.ascontiguousarray(filters[::-1, ::-1].transpose(0, 1, 3, 2))
        return _correlate(g, flipped.reshape(kh * kw * o, c), (kh, kw), (1, 1), dilations,
                          ((eh - ph[0], eh - ph[1]), (ew - pw[0], ew - pw[1])), input_hw)
    # else each tap's product added back into the input's positions (col2im), a few images
    # at a time so that their part of the result stays in cache
    out = _padded_zeros(n, input_hw, c, (kh, kw), strides, dilations, ph, pw, oh, ow, dtype)
    index = taps((kh, kw), strides, dilations, oh, ow)
    f2 = filters.reshape(kh * kw * c, o)
    per_tap = filters.reshape(kh * kw, c, o)
    step = max(1, 2 * _BLOCK_BYTES // (oh * ow * max(c, kh * kw) * g.itemsize))
    for n0 in range(0, n, step):
        n1 = min(n, n0 + step)
        gb, ob = g[n0:n1].reshape(-1, o), out[n0:n1]
        if c == 1:  # one product, tap-major [KH * KW, rows]: each tap's part contiguous
            cols = np.matmul(f2, gb.T).reshape(kh * kw, n1 - n0, oh, ow, 1)
            for t, at in enumerate(index):
                ob[at] += cols[t]
            continue
        block = scratch("col2im", (gb.shape[0], c), dtype)
        for t, at in enumerate(index):
            np.matmul(gb, per_tap[t].T, out=block)
            ob[at] += block.reshape(n1 - n0, oh, ow, c)
    return _crop(out, input_hw, ph, pw)


# -- pools ---------------------------------------------------------------------------------------


def _image_blocks(n, image_bytes):
    """(n0, n1): a few images at a time, about `_BLOCK_BYTES` of `image_bytes` each."""
    step = max(1, _BLOCK_BYTES // max(image_bytes, 1))
    for n0 in range(0, n, step):
        yield n0, min(n, n0 + step)


def max_pool(x, ksize, strides, padding_hw, out_hw) -> np.ndarray:
    """[N, OH, OW, C]: the maximum of each window (NaN when the window holds one)."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    n, c = x.shape[0], x.shape[3]
    if 0 in (n, oh, ow, c):
        return np.zeros((n, oh, ow, c), x.dtype)
    xp = padded(x, ph, pw, -np.inf, "pool_pad")
    index = taps(ksize, strides, (1, 1), oh, ow)
    out = np.empty((n, oh, ow, c), x.dtype)
    for n0, n1 in _image_blocks(n, oh * ow * c * x.itemsize):
        _window_max(xp[n0:n1], index, out[n0:n1])
    return out


def _window_max(xp, index, out):
    """`out`: the maximum over the taps `index` of `xp`."""
    if len(index) == 1:
        np.copyto(out, xp[index[0]])
    else:
        np.maximum(xp[index[0]], xp[index[1]], out=out)
    for at in index[2:]:
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
    index = taps(ksize, strides, (1, 1), oh, ow)
    last = len(index) - 1
    out = _padded_zeros(n, (h, w), c, ksize, strides, (1, 1), ph, pw, oh, ow, g.dtype)
    # disjoint windows: each position in one window at most, so each tap's part is written
    # into the result as it is; else added
    disjoint = strides[0] >= ksize[0] and strides[1] >= ksize[1]
    # in the integers of g's bits: a window's gradient multiplied by 0 or 1 (bit for bit,
    # NaN and inf too, +0 elsewhere), taken out of `rest` once a maximum has it. A few
    # images at a time, so that the passes over each tap run in cache
    ints = np.dtype(f"i{g.dtype.itemsize}")
    out_ints = out.view(ints)
    for n0, n1 in _image_blocks(n, oh * ow * c * max(x.itemsize, g.itemsize)):
        shape = (n1 - n0, oh, ow, c)
        xb = xp[n0:n1]
        y = _window_max(xb, index, scratch("pool_max", shape, x.dtype))
        nan = _nan_windows(y)
        rest = scratch("pool_rest", shape, ints)
        np.copyto(rest, g[n0:n1].view(ints))
        hit = scratch("pool_hit", shape, np.bool_)
        part = None if disjoint else scratch("pool_part", shape, ints)
        for t, at in enumerate(index):
            np.equal(xb[at], y, out=hit)
            if nan is not None:
                hit |= np.isnan(xb[at]) & nan
            target = out_ints[n0:n1][at] if disjoint else part
            np.multiply(rest, hit, out=target)
            if not disjoint:
                out[n0:n1][at] += part.view(g.dtype)
            if t < last:
                rest -= target
    return _crop(out, (h, w), ph, pw)


def max_pool_grad_grad(x, gg, ksize, strides, padding_hw, out_hw) -> np.ndarray:
    """[N, OH, OW, C]: `gg` [N, H, W, C] read at the first maximum of each window."""
    (ph, pw), (oh, ow) = padding_hw, out_hw
    n, _, _, c = x.shape
    if 0 in (n, oh, ow, c):
        return np.zeros((n, oh, ow, c), gg.dtype)
    xp = padded(x, ph, pw, -np.inf, "pool_pad")
    index = taps(ksize, strides, (1, 1), oh, ow)
    y = _window_max(xp, index, np.empty((n, oh, ow, c), x.dtype))
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
