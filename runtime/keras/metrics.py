"""`keras.metrics`: stateful metrics (`update_state`, `result`, `reset_state`) and functions.

    metric = keras.metrics.BinaryAccuracy()
    metric.update_state(y_true, y_pred)
    metric.result()                      # over every sample seen since the last reset

The state lives in non-trainable variables, so `update_state` can run in a compiled train
step; `Model.compile(metrics=[keras.metrics.AUC(), ...])` resets them at each epoch and
reports `result()`.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..arguments import raise_unknown_keywords
from ..layers import initializers as _layer_initializers
from ..layers import losses as _base
from ..layers import metrics as _compile_metrics
from ..layers import serialization as _serialization
from ..module import keras_snake_case, keras_unique_name, snake_case
from ..ops import array_composed as _composed
from ..ops import array_math, array_sort
from ..ops import array_scatter as _array_scatter
from ..ops import math_composed as _composed_math
from ..ops.core import convert_to_tensor
from ..ops.variables import Variable
from ..shapes import TensorShape
from . import losses as _losses


def binary_accuracy(y_true, y_pred, threshold: float = 0.5):
    """Per sample: the fraction of predictions on the label's side of `threshold`."""
    y_true, y_pred = _base._matched(y_true, y_pred)
    predicted = array_math.cast(array_math.greater(y_pred, threshold), y_pred.dtype)
    return array_math.reduce_mean(array_math.cast(array_math.equal(predicted, y_true), "float32"),
                                  axis=-1)


def categorical_accuracy(y_true, y_pred):
    """Per sample: 1 where the largest prediction is at the one-hot label, else 0."""
    predicted = array_math.argmax(convert_to_tensor(y_pred), axis=-1)
    labels = array_math.argmax(convert_to_tensor(y_true), axis=-1)
    return array_math.cast(array_math.equal(predicted, labels), "float32")


def sparse_categorical_accuracy(y_true, y_pred):
    """Per sample: 1 where the largest prediction is at the integer label, else 0."""
    y_pred = convert_to_tensor(y_pred)
    predicted = array_math.argmax(y_pred, axis=-1)
    labels = array_math.cast(y_true, predicted.dtype)
    if labels.shape.rank is not None and labels.shape.rank == y_pred.shape.rank:
        labels = array_math.squeeze(labels, [-1])
    return array_math.cast(array_math.equal(predicted, labels), "float32")


def accuracy(y_true, y_pred):
    """Per element: 1 where the prediction equals the label, else 0."""
    y_true, y_pred = _base._matched(y_true, y_pred)
    return array_math.cast(array_math.equal(y_true, y_pred), "float32")


mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy


class Metric:
    """Base class: create the state with `add_weight` in `__init__`, and define
    `update_state(...)` and `result()`; `reset_state()` sets every state variable to zero."""

    def __init__(self, name: str | None = None, dtype=None) -> None:
        # without a name, Keras 3's automatic one: the class's in snake_case, made unique
        # (`auc`, `auc_1`, ...; one counter with the layers' names)
        self._auto_named = not name
        self.name = name or keras_unique_name(keras_snake_case(type(self).__name__))
        self.dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32
        self._state: list[Variable] = []

    def add_weight(self, shape=(), initializer=None, dtype=None, name: str | None = None
                   ) -> Variable:
        """A non-trainable state variable, created eagerly: Keras 3's arguments, positionally
        `(shape, initializer, dtype, name)` (`initializer` defaults to zeros; `name` to
        "variable", "variable_1", ...). A leading name (tf.keras 2's `add_weight("total")`)
        is refused as Keras 3 refuses it: the name is a keyword."""
        return self.add_variable(shape, initializer, dtype, name=name)

    def add_variable(self, shape, initializer, dtype=None, aggregation: str = "sum",
                     name: str | None = None) -> Variable:
        """Keras 3's `add_variable`: `add_weight` with the multi-replica `aggregation`
        ("sum", the default, "mean", "only_first_replica" or "none")."""
        if isinstance(shape, str):
            raise ValueError(f"{self.name}.add_weight: cannot convert {shape!r} to a shape; "
                             f"the name is a keyword (add_weight(name={shape!r}, "
                             "shape=..., initializer=...)), as in Keras 3.")
        if aggregation not in ("sum", "mean", "only_first_replica", "none"):
            raise ValueError(f"{self.name}.add_variable: `aggregation` must be 'sum', 'mean', "
                             f"'only_first_replica' or 'none', got {aggregation!r}.")
        dtype = _dtypes.as_dtype(dtype) if dtype is not None else self.dtype
        name = name or keras_unique_name("variable")
        init = _layer_initializers.get("zeros" if initializer is None else initializer)
        with context.init_scope():
            value = np.asarray(convert_to_tensor(init(tuple(TensorShape(shape).as_list()),
                                                      dtype=dtype)), dtype.as_numpy_dtype)
            # under a distribution strategy each replica adds to its own copy, and a read
            # outside the replicas sums them (Keras's metric variables)
            variable = Variable(value, trainable=False, name=f"{self.name}/{name}",
                                aggregation=aggregation, synchronization="on_read")
        self._state.append(variable)
        return variable

    @property
    def variables(self) -> list[Variable]:
        return list(self._state)

    def update_state(self, *args: Any, **kwargs: Any):
        raise NotImplementedError(f"{type(self).__name__} must define update_state.")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must define result.")

    def reset_state(self) -> None:
        """Sets the state back to zeros."""
        for variable in self._state:
            variable.assign(np.zeros(variable.shape.as_list(), variable.dtype.as_numpy_dtype))

    reset_states = reset_state

    def __call__(self, *args: Any, **kwargs: Any):
        """`update_state(...)`, then the `result()`."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype.name}

    @classmethod
    def from_config(cls, config: dict) -> "Metric":
        return cls(**config)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name!r}>"


def _same_rank(x, y, expand_rank_1: bool = True):
    """Keras's `squeeze_or_expand_to_same_rank`: when the ranks differ by one and the longer
    one ends in an axis of 1, that axis is dropped (or, for rank 1 against rank 2 with
    `expand_rank_1`, the shorter one gets an axis of 1)."""
    x_rank, y_rank = x.shape.rank, y.shape.rank
    if x_rank is None or y_rank is None or x_rank == y_rank:
        return x, y
    if x_rank == y_rank + 1 and x.shape[-1] == 1:
        if y_rank == 1 and expand_rank_1:
            return x, array_math.expand_dims(y, -1)
        return array_math.squeeze(x, [-1]), y
    if y_rank == x_rank + 1 and y.shape[-1] == 1:
        if x_rank == 1 and expand_rank_1:
            return array_math.expand_dims(x, -1), y
        return x, array_math.squeeze(y, [-1])
    return x, y


def _axes_from(rank: int, start: int) -> list[int]:
    return list(range(start, rank))


def _samplewise(values, sample_weight, reduce_fn, dtype):
    """Keras's `reduce_to_samplewise_values`: (one value per sample, the weights or None).

    A weight is per sample (shape (N,)) or per element: the values are first reduced with
    `reduce_fn` to the weights' rank, then weighted; values of rank > 1 end reduced over
    every axis but the first."""
    values = array_math.cast(values, dtype)
    if sample_weight is not None:
        weight = array_math.cast(sample_weight, dtype)
        values, weight = _same_rank(values, weight)
        weight_rank, values_rank = weight.shape.rank, values.shape.rank
        if values_rank > weight_rank:
            values = reduce_fn(values, axis=_axes_from(values_rank, weight_rank))
        weight = _composed.broadcast_to(weight, array_math.shape(values))
        values = values * weight
        if weight_rank > 1:
            weight = reduce_fn(weight, axis=_axes_from(weight_rank, 1))
        sample_weight = weight
    if values.shape.rank > 1:
        values = reduce_fn(values, axis=_axes_from(values.shape.rank, 1))
    return values, sample_weight


class Mean(Metric):
    """The (weighted) mean of every value given to `update_state(values, sample_weight)`."""

    def __init__(self, name: str = "mean", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight(name="total")
        self.count = self.add_weight(name="count")

    def update_state(self, values, sample_weight=None):
        values, weight = _samplewise(values, sample_weight, array_math.reduce_mean, self.dtype)
        self.total.assign_add(array_math.reduce_sum(values))
        if weight is not None:
            count = array_math.reduce_sum(weight)
        elif values.shape.rank:
            count = array_math.cast(array_math.shape(values)[0], self.dtype)
        else:
            count = 1.0
        self.count.assign_add(count)

    def result(self):
        return _composed_math.divide_no_nan(self.total.read_value(), self.count.read_value())


class Sum(Metric):
    """The (weighted) sum of every value given to `update_state`."""

    def __init__(self, name: str = "sum", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight(name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = _samplewise(values, sample_weight, array_math.reduce_sum, self.dtype)
        self.total.assign_add(array_math.reduce_sum(values))

    def result(self):
        return self.total.read_value()


class MeanMetricWrapper(Mean):
    """The mean over samples of a per-sample function `fn(y_true, y_pred, **kwargs)`; under a
    mask on the predictions (`_keras_mask`), the mean over the kept values, as in Keras."""

    def __init__(self, fn: Callable, name: str | None = None, dtype=None, **kwargs: Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", "metric"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        mask = getattr(y_pred, "_keras_mask", None)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:
            sample_weight = _base.mask_weights(sample_weight, mask, self.dtype, "sum")
        super().update_state(values, sample_weight)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


def _define(class_name: str, fn: Callable, default_name: str, doc: str,
            **defaults: Any) -> type:
    names = list(defaults)

    def __init__(self, name: str = default_name, dtype=None, *args: Any, **kwargs: Any):
        unknown = [k for k in kwargs if k not in defaults]
        if unknown:
            raise_unknown_keywords(class_name, unknown, [*names, "name", "dtype"])
        values = dict(defaults)
        values.update(zip(names, args))
        values.update(kwargs)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)
    __init__.__qualname__ = f"{class_name}.__init__"
    return type(class_name, (MeanMetricWrapper,), {"__init__": __init__, "__doc__": doc,
                                                   "__module__": __name__})


Accuracy = _define("Accuracy", accuracy, "accuracy",
                   "How often predictions equal labels.")
BinaryAccuracy = _define("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                         "How often thresholded predictions equal 0/1 labels.", threshold=0.5)
CategoricalAccuracy = _define("CategoricalAccuracy", categorical_accuracy,
                              "categorical_accuracy",
                              "How often the largest prediction is at the one-hot label.")
SparseCategoricalAccuracy = _define("SparseCategoricalAccuracy", sparse_categorical_accuracy,
                                    "sparse_categorical_accuracy",
                                    "How often the largest prediction is at the integer label.")
MeanSquaredError = _define("MeanSquaredError", _losses.mean_squared_error, "mean_squared_error",
                           "The mean squared error over the samples seen.")
MeanAbsoluteError = _define("MeanAbsoluteError", _losses.mean_absolute_error,
                            "mean_absolute_error",
                            "The mean absolute error over the samples seen.")
BinaryCrossentropy = _define("BinaryCrossentropy", _losses.binary_crossentropy,
                             "binary_crossentropy", "The mean binary cross entropy.",
                             from_logits=False, label_smoothing=0.0)
CategoricalCrossentropy = _define("CategoricalCrossentropy", _losses.categorical_crossentropy,
                                  "categorical_crossentropy",
                                  "The mean categorical cross entropy.", from_logits=False,
                                  label_smoothing=0.0)
SparseCategoricalCrossentropy = _define("SparseCategoricalCrossentropy",
                                        _losses.sparse_categorical_crossentropy,
                                        "sparse_categorical_crossentropy",
                                        "The mean sparse categorical cross entropy.",
                                        from_logits=False)


def top_k_categorical_accuracy(y_true, y_pred, k: int = 5):
    """Per sample: 1 where the one-hot label's class is among the `k` largest predictions
    (classes tied with the k-th largest count as in it, as TensorFlow's in_top_k does)."""
    return sparse_top_k_categorical_accuracy(
        array_math.argmax(convert_to_tensor(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k: int = 5):
    """Per sample: 1 where the integer label's class is among the `k` largest predictions."""
    y_pred = array_math.cast(y_pred, "float32")
    labels = array_math.cast(y_true, "int32")
    if labels.shape.rank is not None and labels.shape.rank == y_pred.shape.rank:
        labels = array_math.squeeze(labels, [-1])
    depth = y_pred.shape[-1]
    target = array_math.reduce_sum(y_pred * array_math.one_hot(labels, depth, dtype="float32"),
                                   axis=-1, keepdims=True)
    above = array_math.reduce_sum(array_math.cast(array_math.greater(y_pred, target), "float32"),
                                  axis=-1)
    return array_math.cast(array_math.less(above, float(k)), "float32")


def cosine_similarity(y_true, y_pred, axis: int = -1):
    """Per sample: the cosine of the angle between the label and the prediction vectors."""
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


MeanAbsolutePercentageError = _define("MeanAbsolutePercentageError",
                                      _losses.mean_absolute_percentage_error,
                                      "mean_absolute_percentage_error",
                                      "The mean absolute percentage error.")
MeanSquaredLogarithmicError = _define("MeanSquaredLogarithmicError",
                                      _losses.mean_squared_logarithmic_error,
                                      "mean_squared_logarithmic_error",
                                      "The mean squared logarithmic error.")
CosineSimilarity = _define("CosineSimilarity", cosine_similarity, "cosine_similarity",
                           "The mean cosine similarity of labels and predictions.", axis=-1)
LogCoshError = _define("LogCoshError", _losses.log_cosh, "logcosh",
                       "The mean log(cosh(error)).")
Hinge = _define("Hinge", _losses.hinge, "hinge", "The mean hinge loss.")
SquaredHinge = _define("SquaredHinge", _losses.squared_hinge, "squared_hinge",
                       "The mean squared hinge loss.")
KLDivergence = _define("KLDivergence", _losses.kl_divergence, "kl_divergence",
                       "The mean Kullback-Leibler divergence.")
Poisson = _define("Poisson", _losses.poisson, "poisson", "The mean Poisson loss.")
TopKCategoricalAccuracy = _define("TopKCategoricalAccuracy", top_k_categorical_accuracy,
                                  "top_k_categorical_accuracy",
                                  "How often the one-hot label is in the top k predictions.",
                                  k=5)
SparseTopKCategoricalAccuracy = _define("SparseTopKCategoricalAccuracy",
                                        sparse_top_k_categorical_accuracy,
                                        "sparse_top_k_categorical_accuracy",
                                        "How often the integer label is in the top k "
                                        "predictions.", k=5)


class RootMeanSquaredError(Mean):
    """sqrt of the mean squared error over the samples seen."""

    def __init__(self, name: str = "root_mean_squared_error", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = array_math.cast(y_pred, self.dtype)
        y_pred, y_true = _same_rank(y_pred, array_math.cast(y_true, self.dtype))
        super().update_state(array_math.square(y_pred - y_true), sample_weight)

    def result(self):
        return array_math.sqrt(super().result())


def _confusion_weight(sample_weight, y_true, y_pred):
    """Keras's per-element weights of a confusion count: a weight per sample (N,) applies to
    each of that sample's predictions; any weight broadcasts to the predictions' shape."""
    if sample_weight is None:
        return None
    weight = array_math.expand_dims(array_math.cast(sample_weight, "float32"), -1)
    _, weight = _same_rank(y_true, weight, expand_rank_1=False)
    return _composed.broadcast_to(weight, array_math.shape(y_pred))


def _confusion_counts(y_true, y_pred, sample_weight, thresholds, multi_label: bool = False,
                      label_weights=None) -> dict:
    """The weighted true/false positives/negatives of `y_pred > t` for each threshold `t` (0/1
    or boolean labels: any nonzero label is positive): shape (T,), or (T, labels) with
    `multi_label`."""
    y_pred = array_math.cast(y_pred, "float32")
    y_pred, y_true = _same_rank(y_pred, array_math.cast(y_true, "float32"))
    weight = _confusion_weight(sample_weight, y_true, y_pred)
    if label_weights is not None and not multi_label:
        labels = _composed.broadcast_to(label_weights, array_math.shape(y_pred))
        weight = labels if weight is None else weight * labels
    truth = array_math.cast(array_math.not_equal(y_true, 0.0), "float32")
    if multi_label:
        column = array_math.reshape(thresholds, [-1, 1, 1])
        preds, truth = array_math.expand_dims(y_pred, 0), array_math.expand_dims(truth, 0)
        weight = 1.0 if weight is None else array_math.expand_dims(weight, 0)
    else:
        column = array_math.reshape(thresholds, [-1, 1])
        preds, truth = array_math.reshape(y_pred, [1, -1]), array_math.reshape(truth, [1, -1])
        weight = 1.0 if weight is None else array_math.reshape(weight, [1, -1])
    above = array_math.cast(array_math.greater(preds, column), "float32")
    below = 1.0 - above
    return {name: array_math.reduce_sum(a * t * weight, axis=1) for name, a, t in (
        ("true_positives", above, truth), ("false_positives", above, 1.0 - truth),
        ("true_negatives", below, 1.0 - truth), ("false_negatives", below, truth))}


_NEG_INF = -1e10  # Keras's threshold under every kept prediction when top_k is given


def _top_k_only(y_pred, k: int):
    """`y_pred` with all but the `k` largest values of the last axis set to -1e10."""
    _, indices = array_sort.top_k(y_pred, k)
    depth = y_pred.shape[-1]
    mask = array_math.reduce_sum(array_math.one_hot(indices, depth, dtype=y_pred.dtype), axis=-2)
    return y_pred * mask + _NEG_INF * (1.0 - mask)


class _ConfusionCounts(Metric):
    """True/false positives and false negatives of `y_pred > threshold` for 0/1 labels, at
    each of `thresholds` (default 0.5); `top_k` keeps the k largest predictions of each
    sample, `class_id` watches one class (the last axis)."""

    def __init__(self, thresholds=None, top_k: int | None = None, class_id: int | None = None,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        given = [] if thresholds is None else [float(t) for t in np.ravel(thresholds)]
        if any(not 0.0 <= t <= 1.0 for t in given):
            raise ValueError(f"{type(self).__name__}: threshold values must be in [0, 1], got "
                             f"{thresholds!r}.")
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(top_k, int) or
                                  top_k < 1):
            raise ValueError(f"{type(self).__name__}: top_k must be a positive integer, got "
                             f"{top_k!r}.")
        self.init_thresholds, self.top_k, self.class_id = thresholds, top_k, class_id
        self.thresholds = given or [0.5 if top_k is None else _NEG_INF]
        self._one = thresholds is None or np.ndim(thresholds) == 0
        shape = (len(self.thresholds),)
        self.true_positives = self.add_weight(name="true_positives", shape=shape)
        self.false_positives = self.add_weight(name="false_positives", shape=shape)
        self.false_negatives = self.add_weight(name="false_negatives", shape=shape)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = array_math.cast(y_pred, "float32")
        y_true = array_math.cast(y_true, "float32")
        if self.top_k is not None:
            y_pred = _top_k_only(y_pred, self.top_k)
        if self.class_id is not None:
            y_true, y_pred = y_true[..., self.class_id], y_pred[..., self.class_id]
        counts = _confusion_counts(y_true, y_pred, sample_weight,
                                   np.array(self.thresholds, np.float32))
        for key in ("true_positives", "false_positives", "false_negatives"):
            getattr(self, key).assign_add(counts[key])

    def _ratio(self, other):
        tp = self.true_positives.read_value()
        value = _composed_math.divide_no_nan(tp, tp + other.read_value())
        return value[0] if self._one else value

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


class Precision(_ConfusionCounts):
    """true positives / (true positives + false positives), of `y_pred > thresholds` (one
    value, or one per threshold when a list is given)."""

    def __init__(self, thresholds=None, top_k: int | None = None, class_id: int | None = None,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(thresholds, top_k, class_id, name=name, dtype=dtype)

    def result(self):
        return self._ratio(self.false_positives)


class Recall(_ConfusionCounts):
    """true positives / (true positives + false negatives), of `y_pred > thresholds` (one
    value, or one per threshold when a list is given)."""

    def __init__(self, thresholds=None, top_k: int | None = None, class_id: int | None = None,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(thresholds, top_k, class_id, name=name, dtype=dtype)

    def result(self):
        return self._ratio(self.false_negatives)


class _AtConstraint(Metric):
    """The true/false positives/negatives of `y_pred > t` at `num_thresholds` thresholds
    spread evenly over [0, 1] (one at 0.5 when num_thresholds is 1); `result` is the largest
    value of one rate among the thresholds where another reaches `self.value` (0 if none)."""

    _VALUE = ""  # the constraint's argument name: "specificity", "recall", ...
    _RATES = ("", "")  # (the rate constrained, the rate maximised)

    def __init__(self, value: float, num_thresholds: int = 200, class_id: int | None = None,
                 name: str | None = None, dtype=None) -> None:
        if not 0 <= value <= 1:
            raise ValueError(f"Argument `{self._VALUE}` must be in the range [0, 1]. "
                             f"Received: {self._VALUE}={value}")
        if num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds}")
        super().__init__(name=name, dtype=dtype)
        self.value, self.num_thresholds, self.class_id = value, num_thresholds, class_id
        if num_thresholds == 1:
            self.thresholds = [0.5]
        else:  # 0 itself counts a prediction of 0 as positive, as Keras's buckets do
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self.thresholds = [-_base._EPSILON] + inner + [1.0]
        shape = (len(self.thresholds),)
        for key in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            setattr(self, key, self.add_weight(name=key, shape=shape))

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = array_math.cast(y_pred, "float32")
        y_true = array_math.cast(y_true, "float32")
        if self.class_id is not None:
            y_true, y_pred = y_true[..., self.class_id], y_pred[..., self.class_id]
        counts = _confusion_counts(y_true, y_pred, sample_weight,
                                   np.array(self.thresholds, np.float32))
        for key, count in counts.items():
            getattr(self, key).assign_add(count)

    def _rates(self) -> dict:
        tp, fp, tn, fn = (getattr(self, key).read_value() for key in (
            "true_positives", "false_positives", "true_negatives", "false_negatives"))
        ratio = _composed_math.divide_no_nan
        return {"sensitivity": ratio(tp, tp + fn), "specificity": ratio(tn, tn + fp),
                "recall": ratio(tp, tp + fn), "precision": ratio(tp, tp + fp)}

    def result(self):
        """The largest `_RATES[1]` among the thresholds where `_RATES[0]` >= the value."""
        return self._best(*self._RATES)

    def _best(self, constrained: str, dependent: str):
        rates = self._rates()
        feasible = array_math.greater_equal(rates[constrained], self.value)
        chosen = array_math.where(feasible, rates[dependent],
                                  array_math.zeros_like(rates[dependent]))
        return array_math.reduce_max(array_math.concat([chosen, [0.0]], 0))

    def get_config(self) -> dict:
        return {**super().get_config(), "class_id": self.class_id,
                "num_thresholds": self.num_thresholds, self._VALUE: self.value}


class SensitivityAtSpecificity(_AtConstraint):
    """The best sensitivity (recall) at a threshold where the specificity is at least
    `specificity`."""

    _VALUE, _RATES = "specificity", ("specificity", "sensitivity")

    def __init__(self, specificity: float, num_thresholds: int = 200,
                 class_id: int | None = None, name: str | None = None, dtype=None) -> None:
        super().__init__(specificity, num_thresholds, class_id, name=name, dtype=dtype)


class SpecificityAtSensitivity(_AtConstraint):
    """The best specificity at a threshold where the sensitivity is at least `sensitivity`."""

    _VALUE, _RATES = "sensitivity", ("sensitivity", "specificity")

    def __init__(self, sensitivity: float, num_thresholds: int = 200,
                 class_id: int | None = None, name: str | None = None, dtype=None) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name=name, dtype=dtype)


class PrecisionAtRecall(_AtConstraint):
    """The best precision at a threshold where the recall is at least `recall`."""

    _VALUE, _RATES = "recall", ("recall", "precision")

    def __init__(self, recall: float, num_thresholds: int = 200, class_id: int | None = None,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(recall, num_thresholds, class_id, name=name, dtype=dtype)


class RecallAtPrecision(_AtConstraint):
    """The best recall at a threshold where the precision is at least `precision`."""

    _VALUE, _RATES = "precision", ("precision", "recall")

    def __init__(self, precision: float, num_thresholds: int = 200,
                 class_id: int | None = None, name: str | None = None, dtype=None) -> None:
        super().__init__(precision, num_thresholds, class_id, name=name, dtype=dtype)


class _Count(Metric):
    """The weighted count of one cell of the confusion matrix of `y_pred > thresholds` (one
    value, or one per threshold when a list is given)."""

    _cell = ""

    def __init__(self, thresholds=None, name: str | None = None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        given = [0.5] if thresholds is None else [float(t) for t in np.ravel(thresholds)]
        if any(not 0.0 <= t <= 1.0 for t in given):
            raise ValueError(f"{type(self).__name__}: threshold values must be in [0, 1], got "
                             f"{thresholds!r}.")
        self.init_thresholds, self.thresholds = thresholds, given
        self._one = thresholds is None or np.ndim(thresholds) == 0
        self.accumulator = self.add_weight(name="accumulator", shape=(len(given),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _confusion_counts(y_true, y_pred, sample_weight,
                                   np.array(self.thresholds, np.float32))
        self.accumulator.assign_add(counts[self._cell])

    def result(self):
        value = self.accumulator.read_value()
        return value[0] if self._one else value

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds}


def _count_class(class_name: str, cell: str) -> type:
    def __init__(self, thresholds=None, name: str | None = None, dtype=None) -> None:
        _Count.__init__(self, thresholds, name=name or cell, dtype=dtype)
    __init__.__qualname__ = f"{class_name}.__init__"
    return type(class_name, (_Count,), {"__init__": __init__, "_cell": cell,
                                        "__doc__": f"The weighted number of {cell.replace('_', ' ')}.",
                                        "__module__": __name__})


TruePositives = _count_class("TruePositives", "true_positives")
FalsePositives = _count_class("FalsePositives", "false_positives")
TrueNegatives = _count_class("TrueNegatives", "true_negatives")
FalseNegatives = _count_class("FalseNegatives", "false_negatives")


class FBetaScore(Metric):
    """The F-beta score of (batch, classes) predictions as Keras computes it: predictions
    above `threshold` (by default, each sample's largest) against 0/1 labels, counted per
    class; `average` None (one score per class), "micro" (over every prediction), "macro"
    (the mean of the classes') or "weighted" (weighted by each class's labels)."""

    def __init__(self, average: str | None = None, beta: float = 1.0,
                 threshold: float | None = None, name: str = "fbeta_score", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError(f"{type(self).__name__}: average must be None, 'micro', 'macro' or "
                             f"'weighted', got {average!r}.")
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"{type(self).__name__}: beta must be a number > 0, got {beta!r}.")
        if threshold is not None and (isinstance(threshold, bool) or
                                      not isinstance(threshold, (int, float)) or
                                      not 0.0 < threshold <= 1.0):
            raise ValueError(f"{type(self).__name__}: threshold must be a number in (0, 1], "
                             f"got {threshold!r}.")
        self.average, self.beta, self.threshold = average, float(beta), threshold
        self._counts: dict[str, Variable] = {}

    def _build(self, y_true, y_pred) -> None:
        if y_pred.shape.rank != 2 or y_true.shape.rank != 2 or y_pred.shape[-1] is None:
            raise ValueError(f"{type(self).__name__} expects inputs of shape (batch, classes), "
                             f"got y_true {y_true.shape} and y_pred {y_pred.shape}.")
        shape = () if self.average == "micro" else (y_pred.shape[-1],)
        for key in ("true_positives", "false_positives", "false_negatives",
                    "intermediate_weights"):
            self._counts[key] = self.add_weight(name=key, shape=shape)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = array_math.cast(y_true, self.dtype)
        y_pred = array_math.cast(y_pred, self.dtype)
        if not self._counts:
            self._build(y_true, y_pred)
        if self.threshold is None:
            top = array_math.reduce_max(y_pred, axis=-1, keepdims=True)
            chosen = array_math.logical_and(array_math.greater_equal(y_pred, top),
                                            array_math.greater(array_math.abs(y_pred), 1e-9))
        else:
            chosen = array_math.greater(y_pred, self.threshold)
        y_pred = array_math.cast(chosen, self.dtype)
        weight = None if sample_weight is None else \
            array_math.expand_dims(array_math.cast(sample_weight, self.dtype), 1)
        axis = None if self.average == "micro" else 0
        for key, values in (("true_positives", y_pred * y_true),
                            ("false_positives", y_pred * (1.0 - y_true)),
                            ("false_negatives", (1.0 - y_pred) * y_true),
                            ("intermediate_weights", y_true)):
            values = values if weight is None else values * weight
            self._counts[key].assign_add(array_math.reduce_sum(values, axis=axis))

    def result(self):
        if not self._counts:
            return convert_to_tensor(0.0)
        tp, fp, fn, support = (self._counts[k].read_value() for k in (
            "true_positives", "false_positives", "false_negatives", "intermediate_weights"))
        eps = 1e-7
        precision = tp / (tp + fp + eps)
        recall = tp / (tp + fn + eps)
        beta2 = self.beta ** 2
        score = precision * recall / (beta2 * precision + recall + eps) * (1.0 + beta2)
        if self.average == "weighted":
            return array_math.reduce_sum(score * support / (array_math.reduce_sum(support) + eps))
        if self.average is not None:
            return array_math.reduce_mean(score)
        return score

    def get_config(self) -> dict:
        return {**super().get_config(), "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score (`FBetaScore` with beta 1)."""

    def __init__(self, average: str | None = None, threshold: float | None = None,
                 name: str = "f1_score", dtype=None) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config



class R2Score(Metric):
    """The coefficient of determination of (batch, outputs) predictions, as Keras 3 computes
    it: per output, `1 - sum(w * (y - y_pred) ** 2) / (sum(w * y ** 2) - sum(w * y) ** 2 /
    sum(w))` (0 where that is infinite), then aggregated by `class_aggregation`
    ("uniform_average": the mean; "variance_weighted_average": weighted by each output's
    total sum of squares; None: one score per output). With `num_regressors` p > 0 the score
    is adjusted, `1 - (1 - r2) * (n - 1) / (n - p - 1)`, where n counts every label value seen
    (as Keras counts it); when p >= n - 1 the plain score is kept (eagerly, with Keras's
    warning)."""

    def __init__(self, class_aggregation: str | None = "uniform_average",
                 num_regressors: int = 0, name: str = "r2_score", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError("Invalid value for argument `class_aggregation`. Expected one of "
                             "(None, 'uniform_average', 'variance_weighted_average'). "
                             f"Received: class_aggregation={class_aggregation!r}")
        if isinstance(num_regressors, bool) or not isinstance(num_regressors, int) or \
                num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected an int "
                             f">= 0. Received: num_regressors={num_regressors!r}")
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_weight(name="num_samples")
        self._sums: dict[str, Variable] = {}

    def _build(self, y_true, y_pred) -> None:
        if y_pred.shape.rank != 2 or y_true.shape.rank != 2:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim). "
                             f"Received input shapes: y_pred.shape={y_pred.shape} and "
                             f"y_true.shape={y_true.shape}.")
        if y_pred.shape[-1] is None or y_true.shape[-1] is None:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim), "
                             "with output_dim fully defined (not None). Received input shapes: "
                             f"y_pred.shape={y_pred.shape} and y_true.shape={y_true.shape}.")
        for key in ("squared_sum", "sum", "residual", "count"):
            self._sums[key] = self.add_weight(name=key, shape=(y_pred.shape[-1],))

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _same_rank(array_math.cast(convert_to_tensor(y_true), self.dtype),
                                    array_math.cast(convert_to_tensor(y_pred), self.dtype))
        if not self._sums:
            self._build(y_true, y_pred)
        weight = array_math.cast(convert_to_tensor(1.0 if sample_weight is None
                                                   else sample_weight), self.dtype)
        if weight.shape.rank == 1:
            weight = array_math.expand_dims(weight, 1)
        weight = _composed.broadcast_to(weight, array_math.shape(y_true))
        weighted = y_true * weight
        for key, value in (("sum", weighted), ("squared_sum", y_true * weighted),
                           ("residual", array_math.square(y_true - y_pred) * weight),
                           ("count", weight)):
            self._sums[key].assign_add(array_math.reduce_sum(value, axis=0))
        self.num_samples.assign_add(array_math.cast(array_math.size(y_true), self.dtype))

    def result(self):
        if not self._sums:
            return convert_to_tensor(0.0)
        total_sum, squared, residual, count = (self._sums[k].read_value() for k in (
            "sum", "squared_sum", "residual", "count"))
        total = squared - total_sum * (total_sum / count)
        raw = 1.0 - residual / total
        raw = array_math.where(_composed.is_inf(raw), array_math.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = array_math.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = array_math.reduce_sum(total * raw) / array_math.reduce_sum(total)
        else:
            score = raw
        return self._adjusted(score) if self.num_regressors else score

    def _adjusted(self, score):
        """The adjusted score, or `score` when there are too few samples for it."""
        n, p = self.num_samples.read_value(), float(self.num_regressors)
        if context.executing_eagerly() and p >= float(n.numpy()) - 1:
            warnings.warn("More independent predictors than datapoints in adjusted R2 score. "
                          "Falling back to standard R2 score." if p > float(n.numpy()) - 1 else
                          "Division by zero in Adjusted R2 score. Falling back to standard "
                          "R2 score.", stacklevel=3)
            return score
        adjusted = 1.0 - (1.0 - score) * (n - 1.0) / (n - p - 1.0)
        return array_math.where(array_math.greater_equal(p, n - 1.0), score, adjusted)

    def get_config(self) -> dict:
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}

def pearson_correlation(y_true, y_pred, axis: int = -1):
    """The Pearson correlation of `y_true` and `y_pred` along `axis`, one value per sample."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_math.cast(convert_to_tensor(y_true), y_pred.dtype)

    def standardized(v):
        centred = v - array_math.reduce_mean(v, axis=axis, keepdims=True)
        return centred / _composed_math.reduce_std(v, axis=axis, keepdims=True)
    return array_math.reduce_mean(standardized(y_true) * standardized(y_pred), axis=axis)


def concordance_correlation(y_true, y_pred, axis: int = -1):
    """Lin's concordance correlation of `y_true` and `y_pred` along `axis`, one value per
    sample: 2 cov / (var_true + var_pred + (mean_true - mean_pred) ** 2)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_math.cast(convert_to_tensor(y_true), y_pred.dtype)
    true_mean = array_math.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = array_math.reduce_mean(y_pred, axis=axis, keepdims=True)
    covariance = array_math.reduce_mean((y_true - true_mean) * (y_pred - pred_mean), axis=axis)
    spread = (_composed_math.reduce_variance(y_true, axis=axis)
              + _composed_math.reduce_variance(y_pred, axis=axis)
              + array_math.square(array_math.squeeze(true_mean - pred_mean, [axis])))
    return 2.0 * covariance / (spread + _base._EPSILON)


PearsonCorrelation = _define("PearsonCorrelation", pearson_correlation, "pearson_correlation",
                             "The mean over samples of the Pearson correlation along `axis`.",
                             axis=-1)
ConcordanceCorrelation = _define("ConcordanceCorrelation", concordance_correlation,
                                 "concordance_correlation",
                                 "The mean over samples of the concordance correlation.",
                                 axis=-1)
CategoricalHinge = _define("CategoricalHinge", _losses.categorical_hinge, "categorical_hinge",
                           "The mean categorical hinge loss.")


class IoU(Metric):
    """Intersection over union of the classes `target_class_ids`, from a confusion matrix
    accumulated over the batches: per class tp / (tp + fp + fn), averaged over the target
    classes that occurred (in the labels or the predictions). Labels and predictions are
    class ids (`sparse_y_true`, `sparse_y_pred`) or scores whose argmax along `axis` is the
    class; entries whose label is `ignore_class` are left out."""

    def __init__(self, num_classes: int, target_class_ids, name: str | None = None, dtype=None,
                 ignore_class: int | None = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype)
        if max(target_class_ids, default=0) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which "
                             f"is [0, {num_classes}).")
        self.num_classes, self.target_class_ids = int(num_classes), list(target_class_ids)
        self.ignore_class, self.axis = ignore_class, axis
        self.sparse_y_true, self.sparse_y_pred = sparse_y_true, sparse_y_pred
        self.total_cm = self.add_weight(name="total_confusion_matrix",
                                        shape=(self.num_classes, self.num_classes))

    def _ids(self, values, sparse: bool):
        values = convert_to_tensor(values)
        if not sparse:
            values = array_math.argmax(values, axis=self.axis)
        return array_math.reshape(array_math.cast(values, _dtypes.int32), [-1])

    def update_state(self, y_true, y_pred, sample_weight=None):
        labels = self._ids(y_true, self.sparse_y_true)
        predictions = self._ids(y_pred, self.sparse_y_pred)
        weight = array_math.ones_like(labels, dtype=self.dtype) if sample_weight is None else \
            array_math.reshape(array_math.cast(convert_to_tensor(sample_weight), self.dtype),
                               [-1])
        if self.ignore_class is not None:
            kept = array_math.not_equal(labels, self.ignore_class)
            labels, predictions, weight = (array_math.boolean_mask(v, kept)
                                           for v in (labels, predictions, weight))
        cells = labels * self.num_classes + predictions
        counts = _array_scatter.unsorted_segment_sum(weight, cells, self.num_classes ** 2)
        self.total_cm.assign_add(array_math.reshape(counts, [self.num_classes,
                                                             self.num_classes]))

    def result(self):
        cm = self.total_cm.read_value()
        true_positives = _linalg_diag_part(cm)
        denominator = array_math.reduce_sum(cm, axis=0) + array_math.reduce_sum(cm, axis=1) \
            - true_positives
        ids = np.asarray(self.target_class_ids, np.int32)
        tp, den = array_math.gather(true_positives, ids), array_math.gather(denominator, ids)
        valid = array_math.reduce_sum(array_math.cast(array_math.not_equal(den, 0.0),
                                                      self.dtype))
        iou = _composed_math.divide_no_nan(tp, den)
        return _composed_math.divide_no_nan(array_math.reduce_sum(iou), valid)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_classes": self.num_classes,
                "target_class_ids": self.target_class_ids, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


def _without(config: dict, key: str) -> dict:
    """`config` without `key` (a subclass fixes that constructor argument)."""
    return {k: v for k, v in config.items() if k != key}


def _linalg_diag_part(matrix):
    n = int(matrix.shape[0])
    return array_math.gather(array_math.reshape(matrix, [-1]),
                             np.arange(n, dtype=np.int32) * (n + 1))


class MeanIoU(IoU):
    """IoU averaged over every class (`num_classes` of them)."""

    def __init__(self, num_classes: int, name: str | None = None, dtype=None,
                 ignore_class: int | None = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return _without(super().get_config(), "target_class_ids")


class BinaryIoU(IoU):
    """IoU of binary labels and predictions made binary by `threshold` (a prediction above
    it is class 1), over `target_class_ids` (both classes by default)."""

    def __init__(self, target_class_ids=(0, 1), threshold: float = 0.5,
                 name: str | None = None, dtype=None) -> None:
        super().__init__(2, list(target_class_ids), name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        above = array_math.greater(array_math.cast(convert_to_tensor(y_pred), self.dtype),
                                   self.threshold)
        super().update_state(y_true, array_math.cast(above, _dtypes.int32), sample_weight)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype.name,
                "target_class_ids": self.target_class_ids, "threshold": self.threshold}


class OneHotIoU(IoU):
    """IoU of one-hot labels (and class scores, unless `sparse_y_pred`)."""

    def __init__(self, num_classes: int, target_class_ids, name: str | None = None, dtype=None,
                 ignore_class: int | None = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return _without(super().get_config(), "sparse_y_true")


class OneHotMeanIoU(MeanIoU):
    """MeanIoU of one-hot labels (and class scores, unless `sparse_y_pred`)."""

    def __init__(self, num_classes: int, name: str | None = None, dtype=None,
                 ignore_class: int | None = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        return _without(super().get_config(), "sparse_y_true")


hinge, squared_hinge, categorical_hinge = _losses.hinge, _losses.squared_hinge, \
    _losses.categorical_hinge
huber, poisson, logcosh = _losses.huber, _losses.poisson, _losses.log_cosh
KLD = kld = kullback_leibler_divergence = _losses.kl_divergence
MAPE = mape = _losses.mean_absolute_percentage_error
MSLE = msle = _losses.mean_squared_logarithmic_error


_CURVES = {"roc": "ROC", "ROC": "ROC", "pr": "PR", "PR": "PR", "prgain": "PRGAIN",
           "PRGAIN": "PRGAIN"}
_SUMMATIONS = {"interpolation": "interpolation", "Interpolation": "interpolation",
               "majoring": "majoring", "Majoring": "majoring", "minoring": "minoring",
               "Minoring": "minoring"}


def _choice(table: dict, value, what: str, accepted: str) -> str:
    if not isinstance(value, str) or value not in table:
        raise ValueError(f"AUC {what} must be one of {accepted}, got {value!r}.")
    return table[value]


class AUC(Metric):
    """The area under the ROC curve (`curve="ROC"`), the precision-recall curve ("PR") or the
    precision-recall-gain curve ("PRGAIN") of 0/1 labels and scores in [0, 1], from the
    confusion counts at `num_thresholds` evenly spaced thresholds (or the given
    `thresholds`), summed as in Keras: `summation_method` "interpolation" (trapezoids; for PR
    the Davis-Goadrich interpolation), "minoring" or "majoring" (lower or upper Riemann sums).
    `multi_label=True` computes one AUC per label (the last axis) and averages them, weighted
    by `label_weights`; `from_logits=True` applies a sigmoid to the predictions first."""

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: str | None = None, dtype=None,
                 thresholds=None, multi_label: bool = False, num_labels: int | None = None,
                 label_weights=None, from_logits: bool = False) -> None:
        self.curve = _choice(_CURVES, curve, "curve", '"ROC", "PR" or "PRGAIN"')
        self.summation_method = _choice(_SUMMATIONS, summation_method, "summation_method",
                                        '"interpolation", "minoring" or "majoring"')
        super().__init__(name=name, dtype=dtype)
        self._given_thresholds = None if thresholds is None else \
            sorted(float(t) for t in np.ravel(thresholds))
        if self._given_thresholds is not None:
            inner = self._given_thresholds
            self.num_thresholds = len(inner) + 2
        else:
            if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, int) or \
                    num_thresholds <= 1:
                raise ValueError(f"AUC num_thresholds must be an integer > 1, got "
                                 f"{num_thresholds!r}.")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self._thresholds = np.array([-1e-7, *inner, 1.0 + 1e-7], np.float32)
        if num_labels is not None and not multi_label:
            raise ValueError("AUC num_labels is needed only when multi_label is True.")
        self.multi_label, self.num_labels = bool(multi_label), num_labels
        self.label_weights = None if label_weights is None else \
            np.asarray(label_weights, np.float32)
        self.from_logits = bool(from_logits)
        self._counts: dict[str, Variable] = {}
        if not self.multi_label or num_labels is not None:
            self._build(num_labels)

    def _build(self, num_labels: int | None) -> None:
        shape = (self.num_thresholds,) if not self.multi_label else \
            (self.num_thresholds, int(num_labels))
        for key in ("true_positives", "false_positives", "true_negatives", "false_negatives"):
            self._counts[key] = self.add_weight(name=key, shape=shape)
            setattr(self, key, self._counts[key])

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = convert_to_tensor(y_pred)
        if not self._counts:  # multi_label without num_labels: sized by the first batch
            if y_pred.shape.rank != 2 or y_pred.shape[-1] is None:
                raise ValueError(f"AUC(multi_label=True) needs predictions of shape (batch, "
                                 f"labels), got {y_pred.shape}.")
            self._build(y_pred.shape[-1])
        if self.from_logits:
            y_pred = array_math.sigmoid(y_pred)
        y_pred = array_math.clip_by_value(array_math.cast(y_pred, "float32"), 0.0, 1.0)
        counts = _confusion_counts(y_true, y_pred, sample_weight, self._thresholds,
                                   self.multi_label,
                                   None if self.multi_label else self.label_weights)
        for key, variable in self._counts.items():
            variable.assign_add(counts[key])

    def _by_label(self, terms):
        if not self.multi_label:
            return array_math.reduce_sum(terms)
        per_label = array_math.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return array_math.reduce_mean(per_label)
        return _composed_math.divide_no_nan(array_math.reduce_sum(per_label * self.label_weights),
                                            float(np.sum(self.label_weights)))

    def _interpolated_pr(self, tp, fp, fn):
        """Davis & Goadrich's interpolation of the PR curve (Keras's closed form)."""
        n = self.num_thresholds
        dtp = tp[: n - 1] - tp[1:]
        p = tp + fp
        dp = p[: n - 1] - p[1:]
        slope = _composed_math.divide_no_nan(dtp, array_math.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both = array_math.logical_and(array_math.greater(p[: n - 1], 0.0),
                                      array_math.greater(p[1:], 0.0))
        ratio = array_math.where(both, _composed_math.divide_no_nan(
            p[: n - 1], array_math.maximum(p[1:], 0.0)), array_math.ones_like(p[1:]))
        terms = _composed_math.divide_no_nan(slope * (dtp + intercept * array_math.log(ratio)),
                                             array_math.maximum(tp[1:] + fn[1:], 0.0))
        return self._by_label(terms)

    def result(self):
        if not self._counts:
            return convert_to_tensor(0.0)
        tp, fp, tn, fn = (self._counts[k].read_value() for k in (
            "true_positives", "false_positives", "true_negatives", "false_negatives"))
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr(tp, fp, fn)
        recall = _composed_math.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _composed_math.divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, _composed_math.divide_no_nan(tp, tp + fp)
        else:
            x, y = self._gains(tp, fp, tn, fn)
        n = self.num_thresholds
        if self.summation_method == "interpolation":
            heights = (y[: n - 1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = array_math.minimum(y[: n - 1], y[1:])
        else:
            heights = array_math.maximum(y[: n - 1], y[1:])
        return self._by_label((x[: n - 1] - x[1:]) * heights)

    @staticmethod
    def _gains(tp, fp, tn, fn):
        """(recall gain, precision gain) of the PRGAIN curve, as Keras defines them."""
        scale = _composed_math.divide_no_nan(tp + fn, tn + fp)
        no_tp = array_math.equal(tp, 0.0)
        recall_gain = 1.0 - scale * _composed_math.divide_no_nan(fn, tp)
        precision_gain = 1.0 - scale * _composed_math.divide_no_nan(fp, tp)
        recall_gain = array_math.maximum(array_math.where(no_tp, 0.0 * tp, recall_gain), 0.0)
        precision_gain = array_math.where(no_tp, 0.0 * tp + 1.0, precision_gain)
        return recall_gain, precision_gain

    @property
    def thresholds(self) -> list[float]:
        """The thresholds the counts are taken at (with -epsilon and 1 + epsilon)."""
        return [float(t) for t in self._thresholds]

    def get_config(self) -> dict:
        config = {**super().get_config(), "num_thresholds": self.num_thresholds,
                  "curve": self.curve, "summation_method": self.summation_method,
                  "multi_label": self.multi_label, "num_labels": self.num_labels,
                  "label_weights": None if self.label_weights is None else
                  self.label_weights.tolist(), "from_logits": self.from_logits}
        if self._given_thresholds is not None:
            config["thresholds"] = list(self._given_thresholds)
        return config


_CLASSES = {cls.__name__: cls for cls in (
    Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    MeanSquaredError, MeanAbsoluteError, RootMeanSquaredError, BinaryCrossentropy,
    CategoricalCrossentropy, SparseCategoricalCrossentropy, Precision, Recall, AUC,
    MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity, LogCoshError,
    Hinge, SquaredHinge, KLDivergence, Poisson, TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, TruePositives, FalsePositives, TrueNegatives,
    FalseNegatives, FBetaScore, F1Score, R2Score, PearsonCorrelation, ConcordanceCorrelation,
    CategoricalHinge, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU,
    SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision)}
_FUNCTIONS = {fn.__name__: fn for fn in (binary_accuracy, categorical_accuracy,
                                         sparse_categorical_accuracy, accuracy,
                                         top_k_categorical_accuracy,
                                         sparse_top_k_categorical_accuracy,
                                         cosine_similarity, pearson_correlation,
                                         concordance_correlation)}


def serialize(metric) -> Any:
    """A metric as a name (a function) or a `{"class_name", "config"}` dict."""
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    return _serialization.serialize_value(metric)


def deserialize(config, custom_objects: dict | None = None):
    """The metric described by `serialize`'s result."""
    if isinstance(config, dict) and config.get("class_name") in _CLASSES:
        return _CLASSES[config["class_name"]].from_config(config.get("config", {}))
    if isinstance(config, str):
        return get(config)
    with _serialization.custom_object_scope(custom_objects or {}):
        return _serialization.deserialize_value(config)


_serialization.register_codec("metric", serialize, deserialize)


_BY_NAME: dict[str, type] = {**_CLASSES, **{snake_case(name): cls for name, cls in _CLASSES.items()},
                             "bce": BinaryCrossentropy, "BCE": BinaryCrossentropy,
                             "mse": MeanSquaredError, "MSE": MeanSquaredError,
                             "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
                             "mape": MeanAbsolutePercentageError,
                             "MAPE": MeanAbsolutePercentageError,
                             "msle": MeanSquaredLogarithmicError,
                             "MSLE": MeanSquaredLogarithmicError}


def get(identifier):
    """A metric from a name, as Keras 3 resolves it: a class name ("AUC") or its snake_case
    ("auc", "root_mean_squared_error") or an alias ("mse", "mae", "bce") gives a new metric
    object; a config dict is deserialized; a callable or metric object is returned as is."""
    if identifier is None or callable(identifier) or isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in _BY_NAME:
            return _BY_NAME[identifier]()
        raise ValueError(f"Unknown metric {identifier!r}; known names are "
                         f"{', '.join(sorted(_BY_NAME))} (and, in Model.compile, "
                         f"'accuracy' / 'acc').")
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise TypeError(f"A metric must be a name, a config dict or a callable, got "
                    f"{identifier!r}.")


def _compile_metric(name: str):
    """`Model.compile`'s resolver: a new metric object for a Keras metric name, else None."""
    cls = _BY_NAME.get(name)
    if cls is None:
        return None
    metric = cls()
    if metric._auto_named:  # a metric named in compile logs under its plain name, as Keras's
        metric.name = keras_snake_case(cls.__name__)
    return metric


_compile_metrics.register_resolver(_compile_metric, _BY_NAME)


__all__ = ["Metric", "MeanMetricWrapper", *_CLASSES, *_FUNCTIONS, "mean_squared_error", "mse",
           "MSE", "mean_absolute_error", "mae", "MAE", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "serialize",
           "deserialize", "get", "hinge", "squared_hinge", "categorical_hinge", "huber",
           "poisson", "logcosh", "KLD", "kld", "kullback_leibler_divergence", "MAPE", "mape",
           "MSLE", "msle", "binary_focal_crossentropy", "categorical_focal_crossentropy"]
