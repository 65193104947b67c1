"""A module saved without signatures= loads as TensorFlow's: no signatures, its functions
callable as attributes, its variables reachable by their attribute paths (the values below are
what TensorFlow 2.21 prints for the same program, the saved_model guide's CustomModule)."""

import numpy as np
import pytest

import runtime as rt


class Inner(rt.Module):
    def __init__(self):
        super().__init__()
        self.k = rt.Variable([1.0, 2.0])


class Custom(rt.Module):
    def __init__(self):
        super().__init__()
        self.v = rt.Variable(1.0)
        self.inner = Inner()

    @rt.function
    def __call__(self, x):
        return x * self.v + rt.reduce_sum(self.inner.k)

    @rt.function(input_signature=[rt.TensorSpec([], rt.float32)])
    def mutate(self, new_v):
        self.v.assign(new_v)


@pytest.fixture
def module():
    m = Custom()
    m(rt.constant(0.0))
    return m


def test_no_signatures_but_functions_and_variable_attributes(module, tmp_path):
    rt.saved_model.save(module, str(tmp_path / "a"))
    imported = rt.saved_model.load(str(tmp_path / "a"))
    assert len(imported.signatures) == 0
    assert imported.v.numpy() == 1.0
    np.testing.assert_array_equal(imported.inner.k.numpy(), [1.0, 2.0])
    assert imported(rt.constant(3.0)).numpy() == 6.0
    imported.mutate(rt.constant(2.0))
    assert imported.v.numpy() == 2.0 and imported(rt.constant(3.0)).numpy() == 9.0
    with pytest.raises(AttributeError, match="nope"):
        imported.nope  # noqa: B018


def test_a_gradient_step_trains_the_loaded_variable(module, tmp_path):
    rt.saved_model.save(module, str(tmp_path / "a"))
    imported = rt.saved_model.load(str(tmp_path / "a"))
    with rt.GradientTape() as tape:
        loss = (10.0 - imported(rt.constant(2.0))) ** 2
    grads = tape.gradient(loss, [imported.v])
    # d/dv (10 - (2 v + 3))^2 = -4 (7 - 2 v) = -20 at v = 1
    assert grads[0].numpy() == pytest.approx(-20.0)


def test_explicit_signatures_and_saving_again(module, tmp_path):
    call = module.__call__.get_concrete_function(rt.TensorSpec(None, rt.float32))
    rt.saved_model.save(module, str(tmp_path / "b"), signatures=call)
    with_signature = rt.saved_model.load(str(tmp_path / "b"))
    assert sorted(with_signature.signatures) == ["serving_default"]
    assert with_signature.v.numpy() == 1.0 and with_signature(rt.constant(3.0)).numpy() == 6.0
    imported = rt.saved_model.load(str(tmp_path / "b"))
    imported.v.assign(2.0)
    rt.saved_model.save(rt.saved_model.load(str(tmp_path / "b")), str(tmp_path / "c"))
    again = rt.saved_model.load(str(tmp_path / "c"))
    assert sorted(again.signatures) == ["serving_default"]
    assert again.v.numpy() == 1.0
    np.testing.assert_array_equal(again.inner.k.numpy(), [1.0, 2.0])


def test_tensorflow_tag_and_signature_constants():
    # the strings TensorFlow 2.21's tf.saved_model holds
    assert rt.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY == "serving_default"
    assert (rt.saved_model.SERVING, rt.saved_model.TRAINING) == ("serve", "train")
    assert (rt.saved_model.GPU, rt.saved_model.TPU) == ("gpu", "tpu")
    assert rt.saved_model.PREDICT_METHOD_NAME == "tensorflow/serving/predict"
    assert (rt.saved_model.PREDICT_INPUTS, rt.saved_model.PREDICT_OUTPUTS) == ("inputs", "outputs")
    assert rt.saved_model.CLASSIFY_METHOD_NAME == "tensorflow/serving/classify"
    assert (rt.saved_model.CLASSIFY_OUTPUT_CLASSES,
            rt.saved_model.CLASSIFY_OUTPUT_SCORES) == ("classes", "scores")
    assert rt.saved_model.REGRESS_METHOD_NAME == "tensorflow/serving/regress"


def test_the_migration_guides_module_with_a_dict_signature(tmp_path):
    class MyModel(rt.Module):
        @rt.function
        def __call__(self, input):
            return input + 2

    model = MyModel()

    @rt.function
    def serving_default(input):
        return {"output": model(input)}

    signature = serving_default.get_concrete_function(rt.TensorSpec(shape=[], dtype=rt.float32))
    rt.saved_model.save(model, str(tmp_path / "m"), signatures={
        rt.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signature})
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    out = loaded.signatures[rt.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY](rt.constant(5.0))
    assert out["output"].numpy() == 7.0
    assert sorted(loaded.signatures) == ["serving_default"]


def test_traced_methods_are_saved_beside_explicit_signatures(module, tmp_path):
    double = rt.function(lambda x: 2.0 * x, input_signature=[rt.TensorSpec([], rt.float32)])
    rt.saved_model.save(module, str(tmp_path / "m"), signatures={"double": double})
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    assert sorted(loaded.signatures) == ["double"]
    assert loaded(rt.constant(3.0)).numpy() == 6.0      # the module's own __call__, 3 v + 3
    loaded.mutate(rt.constant(4.0))
    assert loaded.v.numpy() == 4.0 and loaded.double(rt.constant(1.0)).numpy() == 2.0
