"""Loss functions for `Model.compile`: `fn(y_true, y_pred) -> scalar`, and their names.

As in Keras, the cross entropies take probabilities (`from_logits=False`) when named by a
string; call them with `from_logits=True` (e.g. in a lambda) for logits.
"""

from __future__ import annotations

from typing import Callable, Union

from ..ops import array_ops, math_ops, nn_ops, reduce_ops
from ..ops.core import convert_to_tensor

_EPSILON = 1e-7


def _matched(y_true, y_pred):
    """(y_true, y_pred) as tensors of y_pred's dtype and one rank, as Keras matches them:
    labels (N,) for predictions (N, 1) get the last axis, labels (N, 1) for predictions (N,)
    lose it. Otherwise (N,) against (N, 1) would broadcast to an (N, N) loss."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_ops.cast(y_true, y_pred.dtype)
    true_rank, pred_rank = y_true.shape.rank, y_pred.shape.rank
    if true_rank is not None and pred_rank is not None:
        if pred_rank == true_rank + 1 and y_pred.shape[-1] == 1:
            y_true = array_ops.expand_dims(y_true, -1)
        elif true_rank == pred_rank + 1 and y_true.shape[-1] == 1:
            y_true = array_ops.squeeze(y_true, [-1])
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    """mean((y_pred - y_true) ** 2)."""
    y_true, y_pred = _matched(y_true, y_pred)
    return reduce_ops.reduce_mean(math_ops.square(y_pred - y_true))


def mean_absolute_error(y_true, y_pred):
    """mean(|y_pred - y_true|)."""
    y_true, y_pred = _matched(y_true, y_pred)
    return reduce_ops.reduce_mean(math_ops.abs(y_pred - y_true))


def _log_probabilities(y_pred, from_logits: bool):
    y_pred = convert_to_tensor(y_pred)
    if from_logits:
        return nn_ops.log_softmax(y_pred)
    return math_ops.log(math_ops.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON))


def categorical_crossentropy(y_true, y_pred, from_logits: bool = False):
    """Cross entropy between one-hot (or soft) labels and predicted class probabilities."""
    log_p = _log_probabilities(y_pred, from_logits)
    y_true = array_ops.cast(y_true, log_p.dtype)
    return reduce_ops.reduce_mean(-reduce_ops.reduce_sum(y_true * log_p, axis=-1))


def sparse_categorical_crossentropy(y_true, y_pred, from_logits: bool = False):
    """Cross entropy between integer class labels and predicted class probabilities."""
    log_p = _log_probabilities(y_pred, from_logits)
    labels = array_ops.reshape(array_ops.cast(y_true, "int32"), array_ops.shape(log_p)[:-1])
    one_hot = array_ops.one_hot(labels, log_p.shape[-1], dtype=log_p.dtype)  # any leading axes
    return reduce_ops.reduce_mean(-reduce_ops.reduce_sum(one_hot * log_p, axis=-1))


def binary_crossentropy(y_true, y_pred, from_logits: bool = False):
    """Cross entropy between 0/1 labels and predicted probabilities of 1."""
    y_true, y_pred = _matched(y_true, y_pred)
    if from_logits:
        return reduce_ops.reduce_mean(nn_ops.sigmoid_cross_entropy_with_logits(y_true, y_pred))
    p = math_ops.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON)
    return reduce_ops.reduce_mean(-(y_true * math_ops.log(p)
                                    + (1.0 - y_true) * math_ops.log(1.0 - p)))


LOSSES = {
    "mse": mean_squared_error, "mean_squared_error": mean_squared_error,
    "mae": mean_absolute_error, "mean_absolute_error": mean_absolute_error,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
}


def get(loss: Union[str, Callable]) -> Callable:
    """The loss function for a name in `LOSSES` or a callable `fn(y_true, y_pred)`."""
    if callable(loss):
        return loss
    try:
        return LOSSES[loss]
    except (KeyError, TypeError):
        raise ValueError(f"unknown loss {loss!r}; use a callable fn(y_true, y_pred) or one of "
                         f"{', '.join(sorted(LOSSES))}") from None
