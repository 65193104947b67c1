"""`keras.ops`' core, math and linear-algebra functions over the runtime's ops, with Keras 3's
signatures: control flow in JAX's style (`scan`, `fori_loop`, `switch`, `associative_scan`),
scatters and slices, segment reductions, Fourier transforms on (real, imaginary) pairs, and
`keras.ops.linalg` in NumPy's conventions (`svd` gives `u, s, vh`; `lstsq` one solution).
"""

from __future__ import annotations

import re

import numpy as np

from .. import dtypes as _dtypes
from .. import nest as _nest
from ..gradients import custom as _custom
from ..gradients.tape import GradientTape
from ..ops import array_math as _am
from ..tensor import Tensor
from .ops_numpy import _constant_value, _float, _linalg, _math, _rank, _rt, _signal, _t

# -- core -------------------------------------------------------------------------------------


def dtype(x) -> str:
    """The standardized name of `x`'s dtype ("float32", "int32", ...)."""
    return _t(x).dtype.name


def is_tensor(x) -> bool:
    """Whether `x` is a tensor of this runtime (NumPy arrays are not)."""
    return isinstance(x, Tensor)


def stop_gradient(variable):
    """`variable` as a value no gradient flows through."""
    return _custom.stop_gradient(_t(variable))


def custom_gradient(f):
    """Decorator: `f(*args)` returns `(y, grad_fn)`; gradients of `y` come from `grad_fn`
    (`grad_fn(*args, upstream=None)` in Keras's form, or `grad_fn(upstream)`)."""
    return _custom.custom_gradient(f)


def rsqrt(x):
    """1 / sqrt(x)."""
    return _math.rsqrt(_float(x))


def erf(x):
    """The error function."""
    return _math.erf(_float(x))


def erfc(x):
    """1 - erf(x)."""
    return _math.erfc(_float(x))


def erfinv(x):
    """The inverse of the error function."""
    return _math.erfinv(_float(x))


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) along `axis`, computed stably."""
    return _math.reduce_logsumexp(_float(x), axis=axis, keepdims=keepdims)


def saturate_cast(x, dtype):  # noqa: A002,F811 - Keras's names
    """`x` as `dtype`, values clipped to its range first."""
    return _rt.saturate_cast(_t(x), dtype)


def top_k(x, k, sorted=True):  # noqa: A002 - Keras's name
    """The `k` largest values along the last axis and their int32 indices."""
    out = _math.top_k(_t(x), k=k, sorted=sorted)
    return out.values, out.indices


def in_top_k(targets, predictions, k):
    """Whether each target class is among the `k` largest predictions of its row."""
    return _math.in_top_k(_t(targets), _t(predictions), k)


def unstack(x, num=None, axis=0):
    """The slices of `x` along `axis`, as a list."""
    return list(_rt.unstack(_t(x), num=num, axis=axis))


def slice(inputs, start_indices, shape):  # noqa: A001 - Keras's name
    """The block of `inputs` of `shape` starting at `start_indices`."""
    return _rt.slice(_t(inputs), start_indices, shape)


def _block_indices(start_indices, updates: Tensor) -> Tensor:
    dims = updates.shape.as_tuple()
    if dims is None or None in dims:
        raise ValueError(f"keras.ops.slice_update needs updates of known shape, got "
                         f"{updates.shape}.")
    grid = np.indices(dims, dtype=np.int32).reshape(len(dims), -1).T        # [n, rank]
    start = _am.cast(_t(start_indices), _dtypes.int32)
    return _am.add(grid, _am.reshape(start, [1, len(dims)]))


def slice_update(inputs, start_indices, updates):
    """`inputs` with the block starting at `start_indices` replaced by `updates`."""
    x = _t(inputs)
    block = _am.cast(_t(updates), x.dtype)
    return _rt.tensor_scatter_nd_update(x, _block_indices(start_indices, block),
                                        _am.reshape(block, [-1]))


def scatter(indices, values, shape):
    """A tensor of `shape`, zero but for `values` at `indices` (duplicates are summed)."""
    return _rt.scatter_nd(_t(indices), _t(values), shape)


_REDUCTIONS = {None: "tensor_scatter_nd_update", "add": "tensor_scatter_nd_add",
               "max": "tensor_scatter_nd_max", "min": "tensor_scatter_nd_min"}


def scatter_update(inputs, indices, updates, reduction=None):
    """`inputs` with `updates` written at `indices` (or combined with reduction "add",
    "max" or "min")."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"keras.ops.scatter_update(reduction={reduction!r}): expected None, "
                         "'add', 'max' or 'min'.")
    x = _t(inputs)
    return getattr(_rt, _REDUCTIONS[reduction])(x, _t(indices), _am.cast(_t(updates), x.dtype))


def _segment(name: str, op: str):
    def segment(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
        ids = _t(segment_ids)
        if num_segments is None:
            num_segments = _am.add(_am.reduce_max(ids), 1)
        return getattr(_math, op)(_t(data), ids, num_segments)
    segment.__name__ = segment.__qualname__ = name
    segment.__doc__ = (f"The {name.split('_')[1]} of `data`'s rows in each segment of "
                       "`segment_ids` (num_segments: the largest id + 1 by default).")
    return segment


segment_sum = _segment("segment_sum", "unsorted_segment_sum")
segment_max = _segment("segment_max", "unsorted_segment_max")
segment_min = _segment("segment_min", "unsorted_segment_min")
segment_prod = _segment("segment_prod", "unsorted_segment_prod")


# -- control flow -------------------------------------------------------------------------


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` else `false_fn()` (one staged conditional in a function)."""
    return _rt.cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):  # noqa: F811
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; a single loop
    variable (not a tuple or list) is passed and returned as itself."""
    single = not isinstance(loop_vars, (list, tuple))
    if single:
        return _rt.while_loop(cond, body, [loop_vars],
                              maximum_iterations=maximum_iterations)[0]
    out = _rt.while_loop(lambda *v: cond(*v), lambda *v: tuple(body(*v)), tuple(loop_vars),
                         maximum_iterations=maximum_iterations)
    return type(loop_vars)(out)


def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for i from `lower` to `upper` - 1; returns the last `val`."""
    i0 = _t(lower)

    def body(i, val):
        return _am.add(i, _am.cast(1, i.dtype)), body_fun(i, val)
    _, out = _rt.while_loop(lambda i, val: _am.less(i, _am.cast(_t(upper), i.dtype)), body,
                            (i0, init_val))
    return out


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped to the branches' range."""
    n = len(branches)
    idx = _am.clip_by_value(_am.cast(_t(index), _dtypes.int32), 0, n - 1)
    return _rt.switch_case(idx, [lambda b=b: b(*operands) for b in branches])


def _leading_slices(tree, reverse: bool):
    leaves = _nest.flatten(tree)
    tensors = [_t(leaf) for leaf in leaves]
    length = tensors[0].shape[0] if tensors else None
    if length is None:
        raise ValueError("keras.ops.scan needs `xs` of a known leading length (or `length`).")
    rows = [list(_rt.unstack(t, num=length, axis=0)) for t in tensors]
    order = range(length - 1, -1, -1) if reverse else range(length)
    return length, [(_nest.pack_sequence_as(tree, [r[i] for r in rows])) for i in order]


def _weakly_typed(values: list) -> list:
    """Python numbers take the dtype of the tensors among `values` (as JAX's weak types)."""
    typed = [v for v in values if isinstance(v, (Tensor, np.ndarray, np.generic))]
    if not typed:
        return values
    dtype = _t(typed[-1]).dtype
    return [_am.cast(_t(v), dtype) if not isinstance(v, (Tensor, np.ndarray, np.generic))
            else v for v in values]


def _stack_tree(items: list, reverse: bool):
    if reverse:
        items = items[::-1]
    if not items or items[0] is None:
        return None
    flat = [_nest.flatten(item) for item in items]
    stacked = [_rt.stack(_weakly_typed([row[j] for row in flat]), axis=0)
               for j in range(len(flat[0]))]
    return _nest.pack_sequence_as(items[0], stacked)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """JAX's scan: `carry, y = f(carry, x)` over the leading axis of `xs` (or `length`
    times with x None); returns the last carry and the stacked `y`s. The steps are
    unrolled (the length must be known while tracing)."""
    if xs is None:
        if length is None:
            raise ValueError("keras.ops.scan needs `xs` or `length`.")
        steps = [None] * int(length)
    else:
        n, steps = _leading_slices(xs, reverse)
        if length is not None and int(length) != n:
            raise ValueError(f"keras.ops.scan: length={length} but xs has {n} rows.")
    carry, ys = init, []
    for x in steps:
        carry, y = f(carry, x)
        ys.append(y)
    return carry, _stack_tree(ys, reverse and xs is not None)


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of `elems` along `axis` with the associative binary `f`
    (`f(a, b)` on slices), as JAX's `associative_scan`."""
    leaves = [_t(leaf) for leaf in _nest.flatten(elems)]
    moved, perm = leaves, None
    if axis not in (0, -_rank(leaves[0], "associative_scan")):
        rank = _rank(leaves[0], "associative_scan")
        ax = axis % rank
        perm = [ax] + [i for i in range(rank) if i != ax]
        moved = [_rt.transpose(leaf, perm) for leaf in leaves]
    tree = _nest.pack_sequence_as(elems, moved)
    _, rows = _leading_slices(tree, reverse)
    acc, outs = None, []
    for row in rows:
        acc = row if acc is None else (f(row, acc) if reverse else f(acc, row))
        outs.append(acc)
    out = _stack_tree(outs, reverse)
    if perm is not None:
        back = list(np.argsort(perm))
        out = _nest.map_structure(lambda t: _rt.transpose(t, back), out)
    return out


def map(f, xs):  # noqa: A001 - Keras's name
    """`f` applied to each slice of `xs` along its leading axis, the results stacked."""
    return _rt.map_fn(f, xs if isinstance(xs, (list, tuple, dict)) else _t(xs))


def vectorized_map(function, elements):
    """`function` applied to each slice of `elements` along the leading axis, vectorised."""
    return _rt.vectorized_map(function, elements)


# -- Fourier transforms on (real, imaginary) pairs ----------------------------------------


def _complex_of(x, what: str) -> Tensor:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"keras.ops.{what} takes a tuple (real, imag) of two tensors of the "
                         f"same shape, got {type(x).__name__}.")
    real, imag = _float(x[0]), _float(x[1])
    if real.dtype is not imag.dtype:
        imag = _am.cast(imag, real.dtype)
    return _rt.complex(real, imag)


def _pair(z: Tensor) -> tuple[Tensor, Tensor]:
    return _math.real(z), _math.imag(z)


def fft(x):
    """The FFT over the last axis of (real, imag); returns (real, imag)."""
    return _pair(_signal.fft(_complex_of(x, "fft")))


def fft2(x):
    """The 2-D FFT over the last two axes of (real, imag); returns (real, imag)."""
    return _pair(_signal.fft2d(_complex_of(x, "fft2")))


def ifft2(x):
    """The inverse 2-D FFT over the last two axes of (real, imag); returns (real, imag)."""
    return _pair(_signal.ifft2d(_complex_of(x, "ifft2")))


def rfft(x, fft_length=None):
    """The FFT of the real `x` over its last axis (the fft_length // 2 + 1 non-negative
    frequencies); returns (real, imag)."""
    t = _float(x)
    length = None if fft_length is None else [int(fft_length)]
    return _pair(_signal.rfft(t, fft_length=length))


def irfft(x, fft_length=None):
    """The real signal whose non-negative frequencies are (real, imag)."""
    length = None if fft_length is None else [int(fft_length)]
    return _signal.irfft(_complex_of(x, "irfft"), fft_length=length)


def _padded_window(window, sequence_length: int, fft_length: int, dtype, what: str):
    """`window` (a name, values, or None) of sequence_length zero-padded to fft_length,
    centred, as Keras's TensorFlow backend frames: NumPy values when known while tracing
    (a tensor otherwise), None for no window."""
    if fft_length < sequence_length:
        raise ValueError("`fft_length` must equal or larger than `sequence_length`. Received: "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(f"keras.ops.{what}(window={window!r}): expected 'hann', "
                             "'hamming', None or a 1-D tensor of length sequence_length.")
        a = 0.5 if window == "hann" else 0.54  # periodic, as tf.signal's windows
        values = a - (1 - a) * np.cos(2 * np.pi * np.arange(sequence_length) / sequence_length)
    else:
        values = _constant_value(window) if isinstance(window, Tensor) else np.asarray(window)
        if values is None:
            values = _float(window)
    if values.shape != (sequence_length,):
        raise ValueError("The shape of `window` must be equal to [sequence_length]. "
                         f"Received: window shape={tuple(values.shape)}")
    left = (fft_length - sequence_length) // 2
    pads = [[left, fft_length - sequence_length - left]]
    if isinstance(values, Tensor):
        return _rt.pad(_am.cast(values, dtype), pads)
    return np.pad(np.asarray(values, np.float64), pads).astype(dtype.as_numpy_dtype)


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of the real `x` over its last axis; returns
    (real, imag) of shape [..., frames, fft_length // 2 + 1]. Frames are fft_length long,
    `sequence_stride` apart, each multiplied by `window` (of sequence_length, zero-padded to
    fft_length, centred), as Keras's TensorFlow backend. With `center` the signal is padded
    by fft_length // 2 on both sides (reflect)."""
    t = _float(x)
    fft_length = int(fft_length)
    if center:
        pad = fft_length // 2
        rank = _rank(t, "stft")
        t = _rt.pad(t, [[0, 0]] * (rank - 1) + [[pad, pad]], mode="REFLECT")
    padded = _padded_window(window, int(sequence_length), fft_length, t.dtype, "stft")
    frames = _signal.frame(t, fft_length, int(sequence_stride))
    if padded is not None:
        frames = _am.multiply(frames, padded)
    return _pair(_signal.rfft(frames, fft_length=[fft_length]))


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """The signal of the short-time Fourier transform `x` = (real, imag) [..., frames,
    fft_length // 2 + 1], as Keras's TensorFlow backend inverts it: each frame's inverse
    real FFT windowed by `window` (zero-padded to fft_length, centred) scaled so that
    overlapping windows add to one (`tf.signal.inverse_stft_window_fn`), overlapped and added
    `sequence_stride` apart. With `center` the fft_length // 2 samples `stft` padded are cut
    from both ends; `length` keeps that many samples (from the start)."""
    z = _complex_of(x, "istft")
    sequence_stride, fft_length = int(sequence_stride), int(fft_length)
    padded = _padded_window(window, int(sequence_length), fft_length, _math.real(z).dtype,
                            "istft")
    if isinstance(padded, Tensor):
        raise ValueError("keras.ops.istft needs the window's values while tracing: pass "
                         "'hann', 'hamming', None or an array, not a computed tensor.")
    window_fn = None
    if padded is not None:  # tf.signal.inverse_stft_window_fn's, from the known values
        w = np.asarray(padded, np.float64)
        overlaps = -(-fft_length // sequence_stride)
        squares = np.zeros(overlaps * sequence_stride)
        squares[:fft_length] = w * w
        total = np.tile(squares.reshape(overlaps, sequence_stride).sum(0), overlaps)
        inverse = w / total[:fft_length]

        def window_fn(frame_length, dtype):
            return _t(inverse.astype(_dtypes.as_dtype(dtype).as_numpy_dtype))
    signal = _signal.inverse_stft(z, fft_length, sequence_stride, fft_length=fft_length,
                                  window_fn=window_fn)
    frames = z.shape[-2]
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = -(fft_length // 2)
    else:
        end = None if frames is None else fft_length + sequence_stride * (int(frames) - 1)
    return signal[..., start:end]


def extract_sequences(x, sequence_length, sequence_stride):
    """The frames of length `sequence_length`, `sequence_stride` apart, of `x`'s last axis."""
    return _signal.frame(_t(x), int(sequence_length), int(sequence_stride))


# -- linear algebra ---------------------------------------------------------------------------


def cholesky(x, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix: lower `L` with
    `x = L @ L^T` (its transpose with `upper`)."""
    factor = _linalg.cholesky(_float(x))
    return _linalg.adjoint(factor) if upper else factor


def cholesky_inverse(x, upper=False):
    """The inverse of `A` from its Cholesky factor `x` (lower, or upper with `upper`)."""
    factor = _float(x)
    lower = _linalg.adjoint(factor) if upper else factor
    n = factor.shape[-1]
    eye = _linalg.eye(n, batch_shape=factor.shape[:-2].as_list() or None, dtype=factor.dtype)
    return _linalg.cholesky_solve(lower, eye)


def det(x):
    """The determinant of each square matrix."""
    return _linalg.det(_float(x))


def inv(x):
    """The inverse of each square matrix."""
    return _linalg.inv(_float(x))


def eigh(x):
    """Eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix."""
    return tuple(_linalg.eigh(_float(x)))


def eig(x):
    """Eigenvalues and right eigenvectors (columns) of each square matrix, complex (complex64
    for float32 input), as `rt.linalg.eig`."""
    from .. import linalg_extras  # rt.linalg's NumPy decompositions, loaded on first use
    return tuple(linalg_extras.eig(_float(x)))


def cdist(x, y):
    """The Euclidean distances between the vectors (last axis) of `x` [..., n, d] and `y`
    [..., m, d]: [..., n, m]."""
    x, y = _t(x), _t(y)
    if not x.dtype.is_floating:
        x = _am.cast(x, "float32")
    y = _am.cast(y, x.dtype)
    difference = _am.expand_dims(x, -2) - _am.expand_dims(y, -3)
    return _am.sqrt(_am.reduce_sum(_am.square(difference), axis=-1))


def logdet(x):
    """log(det(x)) of each Hermitian positive-definite matrix."""
    return _linalg.logdet(_float(x))


def slogdet(x):
    """(sign, log|det|) of each square matrix."""
    return tuple(_linalg.slogdet(_float(x)))


def _as_matrix_rhs(b: Tensor, a: Tensor) -> tuple[Tensor, bool]:
    vector = b.shape.rank == a.shape.rank - 1
    return (_am.expand_dims(b, -1) if vector else b), vector


def solve(a, b):
    """x with `a @ x = b` (b a vector or a matrix)."""
    am, bm = _float(a), _float(b)
    bm = _am.cast(bm, am.dtype)
    rhs, vector = _as_matrix_rhs(bm, am)
    out = _linalg.solve(am, rhs)
    return _rt.squeeze(out, axis=-1) if vector else out


def solve_triangular(a, b, lower=False):
    """x with `a @ x = b` for triangular `a` (upper by default, lower with `lower`)."""
    am, bm = _float(a), _float(b)
    bm = _am.cast(bm, am.dtype)
    rhs, vector = _as_matrix_rhs(bm, am)
    out = _linalg.triangular_solve(am, rhs, lower=bool(lower))
    return _rt.squeeze(out, axis=-1) if vector else out


def lstsq(a, b, rcond=None):
    """The least-squares solution x of `a @ x ~ b` (of least norm when underdetermined);
    singular values below rcond * the largest are treated as zero."""
    am = _float(a)
    bm = _am.cast(_float(b), am.dtype)
    rhs, vector = _as_matrix_rhs(bm, am)
    out = _rt.matmul(_linalg.pinv(am, rcond=rcond), rhs)
    return _rt.squeeze(out, axis=-1) if vector else out


def lu_factor(x):
    """SciPy's `lu_factor` of a square matrix: the L (unit diagonal, below) and U (on and
    above the diagonal) factors of the row-pivoted `x` in one matrix, and the int32 pivots
    (row i was interchanged with row pivots[i]). Partial pivoting, one step a column."""
    a = _float(x)
    if a.shape.rank != 2 or a.shape[0] is None or a.shape[0] != a.shape[1]:
        raise ValueError(f"keras.ops.lu_factor takes one square matrix of known size here, got "
                         f"shape {a.shape}.")
    n = int(a.shape[0])
    rows = np.arange(n, dtype=np.int32)
    pivots = []
    for k in range(n):
        below = _am.abs(a[k:, k])
        p = _am.add(_am.cast(_am.argmax(below, axis=0), _dtypes.int32), k)
        pivots.append(p)
        swap = _am.where(_am.equal(rows, k), p, _am.where(_am.equal(rows, p), k, rows))
        a = _rt.gather(a, swap)
        column = _am.divide(a[:, k], a[k, k])
        lower = _am.where(rows > k, column, _am.zeros_like(column))          # l below k
        upper_row = _am.where(rows > k, a[k], _am.zeros_like(a[k]))          # u right of k
        a = _am.subtract(a, _am.multiply(_am.expand_dims(lower, 1), _am.expand_dims(upper_row, 0)))
        a = _am.where(_am.expand_dims(rows > k, 1) & (rows == k)[None, :],
                      _am.add(_am.expand_dims(lower, 1), _am.zeros_like(a)), a)
    return a, _rt.stack(pivots)


def matrix_rank(x, tol=None):
    """The number of singular values of each matrix above `tol`."""
    return _linalg.matrix_rank(_float(x), tol=tol)


def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse of each matrix."""
    return _linalg.pinv(_float(x), rcond=rcond)


def qr(x, mode="reduced"):
    """q, r with `x = q @ r` ("reduced": q is [..., M, K], K = min(M, N); "complete":
    [..., M, M])."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"keras.ops.qr(mode={mode!r}): expected 'reduced' or 'complete'.")
    return tuple(_linalg.qr(_float(x), full_matrices=mode == "complete"))


def svd(x, full_matrices=True, compute_uv=True):
    """u, s, vh with `x = u @ diag(s) @ vh` (s descending), or s alone without
    `compute_uv`."""
    t = _float(x)
    if not compute_uv:
        return _linalg.svd(t, full_matrices=full_matrices, compute_uv=False)
    s, u, v = _linalg.svd(t, full_matrices=full_matrices, compute_uv=True)
    return u, s, _linalg.adjoint(v)


def _vector_norm(t: Tensor, ord, axis: int, keepdims: bool) -> Tensor:  # noqa: A002
    a = _am.abs(t)
    if ord is None or ord == 2:
        return _am.sqrt(_am.reduce_sum(_am.square(a), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return _am.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _am.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _am.reduce_sum(_am.cast(_am.not_equal(a, _am.zeros_like(a)), a.dtype),
                              axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"keras.ops.norm(ord={ord!r}) is not a vector norm.")
    p = _am.cast(float(ord), a.dtype)
    return _am.pow(_am.reduce_sum(_am.pow(a, p), axis=axis, keepdims=keepdims),
                   _am.divide(_am.cast(1.0, a.dtype), p))


def _matrix_norm(t: Tensor, ord, axes: tuple[int, int], keepdims: bool) -> Tensor:  # noqa: A002
    rank = _rank(t, "norm")
    r, c = (a % rank for a in axes)
    a = _am.abs(t)
    if ord in (None, "fro"):
        out = _am.sqrt(_am.reduce_sum(_am.square(a), axis=[r, c], keepdims=True))
    elif ord in (1, -1):
        sums = _am.reduce_sum(a, axis=r, keepdims=True)
        out = (_am.reduce_max if ord == 1 else _am.reduce_min)(sums, axis=c, keepdims=True)
    elif ord in (np.inf, -np.inf):
        sums = _am.reduce_sum(a, axis=c, keepdims=True)
        out = (_am.reduce_max if ord == np.inf else _am.reduce_min)(sums, axis=r, keepdims=True)
    elif ord in (2, -2, "nuc"):
        rest = [i for i in range(rank) if i not in (r, c)]
        moved = _rt.transpose(t, rest + [r, c])
        s = _linalg.svd(moved, compute_uv=False)
        value = _am.reduce_max(s, axis=-1) if ord == 2 else \
            _am.reduce_min(s, axis=-1) if ord == -2 else _am.reduce_sum(s, axis=-1)
        out = _am.expand_dims(_am.expand_dims(value, -1), -1)
        back = np.argsort(rest + [r, c])
        out = _rt.transpose(out, list(back))
    else:
        raise ValueError(f"keras.ops.norm(ord={ord!r}) is not a matrix norm (expected None, "
                         "'fro', 'nuc', 1, -1, 2, -2, inf or -inf).")
    return out if keepdims else _rt.squeeze(out, axis=[r, c])


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """NumPy's `linalg.norm`: a vector norm over one axis, a matrix norm over two (`ord`
    None/"fro", "nuc", 1, -1, 2, -2, inf, -inf), the 2-norm of the flattened `x` when
    `axis` and `ord` are None."""
    t = _float(x)
    rank = _rank(t, "norm")
    if axis is None:
        if ord is None:
            out = _am.sqrt(_am.reduce_sum(_am.square(_am.abs(t))))
            return _am.reshape(out, [1] * rank) if keepdims else out
        axis = tuple(range(rank)) if rank in (1, 2) else None
        if axis is None:
            raise ValueError("keras.ops.norm: an `ord` needs a 1-D or 2-D x, or an axis.")
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    if len(axes) == 1:
        return _vector_norm(t, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(t, ord, axes, keepdims)
    raise ValueError(f"keras.ops.norm: axis must name one or two axes, got {axis!r}.")


def jvp(fun, primals, tangents, has_aux=False):
    """Forward-mode derivative: `(fun(*primals), J @ tangents)` (and the aux output with
    `has_aux`), from two reverse passes (the transpose of the transpose)."""
    primals = [_t(p) for p in primals]
    tangents = [_am.cast(_t(v), p.dtype) for v, p in zip(tangents, primals)]
    with GradientTape() as outer:
        with GradientTape() as inner:
            for p in primals:
                inner.watch(p)
            result = fun(*primals)
            out, aux = result if has_aux else (result, None)
        flat_out = _nest.flatten(out)
        probes = [_am.zeros_like(o) for o in flat_out]
        for probe in probes:
            outer.watch(probe)
        grads = inner.gradient(flat_out, primals, output_gradients=probes)
        grads = [_am.zeros_like(p) if g is None else g for g, p in zip(grads, primals)]
        dot = _rt.add_n([_am.reduce_sum(_am.multiply(g, v)) for g, v in zip(grads, tangents)])
    directional = outer.gradient(dot, probes)
    directional = [_am.zeros_like(o) if d is None else d for d, o in zip(directional, flat_out)]
    tangent_out = _nest.pack_sequence_as(out, directional)
    return (out, tangent_out, aux) if has_aux else (out, tangent_out)


# -- einops ---------------------------------------------------------------------------------


def _einops_side(side: str, pattern: str) -> list[tuple[list[str], bool]]:
    """The axes of one side of an einops pattern: (names, grouped) per axis."""
    axes, group = [], None
    for token in re.findall(r"\(|\)|[^\s()]+", side):
        if token == "(":
            if group is not None:
                raise ValueError(f"rearrange: nested parentheses in pattern {pattern!r}.")
            group = []
        elif token == ")":
            if group is None:
                raise ValueError(f"rearrange: unbalanced parentheses in pattern {pattern!r}.")
            axes.append((group, True))
            group = None
        elif not token.isidentifier():
            raise ValueError(f"rearrange: {token!r} in pattern {pattern!r} is not an axis "
                             "name (ellipsis and anonymous axes are not supported, as in "
                             "Keras).")
        elif group is not None:
            group.append(token)
        else:
            axes.append(([token], False))
    if group is not None:
        raise ValueError(f"rearrange: unbalanced parentheses in pattern {pattern!r}.")
    return axes


def rearrange(tensor, pattern, **axes_lengths):
    """`tensor`'s axes rearranged einops-style: `"b h w c -> b c h w"` transposes,
    `"b h w c -> b (h w) c"` merges axes, `"b (h1 h) w c -> (b h1) h w c"` splits one (the
    lengths of all but one part of a group given as keywords, `h1=2`)."""
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"rearrange: pattern must be 'input axes -> output axes', got "
                         f"{pattern!r}.")
    x = _t(tensor)
    left, right = pattern.split("->")
    inputs, outputs = _einops_side(left, pattern), _einops_side(right, pattern)
    shape = x.shape.as_list()
    if len(inputs) != len(shape):
        raise ValueError(f"rearrange: pattern {pattern!r} names {len(inputs)} input axes, but "
                         f"the tensor has rank {len(shape)} (shape {tuple(shape)}).")
    in_names = [name for names, _ in inputs for name in names]
    out_names = [name for names, _ in outputs for name in names]
    for side, names in (("input", in_names), ("output", out_names)):
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"rearrange: axis {repeated[0]!r} appears twice on the {side} side "
                             f"of {pattern!r}.")
    if set(in_names) != set(out_names):
        missing = sorted(set(in_names) ^ set(out_names))
        raise ValueError(f"rearrange: axes {missing} of {pattern!r} are not on both sides.")
    unknown = sorted(set(axes_lengths) - set(in_names))
    if unknown:
        raise ValueError(f"rearrange: axes_lengths {unknown} name no axis of the input side of "
                         f"{pattern!r}.")
    sizes: dict[str, int] = {}
    for (names, grouped), dim in zip(inputs, shape):
        if dim is None:
            raise ValueError(f"rearrange needs the tensor's shape known, got {x.shape}.")
        if not grouped:
            sizes[names[0]] = int(dim)
            continue
        known = [n for n in names if n in axes_lengths]
        free = [n for n in names if n not in axes_lengths]
        if len(free) > 1:
            raise ValueError(f"rearrange: give the lengths of all but one of {free} (axes "
                             f"group ({' '.join(names)}) of {pattern!r}).")
        product = int(np.prod([int(axes_lengths[n]) for n in known]))
        if free:
            sizes[free[0]] = dim // product if product else 0
        sizes.update({n: int(axes_lengths[n]) for n in known})
        if int(np.prod([sizes[n] for n in names])) != dim:
            raise ValueError(f"rearrange: axis group ({' '.join(names)}) of {pattern!r} cannot "
                             f"split a dimension of size {dim} "
                             f"({', '.join(f'{n}={sizes[n]}' for n in names)}).")
    split = [sizes[n] for n in in_names]
    if split != shape:
        x = _am.reshape(x, split)
    order = [in_names.index(n) for n in out_names]
    if order != list(range(len(order))):
        x = _am.transpose(x, order)
    merged = [int(np.prod([sizes[n] for n in names])) for names, _ in outputs]
    return x if merged == x.shape.as_list() else _am.reshape(x, merged)


__all__ = [
    "associative_scan", "cdist", "cholesky", "cholesky_inverse", "cond", "custom_gradient",
    "det", "dtype", "eig", "eigh", "erf", "erfc", "erfinv", "extract_sequences", "fft", "fft2", "fori_loop", "istft",
    "ifft2", "in_top_k", "inv", "irfft", "is_tensor", "jvp", "logdet", "logsumexp", "lstsq", "lu_factor",
    "map", "matrix_rank", "norm", "pinv", "qr", "rearrange", "rfft", "rsqrt", "saturate_cast", "scan",
    "scatter", "scatter_update", "segment_max", "segment_min", "segment_prod", "segment_sum",
    "slice", "slice_update", "slogdet", "solve", "solve_triangular", "stft", "stop_gradient",
    "svd", "switch", "top_k", "unstack", "vectorized_map", "while_loop"]

LINALG = ["cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "jvp", "lstsq", "lu_factor",
          "matrix_rank",
          "norm", "pinv", "qr", "solve", "solve_triangular", "svd"]
