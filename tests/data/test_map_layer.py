"""A Keras layer maps over a dataset as a function of the element (its `__call__` takes
keyword options, which an input signature cannot name)."""

import numpy as np

import runtime as rt


def test_a_layer_maps_over_a_dataset():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    layer = rt.keras.layers.Rescaling(0.5, offset=1.0)
    mapped = rt.data.Dataset.from_tensor_slices(x).batch(2).map(layer)
    np.testing.assert_array_equal(np.concatenate([b.numpy() for b in mapped]), x * 0.5 + 1.0)
