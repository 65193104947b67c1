"""keras.distribution, keras.export.ExportArchive and keras.layers.TFSMLayer.

Oracles: Keras 3.15's documented results (device names, layout-map lookups, error messages,
endpoint names, weight names checked against Keras with the TensorFlow backend), NumPy, and
single-device training (what data-parallel training must reproduce, as Keras promises)."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime import keras

D = keras.distribution


@pytest.fixture
def two_cpus():
    cpu = rt.config.list_physical_devices("CPU")[0]
    rt.config.set_logical_device_configuration(cpu, [rt.config.LogicalDeviceConfiguration()] * 2)
    try:
        yield
    finally:
        D.set_distribution(None)
        rt.config.set_logical_device_configuration(cpu, None)


@pytest.fixture(autouse=True)
def no_distribution_left():
    yield
    D.set_distribution(None)
    assert not rt.distribute.has_strategy()


def _regression(n=64):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 5)).astype("float32"), rng.normal(size=(n, 1)).astype("float32")


def _compiled_model():
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.01), "mse")
    return model


# -- keras.distribution: devices --------------------------------------------------------------

def test_list_devices_names_the_logical_cpus_as_keras_does():
    assert D.list_devices() == ["cpu:0"]
    assert D.get_device_count() == 1
    assert D.list_devices("gpu") == [] and D.get_device_count("tpu") == 0
    with pytest.raises(ValueError, match="device_type"):
        D.list_devices("npu")


def test_list_devices_after_splitting_the_cpu(two_cpus):
    assert D.list_devices() == ["cpu:0", "cpu:1"]
    assert D.list_devices("CPU") == ["cpu:0", "cpu:1"]
    assert D.get_device_count("cpu") == 2


def test_initialize_is_a_no_op_for_one_process_and_refuses_several(monkeypatch):
    assert D.initialize() is None
    assert D.initialize(num_processes=1, process_id=0) is None
    with pytest.raises(NotImplementedError, match="num_processes=2"):
        D.initialize("10.0.0.1:1234,10.0.0.2:2345", num_processes=2, process_id=0)
    monkeypatch.setenv("KERAS_DISTRIBUTION_NUM_PROCESSES", "4")
    with pytest.raises(NotImplementedError, match="num_processes=4"):
        D.initialize()


# -- meshes, layouts, layout maps ----------------------------------------------------------------

def test_device_mesh_shapes_the_devices(two_cpus):
    mesh = D.DeviceMesh((2,), ["batch"], D.list_devices())
    assert repr(mesh) == "<DeviceMesh shape=(2,), axis_names=['batch']>"
    np.testing.assert_array_equal(mesh.devices, np.array(["cpu:0", "cpu:1"]))
    grid = D.DeviceMesh((1, 2), ["batch", "model"])  # devices: list_devices()
    assert grid.devices.shape == (1, 2) and grid.axis_names == ["batch", "model"]
    with pytest.raises(ValueError, match=re.escape(
            "Shape does not match the number of devices. Received: shape=(3,); "
            "devices.shape=(2,)")):
        D.DeviceMesh((3,), ["batch"], D.list_devices())
    with pytest.raises(ValueError, match="Shape and axis_names should have same size"):
        D.DeviceMesh((2,), ["a", "b"])
    with pytest.raises(ValueError, match="cannot be empty"):
        D.DeviceMesh((), [])


def test_layout_map_looks_keys_up_as_full_regex_matches():
    mesh = D.DeviceMesh((1, 1), ["batch", "model"])
    layout_map = D.LayoutMap(mesh)
    layout_map[".*dense.*kernel"] = (None, "model")
    layout_map[".*dense.*bias"] = ("model",)
    kernel = layout_map["dense_1/kernel"]
    assert isinstance(kernel, D.TensorLayout) and kernel.axes == (None, "model")
    assert kernel.device_mesh is mesh  # a tuple becomes a layout on the map's mesh
    assert layout_map["sequential/dense_2/bias"].axes == ("model",)
    assert layout_map["conv2d/kernel"] is None
    assert layout_map["dense_1/kernel_x"] is None  # a full match, not a search
    assert list(layout_map) == [".*dense.*kernel", ".*dense.*bias"] and len(layout_map) == 2
    layout_map["dense_1/kernel"] = (None, None)  # an exact key wins over the patterns
    assert layout_map["dense_1/kernel"].axes == (None, None)
    with pytest.raises(ValueError, match=r"already exist in the LayoutMap"):
        layout_map[".*dense.*bias"] = (None,)
    with pytest.raises(ValueError, match="should be a TensorLayout type"):
        layout_map["other"] = [None]
    del layout_map["dense_1/kernel"]
    assert layout_map["dense_1/kernel"].axes == (None, "model")
    clash = D.LayoutMap(mesh)
    clash["d.*"] = (None,)
    clash[".*1"] = (None,)
    with pytest.raises(ValueError, match=re.escape(
            "Path 'd1' matches multiple layout specification keys: ['d.*', '.*1']")):
        clash["d1"]


def test_tensor_layout_checks_its_axes_against_the_mesh():
    mesh = D.DeviceMesh((1, 1), ["batch", "model"])
    with pytest.raises(ValueError, match="Invalid axis names for Layout"):
        D.TensorLayout(("x", None), mesh)
    layout = D.TensorLayout([None, "model"])
    assert layout.device_mesh is None and layout.axes == (None, "model")
    layout.device_mesh = mesh
    assert repr(layout) == ("<TensorLayout axes=(None, 'model'), device_mesh=<DeviceMesh "
                            "shape=(1, 1), axis_names=['batch', 'model']>>")
    with pytest.raises(ValueError, match="Cannot override device mesh value"):
        layout.device_mesh = mesh


# -- distributions ---------------------------------------------------------------------------

def test_data_parallel_meshes_and_layouts(two_cpus):
    mesh = D.DeviceMesh((2,), ["batch"], D.list_devices())
    for distribution in (D.DataParallel(device_mesh=mesh), D.DataParallel(devices=D.list_devices()),
                         D.DataParallel()):
        assert repr(distribution) == \
            "<DataParallel device_mesh=<DeviceMesh shape=(2,), axis_names=['batch']>>"
        assert distribution.batch_dim_name == "batch"
        assert distribution.num_model_replicas == 2 and distribution.num_processes == 1
        assert distribution.distribute_strategy.num_replicas_in_sync == 2
    dp = D.DataParallel(device_mesh=mesh)
    assert dp.get_data_layout((8, 3)).axes == ("batch", None)
    assert dp.get_variable_layout(keras.Variable(np.zeros((3, 4)))).axes == (None, None)
    assert dp.get_tensor_layout("dense/kernel") is None
    with pytest.raises(ValueError, match="Expect `mesh` to be an instance of `DeviceMesh`"):
        D.DataParallel(device_mesh="cpu:0")
    with pytest.raises(ValueError, match="'gpu:0' is not a device of this runtime"):
        D.DataParallel(devices=["gpu:0", "gpu:1"])
    with pytest.raises(TypeError, match="device_mes"):
        D.DataParallel(device_mes=mesh)


def test_one_device_needs_no_strategy():
    dp = D.DataParallel()
    assert dp.num_model_replicas == 1 and dp.distribute_strategy is None
    with dp.scope():
        assert D.distribution() is dp
        assert not rt.distribute.has_strategy()
    assert D.distribution() is None


def test_model_parallel_takes_a_layout_map(two_cpus):
    mesh = D.DeviceMesh((1, 2), ["batch", "model"], D.list_devices())
    layout_map = D.LayoutMap(mesh)
    layout_map[".*dense.*kernel"] = (None, "model")
    mp = D.ModelParallel(layout_map=layout_map, batch_dim_name="batch")
    assert repr(mp) == ("<ModelParallel device_mesh=<DeviceMesh shape=(1, 2), "
                        "axis_names=['batch', 'model']>>")
    assert mp.num_model_replicas == 1 and mp.distribute_strategy is None
    assert D.ModelParallel(layout_map=layout_map).batch_dim_name == "batch"
    assert mp.get_tensor_layout("dense_1/kernel").axes == (None, "model")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4)])
    kernel, bias = model.layers[0].kernel, model.layers[0].bias
    assert mp.get_variable_layout(kernel).axes == (None, "model")  # by kernel.path
    assert mp.get_variable_layout(bias).axes == (None,)             # replicated
    with pytest.raises(ValueError, match="You must specify a layout_map argument"):
        D.ModelParallel()
    with pytest.raises(ValueError, match="must be a `LayoutMap` instance"):
        D.ModelParallel(layout_map={})
    with pytest.raises(ValueError, match="'data' is not an axis"):
        D.ModelParallel(layout_map=layout_map, batch_dim_name="data")
    with pytest.raises(TypeError):
        D.ModelParallel(layout_map=layout_map, batch_dim="batch")


def test_set_distribution_and_scope_enter_the_strategy(two_cpus):
    dp = D.DataParallel()
    assert D.distribution() is None
    with dp.scope():
        assert D.distribution() is dp
        assert rt.distribute.get_strategy() is dp.distribute_strategy
    assert D.distribution() is None and not rt.distribute.has_strategy()
    D.set_distribution(dp)
    assert D.distribution() is dp and rt.distribute.get_strategy() is dp.distribute_strategy
    other = D.DataParallel()
    D.set_distribution(other)  # replaces the first one's strategy
    assert rt.distribute.get_strategy() is other.distribute_strategy
    D.set_distribution(None)
    assert D.distribution() is None and not rt.distribute.has_strategy()
    with rt.distribute.MirroredStrategy(["CPU:0", "CPU:1"]).scope():
        with pytest.raises(ValueError, match="leave that scope first"):
            D.set_distribution(dp)
    with pytest.raises(TypeError, match="Distribution"):
        D.set_distribution("data_parallel")


@pytest.mark.parametrize("how", ["set_distribution", "scope"])
def test_data_parallel_fit_gives_the_single_device_weights(two_cpus, how):
    x, y = _regression()
    expected = _compiled_model()
    expected_history = expected.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    dp = D.DataParallel(device_mesh=D.DeviceMesh((2,), ["batch"], D.list_devices()))
    if how == "scope":
        with dp.scope():
            model = _compiled_model()
    else:
        D.set_distribution(dp)
        model = _compiled_model()
        D.set_distribution(None)
    assert all(isinstance(v, rt.distribute.MirroredVariable) for v in model.variables)
    assert model.distribute_strategy.num_replicas_in_sync == 2
    history = model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    for want, got in zip(expected.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(history.history["loss"], expected_history.history["loss"],
                               rtol=1e-5)


def test_model_parallel_trains_data_parallel_along_its_batch_axis(two_cpus):
    x, y = _regression(48)
    expected = _compiled_model()
    expected.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    mesh = D.DeviceMesh((2, 1), ["batch", "model"], D.list_devices())
    layout_map = D.LayoutMap(mesh)
    layout_map[".*kernel"] = (None, "model")
    mp = D.ModelParallel(layout_map=layout_map)
    assert mp.num_model_replicas == 2
    with mp.scope():
        model = _compiled_model()
    model.fit(x, y, batch_size=16, epochs=1, shuffle=False, verbose=0)
    assert model.distribute_strategy is mp.distribute_strategy
    for want, got in zip(expected.get_weights(), model.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_distribute_tensor_checks_the_layout_and_keeps_the_values(two_cpus):
    mesh = D.DeviceMesh((2,), ["batch"], D.list_devices())
    value = np.arange(12, dtype="float32").reshape(4, 3)
    out = D.distribute_tensor(rt.constant(value), D.TensorLayout(("batch", None), mesh))
    np.testing.assert_array_equal(out.numpy(), value)
    np.testing.assert_array_equal(
        D.distribute_tensor(value, D.TensorLayout((None, None), mesh)).numpy(), value)
    with pytest.raises(ValueError, match="axis 1 of size 3 cannot be split into 2 shards"):
        D.distribute_tensor(value, D.TensorLayout((None, "batch"), mesh))
    with pytest.raises(ValueError, match="has 1 axes"):
        D.distribute_tensor(value, D.TensorLayout(("batch",), mesh))
    with pytest.raises(ValueError, match="device mesh is not set"):
        D.distribute_tensor(value, D.TensorLayout(("batch", None)))
    symbolic = keras.Input((3,))
    assert D.distribute_tensor(symbolic, D.TensorLayout(("batch", None), mesh)) is symbolic


# -- keras.export.ExportArchive ------------------------------------------------------------------

def _trained_model():
    keras.backend.clear_session()  # layer names from "sequential", "dense" again
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dropout(0.5), keras.layers.Dense(2)])
    model.compile("adam", "mse")
    x = np.arange(12, dtype="float32").reshape(4, 3) / 10
    model.fit(x, np.ones((4, 2), "float32"), epochs=1, verbose=0)
    return model, x


def test_export_archive_endpoints_and_variable_collections(tmp_path, capsys):
    model, x = _trained_model()
    archive = keras.export.ExportArchive()
    archive.track(model)
    # Keras counts 5 variables (the Dropout's seed state among them), 4 trainable
    assert (len(archive.variables), len(archive.trainable_variables),
            len(archive.non_trainable_variables)) == (5, 4, 1)
    serve = archive.add_endpoint(
        name="serve", fn=model.call,
        input_signature=[keras.InputSpec(shape=(None, 3), dtype="float32")])
    assert isinstance(serve, type(rt.function(abs)))  # the rt.function wrapping model.call
    archive.add_endpoint(name="call_training", fn=lambda x: model.call(x, training=True),
                         input_signature=[rt.TensorSpec((None, 3), rt.float32)])
    archive.add_variable_collection("optimizer_variables", model.optimizer.variables)
    archive.write_out(tmp_path / "artifact")
    printed = capsys.readouterr().out
    assert printed.startswith(f"Saved artifact at '{tmp_path / 'artifact'}'. The following "
                              "endpoints are available:\n\n* Endpoint 'serve'\n")
    assert "* Endpoint 'call_training'" in printed

    loaded = rt.saved_model.load(tmp_path / "artifact")
    assert sorted(loaded.signatures) == ["call_training", "serve", "serving_default"]
    expected = model(x).numpy()
    np.testing.assert_allclose(loaded.serve(x).numpy(), expected, rtol=1e-6)
    default = loaded.signatures["serving_default"]
    assert [s.name for s in default.structured_input_signature[0]] == ["inputs"]
    np.testing.assert_allclose(default(inputs=rt.constant(x))["output_0"].numpy(), expected,
                               rtol=1e-6)
    assert loaded.call_training(x).shape == (4, 2)
    assert len(loaded.trainable_variables) == 4
    collection = loaded.optimizer_variables
    assert isinstance(collection, list) and len(collection) == len(model.optimizer.variables)
    for saved, original in zip(collection, model.optimizer.variables):
        np.testing.assert_array_equal(saved.numpy(), original.numpy())


def test_an_endpoint_can_be_a_traced_function(tmp_path):
    model, x = _trained_model()

    @rt.function
    def double(z):
        return model(z) * 2.0

    double(rt.constant(x))
    archive = keras.export.ExportArchive()
    assert archive.add_endpoint("double", double) is double
    archive.write_out(tmp_path / "a", verbose=False)
    loaded = rt.saved_model.load(tmp_path / "a")
    assert sorted(loaded.signatures) == ["double", "serving_default"]
    np.testing.assert_allclose(loaded.double(x).numpy(), 2 * model(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.signatures["serving_default"](z=x)["output_0"].numpy(),
                               2 * model(x).numpy(), rtol=1e-6)


def test_track_and_add_endpoint_with_two_inputs(tmp_path):
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    model = keras.Model([a, b], keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
    archive = keras.export.ExportArchive()
    archive.track_and_add_endpoint(
        "serve", model, [[keras.InputSpec(shape=(None, 3)), keras.InputSpec(shape=(None, 2))]])
    assert len(archive.variables) == 2
    archive.write_out(tmp_path / "two", verbose=False)
    xa, xb = np.ones((2, 3), "float32"), np.full((2, 2), 2.0, "float32")
    loaded = rt.saved_model.load(tmp_path / "two")
    kernel, bias = model.get_weights()
    want = np.concatenate([xa, xb], axis=1) @ kernel + bias
    np.testing.assert_allclose(loaded.serve([xa, xb]).numpy(), want, rtol=1e-6)


def test_export_archive_errors(tmp_path):
    model, _ = _trained_model()
    archive = keras.export.ExportArchive()
    spec = [keras.InputSpec(shape=(None, 3))]
    archive.add_endpoint("serve", model.call, spec)
    with pytest.raises(ValueError, match="Endpoint name 'serve' is already taken."):
        archive.add_endpoint("serve", model.call, spec)
    with pytest.raises(ValueError, match="you must provide an `input_signature`"):
        archive.add_endpoint("other", model.call)
    with pytest.raises(ValueError, match="has never been called"):
        archive.add_endpoint("other", rt.function(lambda z: z))
    with pytest.raises(ValueError, match="only supported with the jax backend"):
        archive.add_endpoint("other", model.call, spec, jax2tf_kwargs={})
    with pytest.raises(TypeError, match="unexpected keyword"):
        archive.add_endpoint("other", model.call, spec, polymorphic=True)
    with pytest.raises(ValueError, match="must be a Python identifier"):
        archive.add_endpoint("my endpoint", model.call, spec)
    with pytest.raises(ValueError, match=re.escape(
            "Expected `variables` to be a list/tuple/set. Received instead object of type")):
        archive.add_variable_collection("v", model.variables[0])
    with pytest.raises(ValueError, match="Expected all elements in `variables`"):
        archive.add_variable_collection("v", [1.0])
    with pytest.raises(ValueError, match="No endpoints have been set yet. Call add_endpoint()."):
        keras.export.ExportArchive().write_out(tmp_path / "none")
    with pytest.raises(ValueError, match="The layer provided has not yet been built."):
        keras.export.ExportArchive().track(keras.layers.Dense(2))
    with pytest.raises(ValueError, match="Invalid resource type."):
        keras.export.ExportArchive().track(3)
    with pytest.raises(ValueError, match="Unsupported format: x"):
        keras.export.ExportArchive(format="x")
    with pytest.raises(TypeError, match="options"):
        archive.write_out(tmp_path / "o", options="fast", verbose=False)


# -- keras.layers.TFSMLayer ------------------------------------------------------------------------

def _dense_model():
    keras.utils.set_random_seed(3)
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                             keras.layers.Dense(2)])


def test_tfsm_layer_calls_the_endpoint_with_the_saved_weights(tmp_path):
    model, x = _trained_model()
    archive = keras.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("serve", model.call, [keras.InputSpec(shape=(None, 3))])
    archive.add_endpoint("call_training", lambda z: model.call(z, training=True),
                         [keras.InputSpec(shape=(None, 3))])
    archive.write_out(tmp_path / "m", verbose=False)
    layer = keras.layers.TFSMLayer(tmp_path / "m", call_endpoint="serve",
                                   call_training_endpoint="call_training")
    assert layer.built and layer.name == "tfsm_layer"
    # Keras's names: the saved ones with '/' made '_'; trainable weights first
    assert [w.name for w in layer.weights] == [
        "sequential_dense_kernel:0", "sequential_dense_bias:0", "sequential_dense_1_kernel:0",
        "sequential_dense_1_bias:0", "seed_generator_seed_generator_state:0"]
    assert len(layer.trainable_weights) == 4
    np.testing.assert_allclose(layer(x).numpy(), model(x).numpy(), rtol=1e-6)
    frozen = keras.layers.TFSMLayer(tmp_path / "m", trainable=False)
    assert (len(frozen.trainable_weights), len(frozen.non_trainable_weights)) == (0, 4)
    config = layer.get_config()
    assert {k: config[k] for k in ("name", "trainable", "filepath", "call_endpoint",
                                   "call_training_endpoint")} == {
        "name": "tfsm_layer", "trainable": True, "filepath": str(tmp_path / "m"),
        "call_endpoint": "serve", "call_training_endpoint": "call_training"}
    with pytest.raises(ValueError, match="Requested the deserialization of a `TFSMLayer`"):
        keras.layers.TFSMLayer.from_config(config)  # refused in safe mode, as in Keras
    again = keras.layers.TFSMLayer.from_config(config, safe_mode=False)
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match=re.escape(
            "The endpoint 'nope' is neither an attribute of the reloaded SavedModel, nor an "
            "entry in the `signatures` field of the reloaded SavedModel. Select another "
            "endpoint via the `call_endpoint` argument. Available endpoints for this "
            "SavedModel: ['serve', 'call_training', 'serving_default']")):
        keras.layers.TFSMLayer(tmp_path / "m", call_endpoint="nope")


def test_tfsm_layer_training_endpoint_and_model_export(tmp_path):
    model = _dense_model()
    x = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)
    archive = keras.export.ExportArchive()
    archive.add_endpoint("serve", model.call, [keras.InputSpec(shape=(None, 3))])
    archive.add_endpoint("doubled", lambda z: 2.0 * model.call(z),
                         [keras.InputSpec(shape=(None, 3))])
    archive.write_out(tmp_path / "m", verbose=False)
    layer = keras.layers.TFSMLayer(tmp_path / "m", call_training_endpoint="doubled")
    np.testing.assert_allclose(layer(x, training=True).numpy(), 2 * model(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(layer(x, training=False).numpy(), model(x).numpy(), rtol=1e-6)
    model.export(tmp_path / "exported", verbose=False)
    served = keras.layers.TFSMLayer(tmp_path / "exported")
    np.testing.assert_allclose(served(x).numpy(), model(x).numpy(), rtol=1e-6)
    by_signature = keras.layers.TFSMLayer(tmp_path / "exported", call_endpoint="serving_default")
    np.testing.assert_allclose(by_signature(x)["output_0"].numpy(), model(x).numpy(), rtol=1e-6)


def test_fine_tuning_a_tfsm_layer_trains_as_the_original_model(tmp_path):
    x = np.linspace(-1, 1, 24, dtype="float32").reshape(8, 3)
    y = np.stack([x.sum(axis=1), x[:, 0] - x[:, 2]], axis=1)
    original = _dense_model()
    original.export(tmp_path / "m", verbose=False)
    reference = _dense_model()  # the same weights (same seed), trained directly
    np.testing.assert_array_equal(reference.get_weights()[0], original.get_weights()[0])
    reference.compile(keras.optimizers.SGD(0.1), "mse")
    reference.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)

    wrapped = keras.Sequential([keras.Input((3,)), keras.layers.TFSMLayer(tmp_path / "m")])
    wrapped.compile(keras.optimizers.SGD(0.1), "mse")
    wrapped.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
    np.testing.assert_allclose(wrapped(x).numpy(), reference(x).numpy(), rtol=1e-5, atol=1e-6)
    for want, got in zip(reference.get_weights(), wrapped.get_weights()):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    @rt.function
    def traced(z):  # the endpoint's graph inlined into another function's
        return wrapped(z) + 1.0

    np.testing.assert_allclose(traced(rt.constant(x)).numpy(), wrapped(x).numpy() + 1.0,
                               rtol=1e-6)


def test_a_model_holding_a_tfsm_layer_loads_only_unsafely(tmp_path):
    model = _dense_model()
    model.export(tmp_path / "m", verbose=False)
    wrapper = keras.Sequential([keras.Input((3,)), keras.layers.TFSMLayer(tmp_path / "m")])
    wrapper.save(tmp_path / "w.keras")
    with pytest.raises(ValueError, match="Requested the deserialization of a `TFSMLayer`"):
        keras.models.load_model(tmp_path / "w.keras")
    loaded = keras.models.load_model(tmp_path / "w.keras", safe_mode=False)
    x = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_a_tfsm_layer_inlines_control_flow_and_its_gradients(tmp_path):
    # the endpoint: y = x * v if sum(x) > 0 else x - v, then 1 added three times in a loop
    scale = rt.Variable(2.0)

    @rt.function(input_signature=[rt.TensorSpec((None, 3), rt.float32)])
    def endpoint(x):
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: x * scale, lambda: x - scale)
        _, y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y + 1.0),
                             [rt.constant(0), y])
        return y

    archive = keras.export.ExportArchive()
    archive.add_endpoint("f", endpoint)
    archive.write_out(tmp_path / "f", verbose=False)
    layer = keras.layers.TFSMLayer(tmp_path / "f", call_endpoint="f")
    (weight,) = layer.trainable_weights  # the saved copy of `scale`
    assert float(weight.numpy()) == 2.0
    ones = np.ones((2, 3), "float32")

    @rt.function
    def loss_and_gradient(z):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(layer(z))
        return loss, tape.gradient(loss, layer.trainable_weights)[0]

    for x, want, grad in ((ones, 6 * (1 * 2.0 + 3), 6.0), (-ones, 6 * (-1 - 2.0 + 3), -6.0)):
        np.testing.assert_allclose(layer(x).numpy(), np.full((2, 3), want / 6), rtol=1e-6)
        loss, gradient = loss_and_gradient(rt.constant(x))  # the graph copied into another
        assert float(loss) == pytest.approx(want) and float(gradient) == pytest.approx(grad)


def test_distribute_tensor_inside_a_traced_function_returns_the_tensor(two_cpus):
    layout = D.TensorLayout(("batch", None), D.DeviceMesh((2,), ["batch"]))

    @rt.function
    def scaled(x):
        return D.distribute_tensor(x * 2.0, layout)

    value = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal(scaled(rt.constant(value)).numpy(), value * 2)
    dataset = rt.data.Dataset.range(3)
    assert D.DataParallel().distribute_dataset(dataset) is dataset  # one process: as it is
