"""keras.metrics' correlation, IoU and hinge metrics and the loss-function aliases
(runtime/keras/metrics.py): values as Keras 3.15 printed them for the same inputs, or as
Keras's documentation states them (MeanIoU with fractional sample weights: the documented
0.238, where Keras 3.15 on TensorFlow truncates the weights to integers and gives 0)."""

import numpy as np
import pytest

import runtime as rt
from runtime import keras

M = keras.metrics
Y_TRUE = np.array([[0.0, 1, 2, 3], [1, 2, 3, 5]])
Y_PRED = np.array([[0.5, 1.2, 2.4, 2.9], [3, 1, 2, 0.0]])
ONE_HOT = np.eye(3)[[0, 1, 2, 2]]
SCORES = np.array([[0.2, 0.3, 0.5], [0.1, 0.8, 0.1], [0.0, 0.0, 1.0], [0.6, 0.3, 0.1]])


def test_correlations_printed_by_keras():
    np.testing.assert_allclose(M.pearson_correlation(Y_TRUE, Y_PRED).numpy(),
                               [0.98857742, -0.83152184], rtol=1e-6)
    np.testing.assert_allclose(M.concordance_correlation(Y_TRUE, Y_PRED).numpy(),
                               [0.94808122, -0.54999999], rtol=1e-6)
    for cls, want in ((M.PearsonCorrelation, 0.07852778), (M.ConcordanceCorrelation, 0.19904059)):
        metric = cls()
        metric.update_state(Y_TRUE, Y_PRED)
        assert float(metric.result()) == pytest.approx(want, rel=1e-5)
    assert M.PearsonCorrelation().get_config() == {"name": "pearson_correlation",
                                                   "dtype": "float32", "axis": -1}
    rows = np.random.RandomState(0).rand(3, 6)
    np.testing.assert_allclose(M.pearson_correlation(rows, rows ** 2).numpy(),
                               [np.corrcoef(r, r ** 2)[0, 1] for r in rows], rtol=1e-6)


@pytest.mark.parametrize("make, args, want", [
    (lambda: M.IoU(num_classes=3, target_class_ids=[0, 2]),
     ([0, 1, 2, 2, 1], [0, 2, 2, 1, 1]), 0.6666666),
    (lambda: M.MeanIoU(num_classes=3, ignore_class=1),
     ([0, 1, 2, 2, 1], [0, 2, 2, 1, 1]), 0.5),
    (lambda: M.BinaryIoU(target_class_ids=[0, 1], threshold=0.3),
     ([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]), 0.33333334),
    (lambda: M.OneHotIoU(num_classes=3, target_class_ids=[0, 2]), (ONE_HOT, SCORES), 0.16666667),
    (lambda: M.OneHotMeanIoU(num_classes=3), (ONE_HOT, SCORES), 0.44444442),
    (lambda: M.CategoricalHinge(), (np.eye(3)[[0, 1]], SCORES[:2]), 0.79999995),
], ids=["IoU", "MeanIoU-ignore", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU", "CategoricalHinge"])
def test_values_printed_by_keras(make, args, want):
    metric = make()
    metric.update_state(*args)
    assert float(metric.result()) == pytest.approx(want, rel=1e-6)
    metric.reset_state()
    assert float(metric.result()) == 0.0


def test_mean_iou_as_documented_with_weights_and_staged():
    metric = M.MeanIoU(num_classes=2)
    metric.update_state([0, 0, 1, 1], [0, 1, 0, 1], sample_weight=[0.3, 0.3, 0.3, 0.1])
    assert float(metric.result()) == pytest.approx(0.23809525, rel=1e-6)

    staged = M.MeanIoU(num_classes=3)
    step = rt.function(lambda t, p: staged.update_state(t, p))
    step(rt.constant([0, 1, 2, 2]), rt.constant([0, 1, 1, 2]))
    step(rt.constant([1, 1]), rt.constant([1, 0]))
    eager = M.MeanIoU(num_classes=3)
    eager.update_state([0, 1, 2, 2, 1, 1], [0, 1, 1, 2, 1, 0])
    assert float(staged.result()) == pytest.approx(float(eager.result()))
    with pytest.raises(ValueError, match="out of range"):
        M.IoU(num_classes=2, target_class_ids=[2])


def test_compile_takes_them_by_object_and_name():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(3, activation="softmax")])
    model.compile("sgd", "categorical_crossentropy",
                  metrics=[M.OneHotMeanIoU(num_classes=3, name="iou"), "pearson_correlation"])
    history = model.fit(np.random.rand(8, 3), np.eye(3)[[0, 1, 2, 0, 1, 2, 0, 1]], epochs=1,
                        verbose=0)
    assert set(history.history) == {"loss", "iou", "pearson_correlation"}


def test_function_aliases_are_the_losses():
    assert M.hinge is keras.losses.hinge and M.kld is M.KLD is keras.losses.kl_divergence
    assert M.mape is M.MAPE and M.msle is M.MSLE and M.logcosh is keras.losses.log_cosh
    assert M.huber is keras.losses.huber and M.poisson is keras.losses.poisson
    assert M.categorical_hinge is keras.losses.categorical_hinge
    assert M.kullback_leibler_divergence is keras.losses.kl_divergence
