"""Loss classes convert their arguments to the loss's dtype (float32 unless `dtype=` is
given), as Keras 3 does, and `tf.keras.losses.Reduction` names the reductions. Expected
numbers are what TensorFlow 2.21 + Keras 3 print for the same programs (the segmentation
tutorial's weighted loss) and NumPy's."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras


def test_the_segmentation_tutorials_weighted_loss_is_float32():
    label = np.array([0, 0])
    prediction = np.array([[-3.0, 0], [-3, 0]])  # float64 NumPy
    loss = keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction=keras.losses.Reduction.NONE)
    value = loss(label, prediction, [1, 10])
    assert value.dtype == rt.float32
    want = (3 + np.log1p(np.exp(-3.0))) * np.array([1, 10])  # -log softmax(logits)[0]
    np.testing.assert_allclose(value.numpy(), want, rtol=1e-6)
    assert str(value.numpy()) == "[ 3.0485873 30.485874 ]"  # Keras 3's printout


def test_a_loss_given_a_dtype_computes_in_it():
    y, x = np.array([[0.3, -1.0]]), np.array([[0.1, 0.4]])
    assert keras.losses.Huber(delta=0.5)(y, x).dtype == rt.float32
    value = keras.losses.Huber(delta=0.5, dtype="float64")(y, x)
    assert value.dtype == rt.float64
    err = np.abs(x - y)
    want = np.where(err <= 0.5, 0.5 * err ** 2, 0.5 * err - 0.125).mean()
    assert float(value) == pytest.approx(want, rel=1e-12)
    assert keras.losses.MeanSquaredError(dtype="float64").get_config()["dtype"] == "float64"


def test_reduction_names_and_validation():
    reduction = keras.losses.Reduction
    assert (reduction.AUTO, reduction.NONE, reduction.SUM, reduction.SUM_OVER_BATCH_SIZE) == \
        ("auto", "none", "sum", "sum_over_batch_size")
    assert reduction.all() == ("auto", "none", "sum", "sum_over_batch_size")
    reduction.validate("sum")
    with pytest.raises(ValueError, match="Invalid Reduction Key: mean"):
        reduction.validate("mean")
    total = keras.losses.MeanAbsoluteError(reduction=reduction.SUM)([0.0, 0.0], [1.0, -2.0])
    assert float(total) == pytest.approx(1.5)  # mean over the last axis, then the sum
