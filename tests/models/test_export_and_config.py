"""Keras models saved as TensorFlow saves them (serving signatures without `signatures=`),
`Model.export`, `Model.from_config` of a functional config, and Keras 3's `.weights.h5` names.

Oracles: NumPy computations from the model's own weights (`get_weights()`, Keras's order), and
the signature names TensorFlow 2.21 + Keras 3 give the same models (`inputs`, `inputs_1`,
`output_0`; `serve` and the Input layers' names for `export`)."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras


def relu(x):
    return np.maximum(x, 0.0)


def two_dense(name="features"):
    inputs = keras.Input((3,), name=name)
    hidden = keras.layers.Dense(4, activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Dense(2, name="head")(hidden))


def numpy_two_dense(model, x):
    w1, b1, w2, b2 = model.get_weights()
    return relu(x @ w1 + b1) @ w2 + b2


X = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3)


def test_saved_model_of_a_keras_model_serves_its_predictions(tmp_path):
    model = two_dense()
    rt.saved_model.save(model, str(tmp_path / "sm"))
    loaded = rt.saved_model.load(str(tmp_path / "sm"))
    assert set(loaded.signatures) == {"serving_default", "serve"}
    result = loaded.signatures["serving_default"](inputs=rt.constant(X))
    assert list(result) == ["output_0"]
    want = numpy_two_dense(model, X)
    np.testing.assert_allclose(result["output_0"].numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(loaded.serve(X)), want, rtol=1e-5, atol=1e-6)
    assert [v.shape.as_list() for v in loaded.variables] == [[3, 4], [4], [4, 2], [2]]
    for variable, weight in zip(loaded.variables, model.get_weights()):
        np.testing.assert_array_equal(variable.numpy(), weight)
    assert len(loaded.trainable_variables) == 4


def test_serving_default_names_several_inputs_and_dict_outputs(tmp_path):
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    joined = keras.layers.Concatenate()([a, b])
    dense = keras.layers.Dense(2)
    model = keras.Model([a, b], {"score": dense(joined), "copy": a})
    rt.saved_model.save(model, str(tmp_path / "sm"))
    serving = rt.saved_model.load(str(tmp_path / "sm")).signatures["serving_default"]
    xb = np.ones((4, 2), np.float32)
    result = serving(inputs=X, inputs_1=xb)
    kernel, bias = dense.get_weights()
    assert sorted(result) == ["copy", "score"]
    np.testing.assert_allclose(result["score"].numpy(),
                               np.concatenate([X, xb], axis=1) @ kernel + bias, rtol=1e-5)
    np.testing.assert_array_equal(result["copy"].numpy(), X)


@pytest.mark.parametrize("kind", ["sequential", "subclassed"])
def test_models_built_by_a_call_are_served_for_any_batch(tmp_path, kind):
    if kind == "sequential":
        model = keras.Sequential([keras.layers.Dense(2)])
    else:
        class Head(keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = keras.layers.Dense(2)

            def call(self, x):
                return self.dense(x)
        model = Head()
    model(X[:1])
    rt.saved_model.save(model, str(tmp_path / "sm"))
    loaded = rt.saved_model.load(str(tmp_path / "sm"))
    kernel, bias = model.get_weights()
    got = loaded.signatures["serving_default"](inputs=X)["output_0"].numpy()
    np.testing.assert_allclose(got, X @ kernel + bias, rtol=1e-5)


def test_an_unbuilt_model_is_refused_naming_the_fix(tmp_path):
    model = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="built or called"):
        rt.saved_model.save(model, str(tmp_path / "sm"))


def test_export_writes_keras_endpoints(tmp_path, capsys):
    model = two_dense("features")
    model.export(str(tmp_path / "exported"))
    assert "Saved artifact at" in capsys.readouterr().out
    loaded = rt.saved_model.load(str(tmp_path / "exported"))
    assert set(loaded.signatures) == {"serve", "serving_default"}
    want = numpy_two_dense(model, X)
    np.testing.assert_allclose(np.asarray(loaded.serve(X)), want, rtol=1e-5, atol=1e-6)
    got = loaded.signatures["serving_default"](features=X)
    np.testing.assert_allclose(got["output_0"].numpy(), want, rtol=1e-5, atol=1e-6)
    assert len(loaded.variables) == 4


def test_export_checks_its_format_and_keywords(tmp_path):
    model = two_dense()
    with pytest.raises(ValueError, match="format='onnx'.*tf_saved_model"):
        model.export(str(tmp_path / "x"), format="onnx")
    with pytest.raises(TypeError):
        model.export(str(tmp_path / "x"), formats="tf_saved_model")


def test_model_from_config_rebuilds_shared_layers_and_nested_models():
    inner_in = keras.Input((4,), name="inner_in")
    inner = keras.Model(inner_in, keras.layers.Dense(2, name="inner_dense")(inner_in),
                        name="inner")
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    shared = keras.layers.Dense(4, activation="relu", name="shared")
    merged = keras.layers.Add(name="add")([shared(a), shared(b)])
    out = inner(merged)
    tail = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1, name="tail_dense")],
                            name="tail")
    model = keras.Model([a, b], [out, tail(out)], name="outer")
    clone = keras.Model.from_config(model.get_config())
    assert type(clone).__name__ == "Functional"
    assert [layer.name for layer in clone.layers] == ["a", "b", "shared", "add", "inner", "tail"]
    assert len(clone.weights) == len(model.weights) == 6
    clone.set_weights(model.get_weights())
    xa, xb = X, X[::-1] * 2.0
    ws, bs, wi, bi, wt, bt = model.get_weights()
    first = (relu(xa @ ws + bs) + relu(xb @ ws + bs)) @ wi + bi
    got = clone.predict([xa, xb], verbose=0)
    np.testing.assert_allclose(got[0], first, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], first @ wt + bt, rtol=1e-5, atol=1e-6)


def test_weights_h5_names_round_trip_and_plain_h5_is_refused(tmp_path):
    model = two_dense()
    path = str(tmp_path / "model.weights.h5")
    model.save_weights(path)
    other = two_dense()
    other.load_weights(path)
    for got, want in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(got, want)
    for name in ("model.h5", "model.hdf5"):
        with pytest.raises(ValueError, match=r"\.weights\.h5"):
            model.save_weights(str(tmp_path / name))
        with pytest.raises(ValueError, match=r"\.weights\.h5"):
            model.load_weights(str(tmp_path / name))


def test_to_json_and_model_from_json_rebuild_the_architecture():
    model = two_dense()
    text = model.to_json()
    assert isinstance(text, str) and '"class_name"' in text
    rebuilt = keras.models.model_from_json(text)
    assert type(rebuilt).__name__ == "Functional"
    assert [w.shape for w in rebuilt.get_weights()] == [w.shape for w in model.get_weights()]
    rebuilt.set_weights(model.get_weights())
    np.testing.assert_allclose(rebuilt.predict(X, verbose=0), numpy_two_dense(model, X),
                               rtol=1e-5, atol=1e-6)
    sequential = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert type(keras.models.model_from_json(sequential.to_json())).__name__ == "Sequential"
    with pytest.raises(ValueError, match="json_string"):
        keras.models.model_from_json("{not json")
