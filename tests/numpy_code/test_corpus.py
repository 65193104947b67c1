"""Each NumPy-written function of the corpus, run on ndarrays and through rt.function on tensors.

Values agree with NumPy's, one trace serves several inputs of the same spec, and the
gradients of the differentiable ones match finite differences (eagerly under a tape, with
the tape inside a compiled function, and around a call of one).
"""

import numpy as np
import pytest

import runtime as rt
from tests.gradients.fd import check_gradients

from .corpus import CASES

IDS = [case.fn.__name__ for case in CASES]


def _assert_same(got, expected):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_same(g, e)
        return
    got = np.asarray(got)
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compiled_function_agrees_with_numpy_and_traces_once(case):
    compiled = rt.function(case.fn)
    for seed in range(3):
        inputs = case.inputs(np.random.default_rng(seed))
        expected = case.fn(*inputs)
        _assert_same(compiled(*[rt.constant(a) for a in inputs]), expected)
    assert compiled.experimental_get_tracing_count() == 1


def _flat(values):
    return [np.asarray(v) for v in (values if isinstance(values, tuple) else (values,))]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_eager_tensors_give_numpy_values_bit_identical_to_compiled(case):
    tensors = [rt.constant(a) for a in case.inputs(np.random.default_rng(7))]
    eager = case.fn(*tensors)
    _assert_same(eager, case.fn(*[t.numpy() for t in tensors]))
    for e, c in zip(_flat(eager), _flat(rt.function(case.fn)(*tensors))):
        assert e.dtype == c.dtype and np.array_equal(e, c, equal_nan=True)


DIFFERENTIABLE = [case for case in CASES if case.differentiable]


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=[c.fn.__name__ for c in DIFFERENTIABLE])
def test_gradients_match_finite_differences(case):
    inputs = case.inputs(np.random.default_rng(3))

    def first_output(*xs):
        out = case.fn(*xs)
        return out[0] if isinstance(out, tuple) else out
    check_gradients(first_output, *inputs, rtol=1e-4, atol=1e-6)


def test_the_corpus_is_large():
    assert len(CASES) >= 25 and len(DIFFERENTIABLE) >= 15
