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
