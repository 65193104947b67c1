"""TensorFlow functions composed from existing ops (runtime/ops/array_composed.py): values against
NumPy eagerly and compiled (NumPy tier, and the Numba tier for a representative few),
gradients against finite differences, and errors naming the bad argument."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError
from tests.gradients.fd import check_gradients

X = np.arange(12.0).reshape(3, 4) - 5.5
CUBE = np.arange(24.0).reshape(2, 3, 4) / 7.0 - 1.0
V = np.array([3.0, -4.0, 0.5, 2.0])

CASES = {
    "linspace": (lambda: rt.linspace(-1.0, 2.0, 7), lambda: np.linspace(-1.0, 2.0, 7)),
    "linspace-one": (lambda: rt.linspace(3.0, 5.0, 1), lambda: np.linspace(3.0, 5.0, 1)),
    "linspace-batched": (
        lambda: rt.linspace(rt.constant([0.0, 1.0]), rt.constant([[1.0, 3.0], [2.0, -1.0]]), 5, axis=1),
        lambda: np.linspace([0.0, 1.0], [[1.0, 3.0], [2.0, -1.0]], 5, axis=1)),
    "linspace-axis-last": (
        lambda: rt.linspace(rt.constant([0.0, 1.0]), rt.constant([1.0, 3.0]), 4, axis=-1),
        lambda: np.linspace([0.0, 1.0], [1.0, 3.0], 4, axis=-1)),
    "slice": (lambda: rt.slice(X, [1, 1], [2, 3]), lambda: X[1:3, 1:4]),
    "slice-to-end": (lambda: rt.slice(CUBE, [1, 0, 2], [-1, 2, -1]), lambda: CUBE[1:, 0:2, 2:]),
    "broadcast_to": (lambda: rt.broadcast_to(V, [3, 4]), lambda: np.broadcast_to(V, (3, 4))),
    "broadcast_to-ones": (lambda: rt.broadcast_to(X[:, :1], [2, 3, 4]),
                          lambda: np.broadcast_to(X[:, :1], (2, 3, 4))),
    "broadcast_to-bool": (lambda: rt.broadcast_to(np.array([True, False]), [3, 2]),
                          lambda: np.broadcast_to(np.array([True, False]), (3, 2))),
    "is_nan": (lambda: rt.math.is_nan(np.array([1.0, np.nan, np.inf, -np.inf])),
               lambda: np.isnan(np.array([1.0, np.nan, np.inf, -np.inf]))),
    "is_inf": (lambda: rt.math.is_inf(np.array([1.0, np.nan, np.inf, -np.inf])),
               lambda: np.isinf(np.array([1.0, np.nan, np.inf, -np.inf]))),
    "is_finite": (lambda: rt.math.is_finite(np.array([1.0, np.nan, np.inf, -np.inf])),
                  lambda: np.isfinite(np.array([1.0, np.nan, np.inf, -np.inf]))),
    "diag": (lambda: rt.linalg.diag(V), lambda: np.diag(V)),
    "diag-k": (lambda: rt.linalg.diag(V[:3], k=1), lambda: np.diag(V[:3], k=1)),
    "diag-k-negative": (lambda: rt.linalg.diag(V[:3], k=-2), lambda: np.diag(V[:3], k=-2)),
    "diag-batched": (lambda: rt.linalg.diag(X), lambda: np.stack([np.diag(r) for r in X])),
    "diag_part-wide": (lambda: rt.linalg.diag_part(X), lambda: np.diagonal(X)),
    "diag_part-tall": (lambda: rt.linalg.diag_part(X.T), lambda: np.diagonal(X.T)),
    "diag_part-batched": (lambda: rt.linalg.diag_part(CUBE),
                          lambda: np.diagonal(CUBE, axis1=-2, axis2=-1)),
    "trace": (lambda: rt.linalg.trace(X), lambda: np.trace(X)),
    "trace-batched": (lambda: rt.linalg.trace(CUBE), lambda: np.trace(CUBE, axis1=-2, axis2=-1)),
    "matrix_transpose": (lambda: rt.linalg.matrix_transpose(CUBE), lambda: np.swapaxes(CUBE, -1, -2)),
    "band_part-lower": (lambda: rt.linalg.band_part(X, -1, 0), lambda: np.tril(X)),
    "band_part-upper": (lambda: rt.linalg.band_part(X, 0, -1), lambda: np.triu(X)),
    "band_part-band": (lambda: rt.linalg.band_part(CUBE, 1, 2),
                       lambda: np.triu(np.tril(CUBE, 2), -1)),
    "clip_by_norm": (lambda: rt.clip_by_norm(X, 5.0), lambda: X * 5.0 / np.linalg.norm(X)),
    "clip_by_norm-axes": (
        lambda: rt.clip_by_norm(X, 8.0, axes=[1]),
        lambda: X * 8.0 / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 8.0)),
    "clip_by_norm-small": (lambda: rt.clip_by_norm(X, 100.0), lambda: X),
}
for _mode in ("constant", "reflect", "symmetric"):
    for _i, _widths in enumerate(([[1, 2], [2, 3]], [[0, 2], [3, 0]], [[2, 2], [0, 0]])):
        CASES[f"pad-{_mode}-{_i}"] = (
            lambda m=_mode, w=_widths, up=bool(_i % 2): rt.pad(X, w, mode=m.upper() if up else m),
            lambda m=_mode, w=_widths: np.pad(X, w, mode=m))
CASES["pad-constant-value"] = (lambda: rt.pad(CUBE, [[0, 1], [1, 0], [2, 2]], constant_values=-7.5),
                               lambda: np.pad(CUBE, [[0, 1], [1, 0], [2, 2]], constant_values=-7.5))
for _ord in ("euclidean", 1, 2, np.inf, 3, 0.5):
    CASES[f"norm-vector-{_ord}"] = (lambda o=_ord: rt.norm(X, ord=o, axis=1),
                                    lambda o=_ord: np.linalg.norm(X, ord=2 if o == "euclidean" else o,
                                                                  axis=1))
for _ord in ("euclidean", "fro", 1, np.inf):
    CASES[f"norm-matrix-{_ord}"] = (
        lambda o=_ord: rt.norm(CUBE, ord=o, axis=(1, 2)),
        lambda o=_ord: np.linalg.norm(CUBE, ord="fro" if o == "euclidean" else o, axis=(1, 2)))
CASES["norm-matrix-swapped"] = (lambda: rt.norm(CUBE, ord=1, axis=(-1, 0), keepdims=True),
                                lambda: np.linalg.norm(CUBE, ord=1, axis=(-1, 0), keepdims=True))
CASES["norm-all"] = (lambda: rt.norm(CUBE), lambda: np.linalg.norm(CUBE.ravel()))
CASES["norm-all-keepdims"] = (lambda: rt.norm(CUBE, ord=1, keepdims=True),
                              lambda: np.abs(CUBE).sum(keepdims=True))
CASES["linalg.norm"] = (lambda: rt.linalg.norm(V, ord=np.inf), lambda: np.max(np.abs(V)))


def _check(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape
    if expected.dtype == bool:
        np.testing.assert_array_equal(got, expected)
    else:
        tol = 1e-6 if got.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_numpy_eagerly_and_compiled(case):
    fn, expected = CASES[case]
    _check(fn(), expected())
    _check(rt.function(fn, jit_compile=False)(), expected())


@pytest.mark.parametrize("case", ["linspace-batched", "slice", "pad-reflect-0", "pad-symmetric-1",
                                  "pad-constant-0", "norm-vector-euclidean", "norm-matrix-1",
                                  "clip_by_norm-axes", "diag_part-tall", "band_part-band",
                                  "broadcast_to", "is_finite"])
def test_numba_tier(case):
    pytest.importorskip("numba")
    fn, expected = CASES[case]
    _check(rt.function(fn, jit_compile=True)(), expected())


def test_tensor_arguments_inside_a_function():
    @rt.function(jit_compile=False)
    def f(x, start, stop):
        return (rt.linspace(start, stop, 5), rt.slice(x, rt.constant([1, 0]), rt.constant([-1, 2])),
                rt.pad(x, rt.constant([[1, 0], [0, 1]]), "REFLECT"), rt.norm(x, axis=0),
                rt.linalg.band_part(x, rt.constant(0), rt.constant(1)))
    lin, sl, padded, n, band = f(rt.constant(X), rt.constant(1.0), rt.constant(2.0))
    _check(lin, np.linspace(1.0, 2.0, 5))
    _check(sl, X[1:, :2])
    _check(padded, np.pad(X, [[1, 0], [0, 1]], mode="reflect"))
    _check(n, np.linalg.norm(X, axis=0))
    _check(band, np.triu(np.tril(X, 1), 0))


def test_dynamic_shapes():
    spec = rt.TensorSpec([None, None], rt.float64)

    @rt.function(input_signature=[spec])
    def f(x):
        return (rt.slice(x, [1, 1], [-1, 2]), rt.pad(x, [[1, 1], [2, 0]], "SYMMETRIC"),
                rt.pad(x, [[0, 1], [1, 1]], constant_values=2.0), rt.linalg.diag_part(x),
                rt.linalg.trace(x), rt.linalg.band_part(x, 1, 0))
    for a in (X, X.T, X[:2, :2]):
        got = f(rt.constant(a))
        for g, e in zip(got, (a[1:, 1:3], np.pad(a, [[1, 1], [2, 0]], mode="symmetric"),
                              np.pad(a, [[0, 1], [1, 1]], constant_values=2.0), np.diagonal(a),
                              np.trace(a), np.triu(np.tril(a), -1))):
            _check(g, e)


def test_meshgrid():
    a, b, c = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0]), np.array([6.0, 7.0, 8.0, 9.0])
    for indexing in ("xy", "ij"):
        for args in ((a,), (a, b), (a, b, c)):
            expected = np.meshgrid(*args, indexing=indexing)
            got = rt.meshgrid(*args, indexing=indexing)
            staged = rt.function(lambda *xs, i=indexing: rt.meshgrid(*xs, indexing=i))(
                *[rt.constant(x) for x in args])
            for g, s, e in zip(got, staged, expected, strict=True):
                _check(g, e)
                _check(s, e)
    check_gradients(lambda x, y: rt.meshgrid(x, y)[0] * rt.meshgrid(x, y)[1], a, b)


def test_clip_by_global_norm():
    a, b = X, V
    norm = np.sqrt((a ** 2).sum() + (b ** 2).sum())
    for clip in (5.0, 100.0):
        (ca, none, cb), got_norm = rt.clip_by_global_norm([a, None, b], clip)
        assert none is None
        scale = clip / max(norm, clip)
        _check(got_norm, norm)
        _check(ca, a * scale)
        _check(cb, b * scale)
    clipped, used = rt.clip_by_global_norm((a,), 1.0, use_norm=2.0)
    _check(clipped[0], a / 2.0)
    _check(used, 2.0)
    _check(rt.linalg.global_norm([a, b]), norm)
    staged = rt.function(lambda x, y: rt.clip_by_global_norm([x, y], 5.0), jit_compile=False)
    (sa, sb), sn = staged(rt.constant(a), rt.constant(b))
    _check(sa, a * 5.0 / norm)
    _check(sn, norm)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN on purpose, as in TensorFlow
        (inf_clipped,), _ = rt.clip_by_global_norm([np.array([1.0, np.inf])], 1.0)
    assert np.isnan(inf_clipped.numpy()).all()
    check_gradients(lambda x, y: rt.clip_by_global_norm([x, y], 5.0)[0][0], a, b)


def test_integer_bounds_give_float64_as_tensorflows_division_does():
    out = rt.linspace(-2, 2, 201)
    assert out.dtype is rt.float64
    np.testing.assert_allclose(out.numpy(), np.linspace(-2, 2, 201), rtol=0, atol=1e-15)
    assert rt.linspace(rt.constant(1), rt.constant(3), 3).dtype is rt.float64
    assert rt.linspace(0.0, 2, 3).dtype is rt.float32


def test_float32_stays_float32():
    x = X.astype(np.float32)
    assert rt.linspace(rt.constant(0.0, rt.float32), 1.0, 3).dtype is rt.float32
    assert rt.linspace(0.0, 1.0, 3).dtype is rt.float32
    for out in (rt.pad(x, [[1, 1], [1, 1]], "REFLECT"), rt.norm(x), rt.clip_by_norm(x, 1.0),
                rt.clip_by_global_norm([x], 1.0)[0][0], rt.linalg.trace(x)):
        assert out.dtype is rt.float32


@pytest.mark.parametrize("fn,arrays", [
    (lambda s, e: rt.linspace(s, e, 5), (np.array(-1.0), np.array(2.0))),
    (lambda s, e: rt.linspace(s, e, 4, axis=-1), (np.array([0.0, 1.0]), np.array([[1.0, 3.0], [2.0, 5.0]]))),
    (lambda x: rt.slice(x, [1, 0], [2, -1]), (X,)),
    (lambda x: rt.pad(x, [[1, 2], [2, 1]]), (X,)),
    (lambda x: rt.pad(x, [[1, 2], [2, 1]], "REFLECT"), (X,)),
    (lambda x: rt.pad(x, [[2, 1], [3, 4]], "symmetric"), (X,)),
    (lambda x: rt.broadcast_to(x, [2, 3, 4]), (V,)),
    (lambda x: rt.norm(x), (X,)),
    (lambda x: rt.norm(x, ord=1, axis=0), (X,)),
    (lambda x: rt.norm(x, ord=3, axis=-1, keepdims=True), (X,)),
    (lambda x: rt.norm(x, ord=np.inf, axis=(0, 1)), (X + 0.25,)),
    (lambda x: rt.norm(x, ord="fro", axis=(1, 2)), (CUBE,)),
    (lambda x: rt.clip_by_norm(x, 5.0), (X,)),
    (lambda x: rt.clip_by_norm(x, 8.0, axes=[1]), (X,)),
    (lambda x: rt.linalg.diag(x, k=1), (V,)),
    (lambda x: rt.linalg.diag_part(x), (X.T,)),
    (lambda x: rt.linalg.trace(x), (CUBE,)),
    (lambda x: rt.linalg.band_part(x, 1, 0), (X,)),
    (lambda x: rt.linalg.matrix_transpose(x), (CUBE,)),
], ids=["linspace", "linspace-batched", "slice", "pad", "pad-reflect", "pad-symmetric",
        "broadcast_to", "norm", "norm-1", "norm-3", "norm-matrix-inf", "norm-fro", "clip_by_norm",
        "clip_by_norm-axes", "diag", "diag_part", "trace", "band_part", "matrix_transpose"])
def test_gradients(fn, arrays):
    check_gradients(fn, *arrays)


@pytest.mark.parametrize("call,error,words", [
    (lambda: rt.pad(X, [[1, 1], [1, 1]], mode="wrap"), ValueError, "`mode`"),
    (lambda: rt.pad(X, [[1, 1]]), InvalidArgumentError, "`paddings`"),
    (lambda: rt.pad(X, [[1, 1], [-1, 0]]), InvalidArgumentError, "non-negative"),
    (lambda: rt.pad(X, [[3, 0], [0, 0]], "REFLECT"), InvalidArgumentError, "at most 2"),
    (lambda: rt.pad(X, [[4, 0], [0, 0]], "SYMMETRIC"), InvalidArgumentError, "at most 3"),
    (lambda: rt.pad(X, [[1.5, 0], [0, 0]]), TypeError, "`paddings`"),
    (lambda: rt.slice(X, [0], [1]), InvalidArgumentError, "`begin`"),
    (lambda: rt.slice(X, [0, 5], [1, 1]), InvalidArgumentError, "`begin`[1]"),
    (lambda: rt.slice(X, [0, 2], [1, 3]), InvalidArgumentError, "`size`[1]"),
    (lambda: rt.linspace("0", 1.0, 3), TypeError, "`start`"),
    (lambda: rt.linspace(0.0, 1.0, 0), InvalidArgumentError, "`num`"),
    (lambda: rt.broadcast_to(V, [3, 2]), InvalidArgumentError, "`shape`"),
    (lambda: rt.meshgrid(V, indexing="ji"), ValueError, "`indexing`"),
    (lambda: rt.math.is_nan(rt.constant([1, 2])), TypeError, "`x`"),
    (lambda: rt.norm(X, ord="fro", axis=0), ValueError, "'ord'"),
    (lambda: rt.norm(X, ord=2, axis=(0, 1)), ValueError, "'ord'"),
    (lambda: rt.norm(X, ord=-1), ValueError, "'ord'"),
    (lambda: rt.norm(X, axis=(0, 0)), ValueError, "'axis'"),
    (lambda: rt.norm(X, axis=1.5), ValueError, "'axis'"),
    (lambda: rt.clip_by_global_norm(rt.constant(X), 1.0), TypeError, "`t_list`"),
    (lambda: rt.linalg.diag_part(V), ValueError, "`input`"),
    (lambda: rt.linalg.trace(V), ValueError, "`x`"),
    (lambda: rt.linalg.matrix_transpose(V), ValueError, "`a`"),
    (lambda: rt.linalg.band_part(X, 0.5, 0), TypeError, "`num_lower`"),
    (lambda: rt.linalg.diag(3.0), ValueError, "`diagonal`"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_names_match_tensorflow():
    assert rt.lin_space is rt.linspace
    assert rt.linalg.norm is rt.norm
    for space, names in ((rt, ["linspace", "slice", "pad", "broadcast_to", "meshgrid", "norm",
                               "clip_by_norm", "clip_by_global_norm"]),
                         (rt.math, ["is_nan", "is_inf", "is_finite"]),
                         (rt.linalg, ["diag", "diag_part", "matrix_transpose", "trace", "band_part",
                                      "global_norm"])):
        for n in names:
            assert getattr(space, n).__name__ == n
