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
