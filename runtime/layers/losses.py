"""Keras's losses: loss functions (one value per sample) and loss classes (one reduced value).

As in Keras, the functions (`mse`, `binary_crossentropy`, ...) average over the last axis
and return one loss per sample; the classes (`MeanSquaredError()`, ...) also reduce over the
batch (`reduction="sum_over_batch_size"`, the mean; `"sum"`; or `"none"`) and take a
`sample_weight`. Both can be given to `Model.compile(loss=...)`; `keras.losses` is this module.
A mask on the predictions (`y_pred._keras_mask`, from `Embedding(mask_zero=True)` or
`Masking`) leaves the masked steps out of the reduction, as in Keras.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import raise_unknown_keywords, strict_keywords
from ..exports import NAMESPACES
from ..module import snake_case
from ..ops import array_math, math_composed, nn
from ..ops.core import convert_to_tensor
from ..ops.linalg import matmul as _matmul
from ..tensor import Tensor
from . import serialization as _serialization

_EPSILON = 1e-7
_REDUCTIONS = ("sum_over_batch_size", "sum", "none", "auto", None)


def _numeric_sequence(value) -> bool:
    """True for a (nested) list or tuple of numbers: array data, not a structure of outputs."""
    if isinstance(value, (list, tuple)):
        return all(_numeric_sequence(v) for v in value)
    return isinstance(value, (int, float, np.number))


class Reduction:
    """The names of the ways a loss class reduces its per-sample values (`tf.keras.losses.
    Reduction`, kept by TensorFlow for Keras 2 programs; Keras 3 takes the strings)."""

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key: str) -> None:
        """Raises ValueError when `key` is not one of `all()`."""
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')


def _matched(y_true, y_pred):
    """(y_true, y_pred) as tensors of y_pred's dtype and one rank, as Keras matches them:
    labels (N,) for predictions (N, 1) get the last axis, labels (N, 1) for predictions (N,)
    lose it. Otherwise (N,) against (N, 1) would broadcast to an (N, N) loss."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_math.cast(y_true, y_pred.dtype)
    true_rank, pred_rank = y_true.shape.rank, y_pred.shape.rank
    if true_rank is not None and pred_rank is not None:
        if pred_rank == true_rank + 1 and y_pred.shape[-1] == 1:
            y_true = array_math.expand_dims(y_true, -1)
        elif true_rank == pred_rank + 1 and y_true.shape[-1] == 1:
            y_true = array_math.squeeze(y_true, [-1])
    return y_true, y_pred


_pair = _matched


def mean_squared_error(y_true, y_pred) -> Tensor:
    """mean((y_pred - y_true) ** 2) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    return array_math.reduce_mean(array_math.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred) -> Tensor:
    """mean(|y_pred - y_true|) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    return array_math.reduce_mean(array_math.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred) -> Tensor:
    """100 * mean(|y_true - y_pred| / max(|y_true|, epsilon)) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    ratio = array_math.abs(y_true - y_pred) / array_math.maximum(array_math.abs(y_true), _EPSILON)
    return 100.0 * array_math.reduce_mean(ratio, axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred) -> Tensor:
    """mean((log(1 + max(y_pred, eps)) - log(1 + max(y_true, eps))) ** 2) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    first = array_math.log(array_math.maximum(y_pred, _EPSILON) + 1.0)
    second = array_math.log(array_math.maximum(y_true, _EPSILON) + 1.0)
    return array_math.reduce_mean(array_math.square(first - second), axis=-1)


def _smoothed(y_true, label_smoothing: float, classes):
    if not label_smoothing:
        return y_true
    return y_true * (1.0 - label_smoothing) + label_smoothing / classes


def binary_crossentropy(y_true, y_pred, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1):
    """The mean over `axis` of -(t log p + (1 - t) log(1 - p)); `y_pred` are probabilities
    (clipped to [eps, 1 - eps]) or, with `from_logits`, logits."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _smoothed(y_true, label_smoothing, 2.0)
    if from_logits:
        values = nn.sigmoid_cross_entropy_with_logits(y_true, y_pred)
    else:
        p = array_math.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON)
        values = -(y_true * array_math.log(p) + (1.0 - y_true) * array_math.log(1.0 - p))
    return array_math.reduce_mean(values, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1):
    """-sum(t * log p) over `axis`: one-hot (or soft) labels against probabilities (each row
    normalized to sum 1, then clipped) or, with `from_logits`, logits."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_math.cast(y_true, y_pred.dtype)
    y_true = _smoothed(y_true, label_smoothing, float(y_pred.shape[axis] or 1))
    if from_logits:
        log_p = nn.log_softmax(y_pred, axis=axis)
    else:
        p = y_pred / array_math.reduce_sum(y_pred, axis=axis, keepdims=True)
        log_p = array_math.log(array_math.clip_by_value(p, _EPSILON, 1.0 - _EPSILON))
    return -array_math.reduce_sum(y_true * log_p, axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits: bool = False,
                                    ignore_class: int | None = None, axis: int = -1):
    """`categorical_crossentropy` with integer class labels. Without `from_logits` the
    predictions are clipped to [eps, 1 - eps] and then normalized (Keras 3's order on
    TensorFlow: rows that do not sum to 1 give Keras's values). Labels equal to
    `ignore_class` give 0 and are masked (`_keras_mask`), so a loss class's mean leaves
    them out, as in Keras 3."""
    y_pred = convert_to_tensor(y_pred)
    if not from_logits:
        y_pred = array_math.log(array_math.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON))
    labels = array_math.cast(y_true, "int32")
    if labels.shape.rank is not None and y_pred.shape.rank is not None and \
            labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = array_math.squeeze(labels, [-1])
    valid = None
    if ignore_class is not None:
        valid = array_math.not_equal(labels, int(ignore_class))
        labels = array_math.where(valid, labels, array_math.zeros_like(labels))
    one_hot = array_math.one_hot(labels, y_pred.shape[axis], dtype=y_pred.dtype)
    values = categorical_crossentropy(one_hot, y_pred, from_logits=True, axis=axis)
    if valid is not None:
        values = values * array_math.cast(valid, values.dtype)
        values._keras_mask = valid
    return values


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing: bool = False,
                              alpha: float = 0.25, gamma: float = 2.0,
                              from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1):
    """The mean over `axis` of the binary cross-entropy times (1 - p_t) ** gamma, p_t the
    probability given to the true label (and times alpha for 1s, 1 - alpha for 0s with
    `apply_class_balancing`), as Keras 3 defines it."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    p = nn.sigmoid(y_pred) if from_logits else y_pred
    clipped = array_math.clip_by_value(p, _EPSILON, 1.0 - _EPSILON)
    bce = -(y_true * array_math.log(clipped) + (1.0 - y_true) * array_math.log(1.0 - clipped))
    p_t = y_true * p + (1.0 - y_true) * (1.0 - p)
    values = array_math.pow(1.0 - p_t, float(gamma)) * bce
    if apply_class_balancing:
        values = (y_true * alpha + (1.0 - y_true) * (1.0 - alpha)) * values
    return array_math.reduce_mean(values, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha: float = 0.25, gamma: float = 2.0,
                                   from_logits: bool = False, label_smoothing: float = 0.0,
                                   axis: int = -1):
    """sum over `axis` of -alpha (1 - p) ** gamma t log p, p the normalized and clipped
    probabilities (softmax of logits with `from_logits`), as Keras 3 defines it."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_math.cast(y_true, y_pred.dtype)
    if from_logits:
        y_pred = nn.softmax(y_pred, axis=axis)
    p = y_pred / array_math.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = array_math.clip_by_value(p, _EPSILON, 1.0 - _EPSILON)
    y_true = _smoothed(y_true, label_smoothing, float(y_pred.shape[axis] or 1))
    weight = alpha * array_math.pow(1.0 - p, float(gamma))
    return array_math.reduce_sum(weight * -(y_true * array_math.log(p)), axis=axis)


def huber(y_true, y_pred, delta: float = 1.0):
    """The mean over the last axis of 0.5 e² where |e| <= delta, else delta (|e| - delta / 2)."""
    y_true, y_pred = _pair(y_true, y_pred)
    error = array_math.abs(y_pred - y_true)
    quadratic = array_math.minimum(error, float(delta))
    values = 0.5 * array_math.square(quadratic) + float(delta) * (error - quadratic)
    return array_math.reduce_mean(values, axis=-1)


def kl_divergence(y_true, y_pred) -> Tensor:
    """sum(t * log(t / p)) over the last axis, both clipped to [eps, 1]."""
    y_true, y_pred = _pair(y_true, y_pred)
    t = array_math.clip_by_value(y_true, _EPSILON, 1.0)
    p = array_math.clip_by_value(y_pred, _EPSILON, 1.0)
    return array_math.reduce_sum(t * array_math.log(t / p), axis=-1)


def poisson(y_true, y_pred) -> Tensor:
    """mean(p - t * log(p + eps)) over the last axis."""
    y_true, y_pred = _pair(y_true, y_pred)
    return array_math.reduce_mean(y_pred - y_true * array_math.log(y_pred + _EPSILON), axis=-1)


def _signed(y_true):
    """0/1 labels as -1/1 (labels already -1/1 stay)."""
    return array_math.where(array_math.equal(y_true, 0.0), y_true - 1.0, y_true)


def hinge(y_true, y_pred) -> Tensor:
    """mean(max(1 - t * p, 0)) over the last axis, 0/1 labels taken as -1/1."""
    y_true, y_pred = _pair(y_true, y_pred)
    return array_math.reduce_mean(array_math.maximum(1.0 - _signed(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred) -> Tensor:
    """mean(max(1 - t * p, 0) ** 2) over the last axis, 0/1 labels taken as -1/1."""
    y_true, y_pred = _pair(y_true, y_pred)
    margin = array_math.maximum(1.0 - _signed(y_true) * y_pred, 0.0)
    return array_math.reduce_mean(array_math.square(margin), axis=-1)


def categorical_hinge(y_true, y_pred) -> Tensor:
    """max(max((1 - t) * p) - sum(t * p) + 1, 0) over the last axis (one-hot labels)."""
    y_true, y_pred = _pair(y_true, y_pred)
    positive = array_math.reduce_sum(y_true * y_pred, axis=-1)
    negative = array_math.reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return array_math.maximum(negative - positive + 1.0, 0.0)


def log_cosh(y_true, y_pred) -> Tensor:
    """mean(log(cosh(p - t))) over the last axis (computed stably)."""
    y_true, y_pred = _pair(y_true, y_pred)
    x = y_pred - y_true
    return array_math.reduce_mean(x + nn.softplus(-2.0 * x) - math.log(2.0), axis=-1)


def _l2_normalized(x, axis):
    squared = array_math.reduce_sum(array_math.square(x), axis=axis, keepdims=True)
    return x * array_math.rsqrt(array_math.maximum(squared, 1e-12))


def cosine_similarity(y_true, y_pred, axis: int = -1):
    """-sum(normalize(t) * normalize(p)) over `axis` (-1 when the vectors point alike)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return -array_math.reduce_sum(_l2_normalized(y_true, axis) * _l2_normalized(y_pred, axis),
                                  axis=axis)


MSE = mse = mean_squared_error
MAE = mae = mean_absolute_error
MAPE = mape = mean_absolute_percentage_error
MSLE = msle = mean_squared_logarithmic_error
KLD = kld = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


def _overlap(y_true, y_pred, axis):
    """(sum(t * p), sum((1 - p) * t), sum(p * (1 - t))) over `axis` (all axes: None)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = array_math.cast(y_true, y_pred.dtype)
    return (array_math.reduce_sum(y_true * y_pred, axis=axis),
            array_math.reduce_sum((1.0 - y_pred) * y_true, axis=axis),
            array_math.reduce_sum(y_pred * (1.0 - y_true), axis=axis))


def dice(y_true, y_pred, axis=None) -> Tensor:
    """1 - 2 sum(t * p) / (sum(t) + sum(p) + epsilon), summed over `axis` (all axes by
    default: one value)."""
    both, true_only, pred_only = _overlap(y_true, y_pred, axis)
    # sum(t) + sum(p) = 2 sum(t p) + sum((1 - p) t) + sum(p (1 - t))
    return 1.0 - 2.0 * both / (2.0 * both + true_only + pred_only + _EPSILON)


def tversky(y_true, y_pred, alpha: float = 0.5, beta: float = 0.5, axis=None) -> Tensor:
    """1 - sum(t p) / (sum(t p) + alpha * false positives + beta * false negatives +
    epsilon), where false positives are sum((1 - p) t) and false negatives sum(p (1 - t)), as
    Keras counts them; alpha = beta = 0.5 is the Dice loss."""
    both, fp, fn = _overlap(y_true, y_pred, axis)
    return 1.0 - both / (both + fp * float(alpha) + fn * float(beta) + _EPSILON)


def categorical_generalized_cross_entropy(y_true, y_pred, q: float) -> Tensor:
    """(1 - p ** q) / q with p the predicted probability of each sample's class (integer
    labels): cross entropy as q -> 0, the mean absolute error at q = 1."""
    y_pred = convert_to_tensor(y_pred)
    labels = array_math.cast(y_true, "int32")
    if labels.shape.rank == y_pred.shape.rank:  # labels [batch, 1]
        labels = array_math.squeeze(labels, [-1])
    hot = array_math.one_hot(labels, int(y_pred.shape[-1]), dtype=y_pred.dtype)
    p = array_math.reduce_sum(y_pred * hot, axis=-1)
    return (1.0 - array_math.pow(p, float(q))) / float(q)


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal: bool = True,
           gamma: float = 80, margin: float = 0.4) -> Tensor:
    """The Circle loss of L2-normalized embeddings `y_pred` with integer labels `y_true`
    against reference embeddings and labels (by default the same): per sample, softplus of
    the log-sum-exp of the weighted positive and negative cosine distances."""
    y_pred = convert_to_tensor(y_pred)
    labels = array_math.reshape(array_math.cast(y_true, "int32"), [-1, 1])
    ref = y_pred if ref_embeddings is None else convert_to_tensor(ref_embeddings)
    ref_labels = labels if ref_labels is None else \
        array_math.reshape(array_math.cast(ref_labels, "int32"), [-1, 1])
    distances = array_math.maximum(1.0 - _matmul(y_pred, ref, transpose_b=True), 0.0)
    positive = array_math.equal(labels, array_math.transpose(ref_labels))
    negative = array_math.logical_not(positive)
    if remove_diagonal:
        positive = array_math.logical_and(positive, array_math.logical_not(array_math.cast(
            array_math.eye(array_math.size(labels), array_math.size(ref_labels)), "bool")))
    pos_mask, neg_mask = (array_math.cast(m, distances.dtype) for m in (positive, negative))
    pos_weights = array_math.maximum((margin + distances) * pos_mask, 0.0)
    neg_weights = array_math.maximum((1.0 + margin - distances) * neg_mask, 0.0)
    pos = -1.0 * gamma * pos_weights * (margin - distances)
    neg = gamma * neg_weights * (1.0 - margin - distances)
    low = array_math.zeros_like(distances) - np.inf  # left out of the log-sum-exp
    p_loss = array_math.reduce_logsumexp(array_math.where(positive, pos, low), axis=1)
    n_loss = array_math.reduce_logsumexp(array_math.where(negative, neg, low), axis=1)
    return nn.softplus(p_loss + n_loss)


def _to_rank(weight, rank):
    """`weight` with trailing axes added (or a trailing 1 squeezed) to have `rank` axes, so
    that per-sample weights scale every step of per-step values."""
    if weight.shape.rank is None or rank is None:
        return weight
    if weight.shape.rank == rank + 1 and weight.shape[-1] == 1:
        return array_math.squeeze(weight, [-1])
    while weight.shape.rank < rank:
        weight = array_math.expand_dims(weight, -1)
    return weight


def mask_weights(sample_weight, mask, dtype, reduction: str | None):
    """The weights a mask gives (Keras's rule), merged into `sample_weight`: for a mean,
    `size / kept` at kept steps and 0 at masked ones, so that the mean over all values is the
    mean over the kept ones; for a sum, 1 and 0. None without a mask or weights."""
    if mask is None:
        return None if sample_weight is None else array_math.cast(sample_weight, dtype)
    keep = array_math.cast(mask, "bool")
    if reduction in ("sum_over_batch_size", "mean"):
        total = array_math.cast(array_math.size(keep), dtype)
        kept = array_math.reduce_sum(array_math.cast(keep, dtype))
        weight = array_math.where(keep, math_composed.divide_no_nan(total, kept),
                                  array_math.zeros_like(keep, dtype=dtype))
    else:
        weight = array_math.cast(keep, dtype)
    if sample_weight is not None:
        weight = weight * _to_rank(array_math.cast(sample_weight, dtype), keep.shape.rank)
    return weight


def reduce_weighted(values, sample_weight=None, mask=None,
                    reduction: str | None = "sum_over_batch_size"):
    """Per-sample (or per-step) loss `values` weighed by `sample_weight` and the predictions'
    `mask`, then reduced by `reduction`: the mean over all values (`sum_over_batch_size`),
    their `sum`, or the weighed values (`none`), as a Keras `Loss` reduces them."""
    values = convert_to_tensor(values)
    weight = mask_weights(sample_weight, mask, values.dtype, reduction)
    if weight is not None:
        values = values * _to_rank(weight, values.shape.rank)
    if reduction in ("none", None):
        return values
    total = array_math.reduce_sum(values)
    if reduction == "sum":
        return total
    count = array_math.cast(array_math.size(values), values.dtype)
    return math_composed.divide_no_nan(total, count)


class Loss:
    """Base class: `call(y_true, y_pred)` gives per-sample losses; calling the loss weights
    them by `sample_weight` and reduces them by `reduction`."""

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = None, dtype=None) -> None:
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction must be one of "
                             f"'sum_over_batch_size', 'sum', 'none', got {reduction!r}.")
        self.reduction = "sum_over_batch_size" if reduction == "auto" else reduction
        self.name = name or snake_case(type(self).__name__)
        self.dtype = dtype

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__} must define call(y_true, y_pred).")

    def __call__(self, y_true, y_pred, sample_weight=None):
        mask = getattr(y_pred, "_keras_mask", None)
        y_true, y_pred = self._as_loss_dtype(y_true), self._as_loss_dtype(y_pred)
        values = convert_to_tensor(self.call(y_true, y_pred))
        own = getattr(values, "_keras_mask", None)  # e.g. labels of ignore_class
        if own is not None:
            mask = own if mask is None else array_math.logical_and(
                array_math.cast(mask, "bool"), own)
        return reduce_weighted(values, sample_weight, mask, self.reduction)

    def _as_loss_dtype(self, value):
        """Floating-point values (and NumPy or Python numbers) as the loss's dtype (float32
        unless given), as Keras 3 converts a loss's arguments; integer labels and
        structures are left to `call`."""
        if isinstance(value, (dict, list, tuple)) and not _numeric_sequence(value):
            return value
        dtype = _dtypes.as_dtype(self.dtype) if self.dtype is not None else _dtypes.float32
        tensor = value if isinstance(value, Tensor) else convert_to_tensor(value)
        if tensor.dtype.is_floating and tensor.dtype != dtype:
            cast = array_math.cast(tensor, dtype)
            mask = getattr(tensor, "_keras_mask", None)
            if mask is not None:
                cast._keras_mask = mask
            return cast
        return tensor

    def get_config(self) -> dict:
        config = {"name": self.name, "reduction": self.reduction}
        if self.dtype is not None:
            config["dtype"] = _dtypes.as_dtype(self.dtype).name
        return config

    @classmethod
    def from_config(cls, config: dict) -> "Loss":
        return cls(**config)


def ctc(y_true, y_pred) -> Tensor:
    """The CTC loss of each sample: integer labels `y_true` [batch, max_length] (0 is the
    blank and pads them) and logits `y_pred` [batch, max_time, classes], every frame used."""
    y_true, y_pred = convert_to_tensor(y_true), convert_to_tensor(y_pred)
    if y_true.shape.rank != 2:
        raise ValueError(f"Targets `y_true` are expected to be a tensor of shape `(batch_size, "
                         f"max_length)` in integer format. Received: y_true.shape="
                         f"{tuple(y_true.shape.as_list())}")
    if y_pred.shape.rank != 3:
        raise ValueError(f"Logits `y_pred` are expected to be a tensor of shape `(batch_size, "
                         f"max_length, num_classes)`. Received: y_pred.shape="
                         f"{tuple(y_pred.shape.as_list())}")
    shape = array_math.shape(y_pred)
    input_length = shape[1] * array_math.ones(shape[:1], _dtypes.int32)
    label_length = array_math.reduce_sum(array_math.cast(array_math.not_equal(y_true, 0),
                                                         _dtypes.int32), axis=-1)
    result = y_pred.dtype if y_pred.dtype.is_floating else _dtypes.float32
    compute = _dtypes.float32 if result == _dtypes.float64 else result
    loss = NAMESPACES["nn"]["ctc_loss"](
        labels=array_math.cast(y_true, _dtypes.int32), logits=array_math.cast(y_pred, compute),
        label_length=label_length, logit_length=input_length, blank_index=0,
        logits_time_major=False)
    return array_math.cast(loss, result)


class LossFunctionWrapper(Loss):
    """A `Loss` from a per-sample function `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn: Callable, reduction: str | None = "sum_over_batch_size",
                 name: str | None = None, dtype=None, **kwargs: Any) -> None:
        super().__init__(reduction=reduction, name=name or getattr(fn, "__name__", None),
                         dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


def _define(class_name: str, fn: Callable, doc: str, _name: str | None = None,
            **defaults: Any) -> type:
    """A LossFunctionWrapper subclass whose constructor takes `defaults` (positionally too),
    `reduction` and `name` (by default `_name`, else the function's)."""
    names = list(defaults)

    def __init__(self, *args, reduction="sum_over_batch_size", name=None, dtype=None,
                 **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes at most {len(names)} positional "
                            f"arguments ({len(args)} given).")
        values = dict(defaults)
        values.update(zip(names, args))
        unknown = [k for k in kwargs if k not in defaults]
        if unknown:
            raise_unknown_keywords(class_name, unknown, [*names, "reduction", "name", "dtype"])
        values.update(kwargs)
        LossFunctionWrapper.__init__(self, fn, reduction=reduction,
                                     name=name or _name or fn.__name__, dtype=dtype,
                                     **values)
    __init__.__qualname__ = f"{class_name}.__init__"
    return type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc,
                                                     "__module__": __name__})


MeanSquaredError = _define("MeanSquaredError", mean_squared_error,
                           "The mean of the squared errors.")
MeanAbsoluteError = _define("MeanAbsoluteError", mean_absolute_error,
                            "The mean of the absolute errors.")
MeanAbsolutePercentageError = _define("MeanAbsolutePercentageError",
                                      mean_absolute_percentage_error,
                                      "100 times the mean relative absolute error.")
MeanSquaredLogarithmicError = _define("MeanSquaredLogarithmicError",
                                      mean_squared_logarithmic_error,
                                      "The mean squared error of log(1 + x).")
BinaryCrossentropy = _define("BinaryCrossentropy", binary_crossentropy,
                             "Binary cross entropy of probabilities (or logits with "
                             "from_logits=True).", from_logits=False, label_smoothing=0.0,
                             axis=-1)
CategoricalCrossentropy = _define("CategoricalCrossentropy", categorical_crossentropy,
                                  "Cross entropy of one-hot labels and class probabilities "
                                  "(or logits).", from_logits=False, label_smoothing=0.0,
                                  axis=-1)
SparseCategoricalCrossentropy = _define("SparseCategoricalCrossentropy",
                                        sparse_categorical_crossentropy,
                                        "Cross entropy of integer labels and class "
                                        "probabilities (or logits).", from_logits=False,
                                        ignore_class=None, axis=-1)
BinaryFocalCrossentropy = _define("BinaryFocalCrossentropy", binary_focal_crossentropy,
                                  "Binary cross entropy down-weighting well classified "
                                  "examples.", apply_class_balancing=False, alpha=0.25,
                                  gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1)
CategoricalFocalCrossentropy = _define("CategoricalFocalCrossentropy",
                                       categorical_focal_crossentropy,
                                       "Categorical cross entropy down-weighting well "
                                       "classified examples.", alpha=0.25, gamma=2.0,
                                       from_logits=False, label_smoothing=0.0, axis=-1)
Huber = _define("Huber", huber, "Squared error below `delta`, linear above.", delta=1.0,
                _name="huber_loss")
KLDivergence = _define("KLDivergence", kl_divergence, "Kullback-Leibler divergence.")
Poisson = _define("Poisson", poisson, "The Poisson negative log likelihood (up to a constant).")
Hinge = _define("Hinge", hinge, "The hinge loss of -1/1 (or 0/1) labels.")
SquaredHinge = _define("SquaredHinge", squared_hinge, "The squared hinge loss.")
CategoricalHinge = _define("CategoricalHinge", categorical_hinge,
                           "The categorical hinge loss of one-hot labels.")
LogCosh = _define("LogCosh", log_cosh, "log(cosh(error)).")
Dice = _define("Dice", dice, "The Dice loss, summed over `axis` (all axes by default).",
               axis=None)
Tversky = _define("Tversky", tversky, "The Tversky loss (alpha weighs false positives, beta "
                  "false negatives).", alpha=0.5, beta=0.5, axis=None)
CategoricalGeneralizedCrossEntropy = _define(
    "CategoricalGeneralizedCrossEntropy", categorical_generalized_cross_entropy,
    "The generalized cross entropy (1 - p ** q) / q of integer labels.", q=0.5)
Circle = _define("Circle", circle, "The Circle loss of L2-normalized embeddings and integer "
                 "labels.", gamma=80.0, margin=0.4, remove_diagonal=True)
CTC = _define("CTC", ctc, "The CTC loss of integer labels (0 the blank and padding) and "
              "logits [batch, max_time, classes].")
CosineSimilarity = _define("CosineSimilarity", cosine_similarity,
                           "Minus the cosine similarity along `axis`.", axis=-1)

_FUNCTIONS = {fn.__name__: fn for fn in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, binary_crossentropy, categorical_crossentropy,
    sparse_categorical_crossentropy, binary_focal_crossentropy, categorical_focal_crossentropy,
    huber, kl_divergence, poisson, hinge, squared_hinge, categorical_hinge, log_cosh,
    cosine_similarity, dice, tversky, categorical_generalized_cross_entropy, circle, ctc)}
_FUNCTIONS.update(mse=mse, mae=mae, mape=mape, msle=msle, kld=kld, logcosh=log_cosh,
                  kullback_leibler_divergence=kl_divergence)
_CLASSES = {cls.__name__: cls for cls in (
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy, BinaryFocalCrossentropy, CategoricalFocalCrossentropy, Huber,
    KLDivergence, Poisson, Hinge, SquaredHinge, CategoricalHinge, LogCosh, CosineSimilarity,
    Dice, Tversky, CategoricalGeneralizedCrossEntropy, Circle, CTC)}


def serialize(loss) -> Any:
    """A loss as a name (a function) or a `{"class_name", "config"}` dict (a Loss)."""
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    if callable(loss) and getattr(loss, "__name__", None) in _FUNCTIONS:
        return loss.__name__
    return _serialization.serialize_value(loss)


@strict_keywords()
def deserialize(config, custom_objects: dict | None = None):
    """The loss function or object described by `serialize`'s result."""
    if isinstance(config, str):
        return get(config)
    if isinstance(config, dict) and config.get("class_name") in _CLASSES:
        return _CLASSES[config["class_name"]].from_config(config.get("config", {}))
    with _serialization.custom_object_scope(custom_objects or {}):
        return _serialization.deserialize_value(config)


_serialization.register_codec("loss", serialize, deserialize)


def get(identifier) -> Callable | None:
    """A loss from a function name ("mse", "binary_crossentropy", ...), a class name
    ("MeanSquaredError"), a config dict, or a callable (returned as is)."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        raise ValueError(f"unknown loss {identifier!r}; use a callable fn(y_true, y_pred) or "
                         f"one of {sorted(_FUNCTIONS) + sorted(_CLASSES)}.")
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise TypeError(f"A loss must be a name, a config dict or a callable, got {identifier!r}.")


__all__ = ["Loss", "LossFunctionWrapper", "Reduction", *_CLASSES, *_FUNCTIONS, "MSE", "MAE",
           "MAPE", "MSLE",
           "KLD", "serialize", "deserialize", "get"]
