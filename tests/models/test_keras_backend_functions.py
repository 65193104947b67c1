"""`tf.keras.backend`'s functions kept from Keras 2 (runtime/keras/backend_ops.py): values as
Keras 3.15 on TensorFlow 2.21 printed them for the same inputs, or NumPy's."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

B = keras.backend


def test_settings_and_dtypes():
    assert B.backend() == "tensorflow"
    assert (B.get_uid("kc_a"), B.get_uid("kc_a"), B.get_uid("kc_b")) == (1, 2, 1)
    assert B.result_type("int32", "float32") == "float32"
    assert B.result_type("int8", "uint8", float) == "float32"
    assert B.result_type("int8", "uint8") == "int16"
    assert B.standardize_dtype(np.float32) == "float32" and B.standardize_dtype(float) == "float32"
    assert B.is_float_dtype("float16") and B.is_int_dtype("uint8") and not B.is_int_dtype("bool")
    assert B.is_keras_tensor(keras.Input((2,))) and not B.is_keras_tensor(rt.constant(1.0))
    assert B.int_shape(np.ones((2, 3))) == (2, 3) and B.ndim(np.ones((2, 3))) == 2
    assert B.count_params(B.variable(np.ones((2, 3)))) == 6
    assert B.dtype(B.variable([1.0])) == "float32"


def test_set_epsilon_reaches_the_losses():
    y_true, y_pred = np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]])
    try:
        B.set_epsilon(1e-2)
        assert B.epsilon() == 1e-2 and keras.config.epsilon() == 1e-2
        loss = keras.losses.binary_crossentropy(y_true, y_pred)
        np.testing.assert_allclose(loss.numpy(), [-np.log(0.99)], rtol=1e-5)
    finally:
        B.set_epsilon(1e-7)
    assert B.epsilon() == 1e-7
    with pytest.raises(NotImplementedError, match="float32"):
        keras.config.set_floatx("float64")


def test_variables_as_keras_2():
    for made, value, dtype in ((B.eye(2), np.eye(2), rt.float32),
                               (B.ones((2,)), [1.0, 1.0], rt.float32),
                               (B.zeros((2,), dtype="int32"), [0, 0], rt.int32),
                               (B.variable([1.0, 2.0]), [1.0, 2.0], rt.float32)):
        assert isinstance(made, rt.Variable) and made.dtype == dtype
        np.testing.assert_array_equal(made.numpy(), value)
    v = rt.Variable(1.0)
    B.moving_average_update(v, 2.0, 0.9)
    assert float(v) == pytest.approx(1.1)
    B.update_add(v, 1.0)
    B.update_sub(v, 0.1)
    assert float(v) == pytest.approx(2.0)
    B.batch_set_value([(v, 5.0)])
    assert B.batch_get_value([v]) == [5.0]
    assert B.eval(B.constant([1, 2])).dtype == np.float32
    assert B.cast_to_floatx([1, 2]).dtype == np.float32
    assert B.arange(3).numpy().tolist() == [0, 1, 2] and B.arange(3).dtype == rt.int32


def test_math_and_reductions_are_numpys():
    x = np.array([[1.0, -2.0, 4.0], [0.5, 3.0, -1.0]])
    for name, ref in (("sum", np.sum), ("prod", np.prod), ("max", np.max), ("min", np.min),
                      ("mean", np.mean), ("std", np.std), ("var", np.var)):
        np.testing.assert_allclose(getattr(B, name)(x, axis=1).numpy(), ref(x, axis=1))
        np.testing.assert_allclose(getattr(B, name)(x, axis=0, keepdims=True).numpy(),
                                   ref(x, axis=0, keepdims=True))
    for name in ("abs", "cos", "sin", "exp", "sqrt", "square", "sign", "tanh"):
        np.testing.assert_allclose(getattr(B, name)(np.abs(x) if name == "sqrt" else x).numpy(),
                                   getattr(np, name)(np.abs(x) if name == "sqrt" else x))
    assert B.all(x > 0, axis=1).numpy().tolist() == [False, False]
    assert B.any(x > 3, axis=1).numpy().tolist() == [True, False]
    assert B.argmax(x).numpy().tolist() == [2, 1]
    np.testing.assert_allclose(B.clip(x, -1.0, 1.0).numpy(), np.clip(x, -1, 1))
    np.testing.assert_allclose(B.pow(x, 2).numpy(), x ** 2)
    np.testing.assert_allclose(B.cumprod(x, axis=1).numpy(), np.cumprod(x, axis=1))
    np.testing.assert_allclose(B.hard_sigmoid(np.array([1.0, -3.0, 3.0])).numpy(),
                               [0.7, 0.0, 1.0])
    np.testing.assert_allclose(B.relu(np.array([-1.0, 2, 8]), alpha=0.1, max_value=6.0,
                                      threshold=1.0).numpy(), [-0.2, 2.0, 6.0])
    np.testing.assert_allclose(B.l2_normalize(np.array([3.0, 4.0])).numpy(), [0.6, 0.8])
    np.testing.assert_allclose(B.elu(np.array([-1.0, 2.0])).numpy(), [np.expm1(-1.0), 2.0])


def test_shapes_and_products_printed_by_keras():
    assert B.batch_dot(np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)).numpy() \
        .tolist() == [[3.0], [3.0]]
    assert B.batch_dot(np.ones((32, 20)), np.ones((32, 30, 20)), axes=(1, 2)).shape == (32, 30)
    x, y = np.arange(24.0).reshape(2, 3, 4), np.arange(40.0).reshape(2, 4, 5)
    np.testing.assert_allclose(B.batch_dot(x, y).numpy(), np.einsum("bij,bjk->bik", x, y))
    np.testing.assert_allclose(B.dot(np.ones((2, 3, 4)), np.ones((5, 4, 6))).numpy(),
                               np.dot(np.ones((2, 3, 4)), np.ones((5, 4, 6))))
    assert B.repeat(np.ones((2, 3)), 4).shape == (2, 4, 3)
    assert B.flatten(np.ones((2, 3))).shape == (6,)
    assert B.batch_flatten(np.ones((2, 3, 4))).shape == (2, 12)
    assert B.transpose(np.ones((2, 3, 4))).shape == (4, 3, 2)
    assert B.permute_dimensions(np.ones((2, 3, 4)), (0, 2, 1)).shape == (2, 4, 3)
    assert B.repeat_elements(np.array([[1, 2]]), 2, axis=1).numpy().tolist() == [[1, 1, 2, 2]]
    assert B.temporal_padding(np.ones((1, 2, 1))).shape == (1, 4, 1)
    assert B.spatial_2d_padding(np.ones((1, 2, 2, 1)), ((1, 0), (0, 2))).shape == (1, 3, 4, 1)
    assert B.spatial_3d_padding(np.ones((1, 2, 2, 2, 1))).shape == (1, 4, 4, 4, 1)
    assert B.resize_images(np.arange(4.0).reshape(1, 2, 2, 1), 2, 3, "channels_last") \
        .numpy()[0, :, :, 0].tolist() == np.repeat(np.repeat([[0.0, 1], [2, 3]], 2, 0), 3, 1) \
        .tolist()
    assert B.resize_volumes(np.ones((1, 2, 2, 2, 1)), 2, 2, 2, "channels_last").shape == \
        (1, 4, 4, 4, 1)
    assert B.switch(np.array([True, False]), np.array([1.0, 2]), np.array([3.0, 4])) \
        .numpy().tolist() == [1.0, 4.0]
    assert float(B.switch(rt.constant(False), lambda: 1.0, lambda: 2.0)) == 2.0
    np.testing.assert_allclose(B.pool2d(np.arange(16.0).reshape(1, 4, 4, 1), (2, 2),
                                        strides=(2, 2), pool_mode="avg").numpy().ravel(),
                               [2.5, 4.5, 10.5, 12.5])
    assert B.one_hot(np.array([1]), 3).numpy().tolist() == [[0.0, 1.0, 0.0]]
    assert B.in_top_k(np.array([[0.1, 0.9]]), np.array([1]), 1).numpy().tolist() == [True]


def test_focal_losses_printed_by_keras():
    np.testing.assert_allclose(
        B.binary_focal_crossentropy(np.array([[0.0, 1.0]]), np.array([[0.2, 0.6]])).numpy(),
        [[0.0089, 0.0817]], atol=1e-4)
    np.testing.assert_allclose(
        B.binary_focal_crossentropy(np.array([[0.0, 1.0]]), np.array([[0.2, 0.6]]),
                                    apply_class_balancing=True).numpy(),
        [[0.0067, 0.0204]], atol=1e-4)
    np.testing.assert_allclose(
        B.categorical_focal_crossentropy(np.array([[0.0, 1, 0]]), np.array([[0.2, 0.6, 0.2]]))
        .numpy(), [0.0204], atol=1e-4)
    np.testing.assert_allclose(
        B.sparse_categorical_crossentropy(np.array([1, 2]), np.array([[0.2, 0.6, 0.2],
                                                                      [0.3, 0.3, 0.4]]),
                                          ignore_class=2).numpy(), [0.5108, 0.0], atol=1e-4)


def test_convolutions_match_keras_ops():
    x = np.random.RandomState(0).rand(1, 5, 5, 2).astype(np.float32)
    k = np.random.RandomState(1).rand(3, 3, 2, 4).astype(np.float32)
    np.testing.assert_allclose(B.conv2d(x, k).numpy(), keras.ops.conv(x, k).numpy())
    out = B.conv2d_transpose(x, np.ones((2, 2, 3, 2), np.float32), (1, 10, 10, 3),
                             strides=(2, 2))
    assert out.shape == (1, 10, 10, 3)
    np.testing.assert_allclose(out.numpy()[0, :2, :2, 0], np.full((2, 2), x[0, 0, 0].sum()),
                               rtol=1e-6)
    seq = np.arange(5.0, dtype=np.float32).reshape(1, 5, 1)
    causal = B.conv1d(seq, np.ones((2, 1, 1), np.float32), padding="causal")
    assert causal.numpy().ravel().tolist() == [0.0, 1.0, 3.0, 5.0, 7.0]


def test_rnn_runs_the_step_over_time_with_a_mask():
    inputs = np.arange(6.0).reshape(1, 3, 2)

    def step(x, states):
        total = states[0] + rt.reduce_sum(x, axis=-1, keepdims=True)
        return total, [total]
    last, outputs, states = B.rnn(step, inputs, [np.zeros((1, 1))])
    assert outputs.numpy().ravel().tolist() == [1.0, 6.0, 15.0] and last.numpy().item() == 15.0
    last, outputs, states = B.rnn(step, inputs, [np.zeros((1, 1))],
                                  mask=np.array([[True, False, True]]))
    assert outputs.numpy().ravel().tolist() == [1.0, 1.0, 10.0]
    _, outputs, _ = B.rnn(step, inputs, [np.zeros((1, 1))], go_backwards=True)
    assert outputs.numpy().ravel().tolist() == [9.0, 14.0, 15.0]


def test_a_misspelt_keyword_suggests_the_name():
    with pytest.raises(TypeError, match="did you mean 'keepdims'"):
        keras.backend.sum(np.ones(2), keepdim=True)
