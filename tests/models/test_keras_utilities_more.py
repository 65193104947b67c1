"""Keras 3 names beyond the layers: keras.optimizers.legacy (refused as Keras 3 refuses it),
keras.utils.FeatureSpace, the top-level scopes (StatelessScope, SymbolicScope, RematScope,
remat, name_scope), Operation and Function, keras.wrappers (scikit-learn estimators, with a
small stand-in when scikit-learn is not installed) and keras.distillation.

Expected values are closed forms, NumPy's, or what Keras 3.15 on TensorFlow 2.21 returns for
the same programs (written here as numbers)."""

import sys
import types

import numpy as np
import pytest

import runtime as rt
from runtime import keras


# -- keras.optimizers.legacy ----------------------------------------------------------------
@pytest.mark.parametrize("name", ["Adagrad", "Adam", "Ftrl", "Optimizer", "RMSprop", "SGD"])
def test_legacy_optimizers_raise_importerror_as_keras3(name):
    cls = getattr(keras.optimizers.legacy, name)
    with pytest.raises(ImportError, match="not supported in Keras 3"):
        cls(learning_rate=0.1)
    assert cls is keras.optimizers.legacy.Adam  # Keras 3: one class under six names


def test_legacy_optimizers_import_path():
    from runtime.keras.optimizers.legacy import SGD
    with pytest.raises(ImportError, match="TF_USE_LEGACY_KERAS"):
        SGD()
    assert rt.keras.optimizers.legacy.SGD is SGD


# -- StatelessScope ----------------------------------------------------------------------------
def _dense():
    layer = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")
    layer.build((None, 3))
    return layer


def test_stateless_scope_reads_mapped_values_and_collects_updates():
    layer = _dense()
    x = np.ones((1, 3), "float32")
    mapping = [(layer.kernel, np.zeros((3, 2)))]  # float64 zeros: cast to the kernel's dtype
    with keras.StatelessScope(mapping) as scope:
        np.testing.assert_array_equal(layer(x).numpy(), [[0.0, 0.0]])
        layer.kernel.assign(np.full((3, 2), 5.0, "float32"))
        layer.bias.assign_add([1.0, 2.0])
        np.testing.assert_array_equal(layer.kernel.numpy(), np.full((3, 2), 5.0))
        np.testing.assert_array_equal(layer(x).numpy(), [[16.0, 17.0]])  # 3 * 5 + bias
    np.testing.assert_array_equal(layer.kernel.numpy(), np.ones((3, 2)))
    np.testing.assert_array_equal(layer.bias.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(scope.get_current_value(layer.kernel).numpy(),
                                  np.full((3, 2), 5.0))
    np.testing.assert_array_equal(scope.get_current_value(layer.bias).numpy(), [1.0, 2.0])
    assert scope.get_current_value(keras.Variable(1.0)) is None
    assert scope.get_current_value(layer.kernel).dtype == rt.float32
    np.testing.assert_array_equal(layer(x).numpy(), [[3.0, 3.0]])  # in place again
    layer.bias.assign([1.0, 1.0])  # outside any scope: applied
    np.testing.assert_array_equal(layer.bias.numpy(), [1.0, 1.0])


def test_stateless_scope_nested_and_validation():
    v = keras.Variable(np.array([1.0, 2.0], "float32"))
    with keras.StatelessScope([(v, [10.0, 20.0])]) as outer:
        with keras.StatelessScope() as inner:
            v.assign_sub([1.0, 1.0])
            np.testing.assert_array_equal(v.numpy(), [9.0, 19.0])
        np.testing.assert_array_equal(v.numpy(), [10.0, 20.0])
        np.testing.assert_array_equal(inner.get_current_value(v).numpy(), [9.0, 19.0])
    assert outer.get_current_value(v).numpy().tolist() == [10.0, 20.0]
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="must be Variable instances"):
        keras.StatelessScope([(1, 2)])
    with pytest.raises(ValueError, match="shape that matches"):
        keras.StatelessScope([(v, np.zeros(3))])
    with pytest.raises(NotImplementedError, match="initialize_variables"):
        keras.StatelessScope(initialize_variables=False)
    with pytest.raises(TypeError):
        keras.StatelessScope(state_maping=[])


def test_stateless_scope_is_per_thread():
    import threading
    v, w = keras.Variable(1.0), keras.Variable(1.0)
    with keras.StatelessScope() as scope:
        v.assign(2.0)
        worker = threading.Thread(target=lambda: w.assign(5.0))  # no scope in that thread
        worker.start()
        worker.join()
    assert float(v.numpy()) == 1.0 and float(scope.get_current_value(v)) == 2.0
    assert float(w.numpy()) == 5.0 and scope.get_current_value(w) is None


def test_stateless_scope_collects_losses():
    class Penalty(keras.layers.Layer):
        def call(self, x):
            self.add_loss(rt.reduce_sum(x))
            return x

    layer = Penalty()
    with keras.StatelessScope(collect_losses=True) as scope:
        layer(np.array([1.0, 2.0], "float32"))
    assert [float(loss) for loss in scope.losses] == [3.0]
    with keras.StatelessScope() as quiet:
        layer(np.array([1.0], "float32"))
    assert quiet.losses == []


# -- SymbolicScope, RematScope, remat, name_scope ----------------------------------------------
def test_symbolic_scope_marks_the_stage():
    from runtime.keras.scopes import in_symbolic_scope
    assert not in_symbolic_scope()
    with keras.SymbolicScope() as scope:
        assert in_symbolic_scope() and isinstance(scope, keras.SymbolicScope)
    assert not in_symbolic_scope()


def test_remat_scope_modes():
    from runtime.keras.scopes import get_current_remat_mode
    scope = keras.RematScope()
    assert (scope.mode, scope.output_size_threshold, scope.layer_names) == ("full", 1024, [])
    for mode in ("full", "activations", "larger_than", "list_of_layers", None):
        keras.RematScope(mode=mode)
    with pytest.raises(ValueError, match="Invalid mode 'everything'"):
        keras.RematScope(mode="everything")
    assert get_current_remat_mode() is None
    with keras.RematScope(mode="list_of_layers", layer_names=["d1"]):
        with keras.RematScope(mode="larger_than", output_size_threshold=512):
            assert get_current_remat_mode() == ("larger_than", 512, [])
        assert get_current_remat_mode().layer_names == ["d1"]
        # rematerialisation never changes values
        layer = keras.layers.Dense(2, kernel_initializer="ones")
        np.testing.assert_array_equal(layer(np.ones((1, 2), "float32")).numpy(), [[2.0, 2.0]])
    assert get_current_remat_mode() is None


def test_remat_same_values_and_gradients():
    def f(x):
        return rt.sin(x) * x

    g = keras.remat(f)
    x = rt.Variable([0.5, 1.0])
    with rt.GradientTape() as tape:
        y = g(x)
    np.testing.assert_allclose(y.numpy(), np.sin([0.5, 1.0]) * [0.5, 1.0], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               np.cos([0.5, 1.0]) * [0.5, 1.0] + np.sin([0.5, 1.0]), rtol=1e-6)


def test_name_scope():
    with keras.name_scope("block") as scope:
        assert (scope.name, scope.caller, scope.deduplicate) == ("block", None, True)

    @rt.function
    def f(x):
        with keras.name_scope("outer"):
            with keras.name_scope("inner"):
                return x * 2.0

    graph = f.get_concrete_function(rt.TensorSpec([2])).graph
    assert any(op.name.startswith("outer/inner/") for op in graph.operations)
    owner = object()
    from runtime.keras.scopes import current_path
    with keras.name_scope("a", caller=owner):
        with keras.name_scope("a", caller=owner):  # deduplicated: not nested again
            assert current_path() == "a"
        with keras.name_scope("a", caller=owner, deduplicate=False):
            assert current_path() == "a/a"
    with pytest.raises(ValueError, match="cannot contain character"):
        keras.name_scope("a/b")
    with pytest.raises(NotImplementedError, match="override_parent"):
        keras.name_scope("a", override_parent="x")


# -- Operation and Function --------------------------------------------------------------------
def test_function_runs_the_graph():
    x = keras.Input((3,), name="x")
    dense = keras.layers.Dense(2, kernel_initializer="ones", name="d")
    y = dense(x)
    z = keras.layers.ReLU(negative_slope=0.5)(y)
    fn = keras.Function(x, [y, z], name="fn")
    assert fn.name == "fn" and fn.inputs == [x] and fn.outputs == [y, z]
    assert [type(op).__name__ for op in fn.operations] == ["InputLayer", "Dense", "ReLU"]
    out_y, out_z = fn(np.array([[1.0, 2.0, -5.0]], "float32"))
    np.testing.assert_array_equal(out_y.numpy(), [[-2.0, -2.0]])
    np.testing.assert_array_equal(out_z.numpy(), [[-1.0, -1.0]])
    spec = fn.compute_output_spec(keras.KerasTensor((5, 3), "float32"))
    assert [tuple(t.shape.as_list()) for t in spec] == [(5, 2), (5, 2)]
    assert isinstance(dense, keras.Operation) and isinstance(fn, keras.Operation)
    assert not isinstance(fn, keras.layers.Layer)


def test_operation_subclass_eager_and_symbolic():
    class Double(keras.Operation):
        def call(self, a):
            return a * 2.0

    op = Double()
    assert op.name.startswith("double")
    np.testing.assert_array_equal(op(np.array([1.0, 2.0])), [2.0, 4.0])
    x = keras.Input((2,))
    fn = keras.Function(x, op(x))
    np.testing.assert_array_equal(fn(np.array([[1.0, 3.0]], "float32")).numpy(), [[2.0, 6.0]])
    with pytest.raises(NotImplementedError, match="call"):
        keras.Operation()(1.0)
    with pytest.raises(ValueError, match="cannot contain"):
        keras.Operation(name="a/b")


# -- FeatureSpace ------------------------------------------------------------------------------
RAW = {"float_values": [0.0, 0.1, 0.2, 0.3], "string_values": ["zero", "one", "two", "three"],
       "int_values": [0, 1, 2, 3]}


def _doc_feature_space():
    fs = keras.utils.FeatureSpace(
        features={"float_values": "float_normalized", "string_values": "string_categorical",
                  "int_values": "integer_categorical"},
        crosses=[("string_values", "int_values")], output_mode="concat")
    fs.adapt(rt.data.Dataset.from_tensor_slices(RAW))
    return fs


def test_feature_space_concat_matches_keras():
    fs = _doc_feature_space()
    out = fs(RAW)
    assert out.shape.as_list() == [4, 43] and out.dtype == rt.float32  # 1 + 5 + 5 + 32
    values = out.numpy()
    # the normalized column: (x - mean) / std of [0, .1, .2, .3]
    x = np.array(RAW["float_values"])
    np.testing.assert_allclose(values[:, 0], (x - x.mean()) / x.std(), rtol=1e-5)
    # Keras 3.15's nonzero positions (int lookups 1..5, string lookups 6..10, cross 11..42)
    assert [np.nonzero(row)[0].tolist() for row in values] == [
        [0, 5, 7, 32], [0, 4, 10, 29], [0, 3, 8, 38], [0, 2, 9, 31]]
    assert fs.preprocessors["string_values"].get_vocabulary() == [
        "[UNK]", "zero", "two", "three", "one"]
    assert fs.preprocessors["int_values"].get_vocabulary() == [-1, 3, 2, 1, 0]
    assert set(fs.crossers) == {"string_values_X_int_values"}
    one = fs({"float_values": 0.1, "string_values": "two", "int_values": 7}).numpy()
    assert one.shape == (43,) and np.nonzero(one)[0].tolist() == [0, 1, 8, 20]


def test_feature_space_in_a_dataset_pipeline():
    fs = _doc_feature_space()
    ds = rt.data.Dataset.from_tensor_slices(RAW).map(fs)
    assert ds.element_spec == rt.TensorSpec([43], rt.float32)
    rows = [e.numpy() for e in ds]
    np.testing.assert_allclose(np.stack(rows), fs(RAW).numpy(), rtol=1e-6)
    batched = rt.data.Dataset.from_tensor_slices(RAW).batch(2).map(fs)
    np.testing.assert_allclose(np.concatenate([b.numpy() for b in batched]),
                               fs(RAW).numpy(), rtol=1e-6)
    labeled = rt.data.Dataset.from_tensor_slices((RAW, [0, 1, 0, 1])).map(
        lambda x, y: (fs(x), y))
    first_x, first_y = next(iter(labeled))
    assert first_x.shape.as_list() == [43] and int(first_y) == 0


def test_feature_space_dict_mode_and_int_outputs():
    FS = keras.utils.FeatureSpace
    fs = FS(features={"s": FS.string_categorical(output_mode="int"),
                      "i": FS.integer_categorical(output_mode="int"),
                      "h": FS.string_hashed(num_bins=4)},
            crosses=[FS.cross(("s", "i"), crossing_dim=8, output_mode="int")],
            output_mode="dict")
    fs.adapt({"s": ["a", "b", "b"], "i": [5, 5, 6], "h": ["x", "y", "z"]})
    out = fs({"s": ["a", "b", "c"], "i": [5, 6, 7], "h": ["x", "y", "z"]})
    assert {k: v.numpy().tolist() for k, v in out.items()} == {
        "h": [[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]],
        "i": [[1], [2], [0]], "s": [[2], [1], [0]], "s_X_i": [[4], [5], [0]]}
    assert {k: v.dtype for k, v in out.items()} == {
        "h": rt.float32, "i": rt.int64, "s": rt.int64, "s_X_i": rt.int64}
    single = fs({"s": "a", "i": 5, "h": "x"})
    assert single["h"].shape.as_list() == [4] and single["s_X_i"].numpy().tolist() == [4]


def test_feature_space_other_feature_types():
    FS = keras.utils.FeatureSpace
    fs = FS(features={"f": "float", "r": FS.float_rescaled(scale=2.0, offset=1.0),
                      "d": FS.float_discretized(num_bins=3), "ih": FS.integer_hashed(num_bins=5)})
    data = {"f": [1, 2, 3, 4, 5, 6], "r": [1.0, 2, 3, 4, 5, 6], "d": [1.0, 2, 3, 4, 5, 6],
            "ih": [1, 2, 3, 4, 5, 6]}
    fs.adapt(data)
    assert fs.preprocessors["d"].bin_boundaries == [2.0, 4.0]
    expected = [[1, 0, 0, 1, 0, 0, 0, 0, 1, 3], [0, 1, 0, 2, 0, 0, 0, 0, 1, 5],
                [0, 1, 0, 3, 0, 1, 0, 0, 0, 7], [0, 0, 1, 4, 0, 0, 0, 1, 0, 9],
                [0, 0, 1, 5, 0, 1, 0, 0, 0, 11], [0, 0, 1, 6, 0, 0, 1, 0, 0, 13]]
    np.testing.assert_array_equal(fs(data).numpy(), expected)  # Keras 3.15's values


def test_feature_space_functional_model():
    fs = _doc_feature_space()
    inputs = fs.get_inputs()
    assert sorted(inputs) == ["float_values", "int_values", "string_values"]
    assert inputs["int_values"].dtype == rt.int32 and inputs["string_values"].dtype == rt.string
    encoded = fs.get_encoded_features()
    assert encoded.shape.as_list() == [None, 43]
    model = keras.Model(inputs, keras.layers.Dense(1, kernel_initializer="ones")(encoded))
    batch = {k: np.asarray(v)[:, None] for k, v in RAW.items()}
    np.testing.assert_allclose(model(batch).numpy()[:, 0], fs(RAW).numpy().sum(axis=1),
                               rtol=1e-5)


def test_feature_space_errors_as_keras():
    FS = keras.utils.FeatureSpace
    with pytest.raises(ValueError, match="cannot be None or empty"):
        FS(features={})
    with pytest.raises(ValueError, match="Invalid feature type: nope"):
        FS(features={"a": "nope"})
    with pytest.raises(ValueError, match="Expected one of {'dict', 'concat'}"):
        FS(features={"a": "float"}, output_mode="x")
    with pytest.raises(ValueError, match="Received unknown features"):
        FS(features={"a": "float"}, crosses=[("a", "b")])
    with pytest.raises(ValueError, match="call `.adapt"):
        FS(features={"a": "float_normalized"})({"a": [1.0]})
    fs = FS(features={"a": "float_normalized"}, output_mode="dict")
    fs.adapt({"a": [1.0, 3.0]})
    np.testing.assert_allclose(fs({"a": [1.0, 3.0]})["a"].numpy(), [[-1.0], [1.0]], rtol=1e-6)
    with pytest.raises(ValueError, match="can only be called with a dict"):
        fs([1.0])
    with pytest.raises(ValueError, match="has not been encoded"):
        FS(features={"a": FS.string_categorical(output_mode="int")}).adapt({"a": ["x"]})
    with pytest.raises(ValueError, match="can only be called on a tf.data.Dataset"):
        fs.adapt([1.0, 2.0])
    with pytest.raises(NotImplementedError, match="save"):
        fs.save("fs.keras")


def test_feature_space_float_casts_and_needs_no_adapt():
    fs = keras.utils.FeatureSpace(features={"a": keras.utils.FeatureSpace.float()})
    out = fs({"a": [1, 2]})
    assert out.dtype == rt.float32 and out.numpy().tolist() == [[1.0], [2.0]]


# -- keras.wrappers ----------------------------------------------------------------------------
def _standin_sklearn() -> dict:
    """A minimal scikit-learn: BaseEstimator's get_params and the mixins' score."""
    import inspect

    class BaseEstimator:
        def get_params(self, deep=True):
            names = [p for p in inspect.signature(type(self).__init__).parameters
                     if p != "self"]
            return {name: getattr(self, name) for name in names}

    class ClassifierMixin:
        def score(self, X, y):
            return float(np.mean(self.predict(X) == np.asarray(y)))

    class RegressorMixin:
        def score(self, X, y):
            y = np.asarray(y)
            return 1.0 - np.sum((y - self.predict(X)) ** 2) / np.sum((y - y.mean()) ** 2)

    class TransformerMixin:
        pass

    class NotFittedError(ValueError, AttributeError):
        pass

    base = types.ModuleType("sklearn.base")
    base.BaseEstimator, base.ClassifierMixin = BaseEstimator, ClassifierMixin
    base.RegressorMixin, base.TransformerMixin = RegressorMixin, TransformerMixin
    exceptions = types.ModuleType("sklearn.exceptions")
    exceptions.NotFittedError = NotFittedError
    root = types.ModuleType("sklearn")
    root.base, root.exceptions = base, exceptions
    return {"sklearn": root, "sklearn.base": base, "sklearn.exceptions": exceptions}


@pytest.fixture
def wrappers(monkeypatch):
    from runtime.keras import wrappers as module
    try:
        import sklearn  # noqa: F401
    except ImportError:
        for name, stand_in in _standin_sklearn().items():
            monkeypatch.setitem(sys.modules, name, stand_in)
    monkeypatch.setattr(module, "_built", {})
    for name in module._NAMES:
        monkeypatch.delitem(vars(module), name, raising=False)
    yield module
    for name in module._NAMES:
        vars(module).pop(name, None)


X = np.random.default_rng(0).normal(size=(20, 3)).astype("float32")
Y = (X[:, 0] > 0).astype(int)


def _classifier(X, y, units=4):
    model = keras.Sequential([keras.Input(X.shape[1:]), keras.layers.Dense(units, "relu"),
                              keras.layers.Dense(y.shape[1], activation="softmax")])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="categorical_crossentropy")
    return model


def _regressor(X, y):
    model = keras.Sequential([keras.Input(X.shape[1:]), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    return model


def test_sklearn_classifier(wrappers):
    keras.utils.set_random_seed(0)
    clf = wrappers.SKLearnClassifier(model=_classifier, model_kwargs={"units": 3},
                                     fit_kwargs={"epochs": 30, "verbose": 0})
    assert clf.get_params() == {"model": _classifier, "warm_start": False,
                                "model_kwargs": {"units": 3},
                                "fit_kwargs": {"epochs": 30, "verbose": 0}}
    with pytest.raises(ValueError, match="not fitted yet"):
        clf.predict(X)
    assert clf.fit(X, Y) is clf
    assert clf.classes_.tolist() == [0, 1] and clf.n_features_in_ == 3
    assert clf.model_.layers[0].units == 3
    assert len(clf.history_.history["loss"]) == 30
    scores = clf.decision_function(X)
    assert scores.shape == (20, 2)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(scores, axis=1))
    assert clf.score(X, Y) >= 0.8  # a separable target: x0 > 0
    labels = np.array(["neg", "pos"])[Y]
    clf.fit(X, labels)
    assert clf.classes_.tolist() == ["neg", "pos"]
    assert set(clf.predict(X[:5]).tolist()) <= {"neg", "pos"}
    assert clf.fit_kwargs == {"epochs": 30, "verbose": 0}  # fit's keywords not kept


def test_sklearn_wrapper_checks_as_keras(wrappers):
    clf = wrappers.SKLearnClassifier(model=_classifier, fit_kwargs={"epochs": 1, "verbose": 0})
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        clf.fit(X[:, 0], Y)
    with pytest.raises(ValueError, match="only one class is present"):
        clf.fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="Target type: continuous"):
        clf.fit(X, X[:, 0])
    clf.fit(X, Y)
    with pytest.raises(ValueError, match="X has 2 features, but SKLearnClassifier is "
                                         "expecting 3 features"):
        clf.predict(X[:, :2])
    reg = wrappers.SKLearnRegressor(model=_regressor)
    with pytest.raises(ValueError, match=r"y should be a 1d array, got an array of shape \(20, "
                                         r"2\)"):
        reg.fit(X, X[:, :2])

    def uncompiled(X, y):
        return keras.Sequential([keras.layers.Dense(1)])

    with pytest.raises(RuntimeError, match="needs to be compiled"):
        wrappers.SKLearnRegressor(model=uncompiled).fit(X, X[:, 0])


def test_sklearn_regressor_and_transformer(wrappers):
    keras.utils.set_random_seed(1)
    target = X @ np.array([1.0, -2.0, 0.5]) + 0.25
    reg = wrappers.SKLearnRegressor(model=_regressor,
                                    fit_kwargs={"epochs": 200, "verbose": 0, "batch_size": 20})
    reg.fit(X, target)
    prediction = reg.predict(X)
    assert prediction.shape == (20,)  # a column back to 1-D
    np.testing.assert_allclose(prediction, target, atol=0.1)
    kernel = reg.model_.layers[-1].kernel.numpy()[:, 0]
    np.testing.assert_allclose(prediction, X @ kernel + reg.model_.layers[-1].bias.numpy()[0],
                               rtol=1e-5)
    trs = wrappers.SKLearnTransformer(model=_regressor, fit_kwargs={"epochs": 1, "verbose": 0})
    out = trs.fit(X, target).transform(X[:3])
    assert out.shape == (3, 1)
    np.testing.assert_allclose(out, trs.model_.predict(X[:3], verbose=0), rtol=1e-6)


def test_sklearn_wrapper_model_instance_is_cloned(wrappers):
    model = _classifier(X, np.eye(2)[Y])
    clf = wrappers.SKLearnClassifier(model=model, fit_kwargs={"epochs": 1, "verbose": 0})
    clf.fit(X, Y)
    assert clf.model_ is not model and clf.model_.optimizer is not model.optimizer
    warm = wrappers.SKLearnClassifier(model=model, warm_start=True,
                                      fit_kwargs={"epochs": 1, "verbose": 0})
    assert warm.fit(X, Y).model_ is model


def test_sklearn_wrappers_need_sklearn(monkeypatch):
    from runtime.keras import wrappers as module
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.base", None)
    monkeypatch.setattr(module, "_built", {})
    for name in module._NAMES:
        monkeypatch.delitem(vars(module), name, raising=False)
    try:
        with pytest.raises(ImportError, match="requires `scikit-learn`"):
            module.SKLearnRegressor(model=_regressor)
    finally:
        for name in module._NAMES:
            vars(module).pop(name, None)


# -- keras.distillation ------------------------------------------------------------------------
XD = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]], "float32")
YD = np.array([0, 1, 2])


def _model(name, k):
    inputs = keras.Input((2,))
    h = keras.layers.Dense(3, name=f"{name}_h", kernel_initializer=keras.initializers.Constant(k),
                           bias_initializer="zeros")(inputs)
    out = keras.layers.Dense(3, name=f"{name}_out", bias_initializer="zeros",
                             kernel_initializer=keras.initializers.Constant(
                                 np.arange(9).reshape(3, 3) / 10 * k))(h)
    return keras.Model(inputs, out, name=name)


D = keras.distillation


def test_distiller_losses_match_keras():
    teacher, student = _model("teacher", 1.0), _model("student", 0.5)
    distiller = D.Distiller(teacher=teacher, student=student,
                            distillation_losses=D.LogitsDistillation(temperature=2.0),
                            student_loss_weight=0.3)
    distiller.compile(optimizer=keras.optimizers.SGD(0.0),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    logs = distiller.evaluate(XD, YD, verbose=0, return_dict=True)
    expected = {"accuracy": 1 / 3, "distillation_loss": 1.9641761779785156,
                "loss": 1.7062206268310547, "student_loss": 1.1043243408203125,
                "total_loss": 1.7062206268310547}  # Keras 3.15
    assert sorted(logs) == sorted(expected)
    for key, value in expected.items():
        assert logs[key] == pytest.approx(value, rel=1e-5), key
    # total = w * student + (1 - w) * distillation
    assert logs["total_loss"] == pytest.approx(0.3 * logs["student_loss"]
                                               + 0.7 * logs["distillation_loss"], rel=1e-6)
    assert distiller.metrics_names == ["loss", "compile_metrics", "student_loss",
                                       "distillation_loss", "total_loss"]
    np.testing.assert_allclose(distiller.predict(XD, verbose=0), student(XD).numpy())
    assert teacher.trainable is False and distiller.teacher is teacher
    assert len(distiller.trainable_variables) == 4  # the student's kernels and biases
    assert float(distiller.compute_loss(XD, YD, student(XD))) == pytest.approx(1.7062206,
                                                                                rel=1e-5)


def test_distiller_feature_distillation_and_weights():
    teacher, student = _model("teacher", 1.0), _model("student", 0.5)
    distiller = D.Distiller(
        teacher=teacher, student=student,
        distillation_losses=[D.LogitsDistillation(temperature=1.0,
                                                  loss="categorical_crossentropy"),
                             D.FeatureDistillation(loss="mse", teacher_layer_name="teacher_h",
                                                   student_layer_name="student_h")],
        distillation_loss_weights=[1.0, 0.5], student_loss_weight=0.0)
    distiller.compile(optimizer=keras.optimizers.SGD(0.0), loss="sparse_categorical_crossentropy")
    logs = distiller.evaluate(XD, YD, verbose=0, return_dict=True)
    assert logs["student_loss"] == 0.0
    assert logs["loss"] == pytest.approx(6.370887756347656, rel=1e-5)  # Keras 3.15
    # the feature term by hand: hidden layers x @ (k * ones)
    hidden_t, hidden_s = XD @ np.ones((2, 3)), XD @ np.full((2, 3), 0.5)
    feature = np.mean((hidden_t - hidden_s) ** 2)
    logits = D.LogitsDistillation(temperature=1.0, loss="categorical_crossentropy")
    logit_term = float(logits.compute_loss(teacher(XD), student(XD)))
    assert logs["loss"] == pytest.approx(logit_term + 0.5 * feature, rel=1e-5)


def test_distillation_loss_values():
    teacher, student = _model("teacher", 1.0), _model("student", 0.5)
    t, s = teacher(XD).numpy(), student(XD).numpy()
    assert float(D.LogitsDistillation().compute_loss(t, s)) == pytest.approx(2.2531912, rel=1e-5)
    assert float(D.FeatureDistillation().compute_loss(t, s)) == pytest.approx(np.mean((t - s) ** 2),
                                                                              rel=1e-6)
    # a KLDivergence object: softmax of the scaled logits, times temperature ** 2
    kl = D.LogitsDistillation(temperature=2.0, loss=keras.losses.KLDivergence())

    def softmax(z):
        e = np.exp(z - z.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)
    p, q = softmax(t / 2.0), softmax(s / 2.0)
    expected = np.mean(np.sum(p * np.log(p / q), axis=-1)) * 4.0
    assert float(kl.compute_loss(t, s)) == pytest.approx(expected, rel=1e-4)
    skipping = D.FeatureDistillation(loss=["mse", None])
    assert float(skipping.compute_loss([t, t], [s, t * 9])) == pytest.approx(
        np.mean((t - s) ** 2), rel=1e-6)


def test_distiller_trains_the_student():
    teacher, student = _model("teacher", 1.0), _model("st2", 0.1)
    distiller = D.Distiller(teacher=teacher, student=student,
                            distillation_losses=D.LogitsDistillation(), student_loss_weight=0.5)
    distiller.compile(optimizer=keras.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    teacher_kernel = teacher.layers[1].kernel.numpy().copy()
    history = distiller.fit(XD, YD, epochs=3, verbose=0).history
    expected = [4.529998779296875, 1.0399198532104492, 0.9567303657531738]  # Keras 3.15
    np.testing.assert_allclose(history["loss"], expected, rtol=1e-4)
    np.testing.assert_allclose(history["total_loss"], expected, rtol=1e-4)
    np.testing.assert_array_equal(teacher.layers[1].kernel.numpy(), teacher_kernel)


def test_distillation_errors_as_keras():
    teacher, student = _model("teacher", 1.0), _model("student", 0.5)
    base = {"teacher": teacher, "student": student,
            "distillation_losses": D.LogitsDistillation()}
    with pytest.raises(ValueError, match="between 0.0 and 1.0, got 2.0"):
        D.Distiller(**{**base, "student_loss_weight": 2.0})
    with pytest.raises(ValueError, match="'distillation_losses' cannot be `None`"):
        D.Distiller(**{**base, "distillation_losses": None})
    with pytest.raises(ValueError, match=r"distillation_loss_weights \(2\) must match"):
        D.Distiller(**{**base, "distillation_losses": [D.LogitsDistillation()],
                       "distillation_loss_weights": [1.0, 2.0]})
    with pytest.raises(ValueError, match="Teacher must be a keras.Model"):
        D.Distiller(**{**base, "teacher": keras.layers.Dense(3)})
    wide = keras.Sequential([keras.Input((2,)), keras.layers.Dense(4)])
    with pytest.raises(ValueError, match="output shapes are incompatible"):
        D.Distiller(**{**base, "student": wide})
    with pytest.raises(ValueError, match="temperature must be positive"):
        D.LogitsDistillation(temperature=0)
    with pytest.raises(ValueError, match="temperature must be a number"):
        D.LogitsDistillation(temperature="a")
    with pytest.raises(ValueError, match="At least one loss must be non-`None`"):
        D.LogitsDistillation(loss=None)
    with pytest.raises(ValueError, match="In teacher model"):
        D.FeatureDistillation(teacher_layer_name="nope").validate_model_compatibility(teacher,
                                                                                        student)
    distiller = D.Distiller(**base)
    with pytest.raises(ValueError, match="'loss' cannot be `None`"):
        distiller.compile(optimizer="sgd", loss=None)
    with pytest.raises(NotImplementedError, match="compute_loss"):
        D.DistillationLoss().compute_loss(1.0, 1.0)
    distiller.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    with pytest.raises(NotImplementedError, match="sample_weight"):
        distiller.fit(XD, YD, sample_weight=np.ones(3), verbose=0)
