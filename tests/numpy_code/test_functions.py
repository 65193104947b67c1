"""Each supported NumPy function and ufunc on tensors gives NumPy's value and dtype,
eagerly and compiled."""

import numpy as np
import pytest

import runtime as rt
from runtime.numpy_api import registry
from tests.gradients.fd import check_gradients

RNG = np.random.default_rng(0)
A = RNG.uniform(0.2, 0.9, size=(3, 4))           # inside every ufunc's domain
B = RNG.uniform(0.2, 0.9, size=(3, 4))
M = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
V = RNG.normal(size=3)
I = np.array([[3, 0, 7], [1, 2, 0]], np.int32)
CALLS = {
    "sum": lambda a: np.sum(a, axis=1), "mean": lambda a: np.mean(a, axis=(0, 1)),
    "max": lambda a: np.max(a, axis=0, keepdims=True), "amax": lambda a: np.amax(a),
    "min": lambda a: np.min(a, axis=-1), "amin": lambda a: np.amin(a, 0),
    "prod": lambda a: np.prod(a, axis=1), "std": lambda a: np.std(a, axis=0, ddof=1),
    "var": lambda a: np.var(a), "argmax": lambda a: np.argmax(a),
    "argmin": lambda a: np.argmin(a, axis=1), "cumsum": lambda a: np.cumsum(a, axis=1),
    "any": lambda a: np.any(a > 0.8, axis=0), "all": lambda a: np.all(a > 0.1),
    "count_nonzero": lambda a: np.count_nonzero(a > 0.5),
    "average": lambda a: np.average(a, axis=0, weights=np.arange(1.0, 4.0)),
    "dot": lambda a: np.dot(a.T, a), "vdot": lambda a: np.vdot(a, a),
    "inner": lambda a: np.inner(a, a), "outer": lambda a: np.outer(a[0], a[1]),
    "tensordot": lambda a: np.tensordot(a, a, axes=([1], [1])),
    "einsum": lambda a: np.einsum("ij,kj->ik", a, a), "trace": lambda a: np.trace(a[:, :3]),
    "transpose": lambda a: np.transpose(a), "permute_dims": lambda a: np.permute_dims(a, (1, 0)),
    "swapaxes": lambda a: np.swapaxes(a[None], 0, 2), "moveaxis": lambda a: np.moveaxis(a[None], 0, -1),
    "reshape": lambda a: np.reshape(a, (2, -1)), "ravel": lambda a: np.ravel(a),
    "squeeze": lambda a: np.squeeze(a[None, :, None]), "expand_dims": lambda a: np.expand_dims(a, (0, 3)),
    "broadcast_to": lambda a: np.broadcast_to(a[0], (2, 4)), "tile": lambda a: np.tile(a[0], (2, 2)),
    "flip": lambda a: np.flip(a, 1), "copy": lambda a: np.copy(a), "roll": lambda a: np.roll(a, 2, axis=1),
    "concatenate": lambda a: np.concatenate([a, a * 2], axis=1),
    "concat": lambda a: np.concat([a, a], axis=None), "stack": lambda a: np.stack([a, a], axis=-1),
    "hstack": lambda a: np.hstack([a, a]), "vstack": lambda a: np.vstack([a[0], a[1]]),
    "split": lambda a: np.split(a, [1, 3], axis=1), "diff": lambda a: np.diff(a, n=2),
    "where": lambda a: np.where(a > 0.5, a, -a), "clip": lambda a: np.clip(a, 0.3, 0.6),
    "take": lambda a: np.take(a, [0, 5, 2]), "isclose": lambda a: np.isclose(a, a + 1e-9),
    "allclose": lambda a: np.allclose(a, a * (1 + 1e-7)), "array_equal": lambda a: np.array_equal(a, a),
    "zeros_like": lambda a: np.zeros_like(a, dtype=np.int32), "ones_like": lambda a: np.ones_like(a),
    "empty_like": lambda a: np.empty_like(a) * 0, "full_like": lambda a: np.full_like(a, 7.5),
    "round": lambda a: np.round(a * 10, 1), "around": lambda a: np.around(a),
    "linalg.norm": lambda a: np.linalg.norm(a, axis=1),
    "linalg.inv": lambda a: np.linalg.inv(a[:, :3] + 3 * np.eye(3)),
    "linalg.det": lambda a: np.linalg.det(a[:, :3]),
    "linalg.solve": lambda a: np.linalg.solve(a[:, :3] + np.eye(3), a[:, 3]),
    "shape": lambda a: np.shape(a), "ndim": lambda a: np.ndim(a), "size": lambda a: np.size(a, 1),
    "result_type": lambda a: np.result_type(a, 1.0),
}


def _check(got, expected):
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _check(g, e)
        return
    if isinstance(expected, np.dtype):
        assert got == expected
        return
    got = np.asarray(got)
    assert got.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_every_registered_function_has_a_call_here():
    names = {name for name, kind, _ in registry.supported() if kind == "function"}
    assert names == {"np." + n for n in CALLS}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_function_on_tensors_matches_numpy(name):
    call = CALLS[name]
    expected = call(A)
    _check(call(rt.constant(A)), expected)
    compiled = rt.function(call, autograph=False)
    if not isinstance(expected, np.dtype):
        _check(compiled(rt.constant(A)), expected)


UNARY = [u for u in registry.UFUNCS if u.nin == 1 and u not in (np.invert, np.logical_not)]
BINARY = [u for u in registry.UFUNCS if u.nin == 2 and u.__name__ not in ("matmul",)]


@pytest.mark.parametrize("ufunc", UNARY, ids=[u.__name__ for u in UNARY])
def test_unary_ufunc_matches_numpy(ufunc):
    x = A + 1.0 if ufunc is np.arccosh else A
    for value in (x, x.astype(np.float32)):
        expected = ufunc(value)
        _check(ufunc(rt.constant(value)), expected)
        _check(rt.function(lambda x: ufunc(x), autograph=False)(rt.constant(value)), expected)


@pytest.mark.parametrize("ufunc", BINARY, ids=[u.__name__ for u in BINARY])
def test_binary_ufunc_matches_numpy(ufunc):
    a, b = (A > 0.5, B > 0.5) if ufunc.__name__.startswith("logical") else (A, B)
    if ufunc.__name__.startswith(("bitwise", "left_shift", "right_shift")):  # integers only
        a, b = I * 5 - 4, I
    expected = ufunc(a, b)
    _check(ufunc(rt.constant(a), rt.constant(b)), expected)
    _check(ufunc(a, rt.constant(b)), expected)
    _check(rt.function(lambda x, y: ufunc(x, y), autograph=False)(rt.constant(a), rt.constant(b)),
           expected)


def test_matmul_follows_numpy_for_vectors_and_matrices():
    for a, b in [(M, V), (V, M), (V, V), (M, M), (np.stack([M, M]), M)]:
        _check(np.matmul(rt.constant(a), rt.constant(b)), np.matmul(a, b))
        _check(rt.constant(a) @ rt.constant(b), a @ b)
        _check(a @ rt.constant(b), a @ b)


def test_ufunc_reduce_and_accumulate():
    t = rt.constant(A)
    _check(np.add.reduce(t), np.add.reduce(A))
    _check(np.maximum.reduce(t, axis=1, keepdims=True), np.maximum.reduce(A, axis=1, keepdims=True))
    _check(np.add.reduce(rt.constant(I)), np.add.reduce(I))
    _check(np.add.accumulate(t, axis=1), np.add.accumulate(A, axis=1))
    _check(np.logical_or.reduce(rt.constant(A > 0.5)), np.logical_or.reduce(A > 0.5))
    _check(np.logical_and.reduce(rt.constant(A - 0.5), axis=1), np.logical_and.reduce(A - 0.5, axis=1))


def test_linalg_norm_orders_match_numpy():
    t = rt.constant(A)
    for ord_, axis in [(None, None), (1, 1), (2, 0), (np.inf, None if False else 1), (-np.inf, 1),
                       (0, 1), (3, 1), ("fro", None), (1, None), (np.inf, None), (-1, None)]:
        _check(np.linalg.norm(t, ord=ord_, axis=axis), np.linalg.norm(A, ord=ord_, axis=axis))
    with pytest.raises(TypeError, match="singular values"):
        np.linalg.norm(t, ord=2)


def test_where_with_one_argument_gives_index_tuples():
    mask = A > 0.5
    _check(np.where(rt.constant(mask)), np.where(mask))


def test_integer_and_bool_reductions_take_numpy_dtypes():
    for call in (np.sum, np.prod, np.cumsum, np.mean, np.var, np.max):
        _check(call(rt.constant(I)), call(I))
    _check(np.sum(rt.constant(I > 1)), np.sum(I > 1))
    _check(np.sum(rt.constant(I), dtype=np.float32), np.sum(I, dtype=np.float32))


NEW_PRIMITIVES = [np.expm1, np.exp2, np.log2, np.log10, np.sinh, np.cosh, np.arcsin, np.arccos,
                  np.arctan, np.arcsinh, np.arccosh, np.arctanh]


@pytest.mark.parametrize("ufunc", NEW_PRIMITIVES, ids=[u.__name__ for u in NEW_PRIMITIVES])
def test_new_primitives_have_gradients(ufunc):
    x = A[0] + 1.0 if ufunc is np.arccosh else A[0]
    check_gradients(lambda t: ufunc(t), x, rtol=1e-5)


@pytest.mark.parametrize("ufunc", [np.arctan2, np.hypot], ids=["arctan2", "hypot"])
def test_binary_primitives_have_gradients_through_broadcasting(ufunc):
    check_gradients(lambda a, b: ufunc(a, b), A, B[0], rtol=1e-5)
