"""Scatter, batched gather, segment, sorting and counting ops against NumPy as the oracle:
eagerly, staged in rt.function and with jit_compile=True; gradients against central finite
differences; bad indices and shapes raise errors naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

MODES = ["eager", "staged", "jit"]
RNG = np.random.default_rng(7)


def run(mode, fn, *args):
    """fn(*args) eagerly, or compiled on the NumPy tier or the Numba tier; NumPy results."""
    if mode != "eager":
        fn = rt.function(fn, jit_compile=mode == "jit", autograph=False)
    return rt.nest.map_structure(np.asarray, fn(*args))


def numeric_grad(f, x, eps=1e-6):
    """Central finite differences of the scalar f (NumPy in, rt tensor out) at x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (float(f(up)) - float(f(down))) / (2 * eps)
    return g


def check_grad(mode, loss, x, rtol=1e-5, atol=1e-6):
    """The tape's gradient of loss at x (run in `mode`) equals the finite differences."""
    def grad(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        return tape.gradient(y, x)
    got = run(mode, grad, rt.constant(x))
    np.testing.assert_allclose(got, numeric_grad(lambda v: loss(rt.constant(v)), x),
                               rtol=rtol, atol=atol)


def _np_scatter_nd(indices, updates, shape):
    out = np.zeros(shape, updates.dtype)
    for idx, u in zip(indices.reshape(-1, indices.shape[-1]),
                      updates.reshape((-1,) + tuple(shape[indices.shape[-1]:]))):
        out[tuple(idx)] += u
    return out


# -- scatter -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_scatter_nd_adds_duplicates(mode):
    indices = np.array([[1], [3], [1], [0]], np.int32)
    updates = RNG.normal(size=(4, 3)).astype(np.float32)
    got = run(mode, lambda u: rt.scatter_nd(indices, u, [5, 3]), updates)
    np.testing.assert_allclose(got, _np_scatter_nd(indices, updates, (5, 3)), rtol=1e-6)
    elems = np.array([[0, 1], [2, 2], [0, 1]], np.int64)
    got = run(mode, lambda u: rt.scatter_nd(elems, u, rt.constant([3, 3])), np.ones(3))
    np.testing.assert_array_equal(got, _np_scatter_nd(elems, np.ones(3), (3, 3)))


@pytest.mark.parametrize("mode", MODES)
def test_tensor_scatter_family(mode):
    x = RNG.normal(size=(4, 3))
    indices = np.array([[2, 1], [0, 0], [2, 1]], np.int32)
    updates = np.array([5.0, -7.0, 1.0])

    def f(x, u):
        return (rt.tensor_scatter_nd_add(x, indices, u), rt.tensor_scatter_nd_sub(x, indices, u),
                rt.tensor_scatter_nd_min(x, indices, u), rt.tensor_scatter_nd_max(x, indices, u),
                rt.tensor_scatter_nd_update(x, indices[:2], u[:2]),
                rt.tensor_scatter_nd_update(x, [[1]], [[9.0, 8.0, 7.0]]))
    got = run(mode, f, x, updates)
    key = tuple(indices.T)
    expected = []
    for ufunc in (np.add, np.subtract, np.minimum, np.maximum):
        e = x.copy()
        ufunc.at(e, key, updates)
        expected.append(e)
    e = x.copy()
    e[2, 1], e[0, 0] = 5.0, -7.0
    expected.append(e)
    e = x.copy()
    e[1] = [9.0, 8.0, 7.0]
    expected.append(e)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b)
    before = x.copy()
    f(rt.constant(x), updates)
    np.testing.assert_array_equal(x, before)  # the input is not changed


@pytest.mark.parametrize("mode", MODES)
def test_scatter_gradients(mode):
    x = RNG.normal(size=(4, 3))
    idx = np.array([[2], [0]], np.int32)
    pairs = np.array([[1, 1], [3, 2], [1, 1]], np.int32)

    def loss(v):
        u = v[:2] * 3.0
        w = np.arange(12.0).reshape(4, 3)
        return (rt.reduce_sum(rt.tensor_scatter_nd_update(v, idx, u * u) * w)
                + rt.reduce_sum(rt.tensor_scatter_nd_add(v * v, pairs, v[0]) * w)
                + rt.reduce_sum(rt.tensor_scatter_nd_sub(v, pairs, v[1] ** 2) * w)
                + rt.reduce_sum(rt.tensor_scatter_nd_max(v, pairs, v[2] * 0.5) * w)
                + rt.reduce_sum(rt.tensor_scatter_nd_min(v, pairs, v[3] - 1.0) * w)
                + rt.reduce_sum(rt.scatter_nd(pairs, v[0] ** 2, [4, 3]) * w))
    check_grad(mode, loss, x)


# -- gather with batch_dims --------------------------------------------------------------------

def _np_batch_gather(params, indices, axis, batch_dims):
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    return np.stack([_np_batch_gather(p, i, axis - 1, batch_dims - 1)
                     for p, i in zip(params, indices)])


@pytest.mark.parametrize("mode", MODES)
def test_gather_batch_dims(mode):
    params = RNG.normal(size=(2, 3, 5, 4))
    indices = RNG.integers(0, 5, size=(2, 3, 6)).astype(np.int32)

    def f(p, i):
        return (rt.gather(p, i, axis=2, batch_dims=2), rt.gather(p, i[:, 0], axis=2, batch_dims=1),
                rt.gather(p, i[:, :, :2] % 4, axis=3, batch_dims=-1),
                rt.gather(p, i[:, 0] % 3, batch_dims=1))
    got = run(mode, f, params, indices)
    np.testing.assert_array_equal(got[0], _np_batch_gather(params, indices, 2, 2))
    np.testing.assert_array_equal(got[1], _np_batch_gather(params, indices[:, 0], 2, 1))
    np.testing.assert_array_equal(got[2], _np_batch_gather(params, indices[:, :, :2] % 4, 3, 2))
    np.testing.assert_array_equal(got[3], _np_batch_gather(params, indices[:, 0] % 3, 1, 1))
    assert rt.gather(params, [1, 0], 0).shape == (2, 3, 5, 4)  # validate_indices, ignored


@pytest.mark.parametrize("mode", MODES)
def test_gather_nd_batch_dims(mode):
    params = RNG.normal(size=(2, 3, 4))
    indices = np.array([[[1, 2], [0, 0]], [[2, 3], [1, 1]]], np.int32)  # (2, 2, 2)
    got = run(mode, lambda p: (rt.gather_nd(p, indices, batch_dims=1),
                               rt.gather_nd(p, indices[:, :, :1], batch_dims=1)), params)
    np.testing.assert_array_equal(got[0], np.stack([params[b][tuple(indices[b].T)]
                                                    for b in range(2)]))
    np.testing.assert_array_equal(got[1], np.stack([params[b][indices[b, :, 0]]
                                                    for b in range(2)]))


@pytest.mark.parametrize("mode", MODES)
def test_batched_gather_gradients(mode):
    x = RNG.normal(size=(2, 3, 4))
    idx = np.array([[0, 3, 3], [1, 1, 2]], np.int32)
    nd = np.array([[[1, 2], [1, 2]], [[0, 3], [2, 0]]], np.int32)

    def loss(v):
        return (rt.reduce_sum(rt.gather(v, idx, axis=2, batch_dims=1) ** 2)
                + rt.reduce_sum(rt.sin(rt.gather_nd(v, nd, batch_dims=1))))
    check_grad(mode, loss, x)


# -- segment reductions ----------------------------------------------------------------------

def _np_segments(data, ids, num, reduce, empty):
    out = np.full((num,) + data.shape[ids.ndim:], empty, data.dtype)
    rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
    for s in range(num):
        chosen = rows[ids.reshape(-1) == s]
        if len(chosen):
            out[s] = reduce(chosen, axis=0)
    return out


@pytest.mark.parametrize("mode", MODES)
def test_segment_ops(mode):
    data = RNG.normal(size=(6, 2))
    ids = np.array([0, 0, 1, 3, 3, 3], np.int32)
    un = np.array([[2, -1], [0, 2], [2, 4]], np.int64)
    grid = data.reshape(3, 2, 2)

    def f(d):
        m = rt.math
        return (m.segment_sum(d, ids), m.segment_mean(d, ids), m.segment_max(d, ids),
                m.segment_min(d, ids), m.segment_prod(d, ids),
                m.unsorted_segment_sum(rt.reshape(d, [3, 2, 2]), un, 5),
                m.unsorted_segment_max(d, ids[::-1], 4), m.unsorted_segment_min(d, ids[::-1], 4),
                m.unsorted_segment_prod(d, ids[::-1], 4))
    got = run(mode, f, data)
    lowest, highest = np.finfo(np.float64).min, np.finfo(np.float64).max
    expected = [_np_segments(data, ids, 4, np.sum, 0), _np_segments(data, ids, 4, np.mean, 0),
                _np_segments(data, ids, 4, np.max, 0), _np_segments(data, ids, 4, np.min, 0),
                _np_segments(data, ids, 4, np.prod, 1), _np_segments(grid, un, 5, np.sum, 0),
                _np_segments(data, ids[::-1], 4, np.max, lowest),
                _np_segments(data, ids[::-1], 4, np.min, highest),
                _np_segments(data, ids[::-1], 4, np.prod, 1)]
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_segment_shapes_are_unknown_when_staged():
    @rt.function
    def f(d):
        s = rt.math.segment_sum(d, [0, 0, 1])
        u = rt.math.unsorted_segment_sum(d, [0, 0, 1], 3)
        assert s.shape.as_list() == [None, 2] and u.shape.as_list() == [3, 2]
        return s
    np.testing.assert_array_equal(f(np.ones((3, 2))), [[2, 2], [1, 1]])


@pytest.mark.parametrize("mode", MODES)
def test_segment_gradients(mode):
    x = RNG.normal(size=(5, 2))
    ids = np.array([0, 0, 2, 2, 2], np.int32)
    un = np.array([1, -1, 0, 1, 1], np.int32)
    w = np.arange(6.0).reshape(3, 2) + 1.0

    def loss(v):
        m = rt.math
        return (rt.reduce_sum(m.segment_sum(v * v, ids) * w)
                + rt.reduce_sum(m.segment_mean(v, ids) * w)
                + rt.reduce_sum(m.segment_max(v, ids) * w)
                + rt.reduce_sum(m.segment_min(v, ids) * w)
                + rt.reduce_sum(m.segment_prod(v, ids) * w)
                + rt.reduce_sum(m.unsorted_segment_sum(rt.sin(v), un, 3) * w)
                + rt.reduce_sum(m.unsorted_segment_max(v, un, 3)[:2] * w[:2])
                + rt.reduce_sum(m.unsorted_segment_prod(v, un, 2) * w[:2]))
    check_grad(mode, loss, x)


# -- sorting -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_sort_argsort_top_k(mode):
    x = RNG.normal(size=(3, 5)).astype(np.float32)
    x[0, 1] = x[0, 3]  # a tie
    ints = RNG.integers(0, 4, size=(4, 6)).astype(np.int32)

    def f(x, n):
        top = rt.math.top_k(x, 3)
        return (rt.sort(x), rt.sort(x, axis=0, direction="DESCENDING"), rt.argsort(x),
                rt.argsort(n, axis=0, direction="DESCENDING", stable=True), rt.argsort(n),
                top.values, top.indices, rt.nn.top_k(n, k=2, sorted=True).indices)
    got = run(mode, f, x, ints)
    np.testing.assert_array_equal(got[0], np.sort(x))
    np.testing.assert_array_equal(got[1], -np.sort(-x, axis=0))
    np.testing.assert_array_equal(got[2], np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(got[3], np.argsort(-ints, axis=0, kind="stable"))
    np.testing.assert_array_equal(got[4], np.argsort(ints, kind="stable"))
    order = np.argsort(-x, kind="stable")[:, :3]
    np.testing.assert_array_equal(got[5], np.take_along_axis(x, order, -1))
    np.testing.assert_array_equal(got[6], order)
    np.testing.assert_array_equal(got[7], np.argsort(-ints, kind="stable")[:, :2])
    assert got[6].dtype == np.int32


def test_top_k_is_a_namedtuple_and_k_may_be_a_tensor():
    top = rt.math.top_k([1.0, 5.0, 3.0], k=2)
    assert top._fields == ("values", "indices")
    values, indices = top
    np.testing.assert_array_equal(values, [5.0, 3.0])
    np.testing.assert_array_equal(indices, [1, 2])

    @rt.function
    def f(x, k):
        top = rt.math.top_k(x, k)
        assert top.values.shape.as_list() == [2, None]
        return top.values
    np.testing.assert_array_equal(f(np.array([[1.0, 2.0, 3.0], [6.0, 5.0, 4.0]]), np.int32(2)),
                                  [[3.0, 2.0], [6.0, 5.0]])


@pytest.mark.parametrize("mode", MODES)
def test_sort_and_top_k_gradients(mode):
    x = RNG.normal(size=(3, 4))
    w = np.arange(12.0).reshape(3, 4)

    def loss(v):
        return (rt.reduce_sum(rt.sort(v, axis=0) * w) + rt.reduce_sum(rt.sort(v * v) * w)
                + rt.reduce_sum(rt.sort(v, direction="DESCENDING") * w)
                + rt.reduce_sum(rt.math.top_k(v, 2).values * w[:, :2]))
    check_grad(mode, loss, x)


@pytest.mark.parametrize("mode", MODES)
def test_searchsorted(mode):
    seq = np.sort(RNG.normal(size=(3, 6)), axis=1)
    vals = np.concatenate([seq[:, :2], RNG.normal(size=(3, 3))], axis=1)
    got = run(mode, lambda s, v: (rt.searchsorted(s, v), rt.searchsorted(s, v, side="right"),
                                  rt.searchsorted(s[0], v[0], out_type=rt.int64)), seq, vals)
    for side, g in zip(("left", "right"), got[:2]):
        np.testing.assert_array_equal(g, [np.searchsorted(s, v, side) for s, v in zip(seq, vals)])
    assert got[0].dtype == np.int32 and got[2].dtype == np.int64
    np.testing.assert_array_equal(got[2], np.searchsorted(seq[0], vals[0]))


# -- unique, roll, repeat, counting ------------------------------------------------------------

def _np_unique_first(x):
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first)
    rank = np.argsort(order)
    return y[order], rank[inverse.reshape(-1)], counts[order]


@pytest.mark.parametrize("mode", MODES)
def test_unique_in_first_occurrence_order(mode):
    x = np.array([4, 1, 4, 7, 1, 1, 9], np.int32)
    y, idx, counts = run(mode, lambda v: tuple(rt.unique_with_counts(v * 1)), x)
    ey, eidx, ecounts = _np_unique_first(x)
    np.testing.assert_array_equal(y, [4, 1, 7, 9])
    np.testing.assert_array_equal(y, ey)
    np.testing.assert_array_equal(idx, eidx)
    np.testing.assert_array_equal(counts, ecounts)
    np.testing.assert_array_equal(y[idx], x)
    f = run(mode, lambda v: tuple(rt.unique(v + 0.0, out_idx=rt.int64)), x.astype(np.float64))
    np.testing.assert_array_equal(f[0], ey)
    assert f[1].dtype == np.int64


def test_unique_and_where_shapes_are_unknown_when_staged():
    @rt.function
    def f(x):
        y, idx = rt.unique(x)
        w = rt.where(x > 2)
        assert y.shape.as_list() == [None] and idx.shape.as_list() == [5]
        assert w.shape.as_list() == [None, 1] and w.dtype == rt.int64
        return y, w
    y, w = f(np.array([3, 1, 3, 5, 1], np.int32))
    np.testing.assert_array_equal(y, [3, 1, 5])
    np.testing.assert_array_equal(w, [[0], [2], [3]])


@pytest.mark.parametrize("mode", MODES)
def test_roll_repeat(mode):
    x = np.arange(12.0).reshape(3, 4)

    def f(v):
        return (rt.roll(v, 1, 0), rt.roll(v, [2, -1], [1, 0]), rt.roll(v, -5, 1),
                rt.repeat(v, 2), rt.repeat(v, [2, 0, 1], axis=0), rt.repeat(v, 3, axis=-1))
    got = run(mode, f, x)
    expected = (np.roll(x, 1, 0), np.roll(x, (2, -1), (1, 0)), np.roll(x, -5, 1), np.repeat(x, 2),
                np.repeat(x, [2, 0, 1], axis=0), np.repeat(x, 3, axis=-1))
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", MODES)
def test_roll_repeat_cumprod_gradients(mode):
    x = RNG.uniform(0.5, 1.5, size=(3, 4))
    w = np.arange(12.0).reshape(3, 4)

    def loss(v):
        return (rt.reduce_sum(rt.roll(v, [1, -2], [0, 1]) * w)
                + rt.reduce_sum(rt.repeat(v, [2, 0, 1], axis=0) ** 2)
                + rt.reduce_sum(rt.sin(rt.repeat(v, 2)))
                + rt.reduce_sum(rt.math.cumprod(v, axis=1) * w)
                + rt.reduce_sum(rt.math.cumprod(v, axis=0, exclusive=True, reverse=True) * w)
                + rt.reduce_sum(rt.cumsum(v, axis=1, exclusive=True, reverse=True) * w * v))
    check_grad(mode, loss, x)


def _np_cumprod(x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    out = np.cumprod(x, axis=axis)
    if exclusive:
        out = np.concatenate([np.ones_like(np.take(out, [0], axis)),
                              np.take(out, range(out.shape[axis] - 1), axis)], axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("mode", MODES)
def test_cumprod_and_cumsum_options(mode):
    x = RNG.uniform(0.5, 2.0, size=(3, 4))
    options = [(a, e, r) for a in (0, 1) for e in (False, True) for r in (False, True)]
    got = run(mode, lambda v: [rt.math.cumprod(v, a, exclusive=e, reverse=r)
                               for a, e, r in options] +
              [rt.math.cumsum(v, a, exclusive=e, reverse=r) for a, e, r in options], x)
    for k, (a, e, r) in enumerate(options):
        np.testing.assert_allclose(got[k], _np_cumprod(x, a, e, r))
        s = np.flip(x, a) if r else x
        s = np.cumsum(s, axis=a)
        if e:
            s = s - (np.flip(x, a) if r else x)
        np.testing.assert_allclose(got[len(options) + k], np.flip(s, a) if r else s)


@pytest.mark.parametrize("mode", MODES)
def test_sequence_mask_bincount_histogram(mode):
    lengths = np.array([[1, 3], [0, 2]], np.int32)
    arr = np.array([3, 1, 1, 0, 7, 3, 3], np.int32)
    weights = np.linspace(0.5, 2.0, 7)
    values = np.array([-1.0, 0.0, 0.1, 0.5, 0.99, 1.0, 2.0, 0.33])

    def f(n, a, w, v):
        return (rt.sequence_mask(n), rt.sequence_mask(n, 5, dtype=rt.float32),
                rt.math.bincount(a), rt.math.bincount(a, weights=w),
                rt.math.bincount(a, minlength=10), rt.math.bincount(a, maxlength=3),
                rt.math.bincount(a, binary_output=True),
                rt.histogram_fixed_width(v, [0.0, 1.0], nbins=4),
                rt.histogram_fixed_width(v, rt.constant([-1.0, 2.0], rt.float64), 3, dtype=rt.int64))
    got = run(mode, f, lengths, arr, weights, values)
    np.testing.assert_array_equal(got[0], np.arange(3) < lengths[..., None])
    np.testing.assert_array_equal(got[1], (np.arange(5) < lengths[..., None]).astype(np.float32))
    np.testing.assert_array_equal(got[2], np.bincount(arr))
    np.testing.assert_allclose(got[3], np.bincount(arr, weights))
    np.testing.assert_array_equal(got[4], np.bincount(arr, minlength=10))
    np.testing.assert_array_equal(got[5], np.bincount(arr)[:3])
    np.testing.assert_array_equal(got[6], np.bincount(arr) > 0)
    np.testing.assert_array_equal(got[7], [3, 1, 1, 3])  # below the range: bin 0; from hi: last
    np.testing.assert_array_equal(got[8], [1, 5, 2])
    assert got[2].dtype == np.int32 and got[8].dtype == np.int64


@pytest.mark.parametrize("mode", MODES)
def test_argmax_with_an_axis_tensor(mode):
    x = RNG.normal(size=(3, 4))

    def f(v, axis):
        return rt.argmax(v, axis=axis), rt.math.argmin(v, axis=axis, output_type=rt.int32)
    for axis in (0, 1, -1):
        got = run(mode, f, x, np.int32(axis))
        np.testing.assert_array_equal(got[0], np.argmax(x, axis))
        np.testing.assert_array_equal(got[1], np.argmin(x, axis))
        assert got[0].dtype == np.int64 and got[1].dtype == np.int32


def test_argmax_staged_axis_has_unknown_dims():
    @rt.function
    def f(v, axis):
        out = rt.argmax(v, axis=axis)
        assert out.shape.as_list() == [None]
        return out
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(f(x, np.int32(1)), [2, 2])
    with pytest.raises(rt.errors.InvalidArgumentError, match="axis 2 is out of range"):
        f(x, np.int32(2))


# -- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_out_of_range_indices_raise_naming_the_argument(mode):
    x = np.ones((3, 4))
    cases = [
        lambda v: rt.scatter_nd([[5]], [1.0], [3]),
        lambda v: rt.tensor_scatter_nd_update(v, [[0, 4]], [1.0]),
        lambda v: rt.tensor_scatter_nd_add(v, [[-1, 0]], [1.0]),
        lambda v: rt.gather(v, [[0], [4], [1]], axis=1, batch_dims=1),
        lambda v: rt.gather_nd(v, [[4], [0], [1]], batch_dims=1),
    ]
    for case in cases:
        with pytest.raises(rt.errors.InvalidArgumentError, match="indices"):
            run(mode, case, x)
    with pytest.raises(rt.errors.InvalidArgumentError, match="segment_ids"):
        run(mode, lambda v: rt.math.unsorted_segment_sum(v, [0, 3, 1], 2), x)
    with pytest.raises(rt.errors.InvalidArgumentError, match="sorted"):
        run(mode, lambda v: rt.math.segment_sum(v, [1, 0, 1]), x)
    with pytest.raises(rt.errors.InvalidArgumentError, match="k=5"):
        run(mode, lambda v: rt.math.top_k(v, rt.size(v) // 12 * 5), x)


def test_mismatched_shapes_and_bad_arguments():
    x = np.ones((3, 4), np.float32)
    with pytest.raises(rt.errors.InvalidArgumentError, match="updates"):
        rt.scatter_nd([[1], [2]], [1.0, 2.0, 3.0], [4])
    with pytest.raises(rt.errors.InvalidArgumentError, match="updates"):
        rt.tensor_scatter_nd_update(x, [[1]], [1.0, 2.0])
    with pytest.raises(rt.errors.InvalidArgumentError, match="batch_dims"):
        rt.gather(np.ones((2, 3)), np.zeros((3, 1), np.int32), axis=1, batch_dims=1)
    with pytest.raises(rt.errors.InvalidArgumentError, match="segment_ids"):
        rt.math.segment_sum(x, [0, 0])
    with pytest.raises(ValueError, match="direction"):
        rt.sort(x, direction="UP")
    with pytest.raises(ValueError, match="side"):
        rt.searchsorted([1.0], [1.0], side="middle")
    with pytest.raises(TypeError, match="indices"):
        rt.scatter_nd([[0.5]], [1.0], [2])
    with pytest.raises(rt.errors.InvalidArgumentError, match="arr"):
        rt.math.bincount([1, -2])
    with pytest.raises(TypeError):
        rt.sort(x, axes=0)  # keywords are strict
    with pytest.raises(TypeError):
        rt.math.top_k(x, kk=1)
    with pytest.raises(ValueError, match="batch_dims=2 must be at most axis=1"):
        rt.gather(np.ones((2, 3, 4)), np.zeros((2, 3), np.int32), axis=1, batch_dims=2)


def test_scatter_ops_save_and_load(tmp_path):
    class M(rt.Module):
        @rt.function(input_signature=[rt.TensorSpec([3, 4], rt.float32)])
        def f(self, x):
            top = rt.math.top_k(x, 2)
            return (rt.sort(x, direction="DESCENDING"), top.indices,
                    rt.gather(x, [[1], [0], [3]], axis=1, batch_dims=1),
                    rt.math.cumprod(x, axis=1, exclusive=True),
                    rt.searchsorted(rt.sort(x), x, side="right"),
                    rt.math.bincount(rt.cast(x * 3.0, rt.int32), minlength=4))
    m = M()
    rt.saved_model.save(m, str(tmp_path / "m"))
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    x = RNG.uniform(0, 1, size=(3, 4)).astype(np.float32)
    for a, b in zip(rt.nest.flatten(loaded.f(x)), rt.nest.flatten(m.f(x))):
        np.testing.assert_array_equal(a, b)
