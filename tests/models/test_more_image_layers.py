"""keras.layers RandomInvert, RandomGrayscale, AutoContrast and ThresholdedReLU: values,
dtypes, configs and errors as tf.keras (Keras 3.15 under TensorFlow 2.21) gives them."""

import numpy as np
import pytest

import runtime as rt

L = rt.keras.layers
X = np.array([[[[10, 100, 200], [0, 50, 255]], [[30, 60, 90], [120, 130, 140]]]], "float32")


def _config(layer):
    config = layer.get_config()
    config.pop("name")
    config.pop("dtype")
    return config


def test_random_invert():
    np.testing.assert_allclose(L.RandomInvert(factor=(1.0, 1.0))(X),
                               [[[[245, 155, 55], [255, 205, 0]], [[225, 195, 165],
                                                                   [135, 125, 115]]]])
    np.testing.assert_allclose(L.RandomInvert(factor=(1.0, 1.0), value_range=(0, 1))(X / 255),
                               1 - X / 255, rtol=1e-6)
    np.testing.assert_array_equal(L.RandomInvert(factor=(1.0, 1.0))(X, training=False), X)
    assert _config(L.RandomInvert()) == {"trainable": True, "data_format": "channels_last",
                                         "factor": (0, 1.0), "value_range": (0, 255),
                                         "seed": None}


def test_random_grayscale():
    grey = L.RandomGrayscale(factor=1.0)(X).numpy()
    np.testing.assert_allclose(grey[0, :, :, 0], [[84.489, 58.42], [54.447, 128.138]], atol=1e-3)
    assert np.all(grey == grey[..., :1])
    np.testing.assert_array_equal(L.RandomGrayscale(factor=0.0)(X), X)
    assert L.RandomGrayscale(1.0)(X.astype("uint8")).dtype == rt.uint8
    np.testing.assert_array_equal(L.RandomGrayscale(1.0)(X, training=False), X)
    assert _config(L.RandomGrayscale()) == {"trainable": True, "data_format": "channels_last",
                                            "factor": 0.5}
    with pytest.raises(ValueError, match="between 0 and 1"):
        L.RandomGrayscale(factor=2)


def test_auto_contrast():
    expected = [[[[21.25, 159.375, 170.0], [0.0, 0.0, 255.0]],
                 [[63.75, 31.875, 0.0], [255.0, 255.0, 77.2727]]]]
    np.testing.assert_allclose(L.AutoContrast()(X), expected, atol=1e-3)
    np.testing.assert_allclose(L.AutoContrast()(X, training=False), expected, atol=1e-3)
    np.testing.assert_allclose(L.AutoContrast(value_range=(0, 1))(X / 255.0),
                               np.array(expected) / 255, atol=1e-5)
    assert _config(L.AutoContrast()) == {"trainable": True, "data_format": "channels_last",
                                         "value_range": [0, 255]}


def test_thresholded_relu():
    layer = L.ThresholdedReLU(theta=0.5)
    np.testing.assert_allclose(layer(np.array([-1.0, 0.5, 0.6, 2.0], "float32")),
                               [0.0, 0.0, 0.6, 2.0], rtol=1e-7)
    assert layer.get_config()["theta"] == 0.5
    with pytest.raises(ValueError, match="should be >=0"):
        L.ThresholdedReLU(theta=-1)
    model = rt.keras.Sequential([rt.keras.Input((3,)), L.Dense(2), L.ThresholdedReLU()])
    again = rt.keras.Sequential.from_config(model.get_config())
    assert isinstance(again.layers[-1], L.ThresholdedReLU)


def test_random_height_and_width():
    x = np.arange(12, dtype="float32").reshape(2, 2, 3, 1)
    # tf.keras: a factor of exactly +50% makes 2 rows 3, bilinear; -34% of 3 columns is 1
    np.testing.assert_allclose(L.RandomHeight(factor=(0.5, 0.5))(x)[..., 0],
                               [[[0, 1, 2], [1.5, 2.5, 3.5], [3, 4, 5]],
                                [[6, 7, 8], [7.5, 8.5, 9.5], [9, 10, 11]]])
    np.testing.assert_allclose(L.RandomWidth(factor=(-0.34, -0.34),
                                             interpolation="nearest")(x)[..., 0],
                               [[[1], [4]], [[7], [10]]])
    np.testing.assert_array_equal(L.RandomHeight(0.2)(x, training=False), x)
    tall = L.RandomHeight(0.3)(np.zeros((1, 10, 4, 3), "float32"))
    assert 7 <= tall.shape[1] <= 13 and tall.shape[2:] == (4, 3)
    assert _config(L.RandomHeight(0.2)) == {"trainable": True, "factor": 0.2,
                                            "interpolation": "bilinear", "seed": None}
    with pytest.raises(ValueError, match="upper bound lesser than the lower bound"):
        L.RandomHeight((0.5, 0.1))
    with pytest.raises(ValueError, match="upper bound less than the lower bound"):
        L.RandomWidth(-2.0)
    model = rt.keras.Sequential([rt.keras.Input((None, 4, 3)), L.RandomWidth(0.2),
                                 rt.keras.layers.GlobalAveragePooling2D()])
    assert model(np.ones((2, 5, 4, 3), "float32")).shape == (2, 3)
