"""keras.constraints (runtime/layers/constraints.py): the values Keras 3.15 printed for the
same weights, and constraints applied by the optimizer after each update (as Keras's
optimizers do), eagerly, in fit and inside rt.function."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

C = keras.constraints
W = np.array([[3.0, 0.5], [4.0, 0.5]], np.float32)


def test_values_printed_by_keras():
    np.testing.assert_allclose(C.MaxNorm(2)(W).numpy(), [[1.2, 0.5], [1.6, 0.5]], rtol=1e-6)
    np.testing.assert_allclose(C.MinMaxNorm(1, 2, 0.5)(W).numpy(),
                               [[2.1, 0.6035533], [2.8, 0.6035533]], rtol=1e-6)
    np.testing.assert_allclose(C.UnitNorm()(W).numpy(), [[0.6, 0.70710665], [0.8, 0.70710665]],
                               rtol=1e-6)
    assert C.NonNeg()(np.array([-1.0, 0.0, 2.0])).numpy().tolist() == [0.0, 0.0, 2.0]
    np.testing.assert_allclose(C.MaxNorm(1.0, axis=1)(W).numpy(),
                               W / np.linalg.norm(W, axis=1, keepdims=True), rtol=1e-6)


def test_names_configs_and_serialization():
    assert C.max_norm is C.MaxNorm and C.non_neg is C.NonNeg
    assert C.serialize(C.MaxNorm(3)) == {"module": "keras.constraints", "class_name": "MaxNorm",
                                         "config": {"max_value": 3, "axis": 0},
                                         "registered_name": None}
    assert C.get("max_norm").get_config() == {"max_value": 2, "axis": 0}
    assert isinstance(C.get("UnitNorm"), C.UnitNorm)
    again = C.deserialize(C.serialize(C.MinMaxNorm(0.5, 3.0, 0.7, axis=1)))
    assert again.get_config() == {"min_value": 0.5, "max_value": 3.0, "rate": 0.7, "axis": 1}
    assert C.get(None) is None
    with pytest.raises(ValueError, match="Unknown constraint"):
        C.get("max_nrom")


def test_the_optimizer_applies_a_variables_constraint_after_its_update():
    v = rt.Variable([1.0, -1.0], constraint=C.NonNeg())
    assert isinstance(v.constraint, C.NonNeg)
    keras.optimizers.SGD(1.0).apply_gradients([(rt.constant([2.0, -0.5]), v)])
    assert v.numpy().tolist() == [0.0, 0.0 + max(-1.0 + 0.5, 0.0)]

    step = rt.function(lambda g: keras.optimizers.SGD(0.1).apply_gradients([(g, w)]))
    w = rt.Variable([[3.0, 0.0], [4.0, 0.0]], constraint=C.UnitNorm())
    step(rt.constant([[0.0, -10.0], [0.0, 0.0]]))
    np.testing.assert_allclose(np.linalg.norm(w.numpy(), axis=0), [1.0, 1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="callable"):
        rt.Variable(1.0, constraint="max_norm")


@pytest.mark.parametrize("layer", [
    lambda: keras.layers.Dense(3, kernel_constraint="non_neg", bias_constraint=C.NonNeg()),
    lambda: keras.layers.Conv1D(3, 2, kernel_constraint=C.NonNeg(), bias_constraint="non_neg"),
], ids=["Dense", "Conv1D"])
def test_fit_keeps_the_layers_weights_constrained(layer):
    made = layer()
    shape = (4,) if isinstance(made, keras.layers.Dense) else (5, 2)
    model = keras.Sequential([keras.Input(shape), made, keras.layers.Flatten()])
    model.compile(keras.optimizers.SGD(0.5), "mse")
    x = np.random.RandomState(0).rand(32, *shape).astype(np.float32)
    signs = np.tile([5.0, -5.0, 5.0], 1 if shape == (4,) else 4).astype(np.float32)
    y = np.ones((32, 1), np.float32) * signs      # filters 0 and 2 grow, filter 1 would not
    model.fit(x, y, epochs=2, verbose=0)
    kernel = made.kernel.numpy()
    assert kernel.min() >= 0.0 and made.bias.numpy().min() >= 0.0
    assert np.all(kernel[..., 1] == 0.0) and kernel[..., 0].max() > 0.0
    again = keras.Sequential.from_config(model.get_config())
    assert isinstance(again.layers[0].kernel_constraint, C.NonNeg)


def test_embedding_constraint_and_add_weight():
    emb = keras.layers.Embedding(5, 4, embeddings_constraint=C.UnitNorm(axis=1))
    emb(np.array([[0, 1]]))
    assert isinstance(emb.embeddings.constraint, C.UnitNorm)
    layer = keras.layers.Layer()
    weight = layer.add_weight(shape=(2,), constraint="non_neg")
    assert isinstance(weight.constraint, C.NonNeg)
