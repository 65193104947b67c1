"""rt.dask: blockwise inference and data-parallel gradients on a local two-process cluster."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import runtime as rt

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

W = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)


@rt.function(input_signature=[rt.TensorSpec([None, 4])])
def project(x):
    return rt.nn.relu(rt.matmul(x, W))


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_import_runtime_does_not_load_dask():
    code = "import sys, runtime; runtime.saved_model; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_missing_dask_names_the_extra():
    code = ("import sys; sys.modules['dask'] = None; import runtime\n"
            "try:\n    runtime.dask\nexcept ImportError as e:\n    print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'autograph-rt[dask]'" in out.stdout


@pytest.mark.parametrize("chunks", [(13, 2), (50, 4), (100, 1)])
def test_map_blocks_matches_one_call_for_any_row_chunking(chunks):
    x = np.random.default_rng(1).random((100, 4)).astype(np.float32)
    result = rt.dask.map_blocks(project, da.from_array(x, chunks=chunks))
    assert isinstance(result, da.Array) and result.shape == (100, 2)
    np.testing.assert_array_equal(result.compute(scheduler="threads"), project(x).numpy())


def test_map_blocks_traces_functions_without_signature_and_takes_several_arrays():
    @rt.function
    def weighted(x, w):
        return rt.reduce_sum(x * w, axis=1)

    x = np.random.default_rng(2).random((30, 3)).astype(np.float32)
    w = np.random.default_rng(3).random((30, 3)).astype(np.float32)
    result = rt.dask.map_blocks(weighted, da.from_array(x, chunks=7), da.from_array(w, chunks=11))
    np.testing.assert_array_equal(result.compute(), np.sum(x * w, axis=1))


def test_map_blocks_refuses_what_the_signature_does_not_allow():
    with pytest.raises(ValueError, match="axis 1"):
        rt.dask.map_blocks(project, da.ones((10, 5), chunks=5, dtype=np.float32))
    fixed = rt.function(lambda x: x * 2, input_signature=[rt.TensorSpec([4, 4])])
    with pytest.raises(ValueError, match="leading dim"):
        rt.dask.map_blocks(fixed, da.ones((10, 4), chunks=5, dtype=np.float32))


def test_map_blocks_on_worker_processes_ships_the_saved_form(client):
    x = np.random.default_rng(4).random((200, 4)).astype(np.float32)
    result = rt.dask.map_blocks(project, da.from_array(x, chunks=25))
    np.testing.assert_array_equal(client.compute(result).result(), project(x).numpy())
    graph = result.__dask_graph__()
    shipped = [getattr(v, "value", v) for v in dict(graph).values()]
    shipped = [v for v in shipped if isinstance(v, bytes)]
    assert shipped and all(b"saved_model.json" in v for v in shipped)  # bytes, not a closure


SLOW_W = (np.random.default_rng(5).standard_normal((64, 64)) / 8).astype(np.float32)


@rt.function(input_signature=[rt.TensorSpec([None, 64])])
def slow(x):
    i = rt.constant(0)
    while i < 200:
        x = rt.tanh(rt.matmul(x, SLOW_W))
        i += 1
    return x


def test_a_worker_that_dies_mid_map_is_retried_and_the_result_is_complete(client):
    """A worker is killed while it holds blocks of the map (found by asking the scheduler, not
    by waiting a fixed time): its blocks run again on the other worker and on the one that
    replaces it, and every row is there."""
    x = np.random.default_rng(6).random((16 * 250, 64)).astype(np.float32)
    result = rt.dask.map_blocks(slow, da.from_array(x, chunks=250))
    future = client.compute(result)
    deadline = time.monotonic() + 60
    busy = []
    while not busy and time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]
        time.sleep(0.01)
    assert busy and not future.done(), "the map ended before a worker could be killed in it"
    pids = client.run(os.getpid)
    os.kill(pids[busy[0]], signal.SIGKILL)  # a worker process holding blocks dies mid-map
    got = future.result(timeout=60)
    want = np.concatenate([slow(x[i:i + 250]).numpy() for i in range(0, len(x), 250)])
    # workers run BLAS on one thread, this process may not: 200 chained float32 matmuls then
    # differ in the last bits, so every row is compared to float32 tolerance
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    client.wait_for_workers(2, timeout=120)  # the nanny restarts it (slowly on a loaded machine)


class Net(rt.Model):
    def __init__(self):
        super().__init__()
        self.hidden = rt.layers.Dense(8, activation="tanh")
        self.out = rt.layers.Dense(3)

    def call(self, x, training=None):
        return self.out(self.hidden(x))


def mse(y, prediction):
    return rt.reduce_mean((y - prediction) ** 2)


def test_data_parallel_training_matches_the_full_batch_update(client):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((97, 5)).astype(np.float32)
    y = rng.standard_normal((97, 3)).astype(np.float32)
    local, remote = Net(), Net()
    local(x), remote(x)
    for a, b in zip(remote.trainable_variables, local.trainable_variables):
        a.assign(b.numpy())
    opt_local, opt_remote = rt.optimizers.SGD(0.1), rt.optimizers.SGD(0.1)
    for _ in range(3):
        with rt.GradientTape() as tape:
            loss_local = mse(y, local(x))
        opt_local.apply_gradients(zip(tape.gradient(loss_local, local.trainable_variables),
                                      local.trainable_variables))
        loss_remote, grads = rt.dask.data_parallel_gradients(remote, mse, x, y, client, n_shards=3)
        opt_remote.apply_gradients(zip(grads, remote.trainable_variables))
        np.testing.assert_allclose(loss_remote.numpy(), loss_local.numpy(), rtol=1e-5)
        for a, b in zip(remote.trainable_variables, local.trainable_variables):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


def test_data_parallel_gradients_of_a_plain_function(client):
    w = rt.Variable(np.ones((3, 1), np.float32))
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.ones((4, 1), np.float32)

    def predict(inputs):
        return rt.matmul(inputs, w)

    with pytest.raises(ValueError, match="variables="):
        rt.dask.data_parallel_gradients(predict, mse, x, y, client)
    loss, (grad,) = rt.dask.data_parallel_gradients(predict, mse, x, y, client, variables=[w])
    residual = x @ np.ones((3, 1)) - y
    np.testing.assert_allclose(loss.numpy(), np.mean(residual ** 2), rtol=1e-6)
    np.testing.assert_allclose(grad.numpy(), 2 * x.T @ residual / 4, rtol=1e-6)
