"""Connectionist temporal classification (Graves et al., 2006): `tf.nn.ctc_loss` with dense or
sparse labels and its gradient, `ctc_greedy_decoder`, `ctc_beam_search_decoder` and
`ctc_unique_labels`.

The loss is one op computing the loss and its gradient together by the forward-backward
algorithm over the label's states (a start state, one per label, one blank after each), in
float64. Dense labels follow TensorFlow's dense formulation: a state that is not final ends
a path with the weight 1e-307 instead of 0, so that a label no alignment can produce gives a
large finite loss (about 707 more than the best ending elsewhere). Sparse labels follow
TensorFlow's `CTCLoss` kernel: such a label's loss is inf (its gradient the softmax), and a
label longer than its logit sequence is an InvalidArgumentError. The decoders are ops with
no gradient; their sparse results are made of ops.
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, INT
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_math as _math
from . import array_scatter as _scatter
from . import array_sort as _sort
from .core import apply, convert_to_tensor
from .sparse import SparseTensor
from .sparse import to_dense as _to_dense

_LOG_0 = float(np.float32(np.log(1e-307)))  # a state's weight where TensorFlow's dense loss has 0


def _log_softmax(x: np.ndarray) -> np.ndarray:
    top = np.max(x, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    return x - (np.log(np.sum(np.exp(x - top), axis=-1, keepdims=True)) + top)


# -- the loss ------------------------------------------------------------------------------------

def _loss_infer(logits, labels, label_length, logit_length, blank_index, exact):
    dims = logits.shape.as_tuple()
    if dims is not None and len(dims) != 3:
        raise ValueError(f"ctc_loss: `logits` must have rank 3 ([frames, batch, classes] when "
                         f"time major), got shape {logits.shape}.")
    batch = None if dims is None else dims[1]
    return [(TensorShape([batch]), logits.dtype), (logits.shape, logits.dtype)]


def _rotated(logp, labels, blank):
    """The classes with the blank first, and the labels in that order (TensorFlow's dense
    formulation: a label below the blank moves up one)."""
    if blank == 0:
        return logp, labels
    order = np.concatenate([[blank], np.arange(blank), np.arange(blank + 1, logp.shape[-1])])
    return logp[..., order], np.where(labels < blank, labels + 1, labels)


def _check_vector(v, frames, batch, fn, what):
    """`v` must be [batch] lengths, each in [0, frames] when `frames` is given."""
    if v.shape != (batch,):
        raise InvalidArgumentError(f"{fn}: `{what}` must have shape [batch ({batch})], got "
                                   f"{list(v.shape)}.")
    if frames is not None and (np.any(v < 0) or np.any(v > frames)):
        raise InvalidArgumentError(f"{fn}: every `{what}` must be in [0, frames ({frames})], "
                                   f"got {v.tolist()}.")


def _check_lengths(labels, label_length, logit_length, frames, batch, exact):
    if labels.ndim != 2 or labels.shape[0] != batch:
        raise InvalidArgumentError(f"ctc_loss: `labels` must have shape [batch ({batch}), "
                                   f"max_label_length], got {list(labels.shape)}.")
    _check_vector(label_length, None, batch, "ctc_loss", "label_length")
    _check_vector(logit_length, frames, batch, "ctc_loss", "logit_length")
    if exact:
        for b in range(batch):
            if label_length[b] == 0:
                raise InvalidArgumentError(f"ctc_loss: the label of batch entry {b} is empty "
                                           f"(sparse labels need at least one).")
            if label_length[b] > logit_length[b]:
                raise InvalidArgumentError(
                    f"ctc_loss: not enough time for the label of batch entry {b} (required: "
                    f"{int(label_length[b])}, available: {int(logit_length[b])}).")


def ctc_forward_backward(logp, labels, label_length, logit_length, log_0):
    """The CTC loss [batch] and the labels' posterior [frames, batch, classes] of log
    probabilities `logp` [frames, batch, classes] whose class 0 is the blank, for labels
    [batch, L] (classes 1.., anything else ignored) of `label_length` over the first
    `logit_length` frames. A state that is not final ends a path with the weight exp(log_0)."""
    frames, batch, classes = logp.shape
    width = labels.shape[1]
    valid = (labels >= 1) & (labels < classes)
    index = np.where(valid, labels, 0)
    rows = np.arange(batch)[:, None]
    # observed log probabilities of the label states 1..L (0: the start state) and the blanks
    obs_label = np.where(valid[None], logp[:, rows, index], 0.0)
    obs_label = np.where((labels == 0)[None], logp[:, :, :1], obs_label)
    obs_blank = logp[:, :, :1]
    # a label state k >= 2 is reached from label k - 1 only when their labels differ
    step = np.ones((batch, width + 1), bool)
    if width > 1:
        step[:, 2:] = labels[:, 1:] != labels[:, :-1]
    step[:, 0] = False
    neg = -np.inf

    def forward_step(a, bl):
        came = a.copy()
        came[:, 1:] = np.logaddexp(came[:, 1:], bl[:, :-1])
        came[:, 1:] = np.where(step[:, 1:], np.logaddexp(came[:, 1:], a[:, :-1]), came[:, 1:])
        return came, np.logaddexp(bl, a)

    final_a = np.full((batch, width + 1), log_0)
    final_a[np.arange(batch)[label_length <= width], label_length[label_length <= width]] = 0.0
    final_b = final_a.copy()
    # forward: alpha after each frame
    a = np.full((batch, width + 1), log_0)
    a[:, 0] = 0.0
    bl = np.full((batch, width + 1), log_0)
    alpha_a = np.empty((frames, batch, width + 1))
    alpha_b = np.empty((frames, batch, width + 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        for t in range(frames):
            a, bl = forward_step(a, bl)
            a = a + np.concatenate([np.full((batch, 1), neg), obs_label[t]], axis=1)
            bl = bl + obs_blank[t]
            top = np.maximum(a.max(axis=1), bl.max(axis=1))[:, None]
            top = np.where(np.isfinite(top), top, 0.0)
            a, bl = a - top, bl - top
            alpha_a[t], alpha_b[t] = a, bl
        # backward: beta before each frame (the final weights from each sequence's end on)
        beta_a = np.empty((frames, batch, width + 1))
        beta_b = np.empty((frames, batch, width + 1))
        a, bl = final_a.copy(), final_b.copy()
        scale = np.zeros(batch)
        for t in range(frames - 1, -1, -1):
            beta_a[t], beta_b[t] = a, bl
            ca = a + np.concatenate([np.full((batch, 1), neg), obs_label[t]], axis=1)
            cb = bl + obs_blank[t]
            na = np.logaddexp(ca, cb)  # label k stays, or goes to blank k
            nxt = np.where(step[:, 1:], ca[:, 1:], neg)
            na[:, :-1] = np.logaddexp(na[:, :-1], nxt)  # or to label k + 1
            nb = cb.copy()
            nb[:, :-1] = np.logaddexp(nb[:, :-1], ca[:, 1:])  # blank k stays or goes to k + 1
            top = np.maximum(na.max(axis=1), nb.max(axis=1))
            top = np.where(np.isfinite(top), top, 0.0)
            live = (t < logit_length)
            a = np.where(live[:, None], na - top[:, None], final_a)
            bl = np.where(live[:, None], nb - top[:, None], final_b)
            scale = scale + np.where(live, top, 0.0)
        loss = -(a[:, 0] + scale)
        # posterior of each state at each frame, summed per class
        post_a = alpha_a + beta_a
        post_b = alpha_b + beta_b
        top = np.maximum(post_a.max(axis=2), post_b.max(axis=2))[..., None]
        top = np.where(np.isfinite(top), top, 0.0)
        total = np.log(np.exp(post_a - top).sum(axis=2) + np.exp(post_b - top).sum(axis=2))
        pa = np.exp(post_a - top - total[..., None])
        pb = np.exp(post_b - top - total[..., None])
    pa, pb = np.nan_to_num(pa[:, :, 1:]), np.nan_to_num(pb)
    occupancy = np.zeros_like(logp)
    occupancy[:, :, 0] = pb.sum(axis=2)
    counted = valid[None] & np.ones((frames, 1, 1), bool)
    t_idx, b_idx, k_idx = np.nonzero(counted)
    np.add.at(occupancy, (t_idx, b_idx, labels[b_idx, k_idx]), pa[t_idx, b_idx, k_idx])
    mask = (np.arange(frames)[:, None] < logit_length[None, :])[..., None]
    return loss, np.where(mask, occupancy, 0.0)


def _loss_kernel(logits, labels, label_length, logit_length, blank_index, exact):
    logits = np.asarray(logits)
    frames, batch, classes = logits.shape
    labels = np.asarray(labels).astype(np.int64)
    label_length = np.asarray(label_length).astype(np.int64)
    logit_length = np.asarray(logit_length).astype(np.int64)
    _check_lengths(labels, label_length, logit_length, frames, batch, exact)
    if exact:
        inside = np.arange(labels.shape[1])[None, :] < label_length[:, None]
        bad = inside & ((labels < 0) | (labels >= classes) | (labels == blank_index))
        if np.any(bad):
            raise InvalidArgumentError(f"ctc_loss: labels must be classes in [0, {classes}) "
                                       f"other than the blank ({blank_index}), got "
                                       f"{labels[bad].tolist()}.")
    logp = _log_softmax(logits.astype(np.float64))
    logp_r, labels_r = _rotated(logp, labels, blank_index)
    if exact:  # only the labels' own states: padding never counts
        inside = np.arange(labels.shape[1])[None, :] < label_length[:, None]
        labels_r = np.where(inside, labels_r, -1)
    loss, occupancy = ctc_forward_backward(logp_r, labels_r, label_length, logit_length,
                                           -np.inf if exact else _LOG_0)
    if blank_index:
        back = np.empty(classes, np.int64)
        back[blank_index] = 0
        others = np.concatenate([np.arange(blank_index), np.arange(blank_index + 1, classes)])
        back[others] = np.arange(1, classes)
        occupancy = occupancy[..., back]
    mask = (np.arange(frames)[:, None] < logit_length[None, :])[..., None]
    grad = np.where(mask, np.exp(logp) - occupancy, 0.0)
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


CTC_LOSS = define("CTCLossDense", _loss_infer, _loss_kernel, num_outputs=2,
                  attrs={"blank_index": INT, "exact": BOOL})


@CTC_LOSS.def_grad
def _ctc_loss_grad(op, g, g_grad=None):
    if g_grad is not None:
        raise LookupError("ctc_loss: the gradient of its gradient is not defined (as in "
                          "TensorFlow, which prevents a second derivative of the CTC loss).")
    if g is None:
        return [None, None, None, None]
    return [_math.reshape(g, [1, -1, 1]) * op.outputs[1], None, None, None]


def _int_vector(value, what: str) -> Tensor:
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if not t.dtype.is_integer:
        raise TypeError(f"ctc_loss: `{what}` must hold integers, got {t.dtype.name}.")
    return t


def _float_logits(logits, fn: str) -> Tensor:
    x = convert_to_tensor(logits, dtype_hint=_dtypes.float32)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn}: `logits` must be floating-point, got {x.dtype.name}.")
    if x.shape.rank not in (None, 3):
        raise ValueError(f"{fn}: `logits` must have rank 3, got shape {x.shape}.")
    return x


def _classes(x: Tensor, fn: str) -> int:
    classes = x.shape.as_tuple()[2] if x.shape.rank == 3 else None
    if classes is None:
        raise ValueError(f"{fn}: the number of classes (the last dimension of `logits`) must "
                         f"be known.")
    return int(classes)


def _blank(blank_index, classes: int, fn: str) -> int:
    blank = int(blank_index)
    if not -classes <= blank < classes:
        raise ValueError(f"{fn}: `blank_index` must be in [-{classes}, {classes}), got "
                         f"{blank_index}.")
    return blank % classes


def _sparse_labels(labels: SparseTensor, batch) -> tuple[Tensor, Tensor]:
    """Dense labels (padded with 0) and their lengths (the values in each row)."""
    dense = _to_dense(labels, default_value=0)
    rows = labels.indices[:, 0]
    lengths = _scatter.unsorted_segment_sum(_math.ones_like(rows), rows, batch)
    return dense, lengths


@export("nn.ctc_loss")
def ctc_loss(labels, logits, label_length, logit_length, logits_time_major=True, unique=None,
             blank_index=None, name=None) -> Tensor:
    """The CTC loss (negative log probability of `labels`) of each sequence, [batch]: the
    softmax of `logits` [frames, batch, classes] (or [batch, frames, classes] with
    `logits_time_major=False`) over its first `logit_length` frames. `labels` are dense
    [batch, max_label_length] with `label_length`, or a SparseTensor (then `blank_index` is
    required and `label_length` unused). The blank is class `blank_index` (default 0; a
    negative index counts from the end). `unique` (from `ctc_unique_labels`) is accepted and
    gives the same loss. Differentiable in `logits` (once)."""
    x = _float_logits(logits, "ctc_loss")
    classes = _classes(x, "ctc_loss")
    sparse = isinstance(labels, SparseTensor)
    if sparse and blank_index is None:
        raise ValueError("Argument `blank_index` must be provided when `labels` is a "
                         "`SparseTensor`.")
    blank = _blank(0 if blank_index is None else blank_index, classes, "ctc_loss")
    if unique is not None and (not isinstance(unique, (tuple, list)) or len(unique) != 2):
        raise TypeError("ctc_loss: `unique` must be the pair (unique labels, indices) "
                        "ctc_unique_labels(labels) returns.")
    if not logits_time_major:
        x = _math.transpose(x, [1, 0, 2])
    compute = x
    if x.dtype in (_dtypes.float16, _dtypes.bfloat16):
        compute = _math.cast(x, _dtypes.float32)
    logit_length = _int_vector(logit_length, "logit_length")
    if sparse:
        dense, lengths = _sparse_labels(labels, _math.shape(x)[1])
    else:
        if label_length is None:
            raise ValueError("ctc_loss: `label_length` is required with dense `labels`.")
        dense = _int_vector(labels, "labels")
        if dense.shape.rank not in (None, 2):
            raise ValueError(f"ctc_loss: dense `labels` must have rank 2 [batch, "
                             f"max_label_length], got shape {dense.shape}.")
        lengths = _int_vector(label_length, "label_length")
    loss, _ = apply(CTC_LOSS, [compute, dense, lengths, logit_length],
                    {"blank_index": blank, "exact": sparse}, name=name)
    return loss if compute is x else _math.cast(loss, x.dtype)


@export("nn.ctc_unique_labels")
def ctc_unique_labels(labels, name=None) -> tuple[Tensor, Tensor]:
    """Each row's distinct labels in order of first appearance, padded with 0 (int64), and
    each label's index among them (int32): `tf.unique` per row of `labels` [batch, length]."""
    labels = convert_to_tensor(labels)
    if labels.shape.rank not in (None, 2):
        raise ValueError(f"ctc_unique_labels: `labels` must have rank 2, got shape "
                         f"{labels.shape}.")
    same = _math.equal(labels[:, :, None], labels[:, None, :])
    first = _math.argmax(_math.cast(same, _dtypes.int32), axis=2, output_type=_dtypes.int32)
    width = _math.shape(labels)[1]
    position = _math.range(width)
    is_first = _math.equal(first, position[None, :])
    rank = _math.cumsum(_math.cast(is_first, _dtypes.int32), axis=1) - 1
    idx = _scatter.gather(rank, first, batch_dims=1)
    slot = _math.one_hot(rank, width, dtype=_dtypes.int64) * \
        _math.cast(is_first, _dtypes.int64)[:, :, None]
    y = _math.reduce_sum(slot * _math.cast(labels, _dtypes.int64)[:, :, None], axis=1)
    return y, idx


# -- decoders ------------------------------------------------------------------------------------

def _decoder_checks(inputs, sequence_length, fn):
    x = convert_to_tensor(inputs, dtype_hint=_dtypes.float32)
    if not x.dtype.is_floating:
        raise TypeError(f"{fn}: `inputs` must be floating-point, got {x.dtype.name}.")
    if x.shape.rank not in (None, 3):
        raise ValueError(f"{fn}: `inputs` must have rank 3 [max_time, batch, classes], got "
                         f"shape {x.shape}.")
    lengths = convert_to_tensor(sequence_length, dtype_hint=_dtypes.int32)
    if not lengths.dtype.is_integer:
        raise TypeError(f"{fn}: `sequence_length` must hold integers, got {lengths.dtype.name}.")
    return x, _math.cast(lengths, _dtypes.int32)


def _check_sequence(x, lengths, fn):
    _check_vector(lengths, x.shape[0], x.shape[1], fn, "sequence_length")


def _greedy_infer(inputs, sequence_length, merge_repeated, blank_index):
    dims = inputs.shape.as_tuple()
    frames, batch = (None, None) if dims is None else dims[:2]
    return [(TensorShape([batch, frames]), _dtypes.int64), (TensorShape([batch]), _dtypes.int64),
            (TensorShape([batch, 1]), inputs.dtype)]


def _greedy_kernel(inputs, sequence_length, merge_repeated, blank_index):
    x = np.asarray(inputs)
    lengths = np.asarray(sequence_length)
    _check_sequence(x, lengths, "ctc_greedy_decoder")
    frames, batch, _ = x.shape
    decoded = np.full((batch, frames), -1, np.int64)
    count = np.zeros(batch, np.int64)
    score = np.zeros((batch, 1), np.float64)
    best = np.argmax(x, axis=2)
    for b in range(batch):
        previous = -1
        for t in range(int(lengths[b])):
            c = int(best[t, b])
            score[b, 0] -= float(x[t, b, c])
            if c != blank_index and not (merge_repeated and c == previous):
                decoded[b, count[b]] = c
                count[b] += 1
            previous = c
    return decoded, count, score.astype(x.dtype)


CTC_GREEDY = define("CTCGreedyDecoderDense", _greedy_infer, _greedy_kernel, num_outputs=3,
                    differentiable=False, attrs={"merge_repeated": BOOL, "blank_index": INT})


def _beam_infer(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    dims = inputs.shape.as_tuple()
    frames, batch = (None, None) if dims is None else dims[:2]
    return [(TensorShape([top_paths, batch, frames]), _dtypes.int64),
            (TensorShape([top_paths, batch]), _dtypes.int64),
            (TensorShape([batch, top_paths]), inputs.dtype)]


def _bottom(heap: list, beam: dict) -> float:
    """The probability of the least probable prefix in `beam` (`heap` holds them, and some
    that have left the beam)."""
    while heap[0][2] not in beam or beam[heap[0][2]][2] != heap[0][0]:
        heapq.heappop(heap)
    return heap[0][0]


def beam_search(logp: np.ndarray, beam_width: int, top_paths: int):
    """The `top_paths` most probable label sequences of log probabilities `logp` [frames,
    classes] (the blank last) by CTC prefix beam search, keeping `beam_width` prefixes a
    frame, as TensorFlow's decoder keeps them: (sequences, their log probabilities)."""
    blank = logp.shape[1] - 1
    neg = -np.inf
    # prefix -> (log P ending in a blank, log P ending in its last label, log P)
    leaves = {(): (0.0, neg, 0.0)}
    for row in logp.tolist():
        old = leaves
        new: dict = {}
        for prefix, (_, p_label, p_total) in old.items():
            label_p = p_label
            if prefix:
                parent = old.get(prefix[:-1])
                if parent is not None:
                    repeat = len(prefix) > 1 and prefix[-2] == prefix[-1]
                    label_p = np.logaddexp(label_p, parent[0] if repeat else parent[2])
                label_p = label_p + row[prefix[-1]]
            blank_p = p_total + row[blank]
            new[prefix] = (blank_p, label_p, float(np.logaddexp(blank_p, label_p)))
        heap = [(v[2], i, k) for i, (k, v) in enumerate(new.items())]
        heapq.heapify(heap)
        serial = len(heap)

        # prefixes grow from the most probable on; one in the beam already is not grown again,
        # and one grown again too improbable for the beam grows no further in this frame
        dropped = set()
        for prefix, (p_blank, _, p_total) in sorted(old.items(), key=lambda kv: -kv[1][2]):
            if prefix in dropped or p_total == neg or (len(new) >= beam_width and
                                                       not p_total > _bottom(heap, new)):
                continue
            last = prefix[-1] if prefix else -1
            for label in range(blank):
                child = prefix + (label,)
                if child in new:
                    continue
                p = row[label] + (p_blank if label == last else p_total)
                if p == neg or (len(new) >= beam_width and not p > _bottom(heap, new)):
                    dropped.add(child)
                    continue
                if len(new) >= beam_width:
                    del new[heapq.heappop(heap)[2]]
                new[child] = (neg, p, p)
                heapq.heappush(heap, (p, serial, child))
                serial += 1
        leaves = new
    ranked = sorted(leaves.items(), key=lambda kv: -kv[1][2])[:top_paths]
    return [k for k, _ in ranked], [v[2] for _, v in ranked]


def _beam_kernel(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    x = np.asarray(inputs)
    lengths = np.asarray(sequence_length)
    _check_sequence(x, lengths, "ctc_beam_search_decoder")
    frames, batch, _ = x.shape
    decoded = np.full((top_paths, batch, frames), -1, np.int64)
    count = np.zeros((top_paths, batch), np.int64)
    scores = np.full((batch, top_paths), -np.inf)
    logp = _log_softmax(x.astype(np.float64))
    for b in range(batch):
        paths, probs = beam_search(logp[: int(lengths[b]), b], beam_width, top_paths)
        if len(paths) < top_paths:
            raise InvalidArgumentError(f"ctc_beam_search_decoder: the beam of batch entry {b} "
                                       f"holds {len(paths)} sequences, fewer than `top_paths` "
                                       f"({top_paths}).")
        for p, (path, prob) in enumerate(zip(paths, probs)):
            if merge_repeated:
                path = [c for i, c in enumerate(path) if i == 0 or path[i - 1] != c]
            decoded[p, b, :len(path)] = path
            count[p, b] = len(path)
            scores[b, p] = prob
    return decoded, count, scores.astype(x.dtype)


CTC_BEAM = define("CTCBeamSearchDecoderDense", _beam_infer, _beam_kernel, num_outputs=3,
                  differentiable=False, attrs={"beam_width": INT, "top_paths": INT,
                                                        "merge_repeated": BOOL})


def dense_to_sparse(decoded: Tensor, lengths: Tensor) -> SparseTensor:
    """A SparseTensor of the first `lengths[b]` entries of each row of `decoded` [batch,
    max_time], shaped [batch, longest]."""
    width = _math.shape(decoded, out_type=_dtypes.int64)[1]
    mask = _sort.sequence_mask(lengths, width)
    indices = _math.where(mask)
    values = _scatter.gather_nd(decoded, indices)
    longest = _math.reduce_max(_math.concat([lengths, _math.zeros([1], _dtypes.int64)], 0))
    shape = _math.stack([_math.shape(decoded, out_type=_dtypes.int64)[0], longest])
    return SparseTensor(indices, values, shape)


@export("nn.ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True,
                       blank_index=None) -> tuple[list[SparseTensor], Tensor]:
    """Best-path decoding of `inputs` [max_time, batch, classes] (logits): the most likely
    class of each of the first `sequence_length` frames, repeats merged (`merge_repeated`)
    and blanks (class `blank_index`, default the last) removed. Returns ([decoded
    SparseTensor of int64, [batch, longest]], neg_sum_logits [batch, 1]: minus the sum of each
    frame's largest logit)."""
    x, lengths = _decoder_checks(inputs, sequence_length, "ctc_greedy_decoder")
    classes = _classes(x, "ctc_greedy_decoder")
    blank = classes - 1 if blank_index is None else _blank(blank_index, classes,
                                                          "ctc_greedy_decoder")
    decoded, count, score = apply(CTC_GREEDY, [x, lengths],
                                  {"merge_repeated": bool(merge_repeated), "blank_index": blank})
    return [dense_to_sparse(decoded, count)], score


def beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated):
    """`ctc_beam_search_decoder`, merging repeated labels of a result with `merge_repeated`
    (TensorFlow 1's decoder, which `keras.backend.ctc_decode` calls): (decoded [top_paths,
    batch, max_time] int64 padded with -1, their lengths [top_paths, batch], log
    probabilities [batch, top_paths])."""
    x, lengths = _decoder_checks(inputs, sequence_length, "ctc_beam_search_decoder")
    width, paths = constant_value(beam_width), constant_value(top_paths)
    if width is None or paths is None:
        raise ValueError("ctc_beam_search_decoder: `beam_width` and `top_paths` must be "
                         "known when the call is traced.")
    width, paths = int(width), int(paths)
    if width < 1:
        raise ValueError(f"ctc_beam_search_decoder: `beam_width` must be at least 1, got "
                         f"{width}.")
    if not 1 <= paths <= width:
        raise ValueError(f"ctc_beam_search_decoder: `top_paths` must be in [1, beam_width "
                         f"({width})], got {paths}.")
    return apply(CTC_BEAM, [x, lengths], {"beam_width": width, "top_paths": paths,
                                          "merge_repeated": bool(merge_repeated)})


@export("nn.ctc_beam_search_decoder")
def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100,
                            top_paths=1) -> tuple[list[SparseTensor], Tensor]:
    """Prefix beam search over the softmax of `inputs` [max_time, batch, classes] (logits; the
    last class is the blank), keeping `beam_width` prefixes a frame: the `top_paths` most
    probable label sequences (repeated labels need a blank between them) as a list of int64
    SparseTensors, and their log probabilities [batch, top_paths], most probable first."""
    decoded, count, scores = beam_search_decoder(inputs, sequence_length, beam_width,
                                                 top_paths, False)
    return [dense_to_sparse(decoded[p], count[p]) for p in range(count.shape[0])], scores
