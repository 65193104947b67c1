"""tf.experimental.numpy functions composed of its others (runtime/experimental/numpy_more.py),
each checked against NumPy itself."""

import numpy as np
import pytest

import runtime as rt
import runtime.experimental.numpy as tnp

X = np.arange(24.0).reshape(2, 3, 4)
V = np.array([-1.5, 2.7, -np.inf, np.inf, np.nan])
C = np.array([1 + 1j, 2 + 0j])
A, B = np.arange(6.0).reshape(2, 3), np.array([[1.0, 2.0], [3.0, 4.0]])
XS = np.arange(6)
ARR = np.array([[10, 30, 20], [60, 40, 50]])
ROWS, COLS = np.argsort(ARR, axis=0)[:1], np.argsort(ARR, axis=1)

CASES = {
    "hsplit": lambda m: m.hsplit(X, 3),
    "vsplit": lambda m: m.vsplit(X, 2),
    "dsplit": lambda m: m.dsplit(X, 2),
    "fix": lambda m: m.fix(V),
    "isneginf": lambda m: m.isneginf(V),
    "isposinf": lambda m: m.isposinf(V),
    "iscomplex": lambda m: m.iscomplex(C),
    "isreal": lambda m: m.isreal(C),
    "logaddexp2": lambda m: m.logaddexp2(np.array([1.0, 1000.0]), np.array([2.0, 1000.0])),
    "kron": lambda m: m.kron(A, B),
    "kron_ranks": lambda m: m.kron(np.array([1.0, 2.0]), B),
    "vander": lambda m: m.vander(np.array([1.0, 2.0, 3.0])),
    "vander_increasing": lambda m: m.vander(np.array([1.0, 2.0, 3.0]), 4, True),
    "select": lambda m: m.select([XS < 2, XS > 3], [XS, XS ** 2], 42),
    "diagflat": lambda m: m.diagflat(np.array([[1, 2], [3, 4]]), 1),
    "broadcast_arrays": lambda m: m.broadcast_arrays(np.ones((2, 1)), np.arange(3)),
    "take_along_axis_1": lambda m: m.take_along_axis(ARR, COLS, 1),
    "take_along_axis_0": lambda m: m.take_along_axis(ARR, ROWS, 0),
    "compress_0": lambda m: m.compress([0, 1], ARR, axis=0),
    "compress_1": lambda m: m.compress([False, True, True], ARR, axis=1),
    "compress_flat": lambda m: m.compress([1, 0, 1], ARR),
    "ix_": lambda m: m.ix_(np.array([0, 1]), np.array([2, 4])),
    "diag_indices": lambda m: m.diag_indices(3),
    "divmod": lambda m: m.divmod(np.array([7, -7]), 3),
    "polyval": lambda m: m.polyval(np.array([3.0, 0.0, 1.0]), np.array([5.0, 1.0])),
    "cross": lambda m: m.cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])),
    "nextafter": lambda m: m.nextafter(np.float32(1), np.float32(2)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_numpy(name):
    got, expected = CASES[name](tnp), CASES[name](np)
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(np.asarray(g), e)
    else:
        np.testing.assert_allclose(np.asarray(got), expected)


def test_flatten_and_type_names():
    np.testing.assert_array_equal(tnp.flatten(A).numpy(), A.ravel())
    assert tnp.inexact is np.inexact and tnp.string_ is np.bytes_ and tnp.unicode_ is np.str_


def test_kron_and_logaddexp2_have_gradients():
    a, b = rt.constant([[1.0, 2.0]]), rt.constant([[3.0], [4.0]])
    with rt.GradientTape() as tape:
        tape.watch(a)
        y = rt.reduce_sum(tnp.kron(a, b))
    np.testing.assert_allclose(tape.gradient(y, a).numpy(), [[7.0, 7.0]])  # sum(b) for each a_j
    x = rt.constant([0.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(tnp.logaddexp2(x, 1.0))
    two = np.exp2(np.array([0.0, 3.0]))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), two / (two + 2.0), rtol=1e-6)
