"""Saved functions load back without their source and compute exactly what the originals did."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import runtime as rt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mlp(sizes=(784, 512, 512, 10), seed=0):
    rng = np.random.default_rng(seed)

    class MLP(rt.Model):
        def __init__(self):
            super().__init__()
            self.hidden = [rt.layers.Dense(n, activation="relu") for n in sizes[1:-1]]
            self.out = rt.layers.Dense(sizes[-1])

        @rt.function(input_signature=[rt.TensorSpec([None, sizes[0]])])
        def call(self, x):
            for layer in self.hidden:
                x = layer(x)
            return self.out(x)

    model = MLP()
    x = rng.standard_normal((8, sizes[0])).astype(np.float32)
    model(x)
    return model, x


@rt.function(input_signature=[rt.TensorSpec([None, 3]), rt.TensorSpec([], rt.int32)])
def control_flow(x, n):
    y = rt.reduce_sum(x * 2.0, axis=1)
    if rt.reduce_sum(y) > 0:
        y = y + 1.0
    else:
        y = y - 1.0
    i = rt.constant(0)
    while i < n:
        y = y * 1.5 + rt.reduce_mean(x[:, 1:])
        i += 1
    return {"y": y, "tail": x[:, 1:], "m": rt.matmul(x, x, transpose_b=True)}


def assert_same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def test_function_with_control_flow_round_trips_bit_for_bit(tmp_path):
    rt.saved_model.save(control_flow, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    rng = np.random.default_rng(1)
    for n in (0, 3):
        for sign in (1, -1):
            x = sign * rng.random((5, 3)).astype(np.float32)
            want = control_flow(x, np.int32(n))
            for got in (loaded(x, np.int32(n)), loaded.control_flow(x, np.int32(n)),
                        loaded.signatures["serving_default"](x, n)):
                for key in want:
                    assert_same(got[key], want[key])


def test_model_round_trips_and_keeps_its_variables(tmp_path):
    model, x = mlp((6, 5, 4, 3))
    rt.saved_model.save(model, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    assert_same(loaded(x), model(x))
    # loaded, a Keras weight is a variable named by its path, as TensorFlow names it
    assert [v.name for v in loaded.trainable_variables] == [
        v.path + ":0" for v in model.trainable_variables]
    for mine, theirs in zip(loaded.variables, model.variables):
        assert isinstance(mine, rt.Variable) and mine is not theirs
        assert_same(mine.numpy(), theirs.numpy())


def test_loaded_variables_are_read_when_the_function_runs(tmp_path):
    v = rt.Variable([1.0, 2.0], name="scale")

    @rt.function(input_signature=[rt.TensorSpec([2])])
    def scale(x):
        v.assign_add(x)
        return v * 2.0

    rt.saved_model.save(scale, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))
    loaded(np.ones(2, np.float32))
    np.testing.assert_array_equal(loaded.variables[0].numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])  # the original is untouched


def test_a_loaded_model_can_be_fine_tuned_like_the_original(tmp_path):
    model, x = mlp((6, 5, 4, 3))
    y = np.eye(3, dtype=np.float32)[np.arange(8) % 3]
    rt.saved_model.save(model, str(tmp_path))
    loaded = rt.saved_model.load(str(tmp_path))

    def step(predict, variables):
        with rt.GradientTape() as tape:
            loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(y, predict(x)))
        grads = tape.gradient(loss, variables)
        rt.optimizers.SGD(0.1).apply_gradients(zip(grads, variables))
        return loss, grads

    loss_a, grads_a = step(model, model.trainable_variables)
    loss_b, grads_b = step(loaded, loaded.trainable_variables)
    assert_same(loss_a, loss_b)
    for a, b in zip(grads_a, grads_b):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6, atol=1e-7)
    for a, b in zip(model.trainable_variables, loaded.trainable_variables):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def test_explicit_signatures_dict_list_and_concrete_functions(tmp_path):
    @rt.function
    def double(x):
        return x * 2

    concrete_f = double.get_concrete_function(rt.TensorSpec([None], rt.float32))
    concrete_i = double.get_concrete_function(rt.TensorSpec([2], rt.int32))
    rt.saved_model.save(double, str(tmp_path / "d"), signatures={"f": concrete_f, "i": concrete_i})
    loaded = rt.saved_model.load(str(tmp_path / "d"))
    assert_same(loaded.f(np.ones(3, np.float32)), np.full(3, 2, np.float32))
    assert_same(loaded.signatures["i"](np.array([1, 2], np.int32)), np.array([2, 4], np.int32))
    with pytest.raises(TypeError):
        loaded(np.ones(3, np.float32))  # two signatures: no __call__
    rt.saved_model.save(concrete_f, str(tmp_path / "c"))
    assert_same(rt.saved_model.load(str(tmp_path / "c"))(np.ones(2, np.float32)), np.full(2, 2.0, np.float32))
    rt.saved_model.save(None, str(tmp_path / "l"), signatures=[concrete_f])
    assert rt.saved_model.load(str(tmp_path / "l")).signatures["serving_default"] is not None


def test_saving_a_loaded_object_again_gives_an_equivalent_file(tmp_path):
    model, x = mlp((6, 5, 4, 3))
    rt.saved_model.save(model, str(tmp_path / "a"))
    rt.saved_model.save(rt.saved_model.load(str(tmp_path / "a")), str(tmp_path / "b"))
    docs = [json.loads((tmp_path / d / "saved_model.json").read_text()) for d in "ab"]
    assert docs[0] == docs[1]
    arrays = [np.load(tmp_path / d / "variables.npz", allow_pickle=False) for d in "ab"]
    assert sorted(arrays[0].files) == sorted(arrays[1].files)
    for key in arrays[0].files:
        assert_same(arrays[0][key], arrays[1][key])
    rt.saved_model.save(control_flow, str(tmp_path / "c"))
    rt.saved_model.save(rt.saved_model.load(str(tmp_path / "c")), str(tmp_path / "d"))
    assert (tmp_path / "c" / "saved_model.json").read_text() == (tmp_path / "d" / "saved_model.json").read_text()


def test_bytes_form_round_trips(tmp_path):
    data = rt.saved_model.dumps(control_flow)
    loaded = rt.saved_model.loads(data)
    x = np.ones((2, 3), np.float32)
    assert_same(loaded(x, 2)["y"], control_flow(x, np.int32(2))["y"])


def test_large_constants_live_in_the_npz_not_in_the_json(tmp_path):
    table = np.arange(100_000, dtype=np.float32)

    @rt.function(input_signature=[rt.TensorSpec([100_000])])
    def add_table(x):
        return x + table

    rt.saved_model.save(add_table, str(tmp_path))
    assert os.path.getsize(tmp_path / "saved_model.json") < 10_000
    assert_same(rt.saved_model.load(str(tmp_path))(table), table + table)


def test_runtime_errors_of_loaded_functions_name_the_original_line(tmp_path):
    @rt.function(input_signature=[rt.TensorSpec([None, None])])
    def invert(m):
        return rt.linalg.inv(m)

    rt.saved_model.save(invert, str(tmp_path))
    with pytest.raises(rt.errors.InvalidArgumentError, match="test_round_trip.py"):
        rt.saved_model.load(str(tmp_path))(np.zeros((2, 3), np.float32))


def test_unsavable_things_are_refused_clearly(tmp_path):
    @rt.function
    def f(x):
        return x

    with pytest.raises(ValueError, match="input_signature"):
        rt.saved_model.save(f, str(tmp_path))
    with pytest.raises(ValueError, match="signatures="):
        rt.saved_model.save(rt.layers.Dense(3), str(tmp_path))


LOAD_IN_A_FRESH_PROCESS = """
import sys, numpy as np, runtime as rt
loaded = rt.saved_model.load(sys.argv[1])
x = np.load(sys.argv[2])
np.save(sys.argv[3], np.asarray(loaded(x)))
print(sorted(m for m in sys.modules if m.startswith(("tests", "autograph.impl", "autograph.converters"))))
"""


def test_loads_in_a_fresh_process_without_the_source(tmp_path):
    model, x = mlp((6, 5, 4, 3))
    rt.saved_model.save(model, str(tmp_path / "m"))
    np.save(tmp_path / "x.npy", x)
    result = subprocess.run(
        [sys.executable, "-c", LOAD_IN_A_FRESH_PROCESS, str(tmp_path / "m"), str(tmp_path / "x.npy"),
         str(tmp_path / "y.npy")],
        capture_output=True, text=True, cwd=str(tmp_path), env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"  # neither this test module nor the converter was needed
    assert_same(np.load(tmp_path / "y.npy"), model(x))


@rt.function(input_signature=[rt.TensorSpec([3]), rt.TensorSpec([], rt.int32)])
def loop_gradient(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        i = rt.constant(0)
        while i < n:
            y = rt.sin(y * x)
            i += 1
        loss = rt.reduce_sum(y)
    return tape.gradient(loss, x)


def test_gradient_graphs_with_loops_round_trip_in_a_fresh_process(tmp_path):
    rt.saved_model.save(loop_gradient, str(tmp_path / "g"))
    code = ("import sys, numpy as np, runtime as rt\n"
            "g = rt.saved_model.load(sys.argv[1])\n"
            "np.save(sys.argv[2], np.asarray(g(np.array([0.1, 0.2, 0.3], np.float32), 3)))\n")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "g"), str(tmp_path / "out.npy")],
                            capture_output=True, text=True, cwd=str(tmp_path),
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.returncode == 0, result.stderr
    want = loop_gradient(np.array([0.1, 0.2, 0.3], np.float32), np.int32(3))
    assert_same(np.load(tmp_path / "out.npy"), want)
