"""Op programs that both compiler tiers' op tests compile and compare with the NumPy tier.

tests/jit/test_every_op.py (Numba) and tests/xla/test_xla_ops.py (XLA) trace these functions;
each test names its own groups (program, inputs). Programs with ``value_shapes=True`` also
build ops whose result's shape depends on values, which the XLA tier refuses.
"""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.numpy_api import primitives as P

F32, F64, I32 = np.float32, np.float64, np.int32


def x_values(dtype, shape=(3, 4), lo=0.1, hi=0.9) -> np.ndarray:
    """Evenly spaced values in [lo, hi] of the dtype and shape."""
    n = int(np.prod(shape))
    return np.linspace(lo, hi, n).astype(dtype).reshape(shape)


def graph_ops(graph, found: set) -> set:
    """Adds the op types of a graph and of its subgraphs to found."""
    for op in graph.operations:
        found.add(op.type)
        for sub in op.subgraphs:
            graph_ops(sub, found)
    return found


def unary_float(x):
    y = x * 0.5 - 0.2  # in (-1, 1)
    return (rt.abs(y), P.arccos(x), P.arccosh(x + 1.0), P.arcsin(y), P.arcsinh(y), P.arctan(y),
            P.arctanh(y), rt.math.ceil(y * 4.0), rt.cos(y), P.cosh(y), rt.math.erf(y), rt.exp(y),
            P.exp2(y), P.expm1(y), rt.math.floor(y * 4.0), rt.math.log(x), P.log10(x),
            rt.math.log1p(x), P.log2(x), -y, rt.math.reciprocal(x), rt.nn.relu(y),
            rt.math.round(y * 4.0), rt.math.rsqrt(x), rt.sigmoid(y), rt.sign(y), rt.sin(y),
            P.sinh(y), rt.sqrt(x), rt.square(y), rt.math.tan(y), rt.tanh(y), P.trunc(y * 4.0),
            P.isfinite(x / y), P.isinf(x / (y * 0.0)), P.isnan(y * 0.0 / y), P.arctan2(y, x),
            P.hypot(x, y), x ** y, x ** 2.0, rt.maximum(x, y), rt.minimum(x, 0.5), x / (y + 2.0),
            rt.math.floordiv(x * 7.0, y + 2.0), rt.math.floormod(x * 7.0, y + 2.0))


def binary(x):
    y = x[::-1] if x.ndim == 1 else rt.reverse(x, [0])
    return (x + y, x - y, x * y, rt.maximum(x, y), rt.minimum(x, y), x == y, x != y, x < y,
            x <= y, x > y, x >= y, rt.where(x > y, x, y), rt.logical_and(x > y, x < 3 * y),
            rt.logical_or(x > y, x < y), rt.math.logical_xor(x > y, x < 3 * y),
            rt.logical_not(x > y), rt.cast(x, rt.float64), rt.cast(x, rt.int32),
            rt.cast(x, rt.bool), rt.abs(x - y), rt.sign(x - y), rt.square(x))


def integer(x, *, offset: int = 10):
    """Integer ops; divisors are x + offset (a zero divisor where x == -offset)."""
    y = x + offset
    return (x // y, x % y, x ** 2, -x, rt.math.floordiv(x, 2), rt.reduce_sum(x, axis=1),
            rt.reduce_prod(y, axis=0), rt.reduce_max(x, axis=1), rt.argmax(x, axis=1),
            rt.cumsum(x, axis=1), rt.reduce_sum(x), rt.reduce_mean(x, axis=0), x / y,
            rt.bitwise.bitwise_and(x, y), rt.bitwise.bitwise_or(x, y),
            rt.bitwise.bitwise_xor(x, y), rt.bitwise.invert(x), rt.bitwise.left_shift(x, y),
            rt.bitwise.right_shift(x, y))


def reductions(x):
    b = x > 0.4
    return (rt.reduce_sum(x), rt.reduce_sum(x, axis=1), rt.reduce_sum(x, axis=0, keepdims=True),
            rt.reduce_mean(x), rt.reduce_mean(x, axis=1), rt.reduce_max(x, axis=0),
            rt.reduce_min(x), rt.reduce_min(x, axis=1), rt.reduce_prod(x, axis=1),
            rt.reduce_any(b, axis=1), rt.reduce_all(b), rt.argmax(x, axis=1), rt.argmin(x, axis=0),
            rt.nn.softmax(x), rt.nn.log_softmax(x), rt.math.reduce_logsumexp(x, axis=1),
            rt.nn.softmax_cross_entropy_with_logits(rt.nn.softmax(x * 2.0), x),
            rt.cumsum(x[0]), rt.cumsum(x, axis=1, exclusive=True, reverse=True),
            rt.cumsum(x, axis=0), rt.math.cumprod(x, axis=0),
            rt.math.cumprod(x, axis=1, exclusive=True))


def linalg(x):
    sq = rt.matmul(x, x, transpose_b=True) + rt.eye(3, dtype=x.dtype)
    return (rt.matmul(x, x, transpose_a=True), sq, rt.einsum("ij,kj->ik", x, x),
            rt.tensordot(x, x, axes=[[1], [1]]), rt.linalg.inv(sq), rt.linalg.det(sq))


def decompositions(x, *, full_rank: bool = False):
    """Decompositions and solves; signs of singular and eigen vectors are free, so their
    absolute values are compared. With full_rank the 3x4 input is made full rank (an evenly
    spaced matrix has rank 2), so that no singular or eigen vector is arbitrary."""
    if full_rank:
        x = x + rt.eye(3, 4, dtype=x.dtype) * rt.constant([[2.0], [-3.0], [5.0]], dtype=x.dtype)
    sq = rt.matmul(x, x, transpose_b=True) + rt.eye(3, dtype=x.dtype)
    s, u, v = rt.linalg.svd(x)
    q, r = rt.linalg.qr(rt.transpose(x))
    e, w = rt.linalg.eigh(sq)
    sign, log_abs = rt.linalg.slogdet(sq)
    with rt.GradientTape() as tape:
        tape.watch(sq)
        chol = rt.linalg.cholesky(sq)
        loss = (rt.reduce_sum(chol) + rt.reduce_sum(e * w * w) + log_abs +
                rt.reduce_sum(rt.linalg.svd(sq, compute_uv=False)) +
                rt.reduce_sum(rt.linalg.qr(sq)[1]) +
                rt.reduce_sum(rt.linalg.solve(sq, x, adjoint=True)) +
                rt.reduce_sum(rt.linalg.triangular_solve(sq, x, lower=False)) +
                rt.reduce_sum(rt.linalg.triangular_solve(sq, x, lower=True, adjoint=True)) +
                rt.reduce_sum(rt.linalg.expm(sq * 0.1)))
    return (s, rt.abs(u), rt.abs(v), rt.abs(q), rt.abs(r), e, rt.abs(w), sign, log_abs,
            chol, loss, tape.gradient(loss, sq))


def shapes(x, *, value_shapes: bool = True):
    i = rt.constant([2, 0], rt.int32)
    flat = rt.reshape(x, [-1])
    parts = rt.split(x, [1, 3], axis=1)
    out = (flat, rt.expand_dims(x, 0), rt.squeeze(rt.expand_dims(x, 2), 2),
           rt.transpose(x), rt.concat([x, x], 0), rt.stack([x, x], 1), rt.unstack(x)[1],
           parts[0], parts[1], rt.fill([2, 3], x[0, 0]), rt.zeros([2, 2], x.dtype),
           rt.zeros_like(x), rt.ones_like(x), rt.range(1, 7, 2), rt.shape(x), rt.size(x),
           x[1:, ::2], x[1], rt.gather(x, i),
           rt.gather(x, 1, axis=1), rt.gather(x, [[0, 1], [2, 2]], axis=1),
           rt.gather_nd(x, [[0, 1], [2, 3]]), rt.tile(x, [2, 1]),
           rt.one_hot(rt.argmax(x, axis=1), 4, dtype=x.dtype), rt.reverse(x, [1]),
           rt.identity(x), rt.stop_gradient(x), rt.cast(x, rt.float32), rt.cast(x, rt.float64),
           rt.sort(x, axis=1, direction="DESCENDING"), rt.sort(x, axis=0),
           rt.roll(x, 1, axis=1), rt.broadcast_to(x[0], [3, 4]))
    if value_shapes:
        out += (rt.boolean_mask(flat, flat > flat[5]), rt.where(x > x[1, 1]))
    return out


def gradients(x, *, value_shapes: bool = True):
    with rt.GradientTape() as tape:
        tape.watch(x)
        h = rt.nn.relu(rt.matmul(x, x, transpose_b=True) - 0.3)
        h = rt.sigmoid(h) + rt.tanh(h) * (rt.reduce_prod(x, axis=1, keepdims=True) +
                                          rt.reduce_mean(x, axis=1, keepdims=True))
        y = (rt.reduce_sum(h) + rt.reduce_sum(rt.gather(x, [0, 2, 0]) * x[0]) +
             rt.reduce_sum(rt.gather_nd(x, [[0, 1], [2, 3]]) * x[0, :2]) +
             rt.reduce_sum(x[1:, 1] * 3.0) +
             rt.reduce_sum(rt.concat([x, x * 2.0], 0) * rt.reduce_mean(x, axis=0)) +
             rt.reduce_sum(rt.nn.softmax_cross_entropy_with_logits(rt.nn.softmax(x), x)) +
             rt.reduce_sum(rt.math.erf(x) * rt.exp(x) + rt.math.log(x)) +
             rt.reduce_sum(x / (x + 1.0)) + rt.reduce_max(x))
        if value_shapes:
            y += rt.reduce_sum(rt.boolean_mask(x, x > 0.5))
        # the gradient of the true branch reads a value only that branch computes: the
        # other branch gives an Undefined filler for it
        y += rt.cond(rt.reduce_sum(x) > 1.0, lambda: rt.reduce_sum(rt.tanh(x) * rt.exp(x)),
                     lambda: rt.reduce_sum(x * 2.0))
    return tape.gradient(y, x)


def dynamic(x):
    """Shapes unknown at trace time: SumToShape, SplitLike, ReshapeDynamic."""
    b = rt.ones([1, 4], x.dtype)
    with rt.GradientTape() as tape:
        tape.watch([x, b])
        y = rt.reduce_sum(rt.concat([x, x * 2.0], 0) * 1.5) + rt.reduce_sum(x * b)
    n = rt.size(x)
    return (*tape.gradient(y, [x, b]), rt.reshape(x, rt.shape(x)[::-1]), n,
            rt.zeros(rt.shape(x), x.dtype) + 1.0, rt.reduce_sum(x * rt.zeros([1, 4], x.dtype)),
            rt.tile(x, rt.stack([n // n + 1, n // n])))


def axes_from_shapes(x, *, known_ranks: bool = False):
    """Reductions whose axis is a tensor computed from shapes (known when the function runs),
    with their gradients; a tile by a computed multiple and its gradient. With known_ranks
    every result's rank is known when traced (the Numba tier refuses an unknown rank)."""
    n = rt.size(x)
    one = n // n
    k = {"keepdims": True}  # the result's rank known when the axes are not
    with rt.GradientTape() as tape:
        tape.watch(x)
        t = rt.tile(x, rt.stack([one + 1, one]))  # TileDynamic
        r = (rt.reduce_sum(t, axis=one, **k), rt.reduce_mean(x, axis=one, **k))  # *Dynamic
        if not known_ranks:
            r += (rt.reduce_sum(x, axis=one),)
        total = sum(rt.reduce_sum(v) for v in r)
    return (*r, tape.gradient(total, x), rt.reduce_max(x, axis=0 * one, **k),
            rt.reduce_min(x, axis=one, **k), rt.reduce_prod(x, axis=one, **k),
            rt.reduce_any(x > 0.5, axis=one, **k), rt.reduce_all(x > 0.05, axis=one, **k),
            rt.argmax(x, axis=one), rt.argmin(x, axis=one), rt.range(0, n, 3))


def value_shaped(x):
    """Ops whose result's shape depends on values, here computed from the input's shape."""
    i = rt.range(rt.size(x))
    return (rt.where(i > 5), rt.unique(i % 5).y, rt.unique_with_counts(i % 3).count,
            rt.boolean_mask(i, i > 7), rt.math.bincount(i % 4), rt.repeat(i[:3], 2),
            rt.cast(rt.size(rt.where(i > 5)), x.dtype) * x)


def scatter_sort(x, *, value_shapes: bool = True):
    """Scatter, batched gather, segment, sorting and counting ops (inputs from x: not folded)."""
    ints = rt.cast(x * 10.0, rt.int32)  # 1..9
    pairs = [[0, 1], [2, 3], [0, 1]]
    top = rt.math.top_k(x, 2)
    out = (rt.scatter_nd([[1], [0], [1]], x, [4, 4]),
           rt.tensor_scatter_nd_update(x, pairs[:2], [5.0, 6.0]),
           rt.tensor_scatter_nd_add(x, pairs, [5.0, 6.0, 1.0]),
           rt.tensor_scatter_nd_sub(x, pairs, [5.0, 6.0, 1.0]),
           rt.tensor_scatter_nd_min(x, pairs, [0.0, 6.0, 0.05]),
           rt.tensor_scatter_nd_max(x, pairs, [0.0, 6.0, 0.5]),
           rt.gather(x, [[1, 0], [3, 3], [2, 1]], axis=1, batch_dims=1),
           rt.gather_nd(x, [[1], [0], [3]], batch_dims=1), rt.gather_nd(x, [[0, 1], [2, 3]]),
           rt.math.segment_sum(x, [0, 0, 2]), rt.math.segment_mean(x, [0, 0, 2]),
           rt.math.segment_max(x, [0, 1, 1]), rt.math.segment_min(x, [0, 1, 1]),
           rt.math.segment_prod(x, [0, 0, 0]),
           rt.math.unsorted_segment_sum(x, [1, -1, 1], 2),
           rt.math.unsorted_segment_max(x, [1, 0, 1], 3),
           rt.math.unsorted_segment_min(ints, [1, 0, 1], 2),
           rt.math.unsorted_segment_prod(x, [1, 0, 1], 2),
           rt.sort(x, axis=0), rt.sort(x, direction="DESCENDING"),
           rt.argsort(x, axis=1, direction="DESCENDING"), rt.argsort(x, axis=0),
           top.values, top.indices, rt.roll(x, [1, -1], [0, 1]),
           rt.math.cumprod(x, axis=1, exclusive=True, reverse=True), rt.math.cumprod(x))
    if value_shapes:
        flat = rt.reshape(ints, [-1])
        u = rt.unique(flat)
        uc = rt.unique_with_counts(flat, out_idx=rt.int64)
        axis = rt.cast(x[0, 0] > 0.0, rt.int32)  # 1, known when the function runs
        out += (rt.searchsorted(rt.sort(x), x[:, :2] + 0.05, side="right"),
                u.y, u.idx, uc.y, uc.idx, uc.count,
                rt.repeat(x, [1, 0, 2], axis=0), rt.repeat(ints, 2), rt.math.bincount(ints),
                rt.math.bincount(flat, weights=rt.reshape(x, [-1]), minlength=12),
                rt.histogram_fixed_width(x, [0.0, 1.0], nbins=5),
                rt.argmax(x, axis=axis), rt.argmin(x, axis=axis), rt.sequence_mask(ints[0], 10))
    return out


def scatter_sort_gradients(x, *, value_shapes: bool = True):
    """The gradients of the scatter and sort ops, and one second-order gradient (a sort's
    gradient differentiated again: TakeAlongAxis)."""
    w = rt.reshape(rt.range(12, dtype=x.dtype), [3, 4]) * 0.1
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = (rt.reduce_sum(rt.sort(x, axis=0) ** 2 * w) +
                 rt.reduce_sum(rt.math.top_k(x, 2).values) +
                 rt.reduce_sum(rt.gather(x, [[1, 0], [3, 3], [2, 1]], axis=1, batch_dims=1) ** 2) +
                 rt.reduce_sum(rt.gather_nd(x, [[1], [0], [1]], batch_dims=1) ** 2) +
                 rt.reduce_sum(rt.gather_nd(x, [[0, 1], [2, 3]]) * x[0, :2]) +
                 rt.reduce_sum(rt.scatter_nd([[1], [0], [1]], x * x, [4, 4])) +
                 rt.reduce_sum(rt.tensor_scatter_nd_update(x, [[0, 1]], x[1, :1] * 2.0) * w) +
                 rt.reduce_sum(rt.roll(x, 1, 1) * w) +
                 rt.reduce_sum(rt.math.cumprod(x, axis=1, reverse=True)) +
                 rt.reduce_sum(rt.reduce_prod(x, axis=1)) +
                 rt.reduce_sum(rt.math.segment_max(x, [0, 1, 1]) * 2.0) +
                 rt.reduce_sum(rt.math.unsorted_segment_sum(x * x, [1, -1, 1], 2)))
            if value_shapes:
                y += rt.reduce_sum(rt.repeat(x, [1, 0, 2], axis=0) ** 2)
        g = tape.gradient(y, x)
        z = rt.reduce_sum(g * g)
    return g, outer.gradient(z, x)


def special(x):
    """Special functions and their gradients."""
    y = x * 1.6 - 0.8  # in (-0.8, 0.8)
    with rt.GradientTape() as tape:
        tape.watch(x)
        s = rt.reduce_sum(rt.math.lgamma(x + 1.0) + rt.math.erfinv(y) + rt.math.ndtri(x) +
                          rt.math.bessel_i1e(y) + rt.math.bessel_i0e(y) + rt.math.digamma(x))
    return (rt.math.lgamma(x), rt.math.digamma(x), rt.math.erfc(y), rt.math.erfinv(y),
            rt.math.polygamma(rt.ones_like(x), x), rt.math.polygamma(rt.ones_like(x) * 2.0, x),
            rt.math.ndtri(x), rt.math.bessel_i0e(y), rt.math.bessel_i1e(y),
            rt.math.nextafter(x, y), rt.math.conj(x), tape.gradient(s, x))


def conv(x):
    """Convolution and pooling with their gradients (second order too, for the backprop ops)."""
    img = rt.reshape(x, [1, 3, 4, 1])
    w = rt.reshape(x[:2, :2], [2, 2, 1, 1])
    with rt.GradientTape() as outer:
        outer.watch([img, w])
        with rt.GradientTape() as tape:
            tape.watch([img, w])
            y = (rt.reduce_sum(rt.nn.conv2d(img, w, 1, "SAME") ** 2) +
                 rt.reduce_sum(rt.nn.conv2d(img, w, [1, 2], "VALID", dilations=1) ** 2) +
                 rt.reduce_sum(rt.nn.max_pool2d(img, 2, 1, "VALID")) +
                 rt.reduce_sum(rt.nn.max_pool2d(img, 2, 2, "SAME") ** 2) +
                 rt.reduce_sum(rt.nn.avg_pool2d(img, 2, 2, "SAME") ** 2))
        gi, gw = tape.gradient(y, [img, w])
        z = rt.reduce_sum(gi * gi) + rt.reduce_sum(gw * gw)
    return (y, gi, gw, *outer.gradient(z, [img, w]), rt.nn.avg_pool2d(img, [2, 3], 1, "SAME"),
            rt.nn.conv2d(rt.tile(img, [2, 1, 1, 3]), rt.ones([3, 2, 3, 2], x.dtype), 1, "SAME",
                         dilations=[1, 2]))


def special_more(x):
    """The Bessel, Fresnel and other special functions, the incomplete gamma and beta
    functions and bitcast, with the gradients they have (x float64 in (0.1, 0.9))."""
    s = rt.math.special
    y = x * 2.0 - 1.0  # exact products: the same y whether or not the tier fuses multiply-add
    with rt.GradientTape() as tape:
        tape.watch(x)
        total = rt.reduce_sum(s.bessel_j0(x) + s.bessel_j1(y) + s.bessel_y0(x) + s.bessel_y1(x) +
                              s.bessel_k0(x) + s.bessel_k0e(x) + s.bessel_k1(x) + s.bessel_k1e(x) +
                              s.dawsn(y) + s.expint(x) + s.fresnel_cos(y) + s.fresnel_sin(y) +
                              s.spence(x) + rt.math.igammac(2.0, x) + rt.math.zeta(x + 1.5, 2.0))
    return (s.bessel_j0(x), s.bessel_j1(y), s.bessel_y0(x), s.bessel_y1(x), s.bessel_k0(x),
            s.bessel_k0e(x), s.bessel_k1(x), s.bessel_k1e(x), s.dawsn(y), s.expint(x),
            s.fresnel_cos(y), s.fresnel_sin(y), s.spence(x), rt.math.igamma(x + 0.5, x),
            rt.math.igammac(x + 0.5, x), rt.math.betainc(x + 0.5, 1.5 - x, x),
            rt.math.zeta(x + 1.5, x), rt.bitcast(x, rt.int64), tape.gradient(total, x))


def boxes(x):
    """Non-maximum suppression of boxes made from x (float32 [3, 4]) and their scores."""
    corners = rt.concat([x[:, :2] * 0.5, x[:, :2] * 0.5 + x[:, 2:] + 0.2], axis=1)
    scores = rt.reduce_sum(x, axis=1)
    overlaps = rt.matmul(x, x, transpose_b=True) / 4.0
    combined = rt.image.combined_non_max_suppression(
        rt.reshape(corners, [1, 3, 1, 4]), rt.reshape(x[:, :2], [1, 3, 2]), 2, 3)
    return (rt.image.non_max_suppression(corners, scores, 2, 0.3),
            rt.image.non_max_suppression_overlaps(overlaps, scores, 2, 0.2),
            *combined)


def conv3d(x):
    """3-D convolution and pooling with their gradients (second order for the backprop ops)."""
    vol = rt.reshape(rt.concat([x, x * 0.5], axis=0), [1, 2, 3, 4, 1])
    w = rt.reshape(x[:2, :2], [1, 2, 2, 1, 1])
    with rt.GradientTape() as outer:
        outer.watch([vol, w])
        with rt.GradientTape() as tape:
            tape.watch([vol, w])
            y = (rt.reduce_sum(rt.nn.conv3d(vol, w, [1, 1, 1, 1, 1], "SAME") ** 2) +
                 rt.reduce_sum(rt.nn.max_pool3d(vol, 2, 1, "SAME") ** 2) +
                 rt.reduce_sum(rt.nn.avg_pool3d(vol, 2, 1, "SAME") ** 2))
        gv, gw = tape.gradient(y, [vol, w])
        z = rt.reduce_sum(gv * gv) + rt.reduce_sum(gw * gw)
    return (y, gv, gw, *outer.gradient(z, [vol, w]))


def random_draws(x, seed):
    """Stateless gamma (with its gradient in alpha and beta), Poisson and parameterized
    truncated-normal draws at `seed` (int64 [2]), parameters from x (float32 [3, 4])."""
    alpha, beta = x[0] * 4.0, x[1] + 0.5
    with rt.GradientTape() as tape:
        tape.watch([alpha, beta])
        draws = rt.random.stateless_gamma([5, 4], seed, alpha, beta)
        total = rt.reduce_sum(draws * draws)
    return (draws, *tape.gradient(total, [alpha, beta]),
            rt.random.stateless_poisson([2, 4], seed, x[2] * 10.0),
            rt.random.stateless_poisson([3], seed, 2.5, dtype=rt.float32),
            rt.random.stateless_parameterized_truncated_normal([2, 4], seed, x[0], x[1] + 0.1,
                                                               -x[2], x[2] + 1.0))


def ctc(x):
    """The CTC loss with its gradient, the greedy and beam-search decoders and the unique
    labels, of logits made from x (float64 [3, 4])."""
    logits = rt.reshape(rt.concat([x, x * 0.5, -x], axis=0), [3, 3, 4])
    labels = rt.constant([[1, 2], [3, 0], [2, 2]])
    with rt.GradientTape() as tape:
        tape.watch(logits)
        loss = rt.nn.ctc_loss(labels, logits, [2, 1, 1], [3, 2, 3])
    sparse = rt.nn.ctc_loss(rt.sparse.from_dense(labels), logits, None, [3, 2, 3],
                            blank_index=0)
    (greedy,), neg_sum = rt.nn.ctc_greedy_decoder(logits, [3, 2, 3])
    beams, log_probs = rt.nn.ctc_beam_search_decoder(logits, [3, 3, 3], beam_width=3,
                                                     top_paths=2)
    return (loss, tape.gradient(loss, logits), sparse, greedy.indices, greedy.values,
            greedy.dense_shape, neg_sum, beams[1].values, beams[1].dense_shape, log_probs,
            *rt.nn.ctc_unique_labels(labels))


def image_crops(x):
    """crop_and_resize (both methods, gradients in the image and the boxes), extract_patches,
    extract_volume_patches and draw_bounding_boxes on images made from x (float32 [3, 4])."""
    image = rt.reshape(rt.concat([x, x * 0.5], axis=0), [1, 3, 4, 2])
    boxes = rt.stack([x[0] * 0.5, x[1] * 0.5 + 0.4], axis=0)[:, :2]
    boxes = rt.reshape(rt.concat([boxes, boxes[::-1]], axis=0), [2, 4])
    with rt.GradientTape() as tape:
        tape.watch([image, boxes])
        crops = (rt.image.crop_and_resize(image, boxes, [0, 0], [3, 2]),
                 rt.image.crop_and_resize(image, boxes, [0, 0], [2, 3], method="nearest",
                                          extrapolation_value=0.5))
        total = rt.reduce_sum(crops[0] * crops[0]) + rt.reduce_sum(crops[1])
    return (*crops, *tape.gradient(total, [image, boxes]),
            rt.image.extract_patches(image, [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME"),
            rt.extract_volume_patches(rt.reshape(image, [1, 3, 2, 2, 2]), [1, 2, 1, 2, 1],
                                      [1, 1, 1, 1, 1], "VALID"),
            rt.image.draw_bounding_boxes(image[..., :1], boxes[None], [[0.25, 0, 0, 1]]),
            *rt.image.stateless_sample_distorted_bounding_box([30, 40, 3], boxes[None] * 0.5,
                                                              [3, 4]))
