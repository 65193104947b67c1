"""CTC (runtime/ops/ctc.py, keras.ops/losses/backend's CTC functions).

Oracles: every call of tests/runtime/ctc_cases.py recorded from TensorFlow 2.21 and Keras 3
(losses, gradients, decoded sequences, scores, the exception classes raised), a brute-force
sum over every alignment of short sequences, finite differences of the loss, and the
documented properties (the greedy decoder is the beam search of width 1's best path)."""

import itertools
import json

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

from . import ctc_cases

RECORDED = json.loads(ctc_cases.RECORD.read_text())
GOT = {}


def _got():
    if not GOT:
        GOT.update(ctc_cases.cases(rt, rt.keras, rt.keras.backend))
    return GOT


def _same(want, got, path=""):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), path
        for i, (w, g) in enumerate(zip(want, got)):
            _same(w, g, f"{path}[{i}]")
    else:
        assert np.allclose(want, got, rtol=2e-4, atol=2e-5), (path, want, got)


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_tensorflow(name):
    want, got = RECORDED[name], _got()[name]
    if isinstance(want, str):
        assert got == want, f"{name}: TensorFlow raised {want}, got {got!r}"
    else:
        _same(want, got, name)


def _brute_force(logp, label, blank):
    """-log of the summed probability of every alignment collapsing to `label`."""
    frames, classes = logp.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=frames):
        merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
        if [c for c in merged if c != blank] == list(label):
            total += np.exp(sum(logp[t, c] for t, c in enumerate(path)))
    return -np.log(total)


@pytest.mark.parametrize("blank", [0, 2])
def test_loss_is_the_sum_over_alignments(blank):
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(5, 1, 3))
    logp = logits[:, 0] - np.log(np.exp(logits[:, 0]).sum(-1, keepdims=True))
    for label in ([1], [1, 1], [0 if blank else 2, 1] if blank else [2, 1], []):
        width = max(len(label), 1)
        dense = np.zeros((1, width), np.int32)
        dense[0, :len(label)] = label
        got = rt.nn.ctc_loss(dense, logits, [len(label)], [5], blank_index=blank).numpy()
        assert np.allclose(got, _brute_force(logp, label, blank), rtol=1e-10), label


def test_gradient_matches_finite_differences_and_stages():
    rng = np.random.default_rng(1)
    logits = rt.constant(rng.normal(size=(6, 2, 4)))
    labels, lengths = np.array([[1, 2, 2], [3, 1, 0]]), np.array([3, 2])

    def loss(x):
        return rt.reduce_sum(rt.nn.ctc_loss(labels, x, lengths, [6, 5], blank_index=0))
    with rt.GradientTape() as tape:
        tape.watch(logits)
        value = loss(logits)
    grad = tape.gradient(value, logits).numpy()
    eps, x = 1e-6, logits.numpy()
    numeric = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        numeric[index] = (loss(rt.constant(up)).numpy() - loss(rt.constant(down)).numpy()) / 2 / eps
    assert np.allclose(grad, numeric, atol=1e-6)
    assert np.all(grad[5, 1] == 0)  # the frame after the second sequence

    @rt.function
    def staged(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = loss(x)
        return y, tape.gradient(y, x)
    y, g = staged(logits)
    assert np.allclose(y.numpy(), value.numpy()) and np.allclose(g.numpy(), grad)


def test_second_derivative_is_refused():
    x = rt.constant(np.zeros((3, 1, 3)))
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            loss = rt.nn.ctc_loss([[1]], x, [1], [3])
        g = inner.gradient(loss, x)
    with pytest.raises(LookupError):
        outer.gradient(g, x)


def test_greedy_is_the_best_path_of_a_width_one_beam():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(7, 3, 4)).astype(np.float32)
    greedy, _ = rt.nn.ctc_greedy_decoder(x, [7, 5, 6])
    beam, _ = rt.nn.ctc_beam_search_decoder(x, [7, 5, 6], beam_width=1)
    dense = rt.sparse.to_dense(greedy[0], -1).numpy()
    best = np.argmax(x, axis=2)
    for b, n in enumerate([7, 5, 6]):
        merged = [c for i, c in enumerate(best[:n, b]) if i == 0 or c != best[i - 1, b]]
        want = [c for c in merged if c != 3]
        assert dense[b, :len(want)].tolist() == want and np.all(dense[b, len(want):] == -1)
    assert beam[0].dense_shape.numpy()[0] == 3


def test_errors():
    x = np.zeros((4, 1, 3), np.float32)
    with pytest.raises(ValueError, match="blank_index"):
        rt.nn.ctc_loss(rt.sparse.from_dense([[1]]), x, None, [4])
    with pytest.raises(ValueError, match="blank_index"):
        rt.nn.ctc_loss([[1]], x, [1], [4], blank_index=3)
    with pytest.raises(ValueError, match="rank 3"):
        rt.nn.ctc_loss([[1]], x[0], [1], [4])
    with pytest.raises(InvalidArgumentError, match="logit_length"):
        rt.nn.ctc_loss([[1]], x, [1], [5])
    with pytest.raises(ValueError, match="top_paths"):
        rt.nn.ctc_beam_search_decoder(x, [4], beam_width=2, top_paths=3)
    with pytest.raises(TypeError):
        rt.nn.ctc_loss([[1]], x, [1], [4], blank_idx=0)
    with pytest.raises(TypeError, match="unique"):
        rt.nn.ctc_loss([[1]], x, [1], [4], unique=[1, 2, 3])
    with pytest.raises(ValueError, match="strategy"):
        rt.keras.ops.ctc_decode(np.zeros((1, 4, 3)), [4], strategy="best")


def test_unique_gives_the_same_loss():
    rng = np.random.default_rng(3)
    labels = np.array([[1, 2, 1, 0], [3, 3, 2, 1]])
    x = rng.normal(size=(8, 2, 5)).astype(np.float32)
    plain = rt.nn.ctc_loss(labels, x, [3, 4], [8, 8], blank_index=4)
    unique = rt.nn.ctc_loss(labels, x, [3, 4], [8, 8], blank_index=4,
                            unique=rt.nn.ctc_unique_labels(labels))
    assert np.allclose(plain.numpy(), unique.numpy())


def test_half_precision_computes_in_float32():
    x = np.random.default_rng(4).normal(size=(5, 2, 4))
    half = rt.nn.ctc_loss([[1, 2], [3, 0]], x.astype(np.float16), [2, 1], [5, 5])
    single = rt.nn.ctc_loss([[1, 2], [3, 0]], x.astype(np.float16).astype(np.float32), [2, 1],
                            [5, 5])
    assert half.dtype == rt.float16
    assert np.allclose(half.numpy(), single.numpy().astype(np.float16))
