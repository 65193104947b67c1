"""keras.InputSpec (checked on every call, Keras 3's messages) and
keras.layers.SpectralNormalization (power iteration on the wrapped kernel, checked against
NumPy's singular values and a NumPy power iteration from the layer's own weights)."""

import numpy as np
import pytest

import runtime as rt

k = rt.keras


class _Checked(k.layers.Layer):
    def __init__(self, spec):
        super().__init__()
        self.input_spec = spec

    def call(self, x):
        return x


def test_input_spec_checks_rank_axes_dtype_and_shape():
    assert k.InputSpec is k.layers.InputSpec
    layer = _Checked(k.InputSpec(ndim=2, axes={-1: 3}))
    assert layer(np.zeros((2, 3))).shape == (2, 3)
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 3"):
        layer(np.zeros((2, 4)))
    with pytest.raises(ValueError, match="expected ndim=2, found ndim=3"):
        layer(np.zeros((2, 3, 1)))
    with pytest.raises(ValueError, match="expected min_ndim=3"):
        _Checked(k.InputSpec(min_ndim=3))(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="expected max_ndim=1"):
        _Checked(k.InputSpec(max_ndim=1))(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="expected dtype=int32, found dtype=float32"):
        _Checked(k.InputSpec(dtype="int32"))(rt.zeros((2,)))
    with pytest.raises(ValueError, match=r"expected shape=\(None, 5\), found shape=\(2, 3\)"):
        _Checked(k.InputSpec(shape=(None, 5)))(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="expects 2 input"):
        _Checked([k.InputSpec(), k.InputSpec()])(np.zeros((2, 3)))


def test_input_spec_repr_and_config_are_keras():
    spec = k.InputSpec(shape=(None, 3), dtype="float32")
    assert repr(spec) == "InputSpec(dtype=float32, shape=(None, 3), ndim=2)"
    assert spec.get_config() == {"dtype": "float32", "shape": (None, 3), "ndim": 2,
                                 "max_ndim": None, "min_ndim": None, "axes": {},
                                 "optional": False}
    assert k.InputSpec.from_config(spec.get_config()).shape == (None, 3)
    with pytest.raises(TypeError, match="axes"):
        k.InputSpec(axes={"a": 1})
    with pytest.raises(ValueError, match="Axis 3 is greater than the maximum allowed value: 1"):
        k.InputSpec(ndim=2, axes={3: 1})


def _power_iteration(kernel, u, steps):
    w = kernel.reshape(-1, kernel.shape[-1])
    for _ in range(steps):
        v = u @ w.T
        v = v / np.linalg.norm(v)
        u = (v @ w) / np.linalg.norm(v @ w)
    sigma = (v @ w @ u.T).item()
    return u, kernel / sigma


@pytest.mark.parametrize("wrapped, steps", [
    (lambda: k.layers.Dense(3), 1),
    (lambda: k.layers.Conv2D(4, 2), 3),
    (lambda: k.layers.Embedding(6, 5), 2)])
def test_spectral_normalization_divides_by_the_power_iteration_sigma(wrapped, steps):
    layer = k.layers.SpectralNormalization(wrapped(), power_iterations=steps)
    x = np.arange(2 * 3 * 3 * 2, dtype="float32").reshape(2, 3, 3, 2) % 5
    x = x[:, 0, 0, :1].astype("int32") if isinstance(layer.layer, k.layers.Embedding) else (
        x if isinstance(layer.layer, k.layers.Conv2D) else x.reshape(2, -1)[:, :4])
    inference = layer(x)  # builds; the kernel is untouched without training
    kernel = layer.kernel.numpy().copy()
    u = layer.vector_u.numpy().copy()
    if isinstance(layer.layer, k.layers.Embedding):  # Keras casts to the inputs' dtype
        assert inference.dtype == rt.int32
        inference, x = layer.layer(x), x
    np.testing.assert_allclose(inference, layer.layer(x), rtol=1e-6)
    trained = layer(x, training=True)
    want_u, want_kernel = _power_iteration(kernel.astype(np.float64), u.astype(np.float64),
                                           steps)
    np.testing.assert_allclose(layer.vector_u.numpy(), want_u, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(layer.kernel.numpy(), want_kernel, rtol=1e-4, atol=1e-6)
    if trained.dtype == rt.float32:
        np.testing.assert_allclose(trained, layer.layer(x), rtol=1e-5, atol=1e-6)
    for _ in range(30):  # the power iteration converges to the top singular value
        layer(x, training=True)
    top = np.linalg.svd(layer.kernel.numpy().reshape(-1, kernel.shape[-1]), compute_uv=False)
    assert abs(top[0] - 1.0) < 1e-3


def test_spectral_normalization_config_weights_and_errors():
    layer = k.layers.SpectralNormalization(k.layers.Dense(3, kernel_initializer="ones"))
    layer(np.ones((2, 4), "float32"))
    config = layer.get_config()
    assert config["power_iterations"] == 1 and config["layer"]["class_name"] == "Dense"
    assert sorted(w.name for w in layer.weights) == ["bias", "kernel", "vector_u"]
    assert [w.name for w in layer.trainable_weights] == ["kernel", "bias"]
    zero = k.layers.SpectralNormalization(k.layers.Dense(2, kernel_initializer="zeros"))
    zero(np.ones((1, 2), "float32"), training=True)
    np.testing.assert_array_equal(zero.kernel.numpy(), 0)
    with pytest.raises(ValueError, match="power_iterations"):
        k.layers.SpectralNormalization(k.layers.Dense(2), power_iterations=0)
    with pytest.raises(ValueError, match="nor 'embeddings'"):
        k.layers.SpectralNormalization(k.layers.Flatten())(np.ones((1, 2)))
