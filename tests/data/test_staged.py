"""Datasets inside rt.function (staged loops, reduce, next on iterators) and in Model.fit."""

import numpy as np
import pytest

import runtime as rt

Dataset = rt.data.Dataset


def _sum_odd_until(ds):
    s = rt.constant(0, rt.int64)
    for x in ds:
        if x > 6:
            break
        if x % 2 == 0:
            continue
        s += x
    return s


def _plain_sum_odd_until(n):
    s = 0
    for x in range(n):
        if x > 6:
            break
        if x % 2 == 0:
            continue
        s += x
    return s


def test_staged_loop_with_break_and_continue():
    f = rt.function(_sum_odd_until)
    for n in (10, 5, 0):
        assert int(f(Dataset.range(n))) == _plain_sum_odd_until(n)
    assert f.experimental_get_tracing_count() == 1     # one element_spec, one trace


def test_the_numba_tier_refuses_dataset_loops_clearly():
    f = rt.function(_sum_odd_until, jit_compile=True)
    with pytest.raises(Exception, match="DatasetIteratorOpen"):
        f(Dataset.range(3))


def test_tuple_targets_and_captured_dataset():
    x = np.arange(4.0, dtype=np.float32)
    ds = Dataset.from_tensor_slices((x, np.ones(4, np.float32) * 2))

    @rt.function
    def dot(d):
        s = rt.constant(0.0)
        for a, b in d:
            s += a * b
        return s
    assert float(dot(ds)) == float((x * 2).sum())
    assert float(dot(ds.take(2))) == 2.0

    @rt.function
    def captured():
        s = rt.constant(0.0)
        for a, _b in ds:
            s += a
        return s
    assert float(captured()) == 6.0
    assert float(captured()) == 6.0     # each call iterates again


def test_return_inside_a_dataset_loop():
    @rt.function
    def find(ds):
        for x in ds:
            if x == 3:
                return x * 10
        return rt.constant(-1, rt.int64)
    assert int(find(Dataset.range(5))) == 30
    assert int(find(Dataset.range(2))) == -1


def test_different_element_specs_retrace():
    @rt.function
    def total(ds):
        s = rt.constant(0.0, rt.float64)
        for x in ds:
            s += rt.cast(rt.reduce_sum(x), rt.float64)
        return s
    a = np.arange(6.0).reshape(3, 2)
    assert float(total(Dataset.from_tensor_slices(a))) == 15.0
    assert float(total(Dataset.from_tensor_slices(a * 2))) == 30.0
    assert total.experimental_get_tracing_count() == 1
    assert float(total(Dataset.from_tensor_slices(np.arange(4.0)))) == 6.0
    assert total.experimental_get_tracing_count() == 2


def test_reduce_eager_and_staged():
    ds = Dataset.range(5)
    assert int(ds.reduce(np.int64(0), lambda s, x: s + x)) == 10

    @rt.function
    def r(d):
        return d.reduce((rt.constant(0, rt.int64), rt.constant(0, rt.int64)),
                        lambda s, x: (s[0] + x, s[1] + 1))
    total, count = r(ds)
    assert int(total) == 10 and int(count) == 5
    total, count = r(Dataset.range(3))
    assert int(total) == 3 and int(count) == 3


def test_next_on_an_iterator_argument():
    @rt.function
    def two(it):
        return next(it) + next(it)
    it = iter(Dataset.range(10))
    assert [int(two(it)) for _ in range(3)] == [1, 5, 9]
    assert two.experimental_get_tracing_count() == 1
    small = iter(Dataset.range(3))
    two(small)
    with pytest.raises(rt.errors.OutOfRangeError):
        two(small)


def test_map_inside_a_function_on_a_dataset_argument():
    @rt.function
    def f(ds):
        s = rt.constant(0, rt.int64)
        for x in ds.map(lambda v: v * 2).batch(2):
            s += rt.reduce_sum(x)
        return s
    assert int(f(Dataset.range(5))) == 20


def test_custom_training_loop_with_gradient_tape():
    rng = np.random.default_rng(0)
    x = rng.random((64, 3)).astype(np.float32)
    y = x @ np.array([1.0, -1.0, 2.0], np.float32)
    w = rt.Variable(np.zeros(3, np.float32))
    ds = Dataset.from_tensor_slices((x, y)).batch(16)
    for _ in range(200):
        for xb, yb in ds:
            with rt.GradientTape() as tape:
                loss = rt.reduce_mean((rt.linalg.matvec(xb, w) - yb) ** 2)
            w.assign_sub(0.5 * tape.gradient(loss, w))
    np.testing.assert_allclose(w.numpy(), [1.0, -1.0, 2.0], atol=0.05)


def test_fit_evaluate_predict_on_datasets():
    rt.random.set_seed(0)
    rng = np.random.default_rng(1)
    x = rng.random((128, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 3.0, 0.5], np.float32))[:, None]
    ds = Dataset.from_tensor_slices((x, y)).shuffle(128, seed=0).batch(32)
    model = rt.keras.Sequential([rt.keras.layers.Dense(1)])
    model.compile(rt.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(ds, epochs=30, validation_data=ds, verbose=0)
    assert len(history.history["loss"]) == 30 and "val_loss" in history.history
    assert history.history["loss"][-1] < history.history["loss"][0] / 10
    by_dataset = model.evaluate(Dataset.from_tensor_slices((x, y)).batch(32))
    np.testing.assert_allclose(by_dataset, model.evaluate(x, y, batch_size=32), rtol=1e-5)
    np.testing.assert_allclose(model.predict(Dataset.from_tensor_slices(x).batch(50)),
                               model.predict(x), rtol=1e-6)
    with pytest.raises(ValueError, match="y must not be given"):
        model.fit(ds, y, verbose=0)
    with pytest.raises(ValueError, match="infinite"):
        model.fit(ds.repeat(), verbose=0)


def test_a_loop_over_a_dataset_relaxes_a_changing_shape_as_reduce_does():
    @rt.function
    def total(dataset):
        loss = rt.constant(0)
        for x, y in dataset:
            loss += rt.abs(y - x)           # elements of unknown shape
        return loss

    pairs = [(1, 4), (2, 2), (5, 1)]
    ds = rt.data.Dataset.from_generator(lambda: pairs, (rt.int32, rt.int32))
    assert int(total(ds)) == sum(abs(y - x) for x, y in pairs)

    @rt.function
    def doubling(n):
        x = rt.zeros([1])
        i = 0
        while i < n:                          # not a dataset loop: still an error
            x = rt.concat([x, x], 0)
            i += 1
        return x

    with pytest.raises(ValueError, match="enters the loop with shape"):
        doubling(rt.constant(3))
