"""Batchable extension types end to end: datasets batch and unbatch them (TensorFlow's
element specs and values), map_fn iterates them, and a model whose call takes one trains
and predicts from a dataset of them (Keras 3 refuses them as layer inputs; here a model's
call receives them as they are). Expected values are computed with NumPy."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras


class Masked(rt.experimental.BatchableExtensionType):
    values: rt.Tensor
    mask: rt.Tensor


VALUES = np.arange(12, dtype=np.float32).reshape(4, 3)
MASK = (np.arange(12).reshape(4, 3) % 3) != 1


def _masked():
    return Masked(values=rt.constant(VALUES), mask=rt.constant(MASK))


def _masked_sum(m):
    return rt.reduce_sum(rt.where(m.mask, m.values, 0.0), axis=-1)


def test_dataset_slices_batches_and_unbatches_as_tensorflow():
    ds = rt.data.Dataset.from_tensor_slices(_masked())
    assert ds.element_spec == Masked.Spec(values=rt.TensorSpec([3], rt.float32),
                                          mask=rt.TensorSpec([3], rt.bool))
    batched = ds.batch(3)
    assert batched.element_spec.values.shape.as_list() == [None, 3]
    batches = list(batched)
    np.testing.assert_array_equal(batches[0].values, VALUES[:3])
    np.testing.assert_array_equal(batches[1].mask, MASK[3:])
    rows = list(batched.unbatch())
    assert len(rows) == 4 and batched.unbatch().element_spec == ds.element_spec
    np.testing.assert_array_equal(np.stack([r.values for r in rows]), VALUES)
    sums = [float(s) for s in ds.map(_masked_sum)]
    np.testing.assert_allclose(sums, np.where(MASK, VALUES, 0).sum(1))


def test_map_fn_over_an_extension_type():
    got = rt.map_fn(_masked_sum, _masked(), fn_output_signature=rt.float32)
    np.testing.assert_allclose(got, np.where(MASK, VALUES, 0).sum(1))
    shifted = rt.map_fn(lambda m: Masked(m.values + 1, m.mask), _masked())
    assert isinstance(shifted, Masked)
    np.testing.assert_array_equal(shifted.values, VALUES + 1)


class _Model(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, m):
        return self.dense(rt.where(m.mask, m.values, 0.0))


def test_a_model_fits_and_predicts_from_a_dataset_of_extension_types():
    model = _Model()
    model.compile(keras.optimizers.SGD(0.001), "mse")
    targets = np.ones((4, 1), np.float32)
    data = rt.data.Dataset.from_tensor_slices((_masked(), targets)).batch(2)
    kernel_before = None
    history = model.fit(data, epochs=2, verbose=0)
    kernel_before = model.dense.kernel.numpy()
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()
    predicted = model.predict(rt.data.Dataset.from_tensor_slices(_masked()).batch(2), verbose=0)
    expected = np.where(MASK, VALUES, 0) @ kernel_before + model.dense.bias.numpy()
    np.testing.assert_allclose(predicted, expected, rtol=1e-5)


def test_extension_types_in_memory_are_refused_with_the_dataset_form():
    model = _Model()
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match="from_tensor_slices"):
        model.fit(_masked(), np.ones((4, 1), np.float32), verbose=0)
