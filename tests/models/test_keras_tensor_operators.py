"""Python operators on Keras tensors, as Keras 3 records them (keras.src.ops on KerasTensor):
`2 * x + 1`, `x[:, 1:]`, `x > 0`, ... become steps of the functional model, named as
Keras names its operations (`multiply`, `add`, ...); a model's inputs are converted to
its Inputs' dtypes. Expected values are NumPy's on the same data."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras


def test_scalar_arithmetic_of_an_input_matches_the_load_csv_tutorial():
    # TensorFlow's CSV tutorial: Keras 3 prints [3.] and [5.] for an int64 array input
    inputs = keras.Input(shape=(), dtype=rt.float32)
    result = 2 * inputs + 1
    assert isinstance(result, keras.KerasTensor)
    assert tuple(result.shape.as_list()) == (None,) and result.dtype == rt.float32
    calc = keras.Model(inputs=inputs, outputs=result)
    for given, expected in ((1, 3.0), (2, 5.0)):
        out = calc(np.array([given])).numpy()
        assert out.dtype == np.float32
        np.testing.assert_array_equal(out, [expected])
    # named as Keras 3 names the operations (a suffix when the name was taken before)
    assert [layer.name.rsplit("_", 1)[0] if layer.name[-1].isdigit() else layer.name
            for layer in calc.layers][1:] == ["multiply", "add"]


def test_every_operator_agrees_with_numpy():
    x = keras.Input(shape=(3,))
    y = keras.Input(shape=(3,))
    outputs = [x + y, x - 1.5, 3 - x, x * y, x / 2, 1 / y, x // 2, x % 2, x ** 2, 2 ** x,
               -x, abs(x), x < y, x <= 0, x > 0, x >= y, x != y, x[:, 1:], x[:, 0],
               x[..., ::2], (x > 0) & (y > 0), (x > 0) | (y > 0), ~(x > 0), (x > 0) ^ (y > 0)]
    model = keras.Model([x, y], outputs)
    a = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.0]], np.float32)
    b = np.array([[2.0, -2.0, 1.0], [1.0, 0.5, 3.0]], np.float32)
    expected = [a + b, a - 1.5, 3 - a, a * b, a / 2, 1 / b, a // 2, a % 2, a ** 2, 2 ** a,
                -a, abs(a), a < b, a <= 0, a > 0, a >= b, a != b, a[:, 1:], a[:, 0],
                a[..., ::2], (a > 0) & (b > 0), (a > 0) | (b > 0), ~(a > 0), (a > 0) ^ (b > 0)]
    got = model([a, b])
    for value, want, kt in zip(got, expected, outputs):
        np.testing.assert_allclose(value.numpy(), want, rtol=1e-6)
        assert value.shape.as_list()[1:] == kt.shape.as_list()[1:]


def test_matmul_with_a_constant_and_a_config_round_trip(tmp_path):
    x = keras.Input(shape=(3,))
    w = np.arange(6, dtype=np.float32).reshape(3, 2)
    out = keras.layers.Dense(2, use_bias=False)((x @ w)[:, ::-1] * 0.5)
    model = keras.Model(x, out)
    data = np.array([[1.0, 2.0, 3.0]], np.float32)
    kernel = model.layers[-1].get_weights()[0]
    want = ((data @ w)[:, ::-1] * 0.5) @ kernel
    np.testing.assert_allclose(model(data).numpy(), want, rtol=1e-6)
    again = keras.Model.from_config(model.get_config())
    again.set_weights(model.get_weights())
    np.testing.assert_allclose(again(data).numpy(), want, rtol=1e-6)
    path = str(tmp_path / "ops.keras")
    model.save(path)
    np.testing.assert_allclose(keras.models.load_model(path)(data).numpy(), want, rtol=1e-6)


def test_keras_tensor_repr_is_keras_3s():
    x = keras.Input(shape=(4,), name="features")
    assert repr(x) == ("<KerasTensor shape=(None, 4), dtype=float32, sparse=False, "
                       "ragged=False, name=features>")


def test_a_symbolic_tensor_has_no_truth_value():
    x = keras.Input(shape=(2,))
    with pytest.raises(TypeError):
        bool(x > 0)
