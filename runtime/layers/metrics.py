"""Metrics for `Model.compile`: `fn(y_true, y_pred) -> values` with a display name.

As in Keras, a metric function gives one value per sample (or per step); `Model.compile`
averages them over the samples, or over the kept steps when the predictions carry a mask.

"accuracy" (or "acc") picks its kind from the shapes of the labels and predictions when the
step is traced, as Keras 3 does: predictions with one value per sample are binary, labels of
a lower rank (or with a last axis of 1) are sparse class indices, otherwise one-hot labels.
Other names resolve through `rt.keras.metrics` when it is loaded (it registers itself with
`register_resolver`), else through the small table below.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable, Iterable, Union

from ..ops import array_math
from ..ops.core import convert_to_tensor
from . import losses


def _fraction_equal(a, b):
    return array_math.cast(array_math.equal(a, b), "float32")


def sparse_categorical_accuracy(y_true, y_pred):
    """1 where the largest prediction (over the last axis) is at the integer label, else 0,
    for every leading index; labels may keep a last axis of 1."""
    predicted = array_math.argmax(convert_to_tensor(y_pred), axis=-1)
    labels = array_math.reshape(array_math.cast(y_true, predicted.dtype),
                                array_math.shape(predicted))
    return _fraction_equal(predicted, labels)


def categorical_accuracy(y_true, y_pred):
    """1 for each row whose largest prediction is where the one-hot label is, else 0."""
    predicted = array_math.argmax(convert_to_tensor(y_pred), axis=-1)
    labels = array_math.argmax(convert_to_tensor(y_true), axis=-1)
    return _fraction_equal(predicted, labels)


def binary_accuracy(y_true, y_pred, threshold: float = 0.5):
    """1 for each prediction on the label's side of `threshold`, else 0."""
    y_true, y_pred = losses._matched(y_true, y_pred)  # labels (N,) for predictions (N, 1)
    predicted = array_math.cast(array_math.greater(y_pred, threshold), y_pred.dtype)
    return _fraction_equal(predicted, y_true)


def accuracy_kind(y_true, y_pred) -> Callable:
    """The accuracy Keras 3 computes for "accuracy" given these labels and predictions (their
    static shapes): binary when the predictions' last axis is 1, sparse when the labels have
    a lower rank or a last axis of 1 against several classes, else categorical. Predictions
    of rank 0 or 1 (one value per sample) are binary."""
    true_shape = convert_to_tensor(y_true).shape
    pred_shape = convert_to_tensor(y_pred).shape
    if pred_shape.rank is None or pred_shape.rank <= 1 or pred_shape[-1] == 1:
        return binary_accuracy
    pred_last = pred_shape[-1]
    if true_shape.rank is not None and (true_shape.rank < pred_shape.rank or (
            true_shape.rank and true_shape[-1] == 1 and (pred_last is None or pred_last > 1))):
        return sparse_categorical_accuracy
    return categorical_accuracy


def accuracy(y_true, y_pred):
    """"accuracy" of `Model.compile`: the kind `accuracy_kind` picks."""
    return accuracy_kind(y_true, y_pred)(y_true, y_pred)


_NAMED = {"mae": losses.mean_absolute_error, "mean_absolute_error": losses.mean_absolute_error,
          "mse": losses.mean_squared_error, "mean_squared_error": losses.mean_squared_error,
          "binary_crossentropy": losses.binary_crossentropy, "bce": losses.binary_crossentropy,
          "categorical_crossentropy": losses.categorical_crossentropy,
          "sparse_categorical_crossentropy": losses.sparse_categorical_crossentropy,
          "sparse_categorical_accuracy": sparse_categorical_accuracy,
          "categorical_accuracy": categorical_accuracy, "binary_accuracy": binary_accuracy}

_RESOLVERS: list[Callable[[str], Any]] = []
_RESOLVED_NAMES: set[str] = set()


def register_resolver(resolve: Callable[[str], Any], names: Iterable[str] = ()) -> None:
    """Registers `resolve(name)`: a metric object or function for a name, or None when it
    does not know the name; `names` are the ones it knows, for error messages
    (`rt.keras.metrics` registers its names here)."""
    if resolve not in _RESOLVERS:
        _RESOLVERS.append(resolve)
    _RESOLVED_NAMES.update(names)


def known_names() -> list[str]:
    """The metric names `get` accepts."""
    return sorted({"accuracy", "acc", *_NAMED, *_RESOLVED_NAMES})


def _unknown(metric: str) -> ValueError:
    known = known_names()
    close = difflib.get_close_matches(metric, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    return ValueError(f"Could not interpret metric identifier: {metric} "
                      f"(compile(metrics=...): unknown metric {metric!r}){hint} Use a callable "
                      f"fn(y_true, y_pred), a metric object, or one of {', '.join(known)}.")


def get(metric: Union[str, Callable, Any]) -> tuple[str, Any]:
    """(name, metric) for a metric name, callable or metric object. A name is its own
    display name (as in Keras); "accuracy"/"acc" pick their kind from the shapes, not from
    the loss, as Keras 3 does (see `accuracy_kind`)."""
    if not isinstance(metric, str):
        if hasattr(metric, "update_state"):
            return getattr(metric, "name", None) or type(metric).__name__, metric
        if callable(metric):
            return getattr(metric, "__name__", type(metric).__name__), metric
        raise TypeError(f"compile(metrics=...): a metric must be a name, a callable "
                        f"fn(y_true, y_pred) or a metric object, got {metric!r:.100}.")
    if metric.lower() in ("accuracy", "acc"):
        return metric, accuracy
    for resolve in _RESOLVERS:
        found = resolve(metric)
        if found is not None:
            return metric, found
    if metric in _NAMED:
        return metric, _NAMED[metric]
    raise _unknown(metric)
