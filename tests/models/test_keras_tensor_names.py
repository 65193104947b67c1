"""Keras 3's automatic names of Keras tensors (a serving signature's inputs are named so)."""

import numpy as np

from runtime import keras


def test_keras_tensor_names_follow_keras_3():
    """The automatic names of Keras tensors, as TensorFlow 2.21 + Keras 3.15 print them for
    this sequence of definitions in a fresh process (recorded by running the same code with
    `import keras` under TensorFlow): a Sequential's tensors are made when it is built (at
    construction when its input is declared, at its first call otherwise), one per layer
    output, a nested model counting as one layer, a new mask as one more (Masking's two)."""
    keras.backend.clear_session()
    layers = keras.layers
    x = keras.Input(shape=(4,))
    y = layers.Dense(3)(x)
    z = y + 1
    assert [x.name, y.name, z.name] == ["keras_tensor", "keras_tensor_1", "keras_tensor_2"]
    m = keras.Sequential([layers.Dense(2)])
    m.build((None, 4))
    assert [m.inputs[0].name, m.outputs[0].name] == ["keras_tensor_3", "keras_tensor_4"]
    m2 = keras.Sequential([keras.Input((4,)), layers.Dense(2), layers.Dropout(0.1),
                           layers.Dense(1)])
    assert [m2.inputs[0].name, m2.outputs[0].name] == ["keras_tensor_5", "keras_tensor_8"]
    m4 = keras.Sequential([layers.Dense(2)])
    m4(np.ones((1, 3), "float32"))
    assert m4.inputs[0].name == "keras_tensor_9" and m4.inputs[0].shape.as_list() == [1, 3]
    aug = keras.Sequential([layers.RandomFlip("horizontal", input_shape=(8, 8, 3)),
                            layers.RandomRotation(0.1)])
    model = keras.Sequential([aug, layers.Rescaling(1 / 255), layers.Flatten(),
                              layers.Dense(2)])
    assert [model.inputs[0].name, model.outputs[0].name] == ["keras_tensor_14",
                                                             "keras_tensor_18"]
    e = keras.Sequential([layers.Embedding(10, 3, mask_zero=True), layers.LSTM(2)])
    e.build((None, 5))
    assert [e.inputs[0].name, e.outputs[0].name] == ["keras_tensor_19", "keras_tensor_22"]
    s = keras.Sequential([layers.Masking(0.0, input_shape=(4, 2)), layers.SimpleRNN(2)])
    assert s.outputs[0].name == "keras_tensor_27"
    named = keras.Input((1,), name="age")
    assert named.name == "age" and keras.Input((1,)).name == "keras_tensor_28"
