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


def test_a_traced_sparse_tensor_keeps_its_static_dense_shape():
    # TensorFlow: inside tf.function a SparseTensor has its spec's shape, and one trace is
    # made per static dense shape
    shapes = []

    @rt.function
    def dense_of(sp):
        shapes.append(sp.shape.as_list())
        return rt.sparse.to_dense(sp)

    out = dense_of(sparse_data())
    np.testing.assert_array_equal(out, dense_data())
    other = rt.sparse.SparseTensor([[1, 1]], [3.0], [2, 2])
    np.testing.assert_array_equal(dense_of(other), [[0, 0], [0, 3]])
    dense_of(rt.sparse.SparseTensor([[5, 3]], [1.0], [6, 4]))
    assert shapes == [[6, 4], [2, 2]] and dense_of.experimental_get_tracing_count() == 2
    signed = rt.function(rt.sparse.to_dense,
                         input_signature=[rt.SparseTensorSpec([None, 4], rt.float32)])
    assert signed.get_concrete_function().structured_outputs.shape.as_list() == [None, 4]


def test_dense_builds_inside_a_function_and_a_dataset_map_keeps_the_shape():
    layer = rt.keras.layers.Dense(2)

    @rt.function
    def apply(sp):
        return layer(sp)   # Dense reads the last dimension (4) from the traced shape

    np.testing.assert_allclose(apply(sparse_data()),
                               dense_data() @ np.asarray(layer.kernel) + np.asarray(layer.bias),
                               rtol=1e-6)
    rows = rt.data.Dataset.from_tensor_slices(sparse_data()).map(rt.sparse.to_dense)
    assert rows.element_spec == rt.TensorSpec([4], rt.float32)   # TensorFlow's
    np.testing.assert_array_equal(np.stack(list(rows)), dense_data())
