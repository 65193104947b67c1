"""Metrics for `Model.compile`: `fn(y_true, y_pred) -> scalar` with a display name."""

from __future__ import annotations

from typing import Callable, Union

from ..ops import array_ops, math_ops, reduce_ops
from ..ops.core import convert_to_tensor
from . import losses


def sparse_categorical_accuracy(y_true, y_pred):
    """The fraction of rows whose largest prediction is at the integer label."""
    predicted = reduce_ops.argmax(convert_to_tensor(y_pred), axis=-1)
    labels = array_ops.reshape(array_ops.cast(y_true, predicted.dtype), [-1])
    return reduce_ops.reduce_mean(array_ops.cast(math_ops.equal(predicted, labels), "float32"))


def categorical_accuracy(y_true, y_pred):
    """The fraction of rows whose largest prediction is where the one-hot label is."""
    predicted = reduce_ops.argmax(convert_to_tensor(y_pred), axis=-1)
    labels = reduce_ops.argmax(convert_to_tensor(y_true), axis=-1)
    return reduce_ops.reduce_mean(array_ops.cast(math_ops.equal(predicted, labels), "float32"))


def binary_accuracy(y_true, y_pred, threshold: float = 0.5):
    """The fraction of predictions on the label's side of `threshold`."""
    y_true, y_pred = losses._matched(y_true, y_pred)  # labels (N,) for predictions (N, 1)
    predicted = array_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    return reduce_ops.reduce_mean(array_ops.cast(math_ops.equal(predicted, y_true), "float32"))


_ACCURACY_FOR_LOSS = {
    losses.sparse_categorical_crossentropy: sparse_categorical_accuracy,
    losses.categorical_crossentropy: categorical_accuracy,
    losses.binary_crossentropy: binary_accuracy,
}

_NAMED = {"mae": losses.mean_absolute_error, "mean_absolute_error": losses.mean_absolute_error,
          "mse": losses.mean_squared_error, "mean_squared_error": losses.mean_squared_error,
          "sparse_categorical_accuracy": sparse_categorical_accuracy,
          "categorical_accuracy": categorical_accuracy, "binary_accuracy": binary_accuracy}


def get(metric: Union[str, Callable], loss: Callable) -> tuple[str, Callable]:
    """(name, fn) for a metric name or callable. "accuracy" follows the loss, as in Keras:
    sparse labels for the sparse cross entropy, one-hot for the categorical one, 0/1 for the
    binary one (and for any other loss)."""
    if callable(metric):
        return getattr(metric, "__name__", type(metric).__name__), metric
    if metric in ("accuracy", "acc"):
        return "accuracy", _ACCURACY_FOR_LOSS.get(loss, binary_accuracy)
    try:
        return metric, _NAMED[metric]
    except (KeyError, TypeError):
        raise ValueError(f"unknown metric {metric!r}; use a callable fn(y_true, y_pred), "
                         f"'accuracy' or one of {', '.join(sorted(_NAMED))}") from None
