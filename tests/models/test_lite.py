"""rt.lite: TFLiteConverter and Interpreter as TensorFlow Lite's Python API, on saved
functions. The oracle is the Keras model's own `predict` (the float model computes the same
thing) and TensorFlow Lite's documented interface (details dicts, errors)."""

import io
import json
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime import keras


@pytest.fixture
def dense_model():
    keras.backend.clear_session()
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((40,)), keras.layers.Dense(64, activation="relu"),
                              keras.layers.Dense(3)])
    return model, np.random.RandomState(0).randn(2, 40).astype("float32")


def test_converter_and_signature_runner_give_the_models_predictions(dense_model):
    model, x = dense_model
    data = rt.lite.TFLiteConverter.from_keras_model(model).convert()
    assert isinstance(data, bytes)
    interpreter = rt.lite.Interpreter(model_content=data)
    # as TensorFlow 2.21 + Keras 3 list it: inputs named as the model's input Keras tensor
    assert interpreter.get_signature_list() == {
        "serving_default": {"inputs": ["keras_tensor"], "outputs": ["output_0"]}}
    runner = interpreter.get_signature_runner("serving_default")
    out = runner(keras_tensor=x)
    assert sorted(out) == ["output_0"]
    np.testing.assert_allclose(out["output_0"], model.predict(x, verbose=0), rtol=1e-6,
                               atol=1e-6)
    details = runner.get_input_details()["keras_tensor"]
    assert details["name"] == "serving_default_keras_tensor:0"
    assert details["dtype"] is np.float32 and details["quantization"] == (0.0, 0)
    assert details["shape"].tolist() == [2, 40] and details["shape_signature"].tolist() == [-1, 40]
    assert details["shape"].dtype == np.int32
    assert set(details["quantization_parameters"]) == {"scales", "zero_points",
                                                       "quantized_dimension", "block_size"}


def test_tensor_interface_allocate_set_invoke_get(dense_model, tmp_path):
    model, x = dense_model
    path = tmp_path / "model.tflite"
    path.write_bytes(rt.lite.TFLiteConverter.from_keras_model(model).convert())
    interpreter = rt.lite.Interpreter(model_path=str(path))
    (inp,), (out,) = interpreter.get_input_details(), interpreter.get_output_details()
    assert inp["shape"].tolist() == [1, 40] and out["shape"].tolist() == [1, 3]
    with pytest.raises(RuntimeError, match="not ready"):
        interpreter.invoke()
    interpreter.allocate_tensors()
    with pytest.raises(ValueError, match="Dimension mismatch. Got 2 but expected 1"):
        interpreter.set_tensor(inp["index"], x)
    with pytest.raises(ValueError, match="FLOAT64"):
        interpreter.set_tensor(inp["index"], x[:1].astype("float64"))
    interpreter.resize_tensor_input(inp["index"], [2, 40])
    interpreter.allocate_tensors()
    interpreter.set_tensor(inp["index"], x)
    interpreter.invoke()
    np.testing.assert_allclose(interpreter.get_tensor(out["index"]),
                               model.predict(x, verbose=0), rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="only the dimensions that are -1"):
        interpreter.resize_tensor_input(inp["index"], [2, 41])


def test_convolutional_model_from_saved_model_and_concrete_functions(tmp_path):
    keras.backend.clear_session()
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.layers.Rescaling(1 / 255, input_shape=(12, 12, 3)),
                              keras.layers.Conv2D(4, 3, activation="relu"),
                              keras.layers.MaxPooling2D(), keras.layers.Flatten(),
                              keras.layers.Dense(5)])
    x = np.random.RandomState(2).uniform(0, 255, (3, 12, 12, 3)).astype("float32")
    expected = model.predict(x, verbose=0)
    model.export(str(tmp_path / "exported"), verbose=False)
    converter = rt.lite.TFLiteConverter.from_saved_model(str(tmp_path / "exported"),
                                                         signature_keys=["serving_default"])
    runner = rt.lite.Interpreter(model_content=converter.convert()).get_signature_runner()
    (name,) = runner.get_input_details()
    assert name == model.inputs[0].name
    np.testing.assert_allclose(runner(**{name: x})["output_0"], expected, rtol=1e-5, atol=1e-5)

    fn = rt.function(lambda v: {"twice": v * 2.0},
                     input_signature=[rt.TensorSpec([None], rt.float32)])
    converter = rt.lite.TFLiteConverter.from_concrete_functions([fn.get_concrete_function()])
    runner = rt.lite.Interpreter(model_content=converter.convert()).get_signature_runner()
    np.testing.assert_array_equal(runner(v=np.arange(3, dtype="float32"))["twice"], [0, 2, 4])


def test_refusals_name_the_option(dense_model):
    model, x = dense_model
    converter = rt.lite.TFLiteConverter.from_keras_model(model)
    with pytest.raises(AttributeError, match="optimizations"):
        converter.optimisations = [rt.lite.Optimize.DEFAULT]
    converter.optimizations = [rt.lite.Optimize.DEFAULT]
    with pytest.raises(NotImplementedError, match=r"Optimize\.DEFAULT"):
        converter.convert()
    converter.optimizations = []
    converter.target_spec.supported_types = {rt.float16}
    with pytest.raises(NotImplementedError, match="float16"):
        converter.convert()
    converter.target_spec.supported_types = set()
    converter.target_spec.supported_ops = {rt.lite.OpsSet.TFLITE_BUILTINS_INT8}
    with pytest.raises(NotImplementedError, match="TFLITE_BUILTINS_INT8"):
        converter.convert()
    converter.target_spec.supported_ops = {rt.lite.OpsSet.TFLITE_BUILTINS}
    interpreter = rt.lite.Interpreter(model_content=converter.convert())
    runner = interpreter.get_signature_runner()
    with pytest.raises(TypeError):
        runner(x)
    with pytest.raises(ValueError, match=r"Invalid Input name \(wrong\)"):
        runner(wrong=x)
    with pytest.raises(ValueError, match="Invalid signature_key"):
        interpreter.get_signature_runner("nope")
    with pytest.raises(ValueError, match="either model_path or model_content"):
        rt.lite.Interpreter()
    with pytest.raises(ValueError, match="TFLite flatbuffer"):
        rt.lite.Interpreter(model_content=b"\x1c\x00\x00\x00TFL3" + bytes(32))
    with pytest.raises(TypeError, match="model_contents"):
        rt.lite.Interpreter(model_contents=b"")


def test_loading_checks_the_program_and_runs_nothing_from_it(dense_model):
    model, _ = dense_model
    data = rt.lite.TFLiteConverter.from_keras_model(model).convert()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    graph_name = next(name for name in files if name.endswith(".json"))
    document = json.loads(files[graph_name])
    text = json.dumps(document).replace('"MatMul"', '"os.system"', 1)
    assert text != json.dumps(document)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, text if name == graph_name else content)
    with pytest.raises(ValueError, match="Could not read the model"):
        rt.lite.Interpreter(model_content=out.getvalue())


def test_a_model_with_augmentation_layers_converts_as_in_the_image_tutorial():
    # the images tutorial's model: augmentation layers are the identity when served, and
    # the served program holds graph ops only (no NumPy call), so it converts
    keras.backend.clear_session()
    keras.utils.set_random_seed(3)
    augmentation = keras.Sequential([
        keras.layers.RandomFlip("horizontal", input_shape=(16, 16, 3)),
        keras.layers.RandomRotation(0.1), keras.layers.RandomZoom(0.1)])
    model = keras.Sequential([augmentation, keras.layers.Rescaling(1 / 255),
                              keras.layers.Conv2D(2, 3), keras.layers.Flatten(),
                              keras.layers.Dense(3, name="outputs")])
    x = np.random.RandomState(4).uniform(0, 255, (2, 16, 16, 3)).astype("float32")
    interpreter = rt.lite.Interpreter(
        model_content=rt.lite.TFLiteConverter.from_keras_model(model).convert())
    # Keras 3 names this input keras_tensor_4 (the augmentation model's 4 tensors come first)
    assert interpreter.get_signature_list()["serving_default"]["inputs"] == ["keras_tensor_4"]
    out = interpreter.get_signature_runner("serving_default")(keras_tensor_4=x)["output_0"]
    np.testing.assert_allclose(out, model.predict(x, verbose=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(augmentation(x, training=False), x)
