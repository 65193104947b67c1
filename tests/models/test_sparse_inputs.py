"""Keras's Input(sparse=True): a SparseTensor given to a functional model (called, predicted,
fitted) gives what its dense values give, checked against NumPy on the layer's weights."""

import numpy as np

import runtime as rt

INDICES = [(0, 0), (0, 1), (0, 2), (4, 3), (5, 0), (5, 1)]   # the sparse_tensor guide's data


def sparse_data():
    return rt.sparse.SparseTensor(indices=INDICES, values=[1.0] * 6, dense_shape=(6, 4))


def dense_data():
    out = np.zeros((6, 4), np.float32)
    for i in INDICES:
        out[i] = 1.0
    return out


def test_sparse_input_through_dense_as_numpy():
    x = rt.keras.Input(shape=(4,), sparse=True)
    assert x.sparse and "sparse=True" in repr(x)
    layer = rt.keras.layers.Dense(3)
    model = rt.keras.Model(x, layer(x))
    kernel, bias = (np.asarray(v) for v in layer.weights)
    expected = dense_data() @ kernel + bias
    np.testing.assert_allclose(model(sparse_data()), expected, rtol=1e-6)
    np.testing.assert_allclose(model.predict(sparse_data(), verbose=0), expected, rtol=1e-6)
    assert not rt.keras.Input(shape=(4,)).sparse


def test_sparse_input_config_round_trips_and_fit_runs():
    x = rt.keras.Input(shape=(4,), sparse=True)
    model = rt.keras.Model(x, rt.keras.layers.Dense(1)(x))
    config = model.get_config()
    rebuilt = rt.keras.Model.from_config(config)
    assert rebuilt.inputs[0].sparse
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(sparse_data(), np.ones((6, 1), np.float32), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2


def test_dense_called_on_a_sparse_tensor_is_the_dense_product():
    # Keras 3 on TensorFlow: Dense(sparse) is sparse_dense_matmul(sparse, kernel) + bias
    layer = rt.keras.layers.Dense(3, activation="relu")
    out = layer(sparse_data())
    assert isinstance(out, rt.Tensor) and out.shape == (6, 3)
    kernel, bias = (np.asarray(v) for v in layer.weights)
    np.testing.assert_allclose(out, np.maximum(dense_data() @ kernel + bias, 0), rtol=1e-6)
    assert layer.kernel.shape == (4, 3)


def test_dense_on_sparse_under_function_with_gradients():
    layer = rt.keras.layers.Dense(2, kernel_initializer="ones")
    layer.build((None, 4))

    @rt.function
    def loss(sp):
        with rt.GradientTape() as tape:
            y = rt.reduce_sum(layer(sp))
        return y, tape.gradient(y, layer.kernel)

    y, grad = loss(sparse_data())
    # d sum(x @ k) / dk[i, j] = sum over rows of x[:, i]
    np.testing.assert_allclose(grad, np.repeat(dense_data().sum(0)[:, None], 2, 1))
    np.testing.assert_allclose(y, (dense_data() @ np.ones((4, 2))).sum())


def test_dense_on_float64_sparse_values_casts_to_the_layer_dtype():
    sp = rt.sparse.SparseTensor(INDICES, np.ones(6, np.float64), (6, 4))
    layer = rt.keras.layers.Dense(2)
    out = layer(sp)
    assert out.dtype == rt.float32
    np.testing.assert_allclose(out, dense_data() @ np.asarray(layer.kernel)
                               + np.asarray(layer.bias), rtol=1e-6)
