"""MultiWorkerMirroredStrategy on a two-process Dask LocalCluster, against fit in one process
as the oracle: fit on arrays and on a dataset gives the same weights and logs; a worker
killed mid-fit raises UnavailableError naming it within 30 s and leaves the model at its last
completed epoch; BackupAndRestore then resumes to the uninterrupted run's weights."""

import os
import signal
import time

import numpy as np
import pytest

import runtime as rt

from .regression import GLOBAL_BATCH, single_device_weights
from .regression import model_and_optimizer as _regressor
from .regression import regression_data as _regression

distributed = pytest.importorskip("distributed")
pytestmark = pytest.mark.slow

D = rt.distribute


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def _strategy(client):
    client.wait_for_workers(2)
    return D.MultiWorkerMirroredStrategy(
        cluster_resolver=D.cluster_resolver.DaskClusterResolver(client))


def _data(n=70):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 5)).astype("float32"), rng.integers(0, 3, size=(n,))


def _model(strategy=None):
    rt.keras.utils.set_random_seed(1)
    with strategy.scope() if strategy is not None else D.get_strategy().scope():
        model = rt.keras.Sequential([rt.keras.Input((5,)),
                                     rt.keras.layers.Dense(8, activation="relu"),
                                     rt.keras.layers.Dense(3)])
        model.compile(rt.keras.optimizers.Adam(0.01),
                      rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
    return model


def _assert_same(expected, model):
    for want, got in zip(expected.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_resolver_lists_the_workers(client):
    resolver = D.cluster_resolver.DaskClusterResolver(client)
    workers = sorted(client.nthreads())
    assert resolver.cluster_spec().as_dict() == {"worker": workers}
    assert _strategy(client).num_replicas_in_sync == 2
    with pytest.raises(TypeError, match="Client"):
        D.cluster_resolver.DaskClusterResolver(object())


@pytest.mark.parametrize("n, batch", [(64, 16), (70, 16), (65, 16)])
def test_fit_on_arrays_matches_one_process(client, n, batch):
    x, y = _data(n)
    expected = _model()
    expected_history = expected.fit(x, y, batch_size=batch, epochs=2, shuffle=False, verbose=0)
    strategy = _strategy(client)
    model = _model(strategy)
    history = model.fit(x, y, batch_size=batch, epochs=2, shuffle=False, verbose=0)
    assert model.distribute_strategy is strategy
    _assert_same(expected, model)
    for key, values in expected_history.history.items():
        np.testing.assert_allclose(history.history[key], values, rtol=1e-5)


def test_fit_on_a_dataset_matches_one_process(client):
    x, y = _data(64)
    dataset = rt.data.Dataset.from_tensor_slices((x, y)).batch(16)
    expected = _model()
    expected.fit(dataset, epochs=2, verbose=0)
    model = _model(_strategy(client))
    model.fit(dataset, epochs=2, verbose=0)
    _assert_same(expected, model)


class _KillWorker(rt.keras.callbacks.Callback):
    """Kills one worker process at batch `batch` of epoch `epoch`."""

    def __init__(self, client, address, epoch, batch):
        super().__init__()
        self.client, self.address = client, address
        self.epoch, self.batch, self.now = epoch, batch, None
        self.killed_at = None

    def on_epoch_begin(self, epoch, logs=None):
        self.now = epoch

    def on_train_batch_begin(self, batch, logs=None):
        if self.now == self.epoch and batch == self.batch and self.killed_at is None:
            pid = self.client.run(os.getpid, workers=[self.address])[self.address]
            os.kill(pid, signal.SIGKILL)
            self.killed_at = time.monotonic()


def test_a_killed_worker_raises_unavailable_and_backup_resumes(client, tmp_path):
    x, y = _data(64)
    uninterrupted = _model()
    uninterrupted.fit(x, y, batch_size=16, epochs=4, shuffle=False, verbose=0)
    after_two = _model()
    after_two.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)

    strategy = _strategy(client)
    victim = strategy.cluster_resolver.workers[1]
    model = _model(strategy)
    backup = rt.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))
    killer = _KillWorker(client, victim, epoch=2, batch=1)
    with pytest.raises(rt.errors.UnavailableError, match=victim):
        model.fit(x, y, batch_size=16, epochs=4, shuffle=False, verbose=0,
                  callbacks=[backup, killer])
    assert time.monotonic() - killer.killed_at < 30
    _assert_same(after_two, model)  # the last completed epoch, no half-applied step

    resumed = _model(_strategy(client))  # the restarted worker is in the new strategy
    resumed.fit(x, y, batch_size=16, epochs=4, shuffle=False, verbose=0,
                callbacks=[rt.keras.callbacks.BackupAndRestore(str(tmp_path / "backup"))])
    _assert_same(uninterrupted, resumed)


@pytest.mark.parametrize("staged", [False, True])
def test_custom_loop_runs_on_the_workers(client, staged):
    x, y = _regression()
    expected = single_device_weights(x, y)
    strategy = _strategy(client)
    with strategy.scope():
        model, optimizer = _regressor()

    def train_step(inputs):
        xb, yb = inputs
        with rt.GradientTape() as tape:
            per_example = rt.square(model(xb, training=True) - yb)[:, 0]
            loss = rt.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    def distributed_step(inputs):
        return strategy.reduce("SUM", strategy.run(train_step, args=(inputs,)), axis=None)

    step = rt.function(distributed_step) if staged else distributed_step
    dataset = strategy.experimental_distribute_dataset(
        rt.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH))
    losses = [float(step(inputs)) for inputs in dataset]
    for want, got in zip(expected, model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert len(losses) == 4 and all(np.isfinite(losses))


def test_all_reduce_and_aggregated_writes_on_the_workers(client):
    strategy = _strategy(client)
    with strategy.scope():
        total = rt.Variable(0.0, aggregation=rt.VariableAggregation.SUM)

    def fn(x):
        context = D.get_replica_context()
        total.assign_add(x)
        return context.all_reduce("MEAN", x * 2.0)

    values = D.PerReplica([rt.constant(1.0), rt.constant(3.0)])
    result = strategy.run(fn, args=(values,))
    assert [float(v) for v in strategy.experimental_local_results(result)] == [4.0, 4.0]
    assert float(total.numpy()) == 4.0  # 1 + 3, the first worker's copy


class _StopAt(rt.keras.callbacks.Callback):
    """Stops fit after batch `batch` of epoch `epoch`, or raises there."""

    def __init__(self, epoch, batch, error=False):
        super().__init__()
        self.epoch, self.batch, self.error, self.now = epoch, batch, error, None

    def on_epoch_begin(self, epoch, logs=None):
        self.now = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.now == self.epoch and batch == self.batch:
            if self.error:
                raise KeyError("stop here")
            self.model.stop_training = True


def test_a_stop_mid_epoch_keeps_the_steps_taken(client):
    # the workers get each next batch ahead of time; a batch fit does not take is undone
    x, y = _data(96)
    expected = _model()
    expected_history = expected.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                                    callbacks=[_StopAt(1, 2)])
    model = _model(_strategy(client))
    history = model.fit(x, y, batch_size=16, epochs=3, shuffle=False, verbose=0,
                        callbacks=[_StopAt(1, 2)])
    _assert_same(expected, model)
    assert len(history.history["loss"]) == len(expected_history.history["loss"]) == 2
    np.testing.assert_allclose(history.history["loss"], expected_history.history["loss"],
                               rtol=1e-5)


def test_fit_after_a_callback_raised_starts_from_the_models_weights(client):
    x, y = _data(64)
    model = _model(_strategy(client))
    with pytest.raises(KeyError):
        model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0,
                  callbacks=[_StopAt(1, 1, error=True)])
    # the driver's model keeps its last completed epoch (the replicas' state comes back at
    # the end of an epoch); the next fit trains from there, not from the replicas' state
    after_one = _model()
    after_one.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    _assert_same(after_one, model)
    after_one.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    _assert_same(after_one, model)


def test_steps_make_no_dask_tasks(client):
    # the replicas are Dask actors called directly: after the first fit made them, training
    # makes no tasks (no graph a step, no scheduler round trip)
    x, y = _data(64)
    model = _model(_strategy(client))
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)

    def transitions(dask_scheduler):
        return dask_scheduler.transition_counter

    before = client.run_on_scheduler(transitions)
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0)
    assert client.run_on_scheduler(transitions) == before
