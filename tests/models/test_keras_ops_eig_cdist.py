"""keras.ops.eig / linalg.eig and keras.ops.cdist: values Keras 3.15 prints (TensorFlow 2.21)
and NumPy's."""

import numpy as np

import runtime as rt

ops = rt.keras.ops


def test_eig_of_a_triangular_matrix():
    a = np.array([[2.0, 1.0], [0.0, 3.0]], "float32")
    w, v = ops.eig(a)
    assert w.dtype == rt.complex64 and v.dtype == rt.complex64
    np.testing.assert_allclose(w, [2, 3], atol=1e-6)  # Keras: [2.+0.j 3.+0.j]
    np.testing.assert_allclose(np.abs(v), [[1, 0.70710677], [0, 0.70710677]], atol=1e-6)
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy(), atol=1e-5)
    assert ops.linalg.eig is ops.eig


def test_cdist_as_keras_and_numpy():
    x, y = np.array([[0.0, 0.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [3.0, 4.0], [0.0, 0.0]])
    # Keras: [[1, 5, 0], [1, 3.60555128, 1.41421356]] in float64
    out = ops.cdist(x, y)
    assert out.dtype == rt.float64
    np.testing.assert_allclose(out, [[1, 5, 0], [1, 3.60555128, 1.41421356]], rtol=1e-8)
    batch_x, batch_y = np.random.rand(2, 3, 4), np.random.rand(2, 5, 4)
    expected = np.linalg.norm(batch_x[:, :, None] - batch_y[:, None], axis=-1)
    np.testing.assert_allclose(ops.cdist(batch_x, batch_y), expected, rtol=1e-10)
