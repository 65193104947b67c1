"""A finite-difference checker for gradients (float64, central differences).

`check_gradients(fn, *arrays)` compares the gradients of `sum(fn(*xs) * w)` (w: fixed random
weights, so every output element matters) computed three ways against central
differences: eagerly under a tape, with the tape inside a compiled function (the backward
pass staged into the same graph), and with a tape around a call of a compiled function.
"""

from __future__ import annotations

import numpy as np

import runtime as rt

MODES = ("eager", "staged", "call")


def numeric_gradients(fn, arrays, eps=1e-6):
    """Central differences of the scalar fn(*arrays) with respect to each array."""
    grads = []
    for i, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [x.copy() for x in arrays]
            minus = [x.copy() for x in arrays]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            g[idx] = (fn(*plus) - fn(*minus)) / (2 * eps)
        grads.append(g)
    return grads


def _weights(fn, arrays):
    out = np.asarray(fn(*[rt.constant(a) for a in arrays]))
    rng = np.random.default_rng(1234)
    return rng.uniform(0.5, 1.5, out.shape).astype(out.dtype)


def analytic_gradients(fn, arrays, mode, weights):
    """Gradients of sum(fn(*xs) * weights) with respect to each input, computed per `mode`."""
    tensors = [rt.constant(a) for a in arrays]
    if mode == "eager":
        with rt.GradientTape() as tape:
            tape.watch(tensors)
            loss = rt.reduce_sum(rt.convert_to_tensor(fn(*tensors)) * weights)
        grads = tape.gradient(loss, tensors)
    elif mode == "staged":
        @rt.function(autograph=False)
        def step(*xs):
            with rt.GradientTape() as tape:
                tape.watch(list(xs))
                loss = rt.reduce_sum(rt.convert_to_tensor(fn(*xs)) * weights)
            return tape.gradient(loss, list(xs))
        grads = step(*tensors)
    elif mode == "call":
        compiled = rt.function(fn, autograph=False)
        with rt.GradientTape() as tape:
            tape.watch(tensors)
            out = compiled(*tensors)
        grads = tape.gradient(out, tensors, output_gradients=rt.constant(weights))
    else:
        raise ValueError(mode)
    return [None if g is None else np.asarray(g) for g in grads]


def check_gradients(fn, *arrays, modes=MODES, rtol=1e-5, atol=1e-6, eps=1e-6, none_is_zero=False):
    """Asserts that every mode's gradients match central differences (inputs in float64).

    With `none_is_zero`, a missing gradient (None) counts as zeros: an input that only the
    branch that did not run reads gets None eagerly but zeros from a staged cond.
    """
    arrays = [np.asarray(a, np.float64) for a in arrays]
    weights = _weights(fn, arrays)

    def scalar(*xs):
        return float(np.sum(np.asarray(fn(*[rt.constant(x) for x in xs])) * weights))

    expected = numeric_gradients(scalar, arrays, eps)
    for mode in modes:
        got = analytic_gradients(fn, arrays, mode, weights)
        for i, (g, e) in enumerate(zip(got, expected)):
            if g is None and none_is_zero:
                g = np.zeros_like(e)
            assert g is not None, f"{mode}: no gradient for input {i}"
            assert g.shape == e.shape, f"{mode}: gradient {i} has shape {g.shape}, expected {e.shape}"
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol,
                                       err_msg=f"{mode}: gradient of input {i}")
