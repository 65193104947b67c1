"""Model building as TensorFlow's image tutorials use it (classification, data augmentation):
a Sequential whose first layer is a model that knows its input shape is built at once, as
in Keras 3 (its summary shows shapes and parameter counts). Expected numbers are Keras 3's,
measured on the same programs, and NumPy's from the layers' own weights."""

import numpy as np

from runtime import keras
from runtime.keras import layers


def test_a_sequential_first_in_a_sequential_gives_its_input_shape():
    augmentation = keras.Sequential([layers.RandomFlip("horizontal", input_shape=(18, 18, 3)),
                                     layers.RandomRotation(0.1)])
    model = keras.Sequential([augmentation, layers.Rescaling(1. / 255),
                              layers.Conv2D(4, 3, padding="same"), layers.Flatten(),
                              layers.Dense(5, name="outputs")])
    # Keras 3: built, 6597 parameters
    assert model.built
    assert model.count_params() == 6597
    x = np.random.default_rng(0).random((2, 18, 18, 3)).astype(np.float32) * 255
    kernel, bias, dense, dense_bias = model.get_weights()
    scaled = np.pad(x / 255, ((0, 0), (1, 1), (1, 1), (0, 0)))
    conv = sum(scaled[:, i:i + 18, j:j + 18, :] @ kernel[i, j] for i in range(3)
               for j in range(3)) + bias
    want = conv.reshape(2, -1) @ dense + dense_bias
    np.testing.assert_allclose(model(x, training=False).numpy(), want, rtol=1e-4, atol=1e-4)


def test_a_functional_model_first_in_a_sequential_gives_its_input_shape():
    inputs = keras.Input(shape=(7,))
    inner = keras.Model(inputs, layers.Dense(3)(inputs))
    model = keras.Sequential([inner, layers.Dense(2)])
    assert model.built  # Keras 3: weights (7, 3), (3,), (3, 2), (2,)
    assert [tuple(w.shape.as_list()) for w in model.weights] == [(7, 3), (3,), (3, 2), (2,)]
    x = np.ones((1, 7), np.float32)
    w1, b1, w2, b2 = model.get_weights()
    np.testing.assert_allclose(model(x).numpy(), (x @ w1 + b1) @ w2 + b2, rtol=1e-6)


def test_the_classification_tutorial_model_summary_counts():
    # images/classification: Keras 3 reports 3,989,285 parameters for 180x180 inputs
    model = keras.Sequential([
        layers.Rescaling(1. / 255, input_shape=(180, 180, 3)),
        layers.Conv2D(16, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(32, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, padding="same", activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dense(128, activation="relu"), layers.Dense(5)])
    assert model.count_params() == 3989285
    assert [w.shape.as_list() for w in model.weights][-4:] == [[30976, 128], [128], [128, 5],
                                                                [5]]
