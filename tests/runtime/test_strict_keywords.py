"""A misspelt keyword argument is a TypeError that names it and suggests the right one.

Every public entry point that takes options is covered, and the correct keywords still work
(the optimizers' options are checked against their formulas computed with NumPy).
"""

import numpy as np
import pytest

import runtime as rt
from runtime.arguments import check_keywords, raise_unknown_keywords, strict_keywords


def _f(x):
    return x * 2


class _Scaled(rt.layers.Layer):
    """A user layer with an option of its own, passing the rest up like Keras layers do."""

    def __init__(self, units=1, **kwargs):
        super().__init__(**kwargs)
        self.units = units


def _model():
    model = rt.layers.Sequential([rt.layers.Dense(1)])
    model.compile(rt.optimizers.SGD(0.1), "mse")
    return model


_X = np.ones((4, 2), np.float32)
_Y = np.ones((4, 1), np.float32)


def _saved(tmp_path):
    fn = rt.function(_f, input_signature=[rt.TensorSpec([None], rt.float32)])
    rt.saved_model.save(fn, str(tmp_path / "saved"))
    return fn


def _apply(optimizer):
    var = rt.Variable([1.0, 2.0])
    return lambda **kw: optimizer.apply_gradients([(np.ones(2, np.float32), var)], **kw)


# (label, call taking tmp_path, callable name in the message, misspelt keyword, suggestion)
CASES = [
    ("function", lambda p: rt.function(_f, input_signatur=[rt.TensorSpec([], rt.float32)]),
     "rt.function", "input_signatur", "input_signature"),
    ("function jit", lambda p: rt.function(_f, jit_compiel=True),
     "rt.function", "jit_compiel", "jit_compile"),
    ("function factory", lambda p: rt.function(reduce_retrace=True),
     "rt.function", "reduce_retrace", "reduce_retracing"),
    ("function relax", lambda p: rt.function(_f, experimental_relax_shape=True),
     "rt.function", "experimental_relax_shape", "experimental_relax_shapes"),
    ("defun", lambda p: rt.defun(_f, autograf=False), "rt.defun", "autograf", "autograph"),
    ("defun_with_attributes",
     lambda p: rt.defun_with_attributes(_f, atributes={"noinline": True}),
     "rt.defun_with_attributes", "atributes", "attributes"),
    ("Variable", lambda p: rt.Variable(1.0, trainabel=False), "rt.Variable", "trainabel",
     "trainable"),
    ("Variable validate", lambda p: rt.Variable(1.0, validate_shap=False), "rt.Variable",
     "validate_shap", "validate_shape"),
    ("Layer", lambda p: rt.layers.Layer(trainabel=False), "Layer", "trainabel", "trainable"),
    ("Dense", lambda p: rt.layers.Dense(3, activaton="relu"), "Dense", "activaton",
     "activation"),
    ("Dense base keyword", lambda p: rt.layers.Dense(3, input_shap=(2,)), "Dense", "input_shap",
     "input_shape"),
    ("Dropout", lambda p: rt.layers.Dropout(0.5, sed=1), "Dropout", "sed", "seed"),
    ("Activation", lambda p: rt.layers.Activation("relu", nme="act"), "Activation", "nme",
     "name"),
    ("Flatten", lambda p: rt.layers.Flatten(dtyp="float64"), "Flatten", "dtyp", "dtype"),
    ("Sequential", lambda p: rt.layers.Sequential([], nam="m"), "Sequential", "nam", "name"),
    ("Model", lambda p: rt.Model(trainabel=False), "Model", "trainabel", "trainable"),
    ("user layer", lambda p: _Scaled(unitz=3), "_Scaled", "unitz", "units"),
    ("Adam", lambda p: rt.optimizers.Adam(learning_rte=0.5), "Adam", "learning_rte",
     "learning_rate"),
    ("Adam beta", lambda p: rt.optimizers.Adam(beta1=0.8), "Adam", "beta1", "beta_1"),
    ("Adam clipnorm", lambda p: rt.optimizers.Adam(clip_norm=1.0), "Adam", "clip_norm",
     "clipnorm"),
    ("SGD", lambda p: rt.optimizers.SGD(learning_rat=0.1), "SGD", "learning_rat",
     "learning_rate"),
    ("SGD momentum", lambda p: rt.optimizers.SGD(momentun=0.9), "SGD", "momentun", "momentum"),
    ("SGD weight decay", lambda p: rt.optimizers.SGD(weightdecay=0.1), "SGD", "weightdecay",
     "weight_decay"),
    ("GradientDescentOptimizer",
     lambda p: rt.train.GradientDescentOptimizer(0.1, use_lockin=True),
     "GradientDescentOptimizer", "use_lockin", "use_locking"),
    ("MomentumOptimizer", lambda p: rt.train.MomentumOptimizer(0.1, 0.9, use_nesterv=True),
     "MomentumOptimizer", "use_nesterv", "use_nesterov"),
    ("AdamOptimizer", lambda p: rt.train.AdamOptimizer(beta_1=0.8), "AdamOptimizer", "beta_1",
     "beta1"),
    ("apply_gradients", lambda p: _apply(rt.optimizers.SGD(0.1))(nme="step"),
     "SGD.apply_gradients", "nme", "name"),
    ("compile", lambda p: rt.layers.Sequential([rt.layers.Dense(1)]).compile(
        rt.optimizers.SGD(0.1), "mse", metric=["mae"]), "Sequential.compile", "metric", "metrics"),
    ("fit", lambda p: _model().fit(_X, _Y, epoch=2, verbose=0), "Sequential.fit", "epoch",
     "epochs"),
    ("evaluate", lambda p: _model().evaluate(_X, _Y, batchsize=2), "Sequential.evaluate",
     "batchsize", "batch_size"),
    ("predict", lambda p: _model().predict(_X, verbos=0), "Sequential.predict", "verbos",
     "verbose"),
    ("saved_model.save", lambda p: rt.saved_model.save(
        rt.function(_f, input_signature=[rt.TensorSpec([None], rt.float32)]), str(p / "s"),
        signature=None), "rt.saved_model.save", "signature", "signatures"),
    ("saved_model.dumps", lambda p: rt.saved_model.dumps(
        rt.function(_f, input_signature=[rt.TensorSpec([None], rt.float32)]), signature=None),
     "rt.saved_model.dumps", "signature", "signatures"),
    ("saved_model.load", lambda p: rt.saved_model.load(pth=str(p)), "rt.saved_model.load",
     "pth", "path"),
    ("saved_model.loads", lambda p: rt.saved_model.loads(dta=b""), "rt.saved_model.loads",
     "dta", "data"),
]


@pytest.mark.parametrize("label, call, name, wrong, right", CASES, ids=[c[0] for c in CASES])
def test_a_misspelt_keyword_raises_and_suggests(tmp_path, label, call, name, wrong, right):
    with pytest.raises(TypeError) as info:
        call(tmp_path)
    message = str(info.value)
    assert f"{name}()" in message
    assert repr(wrong) in message
    assert f"did you mean {right!r}?" in message


def test_map_blocks_refuses_an_unknown_option():
    da = pytest.importorskip("dask.array")
    fn = rt.function(_f, input_signature=[rt.TensorSpec([None, 2], rt.float32)])
    with pytest.raises(TypeError, match=r"rt\.dask\.map_blocks\(\).*'nam'; did you mean 'name'"):
        rt.dask.map_blocks(fn, da.ones((4, 2), chunks=2, dtype=np.float32), nam="blocks")
    result = rt.dask.map_blocks(fn, da.ones((4, 2), chunks=2, dtype=np.float32), name="blocks")
    np.testing.assert_allclose(result.compute(), np.full((4, 2), 2.0))


def test_a_keyword_far_from_every_name_lists_the_accepted_ones():
    with pytest.raises(TypeError) as info:
        rt.optimizers.SGD(zzz=1)
    message = str(info.value)
    assert "'zzz'" in message and "did you mean" not in message
    assert "learning_rate" in message and "momentum" in message and "clipnorm" in message


# -- the helper ---------------------------------------------------------------------------------
def test_raise_unknown_keywords_names_every_unknown_keyword():
    with pytest.raises(TypeError) as info:
        raise_unknown_keywords("Thing", ["colour", "qqq"], ["color", "size"])
    message = str(info.value)
    assert message.startswith("Thing() got unexpected keyword arguments")
    assert "'colour' (did you mean 'color'?)" in message and "'qqq'" in message
    assert "Accepted keyword arguments: color, size." in message


def test_check_keywords_passes_known_names():
    check_keywords("Thing", {"color": 1}, {"color", "size"})
    with pytest.raises(TypeError, match="did you mean 'size'"):
        check_keywords("Thing", {"sise": 1}, {"color", "size"})


def test_strict_keywords_keeps_the_signature_and_refuses_var_keyword_functions():
    @strict_keywords()
    def scale(x, factor=2):
        """Doc."""
        return x * factor

    assert scale(3, factor=3) == 9 and scale.__doc__ == "Doc."
    with pytest.raises(TypeError, match=r"scale\(\) got .*'facter'; did you mean 'factor'"):
        scale(3, facter=3)
    with pytest.raises(ValueError, match="kwargs"):
        strict_keywords()(lambda **kwargs: kwargs)


def test_forwarded_keywords_still_reach_user_code():
    class Shift(rt.layers.Layer):
        def call(self, inputs, offset=0.0):
            return inputs + offset

    assert float(Shift()(np.float32(1.0), offset=2.0)) == 3.0
    shift = rt.function(lambda x, offset: x + offset)
    assert float(shift(np.float32(1.0), offset=np.float32(2.0))) == 3.0


# -- the correct keywords work ---------------------------------------------------------------------
def test_function_keywords_work():
    spec = [rt.TensorSpec([None], rt.float32)]
    fn = rt.function(_f, input_signature=spec, autograph=False, reduce_retracing=True,
                     name="double")
    np.testing.assert_allclose(fn(np.ones(3, np.float32)), [2.0, 2.0, 2.0])
    relaxed = rt.function(_f, experimental_relax_shapes=True)
    for n in range(2, 6):
        relaxed(np.ones(n, np.float32))
    assert relaxed.experimental_get_tracing_count() <= 2
    assert float(rt.defun(_f, autograph=False)(np.float32(2.0))) == 4.0
    with_attributes = rt.defun_with_attributes(_f, attributes={"func_name": "twice"})
    assert float(with_attributes(np.float32(2.0))) == 4.0


def test_experimental_compile_is_tensorflows_older_name_of_jit_compile():
    # TensorFlow 2.21 still accepts tf.function(experimental_compile=...), deprecated, and
    # refuses it together with jit_compile
    with pytest.warns(DeprecationWarning, match="experimental_compile"):
        plain = rt.function(_f, experimental_compile=False)
    assert plain._backend is rt.function(_f)._backend
    np.testing.assert_allclose(plain(np.ones(3, np.float32)), [2.0, 2.0, 2.0])
    with pytest.warns(DeprecationWarning):
        compiled = rt.function(_f, experimental_compile=True)
    assert compiled._backend is rt.function(_f, jit_compile=True)._backend
    with pytest.raises(ValueError, match="not both"):
        rt.function(_f, jit_compile=True, experimental_compile=True)


def _adam_step(var, grad, lr, b1=0.9, b2=0.999, eps=1e-7, t=1, m=0.0, v=0.0):
    m = b1 * m + (1 - b1) * grad
    v = b2 * v + (1 - b2) * grad ** 2
    alpha = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return var - alpha * m / (np.sqrt(v) + eps), m, v


def test_adam_uses_the_learning_rate_it_is_given():
    start = np.array([1.0, -2.0, 0.5])
    grad = np.array([0.3, -1.5, 0.0])
    var = rt.Variable(start)
    optimizer = rt.optimizers.Adam(learning_rate=0.5, beta_1=0.8, beta_2=0.99, epsilon=1e-6)
    assert optimizer.learning_rate == 0.5
    optimizer.apply_gradients([(grad, var)])
    expected, m, v = _adam_step(start, grad, 0.5, b1=0.8, b2=0.99, eps=1e-6)
    np.testing.assert_allclose(var.numpy(), expected, rtol=1e-12)
    optimizer.apply_gradients([(grad, var)])
    expected, _, _ = _adam_step(expected, grad, 0.5, b1=0.8, b2=0.99, eps=1e-6, t=2, m=m, v=v)
    np.testing.assert_allclose(var.numpy(), expected, rtol=1e-12)


def test_sgd_uses_its_learning_rate_and_momentum():
    var = rt.Variable(np.array([1.0, 2.0]))
    grad = np.array([0.5, -1.0])
    optimizer = rt.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=False, name="opt")
    optimizer.apply_gradients([(grad, var)], name="step")
    optimizer.apply_gradients([(grad, var)], experimental_aggregate_gradients=False)
    velocity = -0.1 * grad
    expected = np.array([1.0, 2.0]) + velocity
    velocity = 0.9 * velocity - 0.1 * grad
    np.testing.assert_allclose(var.numpy(), expected + velocity, rtol=1e-12)
    assert optimizer.name == "opt"


def _one_sgd_step(grads, **options):
    variables = [rt.Variable(np.array(v, np.float64)) for v in ([1.0, 2.0], [3.0])]
    rt.optimizers.SGD(learning_rate=0.5, **options).apply_gradients(
        zip([np.asarray(g, np.float64) for g in grads], variables))
    return [v.numpy() for v in variables]


def test_clipnorm_scales_each_gradient_to_the_norm():
    new = _one_sgd_step([[3.0, 4.0], [0.5]], clipnorm=1.0)
    np.testing.assert_allclose(new[0], [1.0 - 0.5 * 0.6, 2.0 - 0.5 * 0.8])
    np.testing.assert_allclose(new[1], [3.0 - 0.5 * 0.5])  # within the norm: unchanged


def test_global_clipnorm_scales_all_gradients_together():
    grads = [np.array([3.0, 0.0]), np.array([4.0])]
    new = _one_sgd_step(grads, global_clipnorm=2.0)
    scale = 2.0 / np.sqrt(9.0 + 16.0)
    np.testing.assert_allclose(new[0], [1.0 - 0.5 * 3.0 * scale, 2.0])
    np.testing.assert_allclose(new[1], [3.0 - 0.5 * 4.0 * scale])


def test_clipvalue_clips_each_element():
    new = _one_sgd_step([[3.0, -0.25], [-7.0]], clipvalue=1.0)
    np.testing.assert_allclose(new[0], [0.5, 2.125])
    np.testing.assert_allclose(new[1], [3.5])


def test_weight_decay_is_decoupled_as_in_keras():
    new = _one_sgd_step([[1.0, 1.0], [0.0]], weight_decay=0.1)
    lr, wd = 0.5, 0.1
    np.testing.assert_allclose(new[0], [1.0 - lr * wd * 1.0 - lr, 2.0 - lr * wd * 2.0 - lr])
    np.testing.assert_allclose(new[1], [3.0 - lr * wd * 3.0])


def test_gradient_options_work_in_a_compiled_step():
    var = rt.Variable(np.array([1.0, 2.0], np.float32))
    optimizer = rt.optimizers.Adam(learning_rate=0.1, clipnorm=0.5, weight_decay=0.01)

    @rt.function
    def step(g):
        optimizer.apply_gradients([(g, var)])

    eager_var = rt.Variable(np.array([1.0, 2.0], np.float32))
    eager = rt.optimizers.Adam(learning_rate=0.1, clipnorm=0.5, weight_decay=0.01)
    for _ in range(3):
        g = np.array([3.0, -4.0], np.float32)
        step(g)
        eager.apply_gradients([(g, eager_var)])
    np.testing.assert_allclose(var.numpy(), eager_var.numpy(), rtol=1e-6)


@pytest.mark.parametrize("options", [{"clipnorm": 1.0, "clipvalue": 1.0},
                                     {"clipnorm": 1.0, "global_clipnorm": 1.0},
                                     {"clipnorm": 0.0}, {"clipvalue": -1.0},
                                     {"weight_decay": -0.1}, {"global_clipnorm": "1"}])
def test_bad_gradient_options_are_value_errors(options):
    with pytest.raises(ValueError):
        rt.optimizers.SGD(**options)


def test_variable_keywords_work():
    v = rt.Variable([1.0, 2.0], trainable=False, name="v", dtype=rt.float64, shape=[2],
                    validate_shape=True, caching_device="/cpu:0",
                    experimental_enable_variable_lifting=True)
    assert not v.trainable and v.dtype is rt.float64 and v.name == "v:0"
    kept = rt.Variable(1.0, aggregation="sum", synchronization=rt.VariableSynchronization.ON_WRITE)
    assert kept.aggregation is rt.VariableAggregation.SUM
    assert kept.synchronization is rt.VariableSynchronization.ON_WRITE
    assert v.aggregation is rt.VariableAggregation.NONE
    with pytest.raises(ValueError, match="aggregation"):
        rt.Variable(1.0, aggregation="total")
    free = rt.Variable([1.0, 2.0], validate_shape=False)
    assert free.shape.rank is None
    free.assign([1.0, 2.0, 3.0])
    np.testing.assert_allclose(free.numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        rt.Variable([1.0, 2.0]).assign([1.0, 2.0, 3.0])


@pytest.mark.parametrize("keyword, value", [
    ("variable_def", object()), ("import_scope", "scope"),
    ("experimental_enable_variable_lifting", False)])
def test_variable_keywords_not_implemented_raise(keyword, value):
    with pytest.raises(NotImplementedError, match=keyword):
        rt.Variable(1.0, **{keyword: value})


def test_layer_keywords_work():
    layer = rt.layers.Dense(2, trainable=False, name="frozen", dtype="float64", dynamic=False,
                            autocast=False)
    assert layer.name == "frozen" and layer.dtype == "float64" and not layer.dynamic
    layer(np.ones((1, 3)))
    assert layer.trainable_variables == [] and len(layer.variables) == 2
    assert _Scaled(units=3, name="scaled").units == 3


def test_layer_weights_are_the_initial_values():
    kernel = np.arange(6, dtype=np.float32).reshape(3, 2)
    layer = rt.layers.Dense(2, weights=[kernel, np.ones(2, np.float32)])
    np.testing.assert_allclose(layer(np.ones((1, 3), np.float32)), [[7.0, 10.0]])


@pytest.mark.parametrize("shape_keywords", [{"input_shape": (3,)}, {"input_dim": 3},
                                            {"batch_input_shape": (None, 3)},
                                            {"input_shape": [3], "batch_size": 8}])
def test_an_input_shape_builds_a_sequential_at_once(shape_keywords):
    model = rt.layers.Sequential([rt.layers.Dense(4, **shape_keywords), rt.layers.Dense(2)])
    assert [v.shape.as_list() for v in model.variables] == [[3, 4], [4], [4, 2], [2]]
    model.add(rt.layers.Dense(1))
    assert model.count_params() == 16 + 10 + 3
    batch = 8 if "batch_size" in shape_keywords else 5
    assert model(np.ones((batch, 3), np.float32)).shape == (batch, 1)


def test_a_layer_that_does_not_fit_the_input_shape_is_refused_by_add():
    class Images(rt.layers.Layer):
        def build(self, input_shape):
            if input_shape.rank != 4:
                raise ValueError(f"{self.name} needs images, got shape {input_shape}.")

    model = rt.layers.Sequential([rt.layers.Dense(4, input_shape=(3,))])
    with pytest.raises(ValueError, match="needs images"):
        model.add(Images())
    assert len(model.layers) == 1


@pytest.mark.parametrize("make", [
    lambda: rt.layers.Dense(2, dynamic=True), lambda: rt.layers.Dense(2, implementation=2)],
    ids=["dynamic", "implementation"])  # (autocast is honoured: test_keras_input_conversion)
def test_layer_keywords_not_implemented_raise(make):
    with pytest.raises(NotImplementedError):
        make()


def test_a_functional_model_of_values_that_are_not_keras_tensors_is_a_type_error():
    with pytest.raises(TypeError, match="Keras tensors"):
        rt.Model(inputs=[1], outputs=[2])


def test_model_training_keywords_work():
    model = rt.layers.Sequential([rt.layers.Dense(1)])
    model.compile(optimizer=rt.optimizers.SGD(learning_rate=0.1), loss="mse", metrics=["mae"])
    history = model.fit(x=_X, y=_Y, epochs=2, batch_size=2, verbose=0, shuffle=False)
    assert len(history.history["loss"]) == 2
    logs = model.evaluate(x=_X, y=_Y, batch_size=2, verbose=0, return_dict=True)
    assert set(logs) == {"loss", "mae"}
    assert model.predict(x=_X, batch_size=3, verbose=0).shape == (4, 1)


def test_saved_model_keywords_work(tmp_path):
    fn = _saved(tmp_path)
    loaded = rt.saved_model.load(path=str(tmp_path / "saved"))
    np.testing.assert_allclose(loaded(np.ones(2, np.float32)), fn(np.ones(2, np.float32)))
    again = rt.saved_model.loads(data=rt.saved_model.dumps(fn, signatures=None))
    np.testing.assert_allclose(again(np.ones(2, np.float32)), [2.0, 2.0])
