"""rt.train.ExponentialMovingAverage, ClusterSpec, CheckpointOptions, Coordinator and
checkpoints_iterator, against what TensorFlow 2.21 prints for the same calls."""

import threading

import numpy as np
import pytest

import runtime as rt


def test_exponential_moving_average_as_tensorflow():
    v, w = rt.Variable(1.0, name="v"), rt.Variable([2.0, 4.0], name="w")
    ema = rt.train.ExponentialMovingAverage(decay=0.9)
    assert ema.apply([v, w]) is None
    assert float(ema.average(v)) == 1.0 and ema.average(w).numpy().tolist() == [2.0, 4.0]
    assert ema.average_name(v) == "v/ExponentialMovingAverage"
    assert ema.name == "ExponentialMovingAverage"
    v.assign(2.0)
    w.assign([0.0, 0.0])
    ema.apply([v, w])  # TensorFlow: 1.1 and [1.8, 3.6]
    np.testing.assert_allclose(ema.average(v), 1.1, rtol=1e-6)
    np.testing.assert_allclose(ema.average(w), [1.8, 3.6], rtol=1e-6)
    assert ema.average(rt.Variable(3.0)) is None
    # num_updates caps the decay at (1 + n) / (10 + n): 0.1 at n = 0 (TensorFlow: 0.9)
    u = rt.Variable(0.0)
    early = rt.train.ExponentialMovingAverage(0.99, num_updates=rt.Variable(0))
    early.apply([u])
    u.assign(1.0)
    early.apply([u])
    np.testing.assert_allclose(early.average(u), 0.9, rtol=1e-6)


def test_exponential_moving_average_in_a_function():
    v = rt.Variable(0.0)
    ema = rt.train.ExponentialMovingAverage(0.5)

    @rt.function
    def step(x):
        v.assign(x)
        ema.apply([v])
        return ema.average(v).read_value()

    assert float(step(rt.constant(0.0))) == 0.0
    assert float(step(rt.constant(4.0))) == 2.0


def test_cluster_spec_as_tensorflow():
    cs = rt.train.ClusterSpec({"worker": ["w0:2222", "w1:2222"], "ps": ["ps0:2222"]})
    assert cs.jobs == ["worker", "ps"] and cs.num_tasks("worker") == 2
    assert cs.task_address("worker", 1) == "w1:2222" and cs.job_tasks("ps") == ["ps0:2222"]
    assert cs.task_indices("worker") == [0, 1] and bool(cs)
    assert cs.as_dict() == {"worker": ["w0:2222", "w1:2222"], "ps": ["ps0:2222"]}
    sparse = rt.train.ClusterSpec({"worker": {1: "w1:2222"}})
    assert sparse.as_dict() == {"worker": {1: "w1:2222"}} and sparse.task_indices("worker") == [1]
    assert sparse.job_tasks("worker") == [None, "w1:2222"]
    assert repr(sparse) == "ClusterSpec({'worker': {1: 'w1:2222'}})"
    assert rt.train.ClusterSpec(cs) == cs
    with pytest.raises(ValueError, match="No such job in cluster: 'chief'"):
        cs.task_address("chief", 0)


def test_checkpoint_options():
    options = rt.train.CheckpointOptions()
    assert options.experimental_io_device is None
    assert options.experimental_enable_async_checkpoint is False
    with pytest.raises(NotImplementedError, match="enable_async"):
        rt.train.CheckpointOptions(enable_async=True)


def test_coordinator_stops_threads_and_reraises():
    coord = rt.train.Coordinator()
    counts = [0, 0]

    def work(i):
        while not coord.should_stop():
            counts[i] += 1
            if counts[i] >= 3 and i == 1:
                coord.request_stop()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    coord.join(threads)
    assert coord.should_stop() and coord.joined and counts[1] >= 3

    failing = rt.train.Coordinator()

    def fail():
        with failing.stop_on_exception():
            raise RuntimeError("boom")

    thread = threading.Thread(target=fail)
    thread.start()
    with pytest.raises(RuntimeError, match="boom"):
        failing.join([thread])


def test_checkpoints_iterator_yields_new_checkpoints(tmp_path):
    checkpoint = rt.train.Checkpoint(v=rt.Variable(1.0))
    path = checkpoint.save(str(tmp_path / "ckpt"))
    found = list(rt.train.checkpoints_iterator(str(tmp_path), timeout=0.2))
    assert found == [path]
