"""Sample weights of `keras.metrics` on (N, k) targets, against Keras 3's formulas in NumPy.

Keras reduces a metric's values to one value per sample (`reduce_to_samplewise_values`) and
takes their weighted mean, sum(w_i * v_i) / sum(w_i), so a weight of shape (N,) weighs whole
samples; confusion metrics (Precision, Recall, AUC) give each sample's weight to each of its
predictions. AUC's curves and summations follow keras/src/metrics/confusion_metrics.py."""

import numpy as np
import pytest

from runtime import keras

EPS = 1e-7
rng = np.random.default_rng(11)
N, K = 9, 3
T = (rng.random((N, K)) > 0.5).astype(np.float32)          # 0/1 targets
P = rng.random((N, K)).astype(np.float32)                  # scores in [0, 1)
Y = rng.normal(size=(N, K)).astype(np.float32)             # regression targets
W = np.array([1.0, 0.0, 2.0, 0.5, 1.0, 3.0, 0.0, 1.5, 1.0], np.float32)
LABELS = rng.integers(0, K, N)
ONE_HOT = np.eye(K, dtype=np.float32)[LABELS]


def _weighted_mean(per_sample, weight=W):
    return np.sum(per_sample * weight) / np.sum(weight)


def _bce(t, p):
    p = np.clip(p, EPS, 1 - EPS)
    return -(t * np.log(p) + (1 - t) * np.log(1 - p))


def _cce(t, p):
    p = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return -np.sum(t * np.log(p), -1)


PER_SAMPLE = {  # class -> (y_true, y_pred, NumPy per-sample values)
    "MeanSquaredError": (Y, P, lambda: np.mean((P - Y) ** 2, -1)),
    "MeanAbsoluteError": (Y, P, lambda: np.mean(np.abs(P - Y), -1)),
    "BinaryAccuracy": (T, P, lambda: np.mean((P > 0.5) == (T > 0.5), -1)),
    "BinaryCrossentropy": (T, P, lambda: np.mean(_bce(T, P), -1)),
    "Accuracy": (T, np.round(P), lambda: np.mean(np.round(P) == T, -1)),
    "CategoricalAccuracy": (ONE_HOT, P, lambda: (P.argmax(-1) == LABELS).astype(float)),
    "CategoricalCrossentropy": (ONE_HOT, P, lambda: _cce(ONE_HOT, P)),
    "SparseCategoricalAccuracy": (LABELS, P, lambda: (P.argmax(-1) == LABELS).astype(float)),
    "SparseCategoricalCrossentropy": (LABELS, P, lambda: _cce(ONE_HOT, P)),
}


@pytest.mark.parametrize("name", sorted(PER_SAMPLE))
def test_mean_metrics_weigh_whole_samples(name):
    y_true, y_pred, per_sample = PER_SAMPLE[name]
    metric = getattr(keras.metrics, name)()
    metric.update_state(y_true, y_pred, sample_weight=W)
    assert float(metric.result()) == pytest.approx(_weighted_mean(per_sample()), rel=1e-5)
    metric.update_state(y_true, y_pred)                     # unweighted: weight 1 a sample
    both = np.concatenate([per_sample() * W, per_sample()]).sum() / (W.sum() + N)
    assert float(metric.result()) == pytest.approx(both, rel=1e-5)


def test_root_mean_squared_error_with_rank_1_weights():
    metric = keras.metrics.RootMeanSquaredError()
    y_true = np.ones((2, 3), np.float32)
    y_pred = np.array([[1.0, 2.0, 3.0], [3.0, 3.0, 3.0]], np.float32)
    metric.update_state(y_true, y_pred, sample_weight=[1.0, 0.0])
    assert float(metric.result()) == pytest.approx(np.sqrt(5.0 / 3.0), rel=1e-6)
    metric = keras.metrics.RootMeanSquaredError()
    metric.update_state(Y, P, sample_weight=W)
    assert float(metric.result()) == pytest.approx(
        np.sqrt(_weighted_mean(np.mean((P - Y) ** 2, -1))), rel=1e-5)


@pytest.mark.parametrize("weight", [W, W[:, None], np.tile(W[:, None], (1, K))],
                         ids=["(N,)", "(N, 1)", "(N, k)"])
def test_mean_and_sum_of_values_with_weights(weight):
    mean = keras.metrics.Mean()
    mean.update_state(Y, sample_weight=weight)
    full = np.broadcast_to(np.reshape(weight, (N, -1)), (N, K))
    assert float(mean.result()) == pytest.approx(np.sum(Y * full) / np.sum(full), rel=1e-5)
    total = keras.metrics.Sum()
    total.update_state(Y, sample_weight=weight)
    assert float(total.result()) == pytest.approx(np.sum(Y * full), rel=1e-5)


def test_mean_counts_samples_not_elements_across_updates():
    mean = keras.metrics.Mean()
    mean.update_state(np.array([[1.0, 3.0], [5.0, 7.0]], np.float32))   # row means 2, 6
    mean.update_state(np.array([10.0], np.float32))
    assert float(mean.result()) == pytest.approx((2 + 6 + 10) / 3)


@pytest.mark.parametrize("threshold", [None, 0.3, 0.7])
def test_precision_and_recall_give_each_prediction_its_samples_weight(threshold):
    w = np.broadcast_to(W[:, None], (N, K))
    positive = P > (0.5 if threshold is None else threshold)
    tp = np.sum(w * (positive & (T > 0)))
    precision = keras.metrics.Precision(thresholds=threshold)
    precision.update_state(T, P, sample_weight=W)
    assert float(precision.result()) == pytest.approx(tp / np.sum(w * positive), rel=1e-5)
    recall = keras.metrics.Recall(thresholds=threshold)
    recall.update_state(T, P, sample_weight=W)
    assert float(recall.result()) == pytest.approx(tp / np.sum(w * (T > 0)), rel=1e-5)


# -- AUC ------------------------------------------------------------------------------------------

def _counts(t, p, w, thresholds):
    """(tp, fp, tn, fn) at each threshold of `p > threshold`, weighted, as arrays."""
    above = p.reshape(1, -1) > thresholds.reshape(-1, 1)
    pos = (t.reshape(1, -1) != 0)
    w = np.broadcast_to(w, t.shape).reshape(1, -1)
    return tuple(np.sum(w * (a & b), 1) for a, b in
                 ((above, pos), (above, ~pos), (~above, ~pos), (~above, pos)))


def _divide(a, b):
    return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def _keras_auc(t, p, w, curve, summation, n=200, thresholds=None):
    inner = list(thresholds) if thresholds is not None else \
        [(i + 1) / (n - 1) for i in range(n - 2)]
    grid = np.array([-EPS, *inner, 1 + EPS], np.float32)
    tp, fp, tn, fn = _counts(t, np.clip(p, 0, 1), w, grid)
    if curve == "PR" and summation == "interpolation":      # Davis & Goadrich, closed form
        dtp, p_all = tp[:-1] - tp[1:], tp + fp
        slope = _divide(dtp, np.maximum(p_all[:-1] - p_all[1:], 0))
        intercept = tp[1:] - slope * p_all[1:]
        ratio = np.where((p_all[:-1] > 0) & (p_all[1:] > 0), _divide(p_all[:-1], p_all[1:]), 1)
        return np.sum(_divide(slope * (dtp + intercept * np.log(ratio)), tp[1:] + fn[1:]))
    recall = _divide(tp, tp + fn)
    if curve == "ROC":
        x, y = _divide(fp, fp + tn), recall
    else:
        x, y = recall, _divide(tp, tp + fp)
    heights = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
               "majoring": np.maximum(y[:-1], y[1:])}[summation]
    return np.sum((x[:-1] - x[1:]) * heights)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("summation", ["interpolation", "minoring", "majoring"])
def test_auc_curves_and_summations_match_the_keras_formula(curve, summation):
    t = (rng.random(60) > 0.4).astype(np.float32)
    p = np.clip(0.3 * t + 0.7 * rng.random(60), 0, 1).astype(np.float32)
    w = rng.random(60).astype(np.float32)
    metric = keras.metrics.AUC(curve=curve, summation_method=summation)
    metric.update_state(t, p, sample_weight=w)
    expected = _keras_auc(t, p, w, curve, summation)
    assert float(metric.result()) == pytest.approx(expected, rel=1e-4, abs=1e-6)


def test_roc_auc_with_fine_thresholds_is_the_rank_statistic():
    # An independent oracle: the probability that a positive outscores a negative.
    t = np.array([0, 0, 1, 1, 0, 1, 1, 0, 1, 0], np.float32)
    p = np.array([0.11, 0.42, 0.35, 0.83, 0.77, 0.29, 0.91, 0.05, 0.64, 0.58], np.float32)
    metric = keras.metrics.AUC(num_thresholds=1001)
    metric.update_state(t, p)
    pairs = [(a > b) + 0.5 * (a == b) for a in p[t == 1] for b in p[t == 0]]
    assert float(metric.result()) == pytest.approx(np.mean(pairs), abs=1e-6)


def test_auc_on_rank_2_targets_weighs_samples_and_takes_thresholds_and_logits():
    metric = keras.metrics.AUC(curve="PR")
    metric.update_state(T, P, sample_weight=W)
    assert float(metric.result()) == pytest.approx(
        _keras_auc(T, P, W[:, None], "PR", "interpolation"), rel=1e-4)
    given = keras.metrics.AUC(thresholds=[0.7, 0.3, 0.5])
    given.update_state(T, P)
    assert given.num_thresholds == 5
    assert float(given.result()) == pytest.approx(
        _keras_auc(T, P, 1.0, "ROC", "interpolation", thresholds=[0.3, 0.5, 0.7]), rel=1e-5)
    logits = keras.metrics.AUC(from_logits=True)
    logits.update_state(T, np.log(P / (1 - P)))
    assert float(logits.result()) == pytest.approx(
        _keras_auc(T, P, 1.0, "ROC", "interpolation"), rel=1e-4)


def test_multi_label_auc_averages_the_labels_aucs():
    weights = np.array([1.0, 2.0, 0.5], np.float32)
    metric = keras.metrics.AUC(multi_label=True, label_weights=weights)
    metric.update_state(T, P, sample_weight=W)
    per_label = [_keras_auc(T[:, j], P[:, j], W, "ROC", "interpolation") for j in range(K)]
    assert float(metric.result()) == pytest.approx(np.dot(per_label, weights) / weights.sum(),
                                                   rel=1e-4)
    plain = keras.metrics.AUC(multi_label=True, num_labels=K)
    plain.update_state(T, P)
    assert float(plain.result()) == pytest.approx(
        np.mean([_keras_auc(T[:, j], P[:, j], 1.0, "ROC", "interpolation") for j in range(K)]),
        rel=1e-4)


@pytest.mark.parametrize("bad, accepted", [
    (dict(curve="XX"), '"ROC", "PR" or "PRGAIN"'),
    (dict(curve=3), '"ROC", "PR" or "PRGAIN"'),
    (dict(summation_method="trapezoid"), '"interpolation", "minoring" or "majoring"'),
    (dict(num_thresholds=1), "integer > 1"),
    (dict(num_labels=3), "multi_label"),
])
def test_invalid_auc_arguments_are_value_errors_naming_the_accepted_values(bad, accepted):
    with pytest.raises(ValueError, match=accepted):
        keras.metrics.AUC(**bad)


def test_auc_config_round_trips():
    metric = keras.metrics.AUC(curve="pr", summation_method="minoring", num_thresholds=50)
    config = metric.get_config()
    assert config["curve"] == "PR" and config["summation_method"] == "minoring"
    again = keras.metrics.AUC.from_config(config)
    assert (again.curve, again.summation_method, again.num_thresholds) == ("PR", "minoring", 50)


def _precision_recall(t, p, w, threshold):
    positive, truth = p > threshold, t > 0
    tp = np.sum(w * (positive & truth))
    return _divide(tp, np.sum(w * positive)), _divide(tp, np.sum(w * truth))


def test_precision_and_recall_take_threshold_lists_class_id_and_top_k():
    w = np.broadcast_to(W[:, None], (N, K))
    listed = [_precision_recall(T, P, w, t) for t in (0.2, 0.5, 0.8)]
    for index, cls in enumerate((keras.metrics.Precision, keras.metrics.Recall)):
        metric = cls(thresholds=[0.2, 0.5, 0.8])
        metric.update_state(T, P, sample_weight=W)
        np.testing.assert_allclose(metric.result(), [v[index] for v in listed], rtol=1e-5)
        one_class = cls(class_id=1, thresholds=0.3)
        one_class.update_state(T, P, sample_weight=W)
        assert float(one_class.result()) == pytest.approx(
            _precision_recall(T[:, 1], P[:, 1], W, 0.3)[index], rel=1e-5)
        kept = np.argsort(-P, axis=1)[:, :2]                 # the two largest of each sample
        top = np.full_like(P, -1e10)
        np.put_along_axis(top, kept, np.take_along_axis(P, kept, 1), 1)
        top_k = cls(top_k=2)
        top_k.update_state(T, P, sample_weight=W)
        assert float(top_k.result()) == pytest.approx(
            _precision_recall(T, top, w, -1e10)[index], rel=1e-5)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        keras.metrics.Precision(thresholds=1.5)


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


POSITIVE = np.abs(Y) + 0.1


@pytest.mark.parametrize("name, y_true, y_pred, per_sample", [
    ("MeanAbsolutePercentageError", POSITIVE, P,
     lambda: 100 * np.mean(np.abs(POSITIVE - P) / POSITIVE, -1)),
    ("MeanSquaredLogarithmicError", POSITIVE, P,
     lambda: np.mean((np.log1p(P) - np.log1p(POSITIVE)) ** 2, -1)),
    ("CosineSimilarity", Y, P, lambda: np.sum(_unit(Y) * _unit(P), -1)),
    ("LogCoshError", Y, P, lambda: np.mean(np.log(np.cosh(P - Y)), -1)),
    ("Hinge", T, P, lambda: np.mean(np.maximum(1 - (2 * T - 1) * P, 0), -1)),
    ("SquaredHinge", T, P, lambda: np.mean(np.maximum(1 - (2 * T - 1) * P, 0) ** 2, -1)),
    ("Poisson", POSITIVE, P, lambda: np.mean(P - POSITIVE * np.log(P + EPS), -1)),
])
def test_more_mean_metrics_weigh_whole_samples(name, y_true, y_pred, per_sample):
    metric = getattr(keras.metrics, name)()
    metric.update_state(y_true, y_pred, sample_weight=W)
    assert float(metric.result()) == pytest.approx(_weighted_mean(per_sample()), rel=1e-4)


def test_top_k_accuracies_count_ties_as_in_the_top_k():
    scores = P.copy()
    scores[0] = 0.5                                         # all tied: in any top k
    greater = (scores > np.take_along_axis(scores, LABELS[:, None], 1)).sum(-1)
    for k in (1, 2):
        expected = _weighted_mean((greater < k).astype(float))
        sparse = keras.metrics.SparseTopKCategoricalAccuracy(k=k)
        sparse.update_state(LABELS, scores, sample_weight=W)
        assert float(sparse.result()) == pytest.approx(expected, rel=1e-5)
        one_hot = keras.metrics.TopKCategoricalAccuracy(k=k)
        one_hot.update_state(ONE_HOT, scores, sample_weight=W)
        assert float(one_hot.result()) == pytest.approx(expected, rel=1e-5)


def test_confusion_counts_weigh_each_prediction_by_its_sample():
    w = np.broadcast_to(W[:, None], (N, K))
    positive, truth = P > 0.5, T > 0
    cells = {"TruePositives": positive & truth, "FalsePositives": positive & ~truth,
             "TrueNegatives": ~positive & ~truth, "FalseNegatives": ~positive & truth}
    for name, cell in cells.items():
        metric = getattr(keras.metrics, name)()
        metric.update_state(T, P, sample_weight=W)
        assert float(metric.result()) == pytest.approx(np.sum(w * cell), rel=1e-5), name
    listed = keras.metrics.FalsePositives(thresholds=[0.2, 0.7])
    listed.update_state(T, P)
    np.testing.assert_allclose(listed.result(), [np.sum((P > t) & ~truth) for t in (0.2, 0.7)])


def _f_beta(t, chosen, w, beta, axis):
    w = w[:, None]
    tp, fp = np.sum(w * chosen * t, axis), np.sum(w * chosen * (1 - t), axis)
    fn, support = np.sum(w * (1 - chosen) * t, axis), np.sum(w * t, axis)
    precision, recall = tp / (tp + fp + 1e-7), tp / (tp + fn + 1e-7)
    score = (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall + 1e-7)
    return score, support


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_f_beta_scores_match_the_keras_formula(average, beta):
    largest = (P == P.max(-1, keepdims=True)).astype(np.float32)   # the default threshold
    score, support = _f_beta(T, largest, W, beta, None if average == "micro" else 0)
    expected = {None: score, "micro": score, "macro": np.mean(score),
                "weighted": np.sum(score * support / (support.sum() + 1e-7))}[average]
    metric = keras.metrics.FBetaScore(average=average, beta=beta) if beta != 1.0 else \
        keras.metrics.F1Score(average=average)
    metric.update_state(T, P, sample_weight=W)
    np.testing.assert_allclose(metric.result(), expected, rtol=1e-5)
    above = keras.metrics.F1Score(threshold=0.4)
    above.update_state(T, P)
    np.testing.assert_allclose(above.result(),
                               _f_beta(T, (P > 0.4).astype(np.float32), np.ones(N), 1.0, 0)[0],
                               rtol=1e-5)
    with pytest.raises(ValueError, match="average"):
        keras.metrics.F1Score(average="mean")


def test_vector_results_are_logged_as_arrays_in_fit():
    keras.backend.clear_session()  # metric names count from zero (Keras's auto_name)
    model = keras.Sequential([keras.Input((K,)), keras.layers.Dense(K, activation="softmax")])
    model.compile("sgd", "categorical_crossentropy",
                  metrics=[keras.metrics.F1Score(), keras.metrics.Precision(thresholds=[0.2, 0.5])])
    history = model.fit(P, ONE_HOT, epochs=2, batch_size=4, verbose=2)
    assert np.shape(history.history["f1_score"][-1]) == (K,)
    assert np.shape(history.history["precision"][-1]) == (2,)
    probabilities = model.predict(P)
    f1 = keras.metrics.F1Score()
    f1.update_state(ONE_HOT, probabilities)
    result = model.evaluate(P, ONE_HOT, return_dict=True, verbose=1)
    np.testing.assert_allclose(result["f1_score"], f1.result(), rtol=1e-5)


def test_metrics_without_a_name_are_named_as_keras_3_names_them():
    # Keras 3: auto_name (the class in snake_case, made unique) for the metrics whose name
    # defaults to None; compile's string metrics log under their plain names
    keras.backend.clear_session()
    first, second = keras.metrics.AUC(), keras.metrics.AUC()
    assert (first.name, second.name) == ("auc", "auc_1")
    assert keras.metrics.Precision().name == "precision"
    assert keras.metrics.Precision().name == "precision_1"
    assert keras.metrics.AUC(name="x").name == "x" and keras.metrics.Mean().name == "mean"
    x = np.random.default_rng(0).normal(size=(10, 4)).astype(np.float32)
    y = (x[:, :1] > 0).astype(np.float32)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", "binary_crossentropy", metrics=["auc", keras.metrics.Recall()])
    assert sorted(model.evaluate(x, y, verbose=0, return_dict=True)) == ["auc", "loss", "recall"]
