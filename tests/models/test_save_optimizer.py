"""Model.save keeps the optimizer's state, as Keras 3 keeps it in a .keras file: after
load_model the step counter and every slot equal the saved ones, and training resumes exactly
(the next step equals the original model's next step, and NumPy's Adam step from the saved
state)."""

import json
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

from runtime import keras

RNG = np.random.default_rng(3)
X = RNG.normal(size=(8, 3)).astype(np.float32)
Y = RNG.normal(size=(8, 1)).astype(np.float32)

OPTIMIZERS = {
    "adam": lambda: keras.optimizers.Adam(0.05),
    "adam_amsgrad": lambda: keras.optimizers.Adam(0.05, amsgrad=True),
    "adamw": lambda: keras.optimizers.AdamW(0.05, weight_decay=0.1),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "rmsprop_centered": lambda: keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: keras.optimizers.Adagrad(0.1),
    "adam_schedule": lambda: keras.optimizers.Adam(
        keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)),
}


def _trained(optimizer, steps=2, linear=False):
    # the linear model starts from fixed weights, so that its check does not hang on a draw
    layers = [keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(0.5))] \
        if linear else \
        [keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(1)]
    model = keras.Sequential([keras.Input(shape=(3,)), *layers])
    model.compile(optimizer=optimizer, loss="mse")
    model.fit(X, Y, epochs=steps, batch_size=len(X), shuffle=False, verbose=0)
    return model


def _slots(model):
    optimizer = model.optimizer
    return {(index, name): optimizer.get_slot(variable, name).numpy()
            for index, variable in enumerate(model.trainable_variables)
            for name in optimizer.get_slot_names()}


@pytest.mark.parametrize("kind", sorted(OPTIMIZERS))
@pytest.mark.parametrize("where", ["m.keras", "directory"])
def test_the_optimizer_state_survives_saving_and_training_resumes_exactly(tmp_path, kind,
                                                                          where):
    model = _trained(OPTIMIZERS[kind]())
    path = str(tmp_path / where)
    model.save(path)
    loaded = keras.models.load_model(path)
    assert type(loaded.optimizer) is type(model.optimizer)
    assert int(loaded.optimizer.iterations.numpy()) == 2
    saved = _slots(model)
    assert saved and all(np.any(value != 0) for value in saved.values())  # real state
    restored = _slots(loaded)
    assert restored.keys() == saved.keys()
    for key, value in saved.items():
        np.testing.assert_array_equal(restored[key], value, err_msg=str(key))
    ours, theirs = loaded.optimizer.variables, model.optimizer.variables
    assert [v.name for v in ours] == [v.name for v in theirs]  # Keras lists them in order too
    for mine, original in zip(ours, theirs):
        np.testing.assert_array_equal(mine.numpy(), original.numpy(), err_msg=original.name)
    model.fit(X, Y, epochs=1, batch_size=len(X), shuffle=False, verbose=0)
    loaded.fit(X, Y, epochs=1, batch_size=len(X), shuffle=False, verbose=0)
    assert int(loaded.optimizer.iterations.numpy()) == 3
    for ours, theirs in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(ours, theirs)


def _numpy_adam_step(weights, moments, step, lr=0.05, b1=0.9, b2=0.999, eps=1e-7):
    """One Adam step (Keras's formula) of the linear model y = x @ w + b under the MSE loss,
    from the given weights and moments; `step` is the number of steps already taken."""
    w, b = (np.asarray(v, np.float64) for v in weights)
    residual = X.astype(np.float64) @ w + b - Y
    grads = [2.0 / residual.size * X.T @ residual, 2.0 / residual.size * residual.sum(axis=0)]
    t = step + 1
    alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    new = []
    for var, grad, (m, v) in zip((w, b), grads, moments):
        m = b1 * m + (1 - b1) * grad
        v = b2 * v + (1 - b2) * grad ** 2
        new.append(var - alpha * m / (np.sqrt(v) + eps))
    return new


def test_the_step_after_loading_is_numpys_adam_step_from_the_saved_moments(tmp_path):
    model = _trained(keras.optimizers.Adam(0.05), steps=3, linear=True)
    model.save(str(tmp_path / "linear.keras"))
    saved = json.loads(zipfile.ZipFile(tmp_path / "linear.keras").read("model.json"))
    assert saved["optimizer_state"]["iterations"] == 3
    weights = model.get_weights()
    slots = _slots(model)
    moments = [(slots[(i, "m")].astype(np.float64), slots[(i, "v")].astype(np.float64))
               for i in range(2)]
    expected = _numpy_adam_step(weights, moments, step=3)
    fresh = _numpy_adam_step(weights, [(np.zeros_like(m), np.zeros_like(v))
                                       for m, v in moments], step=0)
    assert not np.allclose(expected[0], fresh[0], rtol=1e-3)  # the saved state matters here

    loaded = keras.models.load_model(str(tmp_path / "linear.keras"))
    loaded.fit(X, Y, epochs=1, batch_size=len(X), shuffle=False, verbose=0)
    for ours, theirs in zip(loaded.get_weights(), expected):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_include_optimizer_false_and_compile_false_leave_the_state_out(tmp_path):
    model = _trained(keras.optimizers.Adam(0.05))
    model.save(str(tmp_path / "bare.keras"), include_optimizer=False)
    assert zipfile.ZipFile(tmp_path / "bare.keras").namelist() == ["model.json",
                                                                   "model.weights.npz"]
    model.save(str(tmp_path / "full.keras"))
    uncompiled = keras.models.load_model(str(tmp_path / "full.keras"), compile=False)
    assert getattr(uncompiled, "optimizer", None) is None


def test_a_model_compiled_but_not_trained_loads_with_a_fresh_optimizer(tmp_path):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse")
    model.save(str(tmp_path / "untrained.keras"))
    assert "optimizer.weights.npz" not in zipfile.ZipFile(tmp_path / "untrained.keras").namelist()
    loaded = keras.models.load_model(str(tmp_path / "untrained.keras"))
    assert int(loaded.optimizer.iterations.numpy()) == 0


def test_saving_a_directory_again_without_optimizer_state_removes_the_stale_file(tmp_path):
    model = _trained(keras.optimizers.SGD(0.05, momentum=0.9))
    model.save(str(tmp_path / "dir"))
    assert (tmp_path / "dir" / "optimizer.weights.npz").exists()
    model.save(str(tmp_path / "dir"), include_optimizer=False)
    assert not (tmp_path / "dir" / "optimizer.weights.npz").exists()


@pytest.mark.parametrize("damage, message", [
    (lambda state: state.update(iterations="2"), "damaged"),
    (lambda state: state.update(iterations=-1), "damaged"),
    (lambda state: state["slots"][0].__setitem__(0, 99), "names no slot"),
    (lambda state: state["slots"][0].__setitem__(1, "velocity"), "names no slot"),
    (lambda state: state["slots"].append([0, "m"]), "lists"),
    (lambda state: state["slots"].__setitem__(0, [1, "m"]), "shape"),
])
def test_damaged_optimizer_state_is_refused_with_a_value_error(tmp_path, damage, message):
    model = _trained(keras.optimizers.Adam(0.05))
    model.save(str(tmp_path / "dir"))
    config_path = tmp_path / "dir" / "model.json"
    description = json.loads(config_path.read_text())
    damage(description["optimizer_state"])
    config_path.write_text(json.dumps(description))
    with pytest.raises(ValueError, match=message):
        keras.models.load_model(str(tmp_path / "dir"))
    uncompiled = keras.models.load_model(str(tmp_path / "dir"), compile=False)
    assert getattr(uncompiled, "optimizer", None) is None


def test_loss_objects_load_without_importing_keras(tmp_path):
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=keras.losses.MeanSquaredError())
    model.save(str(tmp_path / "objects.keras"))
    code = textwrap.dedent(f"""
        import sys
        from runtime.layers import saving
        path = {str(tmp_path / "objects.keras")!r}
        print("loss:", type(saving.load_model(path).loss).__name__)
        print("uncompiled:", getattr(saving.load_model(path, compile=False), "optimizer", None))
        print("keras loaded early:", "runtime.keras" in sys.modules)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert "loss: MeanSquaredError" in result.stdout
    assert "uncompiled: None" in result.stdout
    assert "keras loaded early: False" in result.stdout
    loaded = keras.models.load_model(str(tmp_path / "objects.keras"))
    assert isinstance(loaded.loss, keras.losses.MeanSquaredError)
