"""MirroredStrategy training on two logical CPUs, against a single-device run as the oracle:
custom loops over strategy.run (traced as a whole, or a compiled step per replica) and Keras
fit inside strategy.scope() give the single-device weights of the global batch; tracing one
rt.function from two threads at once is safe."""

import threading
import time

import numpy as np
import pytest

import runtime as rt

from .regression import GLOBAL_BATCH, model_and_optimizer, regression_data, single_device_weights

D = rt.distribute
def _data(n=64, classes=None):
    if not classes:
        return regression_data(n)
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 5)).astype("float32"), rng.integers(0, classes, size=(n,))


def _assert_same_weights(expected, model):
    for want, got in zip(expected, model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for var in model.trainable_variables:  # and the replicas' copies agree
        copies = [np.asarray(c.numpy()) for c in var.values]
        np.testing.assert_array_equal(copies[0], copies[1])


def _replica_step(model, optimizer, global_batch_size=GLOBAL_BATCH):
    def step(inputs):
        xb, yb = inputs
        with rt.GradientTape() as tape:
            per_example = rt.square(model(xb, training=True) - yb)[:, 0]
            # without global_batch_size: this replica's examples times the replicas
            loss = rt.nn.compute_average_loss(per_example, global_batch_size=global_batch_size)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


@pytest.mark.parametrize("n, global_batch_size", [(64, GLOBAL_BATCH), (56, None)])
def test_custom_loop_traced_as_a_whole_matches_one_device(two_cpus, n, global_batch_size):
    # 56: a last batch of 8, split 4 and 4
    strategy = two_cpus
    x, y = _data(n)
    expected = single_device_weights(x, y)
    with strategy.scope():
        model, optimizer = model_and_optimizer()
    assert all(isinstance(v, D.MirroredVariable) for v in model.trainable_variables)
    step = _replica_step(model, optimizer, global_batch_size)

    @rt.function
    def distributed_step(inputs):
        losses = strategy.run(step, args=(inputs,))
        return strategy.reduce(D.ReduceOp.SUM, losses, axis=None)

    dataset = strategy.experimental_distribute_dataset(
        rt.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))
    for inputs in dataset:
        distributed_step(inputs)
    _assert_same_weights(expected, model)
    assert int(optimizer.iterations.numpy()) == -(-n // GLOBAL_BATCH)
    # PerReplica batches are traced by their specs: one trace per batch shape
    assert distributed_step.experimental_get_tracing_count() == (1 if n % GLOBAL_BATCH == 0
                                                                 else 2)


def test_custom_loop_with_a_compiled_step_per_replica_matches_one_device(two_cpus):
    strategy = two_cpus
    x, y = _data()
    expected = single_device_weights(x, y)
    with strategy.scope():
        model, optimizer = model_and_optimizer()
    step = rt.function(_replica_step(model, optimizer))
    dataset = strategy.experimental_distribute_dataset(
        rt.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))
    losses = [strategy.reduce("SUM", strategy.run(step, args=(inputs,)), axis=None)
              for inputs in dataset]
    _assert_same_weights(expected, model)
    assert step.experimental_get_tracing_count() == 1  # both replicas share one trace
    assert all(np.isfinite(float(loss)) for loss in losses)


def _compiled(model_fn, strategy=None, n=70, batch=16, dataset=False, **fit):
    x, y = _data(n, classes=3)
    rt.keras.utils.set_random_seed(1)
    with strategy.scope() if strategy else _null():
        model = rt.keras.Sequential([rt.keras.Input((5,)),
                                     rt.keras.layers.Dense(8, activation="relu"),
                                     rt.keras.layers.Dense(3)])
        model.compile(rt.keras.optimizers.Adam(0.01),
                      rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    if dataset:
        history = model.fit(rt.data.Dataset.from_tensor_slices((x, y)).batch(batch),
                            verbose=0, **fit)
    else:
        history = model.fit(x, y, batch_size=batch, shuffle=False, verbose=0, **fit)
    return model, history


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("n, batch, dataset", [(64, 16, False), (70, 16, False),
                                               (65, 16, False), (64, 16, True)])
def test_keras_fit_in_scope_matches_fit_without_a_strategy(two_cpus, n, batch, dataset):
    expected, expected_history = _compiled(None, None, n, batch, dataset, epochs=2)
    model, history = _compiled(None, two_cpus, n, batch, dataset, epochs=2)
    assert model.distribute_strategy is two_cpus
    assert expected.distribute_strategy is D.get_strategy()
    for want, got in zip(expected.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    for key, values in expected_history.history.items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)


def test_one_function_traced_from_two_threads_at_once():
    traces = []

    @rt.function
    def slow_square(x):
        traces.append(1)
        time.sleep(0.2)  # the second thread arrives while the first traces
        return x * x

    results = {}
    start = threading.Barrier(2)

    def call(value):
        start.wait()
        results[value] = float(slow_square(rt.constant(value)))

    threads = [threading.Thread(target=call, args=(v,)) for v in (3.0, 4.0)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {3.0: 9.0, 4.0: 16.0}
    assert len(traces) == 1 and slow_square.experimental_get_tracing_count() == 1


def test_metric_objects_sum_the_replicas_updates(two_cpus):
    """Keras metric state is kept per replica and summed when read outside the replicas (as
    TensorFlow's sync-on-read metric variables): the accuracy over the global batches equals
    the single-device one, in a custom loop and in fit."""
    x, y = _data(64, classes=3)
    accuracy = {}
    for name, strategy in (("one", D.get_strategy()), ("two", two_cpus)):
        with strategy.scope():
            rt.keras.utils.set_random_seed(1)
            model = rt.keras.Sequential([rt.keras.Input((5,)), rt.keras.layers.Dense(3)])
            metric = rt.keras.metrics.SparseCategoricalAccuracy()

        @rt.function
        def evaluate(inputs, strategy=strategy, model=model, metric=metric):
            def step(batch):
                features, labels = batch
                metric.update_state(labels, model(features))
                return metric.result()
            return strategy.run(step, args=(inputs,))

        for inputs in strategy.experimental_distribute_dataset(
                rt.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)):
            evaluate(inputs)
        accuracy[name] = float(metric.result())
        metric.reset_state()
        assert float(metric.result()) == 0.0
    assert accuracy["two"] == pytest.approx(accuracy["one"])

    histories = []
    for strategy in (None, two_cpus):
        rt.keras.utils.set_random_seed(1)
        with strategy.scope() if strategy else _null():
            model = rt.keras.Sequential([rt.keras.Input((5,)), rt.keras.layers.Dense(3)])
            model.compile("sgd", rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=[rt.keras.metrics.SparseCategoricalAccuracy(name="acc")])
        histories.append(model.fit(x, y, batch_size=16, epochs=2, shuffle=False,
                                   verbose=0).history)
    np.testing.assert_allclose(histories[1]["acc"], histories[0]["acc"], rtol=1e-6)
    np.testing.assert_allclose(histories[1]["loss"], histories[0]["loss"], rtol=1e-5)


class _Subclassed(rt.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = rt.keras.layers.Dense(8, activation="relu")
        self.out = rt.keras.layers.Dense(3)

    def call(self, x):
        return self.out(self.hidden(x))


def test_a_model_built_by_fit_in_the_replicas_is_mirrored(two_cpus):
    x, y = _data(64, classes=3)
    results = []
    for strategy in (D.get_strategy(), two_cpus):
        rt.keras.utils.set_random_seed(1)
        with strategy.scope():
            model = _Subclassed()  # no variables until fit's first step
            model.compile("adam", rt.keras.losses.SparseCategoricalCrossentropy(
                from_logits=True))
        assert model.distribute_strategy is strategy
        model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
        results.append(model)
    assert all(isinstance(v, D.MirroredVariable) for v in results[1].variables)
    for want, got in zip(results[0].get_weights(), results[1].get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("reduce_op", ["SUM", "MEAN"])
def test_an_all_reduce_in_a_numba_compiled_function_meets_the_other_replicas(two_cpus, reduce_op):
    # the oracle: the same function on the NumPy tier, and NumPy's sum of the replicas' values
    pytest.importorskip("numba")
    results = {}
    for jit in (False, True):
        @rt.function(jit_compile=jit)
        def step(x):
            return rt.distribute.get_replica_context().all_reduce(reduce_op, x * 2.0)

        def per_replica():
            index = rt.distribute.get_replica_context().replica_id_in_sync_group
            return step(rt.constant([1.0, 2.5]) * float(index + 1))

        results[jit] = [r.numpy() for r in
                        two_cpus.experimental_local_results(two_cpus.run(per_replica))]
    expected = np.array([1.0, 2.5], np.float32) * 2.0 * (1 + 2)
    if reduce_op == "MEAN":
        expected = expected / 2
    for jit, replicas in results.items():
        for value in replicas:
            np.testing.assert_array_equal(value, expected, err_msg=f"jit_compile={jit}")


def test_the_xla_tier_refuses_an_all_reduce_naming_it(two_cpus):
    pytest.importorskip("jax")
    from runtime.backends.base import JitCompileError

    @rt.function(jit_compile="xla")
    def step(x):
        return rt.distribute.get_replica_context().all_reduce("SUM", x)

    with pytest.raises(JitCompileError, match="CollectiveReduce"):
        two_cpus.run(lambda: step(rt.constant([1.0])))
