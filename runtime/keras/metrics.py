"""`keras.metrics`: stateful metrics (`update_state`, `result`, `reset_state`) and functions.

    metric = keras.metrics.BinaryAccuracy()
    metric.update_state(y_true, y_pred)
    metric.result()                      # over every sample seen since the last reset

The state lives in non-trainable variables, so `update_state` can run in a compiled train
step; `Model.compile(metrics=[keras.metrics.AUC(), ...])` resets them at each epoch and
reports `result()`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..arguments import raise_unknown_keywords
from ..layers import losses as _base
from ..layers import metrics as _compile_metrics
from ..layers import serialization as _serialization
from ..module import snake_case
from ..ops import array_ops, math_ops, reduce_ops
from ..ops.core import convert_to_tensor
from ..ops.variable_ops import Variable
from . import losses as _losses


def binary_accuracy(y_true, y_pred, threshold: float = 0.5):
    """Per sample: the fraction of predictions on the label's side of `threshold`."""
    y_true, y_pred = _base._matched(y_true, y_pred)
    predicted = array_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    return reduce_ops.reduce_mean(array_ops.cast(math_ops.equal(predicted, y_true), "float32"),
                                  axis=-1)


def categorical_accuracy(y_true, y_pred):
    """Per sample: 1 where the largest prediction is at the one-hot label, else 0."""
    predicted = reduce_ops.argmax(convert_to_tensor(y_pred), axis=-1)
    labels = reduce_ops.argmax(convert_to_tensor(y_true), axis=-1)
    return array_ops.cast(math_ops.equal(predicted, labels), "float32")


def sparse_categorical_accuracy(y_true, y_pred):
    """Per sample: 1 where the largest prediction is at the integer label, else 0."""
    y_pred = convert_to_tensor(y_pred)
    predicted = reduce_ops.argmax(y_pred, axis=-1)
    labels = array_ops.cast(y_true, predicted.dtype)
    if labels.shape.rank is not None and labels.shape.rank == y_pred.shape.rank:
        labels = array_ops.squeeze(labels, [-1])
    return array_ops.cast(math_ops.equal(predicted, labels), "float32")


def accuracy(y_true, y_pred):
    """Per element: 1 where the prediction equals the label, else 0."""
    y_true, y_pred = _base._matched(y_true, y_pred)
    return array_ops.cast(math_ops.equal(y_true, y_pred), "float32")


mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy


class Metric:
    """Base class: create the state with `add_weight` in `__init__`, and define
    `update_state(...)` and `result()`; `reset_state()` sets every state variable to zero."""

    def __init__(self, name: str | None = None, dtype=None) -> None:
        self.name = name or snake_case(type(self).__name__)
        self.dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32
        self._state: list[Variable] = []

    def add_weight(self, name: str, shape=(), initializer: str = "zeros",
                   dtype=None) -> Variable:
        """A non-trainable state variable, created eagerly."""
        dtype = _dtypes.as_dtype(dtype) if dtype is not None else self.dtype
        if initializer not in ("zeros", None):
            raise ValueError(f"{self.name}.add_weight: only 'zeros' initializes metric state.")
        with context.init_scope():
            variable = Variable(np.zeros(tuple(shape), dtype.as_numpy_dtype), trainable=False,
                                name=f"{self.name}/{name}")
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


def _weighted(values, sample_weight):
    values = array_ops.cast(values, "float32")
    if sample_weight is None:
        return values, array_ops.cast(array_ops.size(values), "float32")
    weight = array_ops.cast(sample_weight, "float32")
    if weight.shape.rank is not None and values.shape.rank is not None:
        while weight.shape.rank > values.shape.rank and weight.shape[-1] == 1:
            weight = array_ops.squeeze(weight, [-1])
    weight = weight + 0.0 * values  # broadcast to the values' shape
    return values * weight, reduce_ops.reduce_sum(weight)


class Mean(Metric):
    """The (weighted) mean of every value given to `update_state(values, sample_weight)`."""

    def __init__(self, name: str = "mean", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")
        self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        values, count = _weighted(values, sample_weight)
        self.total.assign_add(array_ops.cast(reduce_ops.reduce_sum(values), self.dtype))
        self.count.assign_add(array_ops.cast(count, self.dtype))

    def result(self):
        return math_ops.divide(self.total.read_value(),
                               math_ops.maximum(self.count.read_value(), 1e-12))


class Sum(Metric):
    """The (weighted) sum of every value given to `update_state`."""

    def __init__(self, name: str = "sum", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_weight("total")

    def update_state(self, values, sample_weight=None):
        values, _ = _weighted(values, sample_weight)
        self.total.assign_add(array_ops.cast(reduce_ops.reduce_sum(values), self.dtype))

    def result(self):
        return self.total.read_value()


class MeanMetricWrapper(Mean):
    """The mean over samples of a per-sample function `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn: Callable, name: str | None = None, dtype=None, **kwargs: Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", "metric"), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)

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


class RootMeanSquaredError(Mean):
    """sqrt of the mean squared error over the samples seen."""

    def __init__(self, name: str = "root_mean_squared_error", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _base._matched(y_true, y_pred)
        super().update_state(math_ops.square(y_pred - y_true), sample_weight)

    def result(self):
        return math_ops.sqrt(super().result())


class _ConfusionCounts(Metric):
    """True/false positives (and negatives) of thresholded predictions of 0/1 labels."""

    def __init__(self, thresholds: float = 0.5, name: str | None = None, dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.thresholds = float(thresholds)
        self.true_positives = self.add_weight("true_positives")
        self.false_positives = self.add_weight("false_positives")
        self.false_negatives = self.add_weight("false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _base._matched(y_true, y_pred)
        predicted = array_ops.cast(math_ops.greater(y_pred, self.thresholds), "float32")
        truth = array_ops.cast(math_ops.greater(y_true, 0.5), "float32")
        weight = 1.0 if sample_weight is None else array_ops.cast(sample_weight, "float32")
        for variable, values in ((self.true_positives, predicted * truth),
                                 (self.false_positives, predicted * (1.0 - truth)),
                                 (self.false_negatives, (1.0 - predicted) * truth)):
            variable.assign_add(reduce_ops.reduce_sum(values * weight))

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.thresholds}


class Precision(_ConfusionCounts):
    """true positives / (true positives + false positives)."""

    def __init__(self, thresholds: float = 0.5, name: str = "precision", dtype=None) -> None:
        super().__init__(thresholds, name=name, dtype=dtype)

    def result(self):
        tp = self.true_positives.read_value()
        return tp / math_ops.maximum(tp + self.false_positives.read_value(), 1e-12)


class Recall(_ConfusionCounts):
    """true positives / (true positives + false negatives)."""

    def __init__(self, thresholds: float = 0.5, name: str = "recall", dtype=None) -> None:
        super().__init__(thresholds, name=name, dtype=dtype)

    def result(self):
        tp = self.true_positives.read_value()
        return tp / math_ops.maximum(tp + self.false_negatives.read_value(), 1e-12)


class AUC(Metric):
    """The area under the ROC curve of 0/1 labels and scores in [0, 1], from counts at
    `num_thresholds` evenly spaced thresholds (trapezoidal rule)."""

    def __init__(self, num_thresholds: int = 200, name: str = "auc", dtype=None) -> None:
        super().__init__(name=name, dtype=dtype)
        if int(num_thresholds) < 2:
            raise ValueError(f"AUC num_thresholds must be > 1, got {num_thresholds!r}.")
        self.num_thresholds = int(num_thresholds)
        eps = 1e-7
        inner = [(i + 1) / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
        self._thresholds = np.array([-eps, *inner, 1.0 + eps], np.float32)
        n = self.num_thresholds
        self.true_positives = self.add_weight("true_positives", (n,))
        self.false_positives = self.add_weight("false_positives", (n,))
        self.positives = self.add_weight("positives")
        self.negatives = self.add_weight("negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _base._matched(y_true, y_pred)
        scores = array_ops.reshape(array_ops.cast(y_pred, "float32"), [-1, 1])
        truth = array_ops.reshape(array_ops.cast(math_ops.greater(y_true, 0.5), "float32"),
                                  [-1, 1])
        weight = 1.0 if sample_weight is None else \
            array_ops.reshape(array_ops.cast(sample_weight, "float32"), [-1, 1])
        above = array_ops.cast(math_ops.greater(scores, self._thresholds), "float32") * weight
        self.true_positives.assign_add(reduce_ops.reduce_sum(above * truth, axis=0))
        self.false_positives.assign_add(reduce_ops.reduce_sum(above * (1.0 - truth), axis=0))
        self.positives.assign_add(reduce_ops.reduce_sum(truth * weight))
        self.negatives.assign_add(reduce_ops.reduce_sum((1.0 - truth) * weight))

    def result(self):
        tpr = self.true_positives.read_value() / math_ops.maximum(self.positives.read_value(),
                                                                  1e-12)
        fpr = self.false_positives.read_value() / math_ops.maximum(self.negatives.read_value(),
                                                                   1e-12)
        n = self.num_thresholds
        width = fpr[: n - 1] - fpr[1:]
        height = (tpr[: n - 1] + tpr[1:]) / 2.0
        return reduce_ops.reduce_sum(width * height)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_thresholds": self.num_thresholds}


_CLASSES = {cls.__name__: cls for cls in (
    Mean, Sum, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    MeanSquaredError, MeanAbsoluteError, RootMeanSquaredError, BinaryCrossentropy,
    CategoricalCrossentropy, SparseCategoricalCrossentropy, Precision, Recall, AUC)}
_FUNCTIONS = {fn.__name__: fn for fn in (binary_accuracy, categorical_accuracy,
                                         sparse_categorical_accuracy, accuracy)}


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


def get(identifier):
    """A metric from a class name ("AUC"), a function name, or a callable."""
    if callable(identifier):
        return identifier
    if isinstance(identifier, str):
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        return _compile_metrics._NAMED.get(identifier) or _losses.get(identifier)
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise TypeError(f"A metric must be a name, a config dict or a callable, got "
                    f"{identifier!r}.")


__all__ = ["Metric", "MeanMetricWrapper", *_CLASSES, *_FUNCTIONS, "mean_squared_error", "mse",
           "MSE", "mean_absolute_error", "mae", "MAE", "binary_crossentropy",
           "categorical_crossentropy", "sparse_categorical_crossentropy", "serialize",
           "deserialize", "get"]
