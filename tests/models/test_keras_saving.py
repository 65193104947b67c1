"""Model.save / keras.models.load_model (JSON config + npz weights), save_weights/load_weights,
layer configs, and registered custom layers; loaded in a fresh process too."""

import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime import keras

DATA = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)


def _functional():
    a = keras.Input(shape=(4,), name="a")
    b = keras.Input(shape=(4,), name="b")
    shared = keras.layers.Dense(5, activation="tanh", name="shared")
    merged = keras.layers.Dense(3, kernel_initializer=keras.initializers.RandomNormal(stddev=0.5),
                                name="head")(shared(a))
    return keras.Model([a, b], [merged, shared(b)], name="two_inputs")


def _run(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=300)


def _fresh_process(code: str) -> str:
    result = _run(code)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_layer_configs_record_constructor_arguments_and_round_trip():
    dense = keras.layers.Dense(3, activation="relu", use_bias=False, name="d")
    config = dense.get_config()
    assert config["units"] == 3 and config["activation"] == "relu" and config["name"] == "d"
    # Keras 3.15 writes a named initializer as its object's config (printed by Keras)
    assert config["use_bias"] is False and config["kernel_initializer"] == {
        "module": "keras.initializers", "class_name": "GlorotUniform",
        "config": {"seed": None, "input_axes": None, "output_axes": None},
        "registered_name": None}
    clone = keras.layers.Dense.from_config(config)
    assert clone.get_config() == config and clone is not dense
    init = keras.layers.Dense(2, kernel_initializer=keras.initializers.Constant(0.5))
    restored = keras.layers.deserialize(json.loads(json.dumps(keras.layers.serialize(init))))
    restored(np.ones((1, 3), np.float32))
    np.testing.assert_array_equal(restored.kernel.numpy(), np.full((3, 2), 0.5, np.float32))


@pytest.mark.parametrize("name", ["model.keras", "model_dir"])
def test_functional_model_round_trip_in_a_fresh_process(tmp_path, name):
    model = _functional()
    path = str(tmp_path / name)
    model.save(path)
    if name.endswith(".keras"):
        assert set(zipfile.ZipFile(path).namelist()) == {"model.json", "model.weights.npz"}
    expected = [np.asarray(t) for t in model([DATA, DATA * 2])]
    np.save(tmp_path / "data.npy", DATA)
    out = _fresh_process(f"""
        import numpy as np
        from runtime import keras
        model = keras.models.load_model({path!r})
        data = np.load({str(tmp_path / 'data.npy')!r})
        outs = model([data, data * 2])
        np.save({str(tmp_path / 'out0.npy')!r}, np.asarray(outs[0]))
        np.save({str(tmp_path / 'out1.npy')!r}, np.asarray(outs[1]))
        print(model.name, [layer.name for layer in model.layers])
    """)
    assert out.split()[0] == "two_inputs" and "shared" in out
    np.testing.assert_allclose(np.load(tmp_path / "out0.npy"), expected[0], rtol=1e-6)
    np.testing.assert_allclose(np.load(tmp_path / "out1.npy"), expected[1], rtol=1e-6)


def test_sequential_round_trip_keeps_weights_and_compile_settings(tmp_path):
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dropout(0.2), keras.layers.Dense(2)])
    model.compile(keras.optimizers.Adam(0.01), "mse", metrics=["mae"])
    model.fit(DATA, np.zeros((6, 2), np.float32), epochs=1, verbose=0)
    model.save(tmp_path / "seq.keras")
    loaded = keras.models.load_model(tmp_path / "seq.keras")
    assert isinstance(loaded, keras.Sequential)
    assert [type(layer).__name__ for layer in loaded.layers] == ["Dense", "Dropout", "Dense"]
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(loaded.predict(DATA, verbose=0), model.predict(DATA, verbose=0))
    assert isinstance(loaded.optimizer, keras.optimizers.Adam)
    assert loaded.optimizer.learning_rate == pytest.approx(0.01)
    assert loaded.metrics_names == ["loss", "compile_metrics"]
    assert list(loaded.evaluate(DATA, np.zeros((len(DATA), 1)), verbose=0,
                                return_dict=True)) == ["loss", "mae"]


def test_sequential_built_by_its_first_call_is_saved_with_its_input_shape(tmp_path):
    model = keras.Sequential([keras.layers.Dense(3)])
    model(DATA)
    keras.saving.save_model(model, str(tmp_path / "m"))
    loaded = keras.saving.load_model(str(tmp_path / "m"))
    np.testing.assert_allclose(np.asarray(loaded(DATA)), np.asarray(model(DATA)), rtol=1e-6)


# A registered custom layer, defined by the same source here and in a fresh process.
SCALE_SOURCE = '''
from runtime import keras


@keras.saving.register_keras_serializable(package="Tests")
class Scale(keras.layers.Layer):
    def __init__(self, factor, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=[input_shape[-1]], initializer="ones")

    def call(self, inputs):
        return inputs * self.w * self.factor
'''
_defined = {"__name__": __name__}
exec(SCALE_SOURCE, _defined)
Scale = _defined["Scale"]


def test_registered_custom_layers_round_trip_in_a_fresh_process(tmp_path):
    x = keras.Input(shape=(4,))
    model = keras.Model(x, Scale(3.0, name="scale")(keras.layers.Dense(4)(x)))
    model.layers[-1].w.assign(np.arange(4, dtype=np.float32))
    path = str(tmp_path / "custom.keras")
    model.save(path)
    expected = np.asarray(model(DATA))
    unregistered = _run(f"""
        from runtime import keras
        keras.models.load_model({path!r})
    """)
    assert unregistered.returncode != 0
    assert "Unknown layer class 'Scale'" in unregistered.stderr
    np.save(tmp_path / "data.npy", DATA)
    _fresh_process(SCALE_SOURCE + textwrap.dedent(f"""
        import numpy as np

        model = keras.models.load_model({path!r})
        assert model.layers[-1].factor == 3.0
        np.save({str(tmp_path / 'out.npy')!r},
                np.asarray(model(np.load({str(tmp_path / 'data.npy')!r}))))
    """))
    np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-6)


def test_custom_objects_resolve_unregistered_classes(tmp_path):
    class Double(keras.layers.Layer):
        def call(self, inputs):
            return inputs * 2.0

    x = keras.Input(shape=(2,))
    model = keras.Model(x, Double()(x))
    model.save(tmp_path / "d.keras")
    with pytest.raises(ValueError, match="Unknown layer class 'Double'"):
        keras.models.load_model(tmp_path / "d.keras")
    loaded = keras.models.load_model(tmp_path / "d.keras", custom_objects={"Double": Double})
    np.testing.assert_allclose(np.asarray(loaded(np.ones((1, 2), np.float32))), [[2.0, 2.0]])


def test_save_weights_and_load_weights_into_a_fresh_model(tmp_path):
    model = _functional()
    path = tmp_path / "w.weights.npz"
    model.save_weights(path)
    other = _functional()
    assert not np.allclose(other.get_weights()[0], model.get_weights()[0])
    other.load_weights(path)
    for a, b in zip(model([DATA, DATA]), other([DATA, DATA])):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    small = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match="architectures differ"):
        small.load_weights(path)
    unbuilt = keras.Sequential([keras.layers.Dense(1)])
    with pytest.raises(ValueError, match="build it first"):
        unbuilt.load_weights(path)


def test_bad_paths_and_formats_raise_clear_errors(tmp_path):
    (tmp_path / "keras.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(504))  # HDF5's signature
    with pytest.raises(ValueError, match="HDF5 file"):
        keras.models.load_model(tmp_path / "keras.h5")
    with pytest.raises(FileNotFoundError):
        keras.models.load_model(tmp_path / "missing.keras")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="model.json"):
        keras.models.load_model(tmp_path / "empty")
    with pytest.raises(TypeError, match="unexpected keyword"):
        keras.models.load_model(tmp_path / "x.keras", custom_object={})


def test_unserializable_constructor_arguments_are_named_when_saving(tmp_path):
    factor = 2.0
    x = keras.Input(shape=(2,))
    model = keras.Model(x, keras.layers.Activation(lambda t: t * factor)(x))
    with pytest.raises(TypeError, match="register_keras_serializable"):
        model.save(tmp_path / "lambda.keras")


def test_clone_model_has_the_architecture_and_new_weights():
    model = _functional()
    clone = keras.models.clone_model(model)
    assert [type(layer) for layer in clone.layers] == [type(layer) for layer in model.layers]
    assert [w.shape for w in clone.get_weights()] == [w.shape for w in model.get_weights()]


def test_a_registered_subclassed_model_is_rebuilt_from_its_first_input_shape(tmp_path):
    class Flexible(keras.layers.Layer):
        def __init__(self, out_features, **kwargs):
            super().__init__(**kwargs)
            self.out_features = out_features

        def build(self, input_shape):
            self.w = self.add_weight(shape=[input_shape[-1], self.out_features],
                                     initializer="random_normal")
            self.b = self.add_weight(shape=[self.out_features], initializer="zeros")

        def call(self, inputs):
            return rt.matmul(inputs, self.w) + self.b

    @keras.saving.register_keras_serializable(package="rebuilt")
    class TwoLayers(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.first = Flexible(out_features=3)
            self.second = Flexible(out_features=2)

        def call(self, x):
            return self.second(self.first(x))

    model = TwoLayers()
    x = rt.constant([[2.0, 2.0, 2.0]])
    expected = model(x).numpy()
    model.save(str(tmp_path / "two.keras"))
    loaded = keras.models.load_model(str(tmp_path / "two.keras"))
    np.testing.assert_array_equal(loaded(x).numpy(), expected)
    assert len(loaded.variables) == 4


def test_lambdas_and_public_functions_in_a_model_are_saved(tmp_path):
    x = np.linspace(-2, 2, 40).astype(np.float32)
    y = x ** 2 + 1
    rt.random.set_seed(1)
    model = keras.Sequential([
        keras.layers.Lambda(lambda v: rt.stack([v, v ** 2], axis=1)),
        keras.layers.Dense(units=1, kernel_initializer=rt.random.normal)])
    model.compile(loss=keras.losses.MSE, optimizer=keras.optimizers.SGD(learning_rate=0.01))
    model.fit(x, y, epochs=3, batch_size=16, verbose=0)
    path = str(tmp_path / "with_lambda.keras")
    model.save(path)
    with pytest.raises(ValueError, match="safe_mode=False"):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, safe_mode=False)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert loaded.layers[1].kernel_initializer is rt.random.normal


def test_a_lambda_using_other_values_cannot_be_saved(tmp_path):
    scale = 3.0
    model = keras.Sequential([keras.layers.Lambda(lambda v: v * scale)])
    model(rt.ones([2, 2]))
    with pytest.raises(TypeError, match="scale"):
        model.save(str(tmp_path / "closure.keras"))


@pytest.mark.parametrize("loss, metrics", [
    (keras.losses.MeanSquaredError(), [keras.metrics.MeanAbsoluteError()]),
    (keras.losses.MSE, ["mae"]),
    ("mse", [keras.metrics.RootMeanSquaredError()])], ids=["objects", "function", "names"])
def test_compile_settings_with_loss_and_metric_objects_survive_saving(tmp_path, loss, metrics):
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
    y = x.sum(axis=1, keepdims=True)
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss=loss, metrics=metrics)
    model.fit(x, y, epochs=1, verbose=0)
    model.save(str(tmp_path / "m.keras"))
    loaded = keras.models.load_model(str(tmp_path / "m.keras"))
    assert loaded.optimizer is not None
    np.testing.assert_allclose(loaded.evaluate(x, y, verbose=0), model.evaluate(x, y, verbose=0),
                               rtol=1e-5)
