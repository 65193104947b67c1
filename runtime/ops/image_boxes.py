"""tf.image's bounding-box selection: `non_max_suppression` and its variants (`_with_scores`,
soft-NMS included, `_overlaps`, `_padded`) and `combined_non_max_suppression`.

One greedy procedure, as TensorFlow's kernels run it, serves them all: candidates above
`score_threshold` come out of a priority queue by score (the lower index first among equal
scores); a candidate is compared with the boxes selected since it was last compared, newest
first, its score multiplied by exp(-0.5 * iou^2 / soft_nms_sigma) each time (soft-NMS; 1 while
the sigma is 0), and it is dropped as soon as one overlap is above the threshold or its score
falls to `score_threshold`. A candidate whose score soft-NMS lowered goes back into the queue;
one whose score is unchanged is selected. Boxes are [y1, x1, y2, x2] with either corner first;
a box of no area overlaps nothing. Nothing here is differentiable (as in TensorFlow).
"""

from __future__ import annotations

import heapq

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..opdef import define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_composed as _composed
from . import array_math as _math
from . import control_flow_functional as _functional
from .core import apply, convert_to_tensor


def _corners(boxes):
    """[N, 4] boxes as (ymin, xmin, ymax, xmax, area), float64."""
    b = np.asarray(boxes, dtype=np.float64)
    y0, y1 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x0, x1 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    return y0, x0, y1, x1, (y1 - y0) * (x1 - x0)


def _iou_with(boxes):
    """similarity(i, js): the IoU of box i with the boxes js (0 where either has no area)."""
    y0, x0, y1, x1, area = _corners(boxes)

    def similarity(i, js):
        js = np.asarray(js, dtype=np.int64)
        h = np.maximum(np.minimum(y1[i], y1[js]) - np.maximum(y0[i], y0[js]), 0.0)
        w = np.maximum(np.minimum(x1[i], x1[js]) - np.maximum(x0[i], x0[js]), 0.0)
        inter = h * w
        union = area[i] + area[js] - inter
        with np.errstate(invalid="ignore", divide="ignore"):
            iou = inter / union
        return np.where((area[i] > 0) & (area[js] > 0), iou, 0.0)
    return similarity


def greedy_select(similarity, scores, max_output_size: int, threshold: float,
                  score_threshold: float, soft_nms_sigma: float = 0.0):
    """(selected indices, their scores) by the greedy procedure of the module docstring."""
    scores = np.asarray(scores, dtype=np.float64)
    scale = -0.5 / soft_nms_sigma if soft_nms_sigma > 0 else 0.0
    # the queue: (-score, index, first selected box not yet compared)
    queue = [(-s, i, 0) for i, s in enumerate(scores.tolist()) if s > score_threshold]
    heapq.heapify(queue)
    selected: list[int] = []
    kept: list[float] = []
    while queue and len(selected) < max_output_size:
        negative, i, begin = heapq.heappop(queue)
        original = score = -negative
        hard = False
        if begin < len(selected):
            overlaps = similarity(i, selected[begin:][::-1])  # newest first
            for overlap in overlaps.tolist():
                if scale:
                    score *= np.exp(scale * overlap * overlap)
                if overlap > threshold:
                    hard = True
                    break
                if score <= score_threshold:
                    break
        if hard:
            continue
        if score == original:
            selected.append(i)
            kept.append(score)
        elif score > score_threshold:
            heapq.heappush(queue, (-score, i, len(selected)))
    return np.asarray(selected, dtype=np.int32), np.asarray(kept, dtype=np.float64)


# -- checks shared by the ops --------------------------------------------------------------------

def _check_boxes(boxes, scores, fn: str, boxes_arg: str = "boxes"):
    dims = boxes.shape.as_tuple()
    if dims is not None and (len(dims) != 2 or dims[1] not in (None, 4)):
        raise InvalidArgumentError(f"{fn}: `{boxes_arg}` must have shape [num_boxes, 4], got "
                                   f"{boxes.shape}.")
    sdims = scores.shape.as_tuple()
    if sdims is not None and len(sdims) != 1:
        raise InvalidArgumentError(f"{fn}: `scores` must be a vector, got shape {scores.shape}.")
    if dims is not None and sdims is not None and None not in (dims[0], sdims[0]) and \
            dims[0] != sdims[0]:
        raise InvalidArgumentError(f"{fn}: `{boxes_arg}` has {dims[0]} boxes but `scores` has "
                                   f"{sdims[0]} entries.")
    if not boxes.dtype.is_floating or not scores.dtype.is_floating:
        raise TypeError(f"{fn}: `{boxes_arg}` and `scores` must be floating-point, got "
                        f"{boxes.dtype.name} and {scores.dtype.name}.")


def _check_scalar(t, fn: str, arg: str, integer: bool):
    if t.shape.rank not in (None, 0):
        raise InvalidArgumentError(f"{fn}: `{arg}` must be a scalar, got shape {t.shape}.")
    if integer and not t.dtype.is_integer:
        raise TypeError(f"{fn}: `{arg}` must be an integer, got {t.dtype.name}.")


def _size_and_thresholds(fn, max_output_size, threshold, threshold_name, score_threshold,
                         soft_nms_sigma=0.0):
    size = int(max_output_size)
    if size < 0:
        raise InvalidArgumentError(f"{fn}: `max_output_size` must be non-negative, got {size}.")
    threshold = float(threshold)
    if not 0.0 <= threshold <= 1.0:
        raise InvalidArgumentError(f"{fn}: `{threshold_name}` must be in [0, 1], got "
                                   f"{threshold}.")
    sigma = float(soft_nms_sigma)
    if sigma < 0:
        raise InvalidArgumentError(f"{fn}: `soft_nms_sigma` must be non-negative, got {sigma}.")
    return size, threshold, float(score_threshold), sigma


# -- NonMaxSuppressionV5: non_max_suppression, _with_scores and _padded of one image -------------

def _nms_infer(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
               pad_to_max_output_size):
    _check_boxes(boxes, scores, "non_max_suppression")
    for t, arg in ((max_output_size, "max_output_size"), (iou_threshold, "iou_threshold"),
                   (score_threshold, "score_threshold"), (soft_nms_sigma, "soft_nms_sigma")):
        _check_scalar(t, "non_max_suppression", arg, arg == "max_output_size")
    size = constant_value(max_output_size) if pad_to_max_output_size else None
    n = TensorShape([None if size is None else int(size)])
    return [(n, _dtypes.int32), (n, scores.dtype), (TensorShape([]), _dtypes.int32)]


def _nms_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
                pad_to_max_output_size):
    size, threshold, score_min, sigma = _size_and_thresholds(
        "non_max_suppression", max_output_size, iou_threshold, "iou_threshold", score_threshold,
        soft_nms_sigma)
    boxes, scores = np.asarray(boxes), np.asarray(scores)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or scores.shape != boxes.shape[:1]:
        raise InvalidArgumentError(f"non_max_suppression: `boxes` must have shape [num_boxes, 4] "
                                   f"and `scores` [num_boxes], got {list(boxes.shape)} and "
                                   f"{list(scores.shape)}.")
    index, kept = greedy_select(_iou_with(boxes), scores, size, threshold, score_min, sigma)
    valid = np.int32(index.size)
    kept = kept.astype(scores.dtype)
    if pad_to_max_output_size:
        index = np.pad(index, (0, size - index.size))
        kept = np.pad(kept, (0, size - kept.size))
    return index, kept, valid


NON_MAX_SUPPRESSION = define("NonMaxSuppressionV5", _nms_infer, _nms_kernel, num_outputs=3,
                             differentiable=False, attrs={"pad_to_max_output_size": BOOL})


def _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, pad,
         name):
    boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype_hint=_dtypes.float32)
    return apply(NON_MAX_SUPPRESSION, [
        boxes, scores, convert_to_tensor(max_output_size, dtype=_dtypes.int32),
        convert_to_tensor(iou_threshold, dtype=scores.dtype),
        convert_to_tensor(score_threshold, dtype=scores.dtype),
        convert_to_tensor(soft_nms_sigma, dtype=scores.dtype)],
        {"pad_to_max_output_size": bool(pad)}, name=name)


@export("image.non_max_suppression")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None) -> Tensor:
    """The indices (int32) of at most `max_output_size` boxes chosen greedily by score, each
    overlapping every box chosen before it by an IoU of at most `iou_threshold`; boxes scoring
    `score_threshold` or less are never chosen. `boxes` [num_boxes, 4] as [y1, x1, y2, x2]
    (either corner first), `scores` [num_boxes]. Gather the boxes with `rt.gather`."""
    return _nms(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0, False,
                name)[0]


@export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None) -> tuple[Tensor, Tensor]:
    """`non_max_suppression` that also returns the chosen boxes' scores. With
    `soft_nms_sigma` > 0 (Soft-NMS, Bodla et al. 2017) an overlapping box's score is
    multiplied by exp(-0.5 * iou^2 / soft_nms_sigma) instead of the box being dropped (it is
    still dropped above `iou_threshold`), and the returned scores are the lowered ones."""
    index, kept, _ = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
                          soft_nms_sigma, False, name)
    return index, kept


# -- NonMaxSuppressionWithOverlaps ---------------------------------------------------------------

def _overlaps_infer(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    dims = overlaps.shape.as_tuple()
    if dims is not None and (len(dims) != 2 or (None not in dims and dims[0] != dims[1])):
        raise InvalidArgumentError(f"non_max_suppression_overlaps: `overlaps` must be a square "
                                   f"matrix, got shape {overlaps.shape}.")
    if not overlaps.dtype.is_floating or not scores.dtype.is_floating:
        raise TypeError("non_max_suppression_overlaps: `overlaps` and `scores` must be "
                        f"floating-point, got {overlaps.dtype.name} and {scores.dtype.name}.")
    _check_scalar(max_output_size, "non_max_suppression_overlaps", "max_output_size", True)
    return TensorShape([None]), _dtypes.int32


def _overlaps_kernel(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    overlaps, scores = np.asarray(overlaps, dtype=np.float64), np.asarray(scores)
    if overlaps.ndim != 2 or overlaps.shape != (scores.size, scores.size) or scores.ndim != 1:
        raise InvalidArgumentError(f"non_max_suppression_overlaps: `overlaps` must be [n, n] for "
                                   f"`scores` [n], got {list(overlaps.shape)} and "
                                   f"{list(scores.shape)}.")
    size = int(max_output_size)
    if size < 0:
        raise InvalidArgumentError(f"non_max_suppression_overlaps: `max_output_size` must be "
                                   f"non-negative, got {size}.")
    index, _ = greedy_select(lambda i, js: overlaps[i, js], scores, size,
                             float(overlap_threshold), float(score_threshold))
    return index


NON_MAX_SUPPRESSION_OVERLAPS = define("NonMaxSuppressionWithOverlaps", _overlaps_infer,
                                      _overlaps_kernel, differentiable=False)


@export("image.non_max_suppression_overlaps")
def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None) -> Tensor:
    """`non_max_suppression` with the overlaps given: `overlaps[i, j]` is how much box i
    overlaps box j (any measure, [n, n]); a box overlapping a chosen one by more than
    `overlap_threshold` is dropped."""
    overlaps = convert_to_tensor(overlaps, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype_hint=_dtypes.float32)
    return apply(NON_MAX_SUPPRESSION_OVERLAPS, [
        overlaps, scores, convert_to_tensor(max_output_size, dtype=_dtypes.int32),
        convert_to_tensor(overlap_threshold, dtype=overlaps.dtype),
        convert_to_tensor(score_threshold, dtype=scores.dtype)], name=name)


# -- non_max_suppression_padded ------------------------------------------------------------------

@export("image.non_max_suppression_padded")
def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512) -> tuple[Tensor, Tensor]:
    """`non_max_suppression` over a batch: `boxes` [..., num_boxes, 4] and `scores`
    [..., num_boxes] give (indices [..., max_output_size] padded with zeros, the number of valid
    ones [...]). Without `pad_to_max_output_size` (one image only; a batch raises ValueError, as
    in TensorFlow) the indices are cut to the valid ones. `sorted_input`, `canonicalized_coordinates`
    and `tile_size` are TensorFlow's hints for its tiled kernel; the selection does not
    depend on them here."""
    del sorted_input, canonicalized_coordinates, tile_size  # hints that change nothing here
    boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype_hint=_dtypes.float32)
    rank = boxes.shape.rank
    if rank is None:
        raise ValueError("non_max_suppression_padded needs `boxes` of known rank.")
    if rank == 2:
        index, _, valid = _nms(boxes, scores, max_output_size, iou_threshold, score_threshold,
                               0.0, True, name)
        if pad_to_max_output_size:
            return index, valid
        return _composed.slice(index, [0], valid[None]), valid
    if not pad_to_max_output_size:
        raise ValueError("non_max_suppression_padded: `pad_to_max_output_size` must be True for "
                         f"batched input (`boxes` of shape {boxes.shape}).")
    batch_shape = _math.shape(boxes)[:-2]
    flat_boxes = _math.reshape(boxes, [-1, _math.shape(boxes)[-2], 4])
    flat_scores = _math.reshape(scores, [-1, _math.shape(scores)[-1]])
    index, valid = _functional.map_fn(
        lambda pair: _nms(pair[0], pair[1], max_output_size, iou_threshold, score_threshold,
                          0.0, True, None)[::2],
        (flat_boxes, flat_scores), fn_output_signature=(_dtypes.int32, _dtypes.int32))
    out_shape = _math.concat([batch_shape, _math.shape(index)[-1:]], 0)
    return _math.reshape(index, out_shape, name=name), _math.reshape(valid, batch_shape)


# -- CombinedNonMaxSuppression -------------------------------------------------------------------

def _combined_infer(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                    score_threshold, pad_per_class, clip_boxes):
    fn = "combined_non_max_suppression"
    bd, sd = boxes.shape.as_tuple(), scores.shape.as_tuple()
    if bd is not None and (len(bd) != 4 or bd[3] not in (None, 4)):
        raise InvalidArgumentError(f"{fn}: `boxes` must have shape [batch, num_boxes, q, 4], "
                                   f"got {boxes.shape}.")
    if sd is not None and len(sd) != 3:
        raise InvalidArgumentError(f"{fn}: `scores` must have shape [batch, num_boxes, "
                                   f"num_classes], got {scores.shape}.")
    if bd is not None and sd is not None and None not in (bd[2], sd[2]) and \
            bd[2] not in (1, sd[2]):
        raise InvalidArgumentError(f"{fn}: `boxes` must have q = 1 or q = num_classes ({sd[2]}) "
                                   f"boxes a position, got {bd[2]}.")
    total, per_class = constant_value(max_total_size), constant_value(max_output_size_per_class)
    size = None if total is None else int(total)
    if pad_per_class and size is not None:
        classes = None if sd is None else sd[2]
        size = None if per_class is None or classes is None else \
            min(int(per_class) * classes, size)
    batch = None if bd is None else bd[0]
    return [(TensorShape([batch, size, 4]), _dtypes.float32),
            (TensorShape([batch, size]), _dtypes.float32),
            (TensorShape([batch, size]), _dtypes.float32),
            (TensorShape([batch]), _dtypes.int32)]


def _combined_kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                     score_threshold, pad_per_class, clip_boxes):
    fn = "combined_non_max_suppression"
    boxes, scores = np.asarray(boxes, np.float32), np.asarray(scores, np.float32)
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    if total <= 0:
        raise InvalidArgumentError(f"{fn}: `max_total_size` must be positive, got {total}.")
    if per_class <= 0:
        raise InvalidArgumentError(f"{fn}: `max_output_size_per_class` must be positive, got "
                                   f"{per_class}.")
    threshold = float(iou_threshold)
    if not 0.0 <= threshold <= 1.0:
        raise InvalidArgumentError(f"{fn}: `iou_threshold` must be in [0, 1], got {threshold}.")
    batch, _, classes = scores.shape
    size = min(per_class * classes, total) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []  # (score, class, box index)
        for c in range(classes):
            class_boxes = boxes[b, :, 0 if boxes.shape[2] == 1 else c]
            index, kept = greedy_select(_iou_with(class_boxes), scores[b, :, c], per_class,
                                        threshold, float(score_threshold))
            found.extend((s, c, i) for s, i in zip(kept.tolist(), index.tolist()))
        found.sort(key=lambda item: -item[0])  # stable: classes in order among equal scores
        found = found[:size]
        valid[b] = len(found)
        for k, (s, c, i) in enumerate(found):
            out_boxes[b, k] = boxes[b, i, 0 if boxes.shape[2] == 1 else c]
            out_scores[b, k] = s
            out_classes[b, k] = c
    if clip_boxes:
        np.clip(out_boxes, 0.0, 1.0, out=out_boxes)
    return out_boxes, out_scores, out_classes, valid


COMBINED_NON_MAX_SUPPRESSION = define(
    "CombinedNonMaxSuppression", _combined_infer, _combined_kernel, num_outputs=4,
    differentiable=False, attrs={"pad_per_class": BOOL, "clip_boxes": BOOL})


@export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True,
                                 name=None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Greedy non-max suppression per batch entry and class, then the best `max_total_size`
    of all classes' choices by score. `boxes` [batch, num_boxes, q, 4] (q = 1: one box for
    every class; q = num_classes: a box per class), `scores` [batch, num_boxes, num_classes].
    Returns (nmsed_boxes [batch, size, 4], nmsed_scores [batch, size], nmsed_classes [batch,
    size] as floats, valid_detections [batch]), zero-padded, where size is `max_total_size`,
    or with `pad_per_class` min(max_output_size_per_class * num_classes, max_total_size).
    `clip_boxes` clips the returned boxes to [0, 1]."""
    boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
    scores = convert_to_tensor(scores, dtype_hint=_dtypes.float32)
    return tuple(apply(COMBINED_NON_MAX_SUPPRESSION, [
        boxes, scores, convert_to_tensor(max_output_size_per_class, dtype=_dtypes.int32),
        convert_to_tensor(max_total_size, dtype=_dtypes.int32),
        convert_to_tensor(iou_threshold, dtype=_dtypes.float32),
        convert_to_tensor(score_threshold, dtype=_dtypes.float32)],
        {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}, name=name))

