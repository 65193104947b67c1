"""keras.initializers' Identity, Orthogonal, TruncatedNormal, LecunNormal and LecunUniform:
the properties Keras documents for them (the draws are NumPy's, not TensorFlow's)."""

import numpy as np
import pytest

from runtime import keras

I = keras.initializers


def test_orthogonal_has_orthonormal_rows_or_columns_times_gain():
    tall = I.Orthogonal(gain=2.0, seed=1)((6, 4)).numpy()
    np.testing.assert_allclose(tall.T @ tall, 4 * np.eye(4), atol=1e-5)
    wide = I.orthogonal(seed=2)((3, 5)).numpy()
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-5)
    kernel = I.OrthogonalInitializer(seed=3)((2, 3, 4)).numpy().reshape(6, 4)
    np.testing.assert_allclose(kernel.T @ kernel, np.eye(4), atol=1e-5)
    with pytest.raises(ValueError, match="rank"):
        I.Orthogonal()((3,))


def test_identity_and_truncated_normal():
    np.testing.assert_array_equal(I.Identity(2.0)((2, 3)).numpy(), 2 * np.eye(2, 3))
    assert I.identity is I.IdentityInitializer is I.Identity
    with pytest.raises(ValueError, match="2D"):
        I.Identity()((2, 2, 2))
    draws = I.TruncatedNormal(1.0, 0.5, seed=3)((4000,)).numpy()
    assert draws.min() >= 0.0 and draws.max() <= 2.0        # within two stddevs of the mean
    assert abs(draws.mean() - 1.0) < 0.03 and 0.4 < draws.std() < 0.47  # 0.88 * stddev


def test_lecun_initializers_scale_by_fan_in():
    uniform = I.LecunUniform(seed=0)((100, 50)).numpy()
    assert np.abs(uniform).max() <= np.sqrt(3 / 100)
    assert uniform.std() == pytest.approx(np.sqrt(1 / 100), rel=0.05)
    normal = I.lecun_normal(seed=0)((400, 50)).numpy()
    assert normal.std() == pytest.approx(np.sqrt(1 / 400), rel=0.05)


@pytest.mark.parametrize("name, cls", [("orthogonal", I.Orthogonal), ("identity", I.Identity),
                                       ("lecun_normal", I.LecunNormal),
                                       ("truncated_normal", I.TruncatedNormal),
                                       ("variance_scaling", I.VarianceScaling)])
def test_names_reach_the_classes_and_layers_take_them(name, cls):
    assert isinstance(I.get(name), cls)
    layer = keras.layers.Dense(3, kernel_initializer=name)
    layer(np.ones((2, 3), np.float32))
    assert layer.kernel.shape == (3, 3)
