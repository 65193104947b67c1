"""rt.train.Checkpoint, CheckpointManager, latest_checkpoint, list_variables, load_variable."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt

VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"

GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"  # the entry list_variables lists first


def _mlp(seed=None):
    if seed is not None:
        rt.random.set_seed(seed)
    return rt.layers.Sequential([rt.layers.Dense(4, activation="relu"), rt.layers.Dense(2)])


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(8, 3)).astype(np.float32), rng.normal(size=(8, 2)).astype(np.float32)


def _step(model, optimizer, x, y):
    with rt.GradientTape() as tape:
        loss = rt.reduce_mean(rt.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


# -- variables and modules ------------------------------------------------------------------------

def test_variables_round_trip(tmp_path):
    v = rt.Variable([1.0, 2.0])
    n = rt.Variable(np.arange(6, dtype=np.int64).reshape(2, 3))
    ckpt = rt.train.Checkpoint(v=v, n=n)
    path = ckpt.write(str(tmp_path / "vars"))
    assert path == str(tmp_path / "vars")
    assert sorted(os.listdir(tmp_path)) == ["vars.data-00000-of-00001", "vars.index"]
    v.assign([5.0, 6.0])
    n.assign(np.zeros((2, 3), np.int64))
    status = ckpt.read(path)
    status.assert_consumed().assert_existing_objects_matched().assert_nontrivial_match()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(n.numpy(), np.arange(6).reshape(2, 3))
    assert n.dtype is rt.int64


def test_values_file_is_a_plain_npz_and_the_index_json(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable(np.float64(2.5)))
    path = ckpt.write(tmp_path / "p")  # os.PathLike accepted
    with open(path + ".index") as f:
        index = json.load(f)
    keys = [node["value"]["key"] for node in index["nodes"] if "value" in node]
    assert keys == ["v" + VALUE]
    with np.load(path + ".data-00000-of-00001", allow_pickle=False) as archive:
        assert [float(archive[name]) for name in archive.files] == [2.5]
    assert not [name for name in os.listdir(tmp_path) if "tmp" in name]


class Block(rt.Module):
    def __init__(self, n, name=None):
        super().__init__(name=name)
        self.w = rt.Variable(np.full([n], float(n), np.float32), name="w")
        self.parts = [rt.Variable(np.ones(2, np.float32) * n),
                      {"b": rt.Variable(np.int32(n)), "a": rt.Variable(np.float32(-n))}]


class Net(rt.Module):
    def __init__(self, scale):
        super().__init__()
        self.first = Block(2 * scale)
        self.second = Block(3 * scale)
        self.shared = self.first  # the same object twice: saved once


def test_module_round_trip_and_keys(tmp_path):
    net = Net(1)
    path = rt.train.Checkpoint(net=net).save(str(tmp_path / "ckpt"))
    assert path.endswith("ckpt-1")
    names = dict(rt.train.list_variables(path))
    assert names == {GRAPH: [], "net/first/w" + VALUE: [2], "net/first/parts/0" + VALUE: [2],
                     "net/first/parts/1/a" + VALUE: [], "net/first/parts/1/b" + VALUE: [],
                     "net/second/w" + VALUE: [3], "net/second/parts/0" + VALUE: [2],
                     "net/second/parts/1/a" + VALUE: [], "net/second/parts/1/b" + VALUE: [],
                     "save_counter" + VALUE: []}
    other = Net(1)
    for variable in other.variables:
        variable.assign(np.zeros(variable.shape.as_list(), variable.dtype.as_numpy_dtype))
    rt.train.Checkpoint(net=other).restore(path).assert_consumed()
    for a, b in zip(net.variables, other.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert other.shared is other.first


def test_nested_checkpoints(tmp_path):
    v, w = rt.Variable(1.0), rt.Variable(2.0)
    outer = rt.train.Checkpoint(inner=rt.train.Checkpoint(v=v), w=w)
    path = outer.write(str(tmp_path / "nested"))
    assert {k for k, _ in rt.train.list_variables(path)} == {GRAPH, "inner/v" + VALUE, "w" + VALUE}
    v2, w2 = rt.Variable(0.0), rt.Variable(0.0)
    rt.train.Checkpoint(inner=rt.train.Checkpoint(v=v2), w=w2).read(path).assert_consumed()
    assert (v2.numpy(), w2.numpy()) == (1.0, 2.0)


def test_attributes_assigned_later_are_tracked(tmp_path):
    ckpt = rt.train.Checkpoint()
    ckpt.step = rt.Variable(7, dtype=rt.int64)
    path = ckpt.write(str(tmp_path / "late"))
    assert rt.train.load_variable(path, "step" + VALUE) == 7


# -- Keras-style models -------------------------------------------------------------------------

def test_sequential_round_trip_into_a_model_built_later(tmp_path):
    x, _ = _data()
    model = _mlp(1)
    expected = model(x).numpy()
    path = rt.train.Checkpoint(model=model).save(str(tmp_path / "ckpt"))
    keys = {k for k, _ in rt.train.list_variables(path)}
    assert "model/layer_with_weights-0/kernel" + VALUE in keys
    assert "model/layer_with_weights-1/bias" + VALUE in keys

    fresh = _mlp(2)  # not built: its weights do not exist yet
    status = rt.train.Checkpoint(model=fresh).restore(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="layer_with_weights-0/kernel"):
        status.assert_consumed()
    np.testing.assert_array_equal(fresh(x).numpy(), expected)  # restored when built
    status.assert_consumed()


def test_sequential_built_before_restore(tmp_path):
    x, _ = _data()
    model = _mlp(1)
    expected = model(x).numpy()
    path = rt.train.Checkpoint(model=model).write(str(tmp_path / "w"))
    fresh = _mlp(3)
    fresh(x)
    assert not np.allclose(fresh(x).numpy(), expected)
    rt.train.Checkpoint(model=fresh).read(path).assert_consumed()
    np.testing.assert_array_equal(fresh(x).numpy(), expected)


class Regressor(rt.Model):
    def __init__(self):
        super().__init__()
        self.hidden = rt.layers.Dense(5, activation="tanh")
        self.out = rt.layers.Dense(2)

    def call(self, inputs, training=None):
        return self.out(self.hidden(inputs))


def test_subclassed_model_restored_inside_a_compiled_call(tmp_path):
    x, _ = _data()
    model = Regressor()
    expected = model(x).numpy()
    path = rt.train.Checkpoint(net=model).write(str(tmp_path / "m"))
    assert {k for k, _ in rt.train.list_variables(path)} == {GRAPH} | {
        f"net/{layer}/{w}" + VALUE for layer in ("hidden", "out") for w in ("kernel", "bias")}
    fresh = Regressor()
    status = rt.train.Checkpoint(net=fresh).read(path)
    predict = rt.function(lambda t: fresh(t))  # built while tracing: values restored then
    np.testing.assert_allclose(predict(x).numpy(), expected, rtol=1e-6)
    status.assert_consumed()


# -- optimizers -------------------------------------------------------------------------------------

@pytest.mark.parametrize("compiled", [False, True])
def test_adam_resumed_training_equals_uninterrupted_training(tmp_path, compiled):
    x, y = _data()

    def train(model, optimizer, steps):
        step = rt.function(_step) if compiled else _step
        for _ in range(steps):
            step(model, optimizer, x, y)

    model, optimizer = _mlp(5), rt.optimizers.Adam(0.05)
    train(model, optimizer, 3)
    path = rt.train.Checkpoint(model=model, optimizer=optimizer).save(str(tmp_path / "ckpt"))
    keys = {k for k, _ in rt.train.list_variables(path)}
    assert "optimizer/iter" + VALUE in keys
    assert ("model/layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m" + VALUE) in keys
    assert ("model/layer_with_weights-1/bias/.OPTIMIZER_SLOT/optimizer/v" + VALUE) in keys
    train(model, optimizer, 4)

    resumed, resumed_opt = _mlp(6), rt.optimizers.Adam(0.05)
    status = rt.train.Checkpoint(model=resumed, optimizer=resumed_opt).restore(path)
    train(resumed, resumed_opt, 4)  # the slots and the step counter are restored when made
    status.assert_consumed()
    assert int(resumed_opt.iterations.numpy()) == int(optimizer.iterations.numpy()) == 7
    for a, b in zip(model.variables, resumed.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(model.trainable_variables, resumed.trainable_variables):
        for slot in ("m", "v"):
            np.testing.assert_array_equal(optimizer.get_slot(a, slot).numpy(),
                                          resumed_opt.get_slot(b, slot).numpy())


def test_optimizer_restored_after_its_state_exists(tmp_path):
    x, y = _data()
    model, optimizer = _mlp(5), rt.optimizers.SGD(0.1, momentum=0.9)
    _step(model, optimizer, x, y)
    path = rt.train.Checkpoint(model=model, optimizer=optimizer).write(str(tmp_path / "s"))
    velocity = [optimizer.get_slot(v, "momentum").numpy() for v in model.trainable_variables]
    _step(model, optimizer, x, y)
    rt.train.Checkpoint(model=model, optimizer=optimizer).read(path).assert_consumed()
    assert int(optimizer.iterations.numpy()) == 1
    for v, expected in zip(model.trainable_variables, velocity):
        np.testing.assert_array_equal(optimizer.get_slot(v, "momentum").numpy(), expected)


# -- numbering, the state file, the manager ----------------------------------------------------------

def test_save_numbers_files_and_save_counter_is_restored(tmp_path):
    v = rt.Variable(1.0)
    ckpt = rt.train.Checkpoint(v=v)
    prefix = str(tmp_path / "run" / "ckpt")  # the directory is created
    assert ckpt.save(prefix) == prefix + "-1"
    assert ckpt.save(prefix) == prefix + "-2"
    assert int(ckpt.save_counter.numpy()) == 2
    assert rt.train.latest_checkpoint(str(tmp_path / "run")) == prefix + "-2"
    state = rt.train.get_checkpoint_state(str(tmp_path / "run"))
    assert state.all_model_checkpoint_paths == [prefix + "-1", prefix + "-2"]
    again = rt.train.Checkpoint(v=rt.Variable(0.0))
    again.restore(prefix + "-2").assert_consumed()
    assert again.save(prefix) == prefix + "-3"  # numbering continues
    assert ckpt.write(str(tmp_path / "run" / "plain")) == str(tmp_path / "run" / "plain")
    assert rt.train.latest_checkpoint(str(tmp_path / "run")) == prefix + "-3"  # write: unrecorded
    assert rt.train.latest_checkpoint(str(tmp_path / "empty")) is None


def test_manager_keeps_the_newest_n(tmp_path):
    v = rt.Variable(0.0)
    ckpt = rt.train.Checkpoint(v=v)
    manager = rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    paths = []
    for i in range(4):
        v.assign(float(i))
        paths.append(manager.save())
    assert paths == [str(tmp_path / f"ckpt-{i}") for i in range(1, 5)]
    assert manager.checkpoints == paths[2:]
    assert manager.latest_checkpoint == paths[-1] == rt.train.latest_checkpoint(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["checkpoint"] + sorted(
        f"ckpt-{i}{ext}" for i in (3, 4) for ext in (".data-00000-of-00001", ".index"))
    assert rt.train.load_variable(str(tmp_path), "v" + VALUE) == 3.0  # a directory: its latest
    # a new manager takes over the listed checkpoints
    later = rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2, checkpoint_name="ckpt")
    assert later.checkpoints == paths[2:]
    assert later.save(checkpoint_number=100) == str(tmp_path / "ckpt-100")
    assert later.checkpoints == [paths[3], str(tmp_path / "ckpt-100")]
    assert not os.path.exists(paths[2] + ".index")
    fresh = rt.Variable(-1.0)
    restored = rt.train.CheckpointManager(rt.train.Checkpoint(v=fresh), str(tmp_path), None)
    assert restored.restore_or_initialize() == str(tmp_path / "ckpt-100")
    assert fresh.numpy() == 3.0


def test_manager_arguments_are_checked(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))
    with pytest.raises(ValueError, match="max_to_keep"):
        rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
    with pytest.raises(TypeError, match="Checkpoint"):
        rt.train.CheckpointManager(rt.Variable(1.0), str(tmp_path), 3)
    with pytest.raises(TypeError, match="max_to_kep"):
        rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_kep=3)
    with pytest.raises(ValueError, match="step_counter"):
        rt.train.CheckpointManager(ckpt, str(tmp_path), 3, checkpoint_interval=2)


def test_manager_checkpoint_interval(tmp_path):
    step = rt.Variable(0, dtype=rt.int64)
    manager = rt.train.CheckpointManager(rt.train.Checkpoint(step=step), str(tmp_path), 5,
                                         step_counter=step, checkpoint_interval=3)
    saved = []
    for i in range(7):
        step.assign(i)
        saved.append(manager.save() is not None)
    assert saved == [True, False, False, True, False, False, True]


# -- reading values ---------------------------------------------------------------------------------

def test_list_and_load_variable(tmp_path):
    x, _ = _data()
    model = _mlp(1)
    model(x)
    path = rt.train.Checkpoint(model=model).save(str(tmp_path / "c"))
    listed = rt.train.list_variables(path)
    assert listed[0] == (GRAPH, []) and listed[1:] == sorted(listed[1:])  # as TensorFlow lists
    graph = json.loads(rt.train.load_variable(path, GRAPH).item())
    assert isinstance(graph, list) and graph
    assert ("model/layer_with_weights-0/kernel" + VALUE, [3, 4]) in listed
    kernel = rt.train.load_variable(path, "model/layer_with_weights-0/kernel" + VALUE)
    assert isinstance(kernel, np.ndarray) and kernel.dtype == np.float32
    np.testing.assert_array_equal(kernel, model.layers[0].kernel.numpy())
    with pytest.raises(rt.errors.NotFoundError, match="did you mean"):
        rt.train.load_variable(path, "model/layer_with_weights-0/kernal" + VALUE)


# -- errors -------------------------------------------------------------------------------------------

def test_missing_checkpoint_names_the_path(tmp_path):
    missing = str(tmp_path / "nowhere-3")
    ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))
    for call in (lambda: ckpt.restore(missing), lambda: rt.train.list_variables(missing),
                 lambda: rt.train.load_variable(missing, "v")):
        with pytest.raises(rt.errors.NotFoundError, match="nowhere-3") as info:
            call()
        assert isinstance(info.value, FileNotFoundError)
    with pytest.raises(rt.errors.NotFoundError, match="No checkpoint in the directory"):
        rt.train.list_variables(str(tmp_path))


def test_shape_and_dtype_mismatch_name_the_variable(tmp_path):
    path = rt.train.Checkpoint(v=rt.Variable(np.zeros(3, np.float32))).write(str(tmp_path / "a"))
    with pytest.raises(ValueError, match=r"'v/\.ATTRIBUTES/VARIABLE_VALUE'.*shape \[3\]"):
        rt.train.Checkpoint(v=rt.Variable(np.zeros(4, np.float32), name="vee")).read(path)
    with pytest.raises(ValueError, match="vee"):
        rt.train.Checkpoint(v=rt.Variable(np.zeros(4, np.float32), name="vee")).read(path)
    with pytest.raises(TypeError, match="float32.*int32"):
        rt.train.Checkpoint(v=rt.Variable(np.zeros(3, np.int32))).read(path)


def test_deferred_shape_mismatch_is_reported_when_built(tmp_path):
    x, _ = _data()
    model = _mlp(1)
    model(x)
    path = rt.train.Checkpoint(model=model).write(str(tmp_path / "m"))
    wider = rt.layers.Sequential([rt.layers.Dense(7), rt.layers.Dense(2)])
    rt.train.Checkpoint(model=wider).read(path)
    with pytest.raises(ValueError, match="kernel"):
        wider(x)


def test_bad_arguments():
    with pytest.raises(ValueError, match="trackable"):
        rt.train.Checkpoint(v=3)
    with pytest.raises(ValueError, match="save_counter"):
        rt.train.Checkpoint(save_counter=rt.Variable(1))
    ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))
    with pytest.raises(TypeError, match="file_prefx"):
        ckpt.save(file_prefx="x")
    with pytest.raises(TypeError, match="file_prefix"):
        ckpt.save(3)


def test_damaged_or_mismatched_data_is_refused(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))
    a = ckpt.write(str(tmp_path / "a"))
    ckpt.v.assign(2.0)
    ckpt.write(str(tmp_path / "b"))
    os.replace(str(tmp_path / "b.data-00000-of-00001"), str(tmp_path / "a.data-00000-of-00001"))
    with pytest.raises(ValueError, match="does not belong"):
        ckpt.read(a)
    with open(str(tmp_path / "c.index"), "w") as f:
        f.write("{not json")
    with pytest.raises(ValueError, match="not a checkpoint index"):
        ckpt.read(str(tmp_path / "c"))


def test_status_assertions(tmp_path):
    path = rt.train.Checkpoint(a=rt.Variable(1.0)).write(str(tmp_path / "a"))
    status = rt.train.Checkpoint(b=rt.Variable(2.0)).read(path)
    with pytest.raises(AssertionError):
        status.assert_nontrivial_match()
    with pytest.raises(AssertionError, match="b"):
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match="a/.ATTRIBUTES"):
        status.assert_consumed()
    assert status.expect_partial() is status
    extra = rt.train.Checkpoint(a=rt.Variable(0.0), b=rt.Variable(2.0)).read(path)
    extra.assert_nontrivial_match()
    with pytest.raises(AssertionError):
        extra.assert_existing_objects_matched()
    none = rt.train.Checkpoint(a=rt.Variable(0.0)).restore(None)
    with pytest.raises(AssertionError):
        none.assert_consumed()
    none.expect_partial()


def test_save_inside_a_compiled_function_is_refused(tmp_path):
    ckpt = rt.train.Checkpoint(v=rt.Variable(1.0))

    @rt.function(autograph=False)
    def f():
        ckpt.save(str(tmp_path / "x"))
        return 1

    with pytest.raises(RuntimeError, match="eagerly"):
        f()


# -- another process -----------------------------------------------------------------------------------

def test_restore_in_a_fresh_process(tmp_path):
    x, y = _data()
    model, optimizer = _mlp(4), rt.optimizers.Adam(0.01)
    _step(model, optimizer, x, y)
    manager = rt.train.CheckpointManager(rt.train.Checkpoint(model=model, optimizer=optimizer),
                                         str(tmp_path), max_to_keep=1)
    manager.save()
    np.save(str(tmp_path / "x.npy"), x)
    np.save(str(tmp_path / "expected.npy"), model(x).numpy())
    script = textwrap.dedent(f"""
        import numpy as np
        import runtime as rt
        directory = {str(tmp_path)!r}
        model = rt.layers.Sequential([rt.layers.Dense(4, activation="relu"), rt.layers.Dense(2)])
        optimizer = rt.optimizers.Adam(0.01)
        ckpt = rt.train.Checkpoint(model=model, optimizer=optimizer)
        status = ckpt.restore(rt.train.latest_checkpoint(directory))
        out = model(np.load(directory + "/x.npy")).numpy()
        np.testing.assert_array_equal(out, np.load(directory + "/expected.npy"))
        status.assert_existing_objects_matched()
        print("ok", int(ckpt.save_counter.numpy()))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok", "1"]


def test_a_random_generator_is_saved_and_replays_after_restore(tmp_path):
    g = rt.random.Generator.from_seed(1)
    g.normal([3])
    checkpoint = rt.train.Checkpoint(generator=g)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    expected = g.normal([3]).numpy()
    g.normal([5])                                   # moves on
    checkpoint.restore(path).assert_consumed()
    np.testing.assert_array_equal(g.normal([3]).numpy(), expected)
    assert any("generator/_state_var" in name for name, _ in rt.train.list_variables(path))
