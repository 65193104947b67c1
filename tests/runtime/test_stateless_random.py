"""rt.random.stateless_*: numbers that are a function of a seed pair, the same eagerly, staged,
on both tiers and with the seed traced; their distributions, seeds derived with split and
fold_in, saved functions, and the errors of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

N = 100_000
SEED = (7, 11)


def _draws(seed):
    """One of each stateless draw, small enough to compare exactly."""
    return (rt.random.stateless_normal([3, 4], seed),
            rt.random.stateless_normal([5], seed, mean=2.0, stddev=0.5, dtype=rt.float64),
            rt.random.stateless_uniform([6], seed),
            rt.random.stateless_uniform([6], seed, minval=-3.0, maxval=5.0, dtype=rt.float64),
            rt.random.stateless_uniform([7], seed, minval=-5, maxval=9, dtype=rt.int32),
            rt.random.stateless_uniform([4], seed, minval=None, maxval=None, dtype=rt.int64),
            rt.random.stateless_truncated_normal([8], seed, stddev=2.0),
            rt.random.stateless_categorical([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]], 6, seed),
            rt.random.stateless_binomial([5], seed, counts=10.0, probs=0.3),
            rt.random.split(seed, 3),
            rt.random.fold_in(seed, 5))


def _same(a, b):
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


def test_the_same_seed_gives_the_same_numbers_and_another_seed_others():
    first, again, other = _draws(SEED), _draws(list(SEED)), _draws((7, 12))
    _same(first, again)
    for a, b in zip(first, other):
        assert not np.array_equal(np.asarray(a), np.asarray(b))


def test_int32_int64_and_array_seeds_agree():
    # (split and fold_in return seeds of the dtype given)
    _same(_draws(np.array(SEED, np.int32))[:-2], _draws(rt.constant(SEED, dtype=rt.int64))[:-2])


@pytest.mark.parametrize("jit", [False, True])
def test_staged_with_a_constant_or_a_traced_seed_gives_the_eager_numbers(jit):
    eager = _draws(SEED)
    constant = rt.function(lambda: _draws(SEED), jit_compile=jit)
    traced = rt.function(_draws, jit_compile=jit,
                         input_signature=[rt.TensorSpec([2], rt.int64)])
    _same(constant(), eager)
    _same(traced(np.array(SEED, np.int64)), eager)
    _same(traced(np.array(SEED, np.int64)), eager)  # pure: every call the same
    _same(traced(np.array([7, 12], np.int64)), _draws((7, 12)))


def test_a_shape_known_only_when_the_graph_runs():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32), rt.TensorSpec([2], rt.int32)])
    def f(x, seed):
        n = rt.shape(x)
        return rt.random.stateless_normal(n, seed), rt.random.stateless_uniform(
            rt.concat([n, [2]], 0), seed, minval=0, maxval=4, dtype=rt.int64)

    normal, ints = f(np.zeros(5, np.float32), np.array(SEED, np.int32))
    assert normal.shape == (5,) and ints.shape == (5, 2)
    np.testing.assert_array_equal(normal, rt.random.stateless_normal([5], SEED))
    concrete = f.get_concrete_function()
    assert concrete.structured_outputs[0].shape.as_list() == [None]


def test_normal_mean_and_variance():
    x = rt.random.stateless_normal([N], SEED, mean=2.0, stddev=3.0, dtype=rt.float64).numpy()
    assert abs(x.mean() - 2.0) < 0.05 and abs(x.std() - 3.0) < 0.05
    assert x.dtype == np.float64
    for dtype in (rt.float16, rt.float32):
        assert rt.random.stateless_normal([4], SEED, dtype=dtype).dtype is dtype


def test_uniform_floats_lie_in_the_range_with_uniform_moments():
    for dtype in (rt.float16, rt.float32, rt.float64):
        x = rt.random.stateless_uniform([N], SEED, minval=-1.0, maxval=3.0, dtype=dtype).numpy()
        assert x.dtype == dtype.as_numpy_dtype and x.min() >= -1 and x.max() < 3
        assert abs(x.astype(np.float64).mean() - 1.0) < 0.03
        assert abs(x.astype(np.float64).var() - 16 / 12) < 0.03
    unit = rt.random.stateless_uniform([N], SEED, dtype=rt.float16).numpy()
    assert unit.min() >= 0 and unit.max() < 1


def test_uniform_ints_cover_the_range_evenly():
    x = rt.random.stateless_uniform([N], SEED, minval=-3, maxval=7, dtype=rt.int32).numpy()
    assert x.dtype == np.int32 and x.min() == -3 and x.max() == 6
    counts = np.bincount(x + 3)
    assert np.all(np.abs(counts / N - 0.1) < 0.01)
    full = rt.random.stateless_uniform([N], SEED, minval=None, maxval=None, dtype=rt.int64).numpy()
    assert full.min() < -(2 ** 62) and full.max() > 2 ** 62
    top = rt.random.stateless_uniform([N], SEED, minval=2 ** 40, maxval=2 ** 40 + 3,
                                      dtype=rt.int64).numpy()
    assert set(np.unique(top)) == {2 ** 40, 2 ** 40 + 1, 2 ** 40 + 2}


def test_truncated_normal_stays_within_two_stddevs():
    x = rt.random.stateless_truncated_normal([N], SEED, mean=1.0, stddev=2.0,
                                             dtype=rt.float64).numpy()
    assert x.min() >= -3.0 and x.max() <= 5.0
    assert abs(x.mean() - 1.0) < 0.03
    # the variance of a standard normal truncated to [-2, 2]
    a = 2.0
    pdf = np.exp(-a * a / 2) / np.sqrt(2 * np.pi)
    mass = 0.9544997361036416
    assert abs(x.var() / 4.0 - (1 - 2 * a * pdf / mass)) < 0.02


def test_categorical_draws_tensorflows_classes():
    # tf.random.stateless_categorical(logits, n, seed).numpy() in TensorFlow 2.21 (CPU)
    logits = np.array([[0.5, -1.0, 2.0, 0.25, 1.5], [1.0, 0.0, -0.5, 3.0, -2.0], [0.0] * 5],
                      np.float32)
    assert rt.random.stateless_categorical(logits, 7, (1, 2)).numpy().tolist() == [
        [4, 4, 2, 4, 2, 2, 4], [3, 3, 3, 3, 3, 3, 3], [3, 1, 4, 2, 4, 2, 1]]
    # an infinite logit is left out; a row with no finite logit gives the class count
    masked = np.array([[-1.5, 2.0, -np.inf, -0.5, -1.25, 0.75],
                       [-1.5, -0.25, -1.0, 0.5, -0.5, -1.0]], np.float32)
    assert rt.random.stateless_categorical(masked, 5, (123, -4)).numpy().tolist() == [
        [5, 1, 1, 1, 1], [0, 3, 1, 4, 3]]
    assert rt.random.stateless_categorical([[np.inf, 0.0, 1.0]], 5, (1, 2)).numpy().tolist() == [
        [2, 2, 1, 2, 2]]
    assert rt.random.stateless_categorical([[-np.inf, -np.inf]], 3, (1, 2)).numpy().tolist() == [
        [2, 2, 2]]
    assert rt.random.stateless_categorical(np.log(np.float32([[0.25, 0.75]])), 12,
                                           (7, 11)).numpy().tolist() == [
        [1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1]]
    wide = np.array([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])
    assert rt.random.stateless_categorical(wide, 6, (7, 11)).numpy().tolist() == [
        [2] * 6, [0] * 6]
    assert rt.random.stateless_categorical(wide[:1].astype(np.float16), 6, (7, 11),
                                           dtype=rt.int32).numpy().tolist() == [[2] * 6]


def test_categorical_frequencies_follow_softmax():
    logits = np.array([[0.0, 1.0, 2.0, -1.0], [2.0, 2.0, -np.inf, 0.0]], np.float32)
    samples = rt.random.stateless_categorical(logits, N, SEED).numpy()
    assert samples.shape == (2, N) and samples.dtype == np.int64
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    for row in range(2):
        freq = np.bincount(samples[row], minlength=4) / N
        np.testing.assert_allclose(freq, p[row], atol=0.01)
    assert not np.any(samples[1] == 2)  # probability zero
    small = rt.random.stateless_categorical(logits, 3, SEED, dtype=rt.int32)
    assert small.dtype is rt.int32 and small.shape == (2, 3)


def test_binomial_mean_and_variance():
    counts = np.array([5.0, 20.0, 100.0])
    probs = np.array([0.5, 0.1, 0.9])
    x = rt.random.stateless_binomial([N // 10, 3], SEED, counts=counts, probs=probs).numpy()
    assert x.dtype == np.int32 and x.min() >= 0 and np.all(x <= counts.astype(int))
    np.testing.assert_allclose(x.mean(axis=0), counts * probs, rtol=0.02)
    np.testing.assert_allclose(x.var(axis=0), counts * probs * (1 - probs), rtol=0.1)


def test_split_and_fold_in_derive_distinct_reproducible_seeds():
    seeds = rt.random.split(SEED, num=4)
    assert seeds.shape == (4, 2) and seeds.dtype is rt.int64
    assert len({tuple(s) for s in seeds.numpy()}) == 4
    np.testing.assert_array_equal(seeds, rt.random.experimental.stateless_split(SEED, 4))
    small = rt.random.split(rt.constant([1, 2], dtype=rt.int32))
    assert small.dtype is rt.int32 and small.shape == (2, 2)
    folded = [tuple(rt.random.fold_in(SEED, i).numpy()) for i in range(50)]
    assert len(set(folded)) == 50
    assert folded[3] == tuple(rt.random.experimental.stateless_fold_in(SEED, 3).numpy())
    # derived seeds are seeds: the numbers follow them
    a = rt.random.stateless_normal([3], seeds[0])
    np.testing.assert_array_equal(a, rt.random.stateless_normal([3], seeds.numpy()[0]))


def test_no_gradient_through_the_draws_but_through_their_parameters():
    mean = rt.Variable(1.0)
    low, high = rt.constant(-1.0), rt.constant(2.0)
    with rt.GradientTape(persistent=True) as tape:
        tape.watch([low, high])
        y = rt.reduce_sum(rt.random.stateless_normal([4], SEED, mean=mean))
        u = rt.random.stateless_uniform([4], SEED, minval=low, maxval=high)
        total = rt.reduce_sum(u)
    assert float(tape.gradient(y, mean)) == 4.0
    unit = rt.random.stateless_uniform([4], SEED).numpy()
    np.testing.assert_allclose(tape.gradient(total, high), np.sum(unit), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(total, low), np.sum(1 - unit), rtol=1e-6)
    np.testing.assert_allclose(u, -1.0 + 3.0 * unit, rtol=1e-6)


def test_saved_function_round_trips(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([2], rt.int64), rt.TensorSpec([None], rt.int32)])
    def noisy(seed, shape):
        return (rt.random.stateless_normal(shape, seed, stddev=2.0),
                rt.random.stateless_uniform([3], seed, minval=0, maxval=9, dtype=rt.int32),
                rt.random.stateless_categorical([[1.0, 2.0]], 4, seed),
                rt.random.stateless_truncated_normal([2], seed),
                rt.random.stateless_binomial([2], seed, 5, 0.5),
                rt.random.stateless_uniform([2], seed, minval=None, maxval=None, dtype=rt.int64))

    rt.saved_model.save(noisy, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    seed, shape = np.array([3, 4], np.int64), np.array([2, 3], np.int32)
    _same(loaded(seed, shape), noisy(seed, shape))


def test_bad_arguments_raise_errors_naming_them():
    with pytest.raises(ValueError, match="seed"):
        rt.random.stateless_normal([2], [1, 2, 3])
    with pytest.raises(TypeError, match="seed"):
        rt.random.stateless_normal([2], [1.0, 2.0])
    with pytest.raises(TypeError, match="seed"):
        rt.random.stateless_normal([2], rt.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="maxval"):
        rt.random.stateless_uniform([2], SEED, dtype=rt.int32)
    with pytest.raises(TypeError, match="dtype"):
        rt.random.stateless_normal([2], SEED, dtype=rt.int32)
    with pytest.raises(TypeError, match="dtype"):
        rt.random.stateless_categorical([[1.0]], 2, SEED, dtype=rt.float32)
    with pytest.raises(ValueError, match="shape"):
        rt.random.stateless_normal([-1], SEED)
    with pytest.raises(ValueError, match="logits"):
        rt.random.stateless_categorical([1.0, 2.0], 2, SEED)
    with pytest.raises(ValueError, match="num_samples"):
        rt.random.stateless_categorical([[1.0, 2.0]], -1, SEED)
    with pytest.raises(rt.errors.InvalidArgumentError, match="minval < maxval"):
        rt.random.stateless_uniform([2], SEED, minval=3, maxval=3, dtype=rt.int32)
    with pytest.raises(rt.errors.InvalidArgumentError, match="probs"):
        rt.random.stateless_binomial([2], SEED, counts=3.0, probs=1.5)
    with pytest.raises(TypeError, match="stddv"):
        rt.random.stateless_normal([2], SEED, stddv=1.0)
    with pytest.raises(ValueError, match="alg"):
        rt.random.stateless_normal([2], SEED, alg="threefry")
    with pytest.raises(TypeError, match="data"):
        rt.random.fold_in(SEED, 1.5)
