"""rt.random.Generator: a state variable that every draw advances; the same seed replays the
same sequence eagerly and compiled (on both tiers, across calls), and the draws' distributions."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

N = 100_000


def _draws(g):
    return (g.normal([3]), g.normal([2, 2], mean=1.0, stddev=2.0, dtype=rt.float64),
            g.uniform([4]), g.uniform([4], minval=0, maxval=10, dtype=rt.int32),
            g.truncated_normal([5]), g.uniform_full_int([2]), g.uniform_full_int([2], rt.int64),
            g.binomial([3], counts=10, probs=0.5), g.make_seeds(2))


def _same(a, b):
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)


def test_each_draw_advances_the_state():
    g = rt.random.Generator.from_seed(5)
    assert g.state.dtype is rt.int64 and g.state.shape == (3,) and not g.state.trainable
    assert g.algorithm == rt.random.Algorithm.PHILOX.value == 1
    before = g.state.numpy().copy()
    a, b = g.normal([4]), g.normal([4])
    assert not np.array_equal(a, b)
    after = g.state.numpy()
    # TensorFlow's reservation: the 128-bit counter moves 256 blocks per value drawn
    assert after[2] == before[2] and after[1] == before[1] and after[0] == before[0] + 2 * 4 * 256


def test_the_same_seed_replays_the_same_sequence():
    _same(_draws(rt.random.Generator.from_seed(42)), _draws(rt.random.Generator.from_seed(42)))
    other = _draws(rt.random.Generator.from_seed(43))
    assert not np.array_equal(_draws(rt.random.Generator.from_seed(42))[0], other[0])


@pytest.mark.parametrize("jit", [False, True])
def test_compiled_draws_continue_the_eager_sequence_across_calls(jit):
    eager = rt.random.Generator.from_seed(7)
    want = [_draws(eager) for _ in range(3)]
    g = rt.random.Generator.from_seed(7)
    f = rt.function(lambda: _draws(g), jit_compile=jit)
    got = [f() for _ in range(3)]
    for a, b in zip(got, want):
        _same(a, b)
    np.testing.assert_array_equal(g.state.numpy(), eager.state.numpy())
    assert f.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("jit", [False, True])
def test_eager_and_compiled_draws_interleave(jit):
    eager = rt.random.Generator.from_seed(3)
    want = [eager.normal([2]) for _ in range(4)]
    g = rt.random.Generator.from_seed(3)
    f = rt.function(lambda: g.normal([2]), jit_compile=jit)
    got = [g.normal([2]), f(), g.normal([2]), f()]
    _same(got, want)


def test_a_generator_created_inside_a_function_is_created_once():
    @rt.function
    def f():
        g = rt.random.Generator.from_seed(11)
        return g.normal([2])

    eager = rt.random.Generator.from_seed(11)
    _same([f(), f()], [eager.normal([2]), eager.normal([2])])


def test_a_generator_passed_as_an_argument_draws_from_its_own_state():
    @rt.function
    def f(g):
        return g.uniform([3])

    g1, g2 = rt.random.Generator.from_seed(1), rt.random.Generator.from_seed(2)
    r1, r2 = rt.random.Generator.from_seed(1), rt.random.Generator.from_seed(2)
    _same([f(g1), f(g2), f(g1)], [r1.uniform([3]), r2.uniform([3]), r1.uniform([3])])


def test_constructors_and_resets():
    g = rt.random.Generator.from_seed(9)
    first = g.normal([3])
    g.reset_from_seed(9)
    np.testing.assert_array_equal(g.normal([3]), first)
    state = rt.random.create_rng_state(9, "philox")
    assert state.dtype == np.int64 and state.shape == (3,)
    np.testing.assert_array_equal(rt.random.Generator.from_state(state, "philox").normal([3]), first)
    np.testing.assert_array_equal(rt.random.Generator(state=state, alg=1).normal([3]), first)
    g.reset(state)
    copy = rt.random.Generator(copy_from=g)
    np.testing.assert_array_equal(copy.normal([3]), g.normal([3]))
    key_counter = rt.random.Generator.from_key_counter(state[2], state[:2], "philox")
    np.testing.assert_array_equal(key_counter.normal([3]), first)
    h = rt.random.Generator.from_seed(9)
    h.skip(3)  # as TensorFlow's: skipping n is drawing n values
    second = rt.random.Generator.from_seed(9)
    second.normal([3])
    np.testing.assert_array_equal(h.normal([3]), second.normal([3]))
    a = rt.random.Generator.from_non_deterministic_state()
    b = rt.random.Generator.from_non_deterministic_state()
    assert not np.array_equal(a.normal([4]), b.normal([4]))
    assert rt.random.experimental.Generator is rt.random.Generator


def test_reset_inside_a_function_restarts_the_sequence():
    g = rt.random.Generator.from_seed(4)

    @rt.function
    def f():
        g.reset_from_seed(4)
        return g.normal([2])

    first = rt.random.Generator.from_seed(4).normal([2])
    _same([f(), f()], [first, first])


def test_split_gives_independent_reproducible_generators():
    g = rt.random.Generator.from_seed(1)
    children = g.split(3)
    assert len(children) == 3 and all(isinstance(c, rt.random.Generator) for c in children)
    draws = [c.normal([4]).numpy() for c in children]
    assert len({d.tobytes() for d in draws}) == 3
    again = rt.random.Generator.from_seed(1).split(3)
    for c, d in zip(again, draws):
        np.testing.assert_array_equal(c.normal([4]), d)


def test_make_seeds_feed_the_stateless_functions():
    seeds = rt.random.Generator.from_seed(2).make_seeds(3)
    assert seeds.shape == (2, 3) and seeds.dtype is rt.int64
    x = rt.random.stateless_normal([2], seeds[:, 1])
    np.testing.assert_array_equal(x, rt.random.stateless_normal([2], seeds.numpy()[:, 1]))


def test_the_global_generator():
    rt.random.set_global_generator(rt.random.Generator.from_seed(21))
    g = rt.random.get_global_generator()
    assert rt.random.get_global_generator() is g
    np.testing.assert_array_equal(g.normal([2]), rt.random.Generator.from_seed(21).normal([2]))
    with pytest.raises(TypeError, match="generator"):
        rt.random.set_global_generator(42)


def test_distributions():
    g = rt.random.Generator.from_seed(123)
    x = g.normal([N], mean=-1.0, stddev=0.5, dtype=rt.float64).numpy()
    assert abs(x.mean() + 1.0) < 0.01 and abs(x.std() - 0.5) < 0.01
    u = g.uniform([N], minval=2.0, maxval=4.0).numpy()
    assert u.dtype == np.float32 and u.min() >= 2 and u.max() < 4 and abs(u.mean() - 3) < 0.01
    i = g.uniform([N], minval=-2, maxval=3, dtype=rt.int64).numpy()
    assert i.min() == -2 and i.max() == 2
    assert np.all(np.abs(np.bincount(i + 2) / N - 0.2) < 0.01)
    t = g.truncated_normal([N], mean=0.0, stddev=3.0).numpy()
    assert np.abs(t).max() <= 6.0 and abs(t.mean()) < 0.05
    b = g.binomial([N], counts=20, probs=0.25).numpy()
    assert b.dtype == np.int32 and abs(b.mean() - 5) < 0.05 and abs(b.var() - 3.75) < 0.1
    full = g.uniform_full_int([N]).numpy()
    assert full.dtype == np.uint64 and full.max() > 2 ** 63
    assert g.uniform([3], minval=None, maxval=None, dtype=rt.int32).dtype is rt.int32


def test_bad_arguments():
    with pytest.raises(NotImplementedError, match="threefry"):
        rt.random.Generator.from_seed(1, alg="threefry")
    with pytest.raises(ValueError, match="alg"):
        rt.random.Generator.from_seed(1, alg="mersenne")
    with pytest.raises(ValueError, match="state"):
        rt.random.Generator(state=[1, 2])
    with pytest.raises(ValueError, match="copy_from or state"):
        rt.random.Generator()
    with pytest.raises(TypeError, match="seed"):
        rt.random.Generator.from_seed(1.5)
    with pytest.raises(TypeError, match="stat"):
        rt.random.Generator(stat=[0, 0, 1])
    g = rt.random.Generator.from_seed(1)
    with pytest.raises(ValueError, match="maxval"):
        g.uniform([2], dtype=rt.int32)
    with pytest.raises(TypeError, match="dtype"):
        g.normal([2], dtype=rt.int32)
    with pytest.raises(TypeError, match="stdev"):
        g.normal([2], stdev=1.0)
