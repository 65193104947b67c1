"""`keras.utils.bounding_boxes`: Keras 3's box utilities (format conversion, clipping,
IoU and CIoU, the boxes of an affine transform, crops and pads, anchor deltas). Boxes are
arrays whose last axis holds 4 coordinates in one of the formats of `FORMATS`; results are
float32 tensors (computed eagerly in NumPy).

Formats: "xyxy" (left, top, right, bottom), "yxyx", "xywh" (left, top, width, height),
"center_xywh", "center_yxhw", and "rel_" forms (fractions of the image's width and height)
of xyxy, yxyx, xywh and center_xywh."""

from __future__ import annotations

import math

import numpy as np

from ..ops.core import convert_to_tensor

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")
_EPSILON = 1e-7  # keras.config.epsilon()


def _array(value, dtype="float32") -> np.ndarray:
    if hasattr(value, "numpy"):
        value = value.numpy()
    return np.asarray(value, dtype)


def _split(boxes: np.ndarray) -> list:
    return [boxes[..., i:i + 1] for i in range(4)]


def _to_xyxy(boxes, source, height, width):
    a, b, c, d = _split(boxes)
    if source == "xyxy":
        return boxes
    if source == "yxyx":
        return np.concatenate([b, a, d, c], -1)
    if source == "xywh":
        return np.concatenate([a, b, a + c, b + d], -1)
    if source == "center_xywh":
        return np.concatenate([a - c / 2, b - d / 2, a + c / 2, b + d / 2], -1)
    if source == "center_yxhw":
        return np.concatenate([b - d / 2, a - c / 2, b + d / 2, a + c / 2], -1)
    if source == "rel_xyxy":
        return np.concatenate([a * width, b * height, c * width, d * height], -1)
    if source == "rel_yxyx":
        return np.concatenate([b * width, a * height, d * width, c * height], -1)
    if source == "rel_xywh":
        return np.concatenate([a * width, b * height, (a + c) * width, (b + d) * height], -1)
    return np.concatenate([(a - c / 2) * width, (b - d / 2) * height, (a + c / 2) * width,
                           (b + d / 2) * height], -1)  # rel_center_xywh


def _from_xyxy(boxes, target, height, width):
    x1, y1, x2, y2 = _split(boxes)
    w, h = x2 - x1, y2 - y1
    cx, cy = x1 + w / 2, y1 + h / 2
    forms = {
        "xyxy": lambda: boxes,
        "yxyx": lambda: np.concatenate([y1, x1, y2, x2], -1),
        "xywh": lambda: np.concatenate([x1, y1, w, h], -1),
        "center_xywh": lambda: np.concatenate([cx, cy, w, h], -1),
        "center_yxhw": lambda: np.concatenate([cy, cx, h, w], -1),
        "rel_xyxy": lambda: np.concatenate([x1 / width, y1 / height, x2 / width,
                                            y2 / height], -1),
        "rel_yxyx": lambda: np.concatenate([y1 / height, x1 / width, y2 / height,
                                            x2 / width], -1),
        "rel_xywh": lambda: np.concatenate([x1 / width, y1 / height, w / width,
                                            h / height], -1),
        "rel_center_xywh": lambda: np.concatenate([cx / width, cy / height, w / width,
                                                   h / height], -1),
    }
    return forms[target]()


def _convert(boxes: np.ndarray, source: str, target: str, height=None, width=None,
             dtype="float32") -> np.ndarray:
    if boxes.shape[-1] != 4:
        raise ValueError("`boxes` must be a tensor with the last dimension of 4. Received: "
                         f"boxes.shape={boxes.shape}")
    source, target = source.lower(), target.lower()
    if source not in FORMATS or target not in FORMATS:
        raise ValueError(f"Invalid source or target format. Supported formats: {FORMATS}")
    if (source.startswith("rel_") or target.startswith("rel_")) and (
            width is None or height is None):
        raise ValueError("convert_format() must receive `height` and `width` transforming "
                         f"between relative and absolute formats. convert_format() received "
                         f"source=`{source}`, target=`{target}, but height={height} and "
                         f"width={width}.")
    boxes = boxes.astype(dtype)
    if source == target:
        return boxes
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    cast = np.dtype(dtype).type
    height = None if height is None else cast(height)
    width = None if width is None else cast(width)
    return _from_xyxy(_to_xyxy(boxes, source, height, width), target, height, width)


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """`boxes` converted from the format `source` to `target` (`height` and `width` needed
    for a relative format); a dict's "boxes" is converted in place and the dict returned."""
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source, target, height, width, dtype)
        return boxes
    return convert_to_tensor(_convert(_array(boxes, None), source, target, height, width,
                                      dtype))


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """`{"boxes", "labels"}` with the boxes clipped to the image (xyxy: [0, width] x
    [0, height]; rel_xyxy: [0, 1]); the label of a box left with no area becomes -1."""
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(f"clip_to_image_size: bounding_box_format must be 'xyxy' "
                                  f"or 'rel_xyxy', got {bounding_box_format!r}.")
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError("`height` and `width` must be set if `format='xyxy'`.")
    boxes = _array(bounding_boxes["boxes"], None)
    high_x, high_y = (1.0, 1.0) if bounding_box_format == "rel_xyxy" else (width, height)
    x1, y1, x2, y2 = _split(boxes)
    boxes = np.concatenate([np.clip(x1, 0, high_x), np.clip(y1, 0, high_y),
                            np.clip(x2, 0, high_x), np.clip(y2, 0, high_y)], -1)
    result = dict(bounding_boxes)
    result["boxes"] = convert_to_tensor(boxes)
    if bounding_boxes.get("labels") is not None:
        area = (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
        labels = _array(bounding_boxes["labels"], None)
        result["labels"] = convert_to_tensor(np.where(area > 0, labels, -1).astype(labels.dtype))
    return result


def _inverse_affine(center_x, center_y, angle, translate_x, translate_y, scale, shear_x,
                    shear_y, height, width) -> np.ndarray:
    """The (B, 3, 3) matrices taking output pixels to input pixels (angles in degrees)."""
    rad = math.pi / 180.0
    cx, cy = center_x * (width - 1), center_y * (height - 1)
    rot = -angle * rad
    tx, ty = -translate_x * (width - 1), -translate_y * (height - 1)
    sx, sy = -shear_x * rad, -shear_y * rad
    a = np.cos(rot - sy) / np.cos(sy)
    b = a * np.tan(sx) + np.sin(rot)
    c = -np.sin(rot - sy) / np.cos(sy)
    d = np.cos(rot) - c * np.tan(sx)
    a0, a1, b0, b1 = d * scale, -b * scale, -c * scale, a * scale
    a2 = cx - a0 * (cx + tx) - a1 * (cy + ty)
    b2 = cy - b0 * (cx + tx) - b1 * (cy + ty)
    zeros, ones = np.zeros_like(a0), np.ones_like(a0)
    return np.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ones], -1).reshape(-1, 3, 3)


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y, height,
                     width, center_x=None, center_y=None, bounding_box_format="xyxy"):
    """The xyxy boxes (B, N, 4) enclosing each box's corners moved by the inverse of the
    affine image transform of each batch item (angle and shears in degrees, translations as
    fractions of the size, about (center_x, center_y), fractions, 0.5 by default)."""
    if bounding_box_format != "xyxy":
        raise NotImplementedError("affine_transform: only bounding_box_format='xyxy' is "
                                  "implemented, as in Keras.")
    angle = _array(angle)
    matrix = _inverse_affine(0.5 if center_x is None else center_x,
                             0.5 if center_y is None else center_y, angle,
                             _array(translate_x), _array(translate_y), _array(scale),
                             _array(shear_x), _array(shear_y), height, width)
    boxes = _array(boxes, matrix.dtype)
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    corners = np.stack([x1, y1, x2, y1, x2, y2, x1, y2], -1).reshape(*boxes.shape[:2], 4, 2)
    corners = np.concatenate([corners, np.ones(corners.shape[:-1] + (1,), corners.dtype)], -1)
    moved = np.einsum("bnkj,bij->bnki", corners, matrix[:, :2, :])
    return convert_to_tensor(np.concatenate([moved.min(axis=2), moved.max(axis=2)], -1))


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """xyxy boxes moved by (-left, -top) and clipped to [0, width] x [0, height]."""
    if bounding_box_format != "xyxy":
        raise NotImplementedError("crop: only bounding_box_format='xyxy' is implemented, as "
                                  "in Keras.")
    x1, y1, x2, y2 = _split(_array(boxes, None))
    return convert_to_tensor(np.concatenate([np.clip(x1 - left, 0, width),
                                             np.clip(y1 - top, 0, height),
                                             np.clip(x2 - left, 0, width),
                                             np.clip(y2 - top, 0, height)], -1))


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """xyxy boxes moved by (left, top), as padding the image moves them."""
    if bounding_box_format != "xyxy":
        raise NotImplementedError("pad: only bounding_box_format='xyxy' is implemented, as "
                                  "in Keras.")
    x1, y1, x2, y2 = _split(_array(boxes, None))
    return convert_to_tensor(np.concatenate([x1 + left, y1 + top, x2 + left, y2 + top], -1))


def _variance(variance):
    if variance is None:
        return None
    variance = _array(variance)
    if variance.shape[-1] != 4:
        raise ValueError(f"`variance` must be length 4, got {variance}")
    return variance


def _hw(image_shape):
    return (None, None) if image_shape is None else tuple(image_shape[:2])


def encode_box_to_deltas(anchors, boxes, anchor_format, box_format,
                         encoding_format="center_yxhw", variance=None, image_shape=None):
    """The deltas of `boxes` from `anchors` in `encoding_format` (center_yxhw or
    center_xywh): centre offsets over the anchor's size, then log size ratios; divided by
    `variance` when given."""
    variance = _variance(variance)
    if encoding_format not in ("center_xywh", "center_yxhw"):
        raise ValueError("`encoding_format` should be one of 'center_xywh' or 'center_yxhw', "
                         f"got {encoding_format}")
    height, width = _hw(image_shape)
    a = _convert(_array(anchors), anchor_format, encoding_format, height, width)
    b = _convert(_array(boxes), box_format, encoding_format, height, width)
    a_size = np.maximum(a[..., 2:], np.float32(_EPSILON))
    b_size = np.maximum(b[..., 2:], np.float32(_EPSILON))
    deltas = np.concatenate([(b[..., :2] - a[..., :2]) / a_size, np.log(b_size / a_size)], -1)
    return convert_to_tensor(deltas if variance is None else deltas / variance)


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format, box_format,
                           encoded_format="center_yxhw", variance=None, image_shape=None):
    """The boxes (in `box_format`) that `encode_box_to_deltas` turned into `boxes_delta`;
    dicts of levels decode level by level."""
    variance = _variance(variance)
    if encoded_format not in ("center_xywh", "center_yxhw"):
        raise ValueError("`encoded_format` should be 'center_xywh' or 'center_yxhw', but got "
                         f"'{encoded_format}'.")
    height, width = _hw(image_shape)

    def one(anchor, delta):
        a = _convert(_array(anchor), anchor_format, encoded_format, height, width)
        delta = _array(delta)
        if variance is not None:
            delta = delta * variance
        box = np.concatenate([delta[..., :2] * a[..., 2:] + a[..., :2],
                              np.exp(delta[..., 2:]) * a[..., 2:]], -1)
        return convert_to_tensor(_convert(box, encoded_format, box_format, height, width))

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        return {level: one(anchor, boxes_delta[level]) for level, anchor in anchors.items()}
    return one(anchors, boxes_delta)


def compute_iou(boxes1, boxes2, bounding_box_format, use_masking: bool = False,
                mask_val=-1, image_shape=None):
    """The IoU matrix of `boxes1` (N, 4) against `boxes2` (M, 4), or batched (B, N, 4) and
    (B, M, 4); with `use_masking`, pairs with a box of all-negative coordinates are
    `mask_val`."""
    boxes1, boxes2 = _array(boxes1), _array(boxes2)
    for label, boxes in (("boxes1", boxes1), ("boxes2", boxes2)):
        if boxes.ndim not in (2, 3):
            raise ValueError(f"compute_iou() expects {label} to be batched, or to be unbatched. "
                             f"Received len(boxes1.shape)={boxes1.ndim}, len(boxes2.shape)="
                             f"{boxes2.ndim}. Expected either len({label}.shape)=2 AND or "
                             f"len({label}.shape)=3.")
    if "rel" in bounding_box_format and image_shape is None:
        raise ValueError("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         "`image_shape` argument must be provided."
                         f"Received `image_shape`: {image_shape}")
    height, width = _hw(image_shape)
    b1 = _convert(boxes1, bounding_box_format, "yxyx", height, width)
    b2 = _convert(boxes2, bounding_box_format, "yxyx", height, width)
    swap = (1, 0) if b2.ndim == 2 else (0, 2, 1)
    y1a, x1a, y2a, x2a = _split(b1)
    y1b, x1b, y2b, x2b = (np.transpose(v, swap) for v in _split(b2))
    inter = (np.maximum(0, np.minimum(y2a, y2b) - np.maximum(y1a, y1b))
             * np.maximum(0, np.minimum(x2a, x2b) - np.maximum(x1a, x1b)))
    area1 = ((b1[..., 2] - b1[..., 0]) * (b1[..., 3] - b1[..., 1]))[..., None]
    area2 = (b2[..., 2] - b2[..., 0]) * (b2[..., 3] - b2[..., 1])
    area2 = area2[None, :] if area2.ndim == 1 else area2[:, None, :]
    iou = inter / (area1 + area2 - inter + np.float32(_EPSILON))
    if use_masking:
        masked = (b1.max(axis=-1, keepdims=True) < 0) | np.transpose(
            b2.max(axis=-1, keepdims=True) < 0, (1, 0) if b1.ndim == 2 else (0, 2, 1))
        iou = np.where(masked, np.float32(mask_val), iou)
    return convert_to_tensor(iou.astype(np.float32))


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """Complete IoU of corresponding boxes: IoU minus the squared centre distance over the
    squared diagonal of the enclosing box, minus the aspect-ratio term v * alpha."""
    if "rel" in bounding_box_format:
        raise ValueError("When using relative bounding box formats (e.g. `rel_yxyx`) the "
                         "`image_shape` argument must be provided."
                         f"Received `image_shape`: {image_shape}")
    height, width = _hw(image_shape)
    eps = np.float32(_EPSILON)
    x1a, y1a, x2a, y2a = _split(_convert(_array(boxes1), bounding_box_format, "xyxy",
                                         height, width))
    x1b, y1b, x2b, y2b = _split(_convert(_array(boxes2), bounding_box_format, "xyxy",
                                         height, width))
    w1, h1 = x2a - x1a, y2a - y1a + eps
    w2, h2 = x2b - x1b, y2b - y1b + eps
    inter = (np.maximum(np.minimum(x2a, x2b) - np.maximum(x1a, x1b), 0)
             * np.maximum(np.minimum(y2a, y2b) - np.maximum(y1a, y1b), 0))
    union = w1 * h1 + w2 * h2 - inter + eps
    iou = (inter / (union + eps))[..., 0]
    diagonal = ((np.maximum(x2a, x2b) - np.minimum(x1a, x1b)) ** 2
                + (np.maximum(y2a, y2b) - np.minimum(y1a, y1b)) ** 2 + eps)[..., 0]
    centres = (((x1a + x2a) / 2 - (x1b + x2b) / 2) ** 2
               + ((y1a + y2a) / 2 - (y1b + y2b) / 2) ** 2)[..., 0]
    v = (np.float32(4 / math.pi ** 2) * (np.arctan(w2 / h2) - np.arctan(w1 / h1)) ** 2)[..., 0]
    alpha = v / (v - iou + (1 + eps))
    return convert_to_tensor((iou - (centres / diagonal + v * alpha)).astype(np.float32))


__all__ = ["affine_transform", "clip_to_image_size", "compute_ciou", "compute_iou",
           "convert_format", "crop", "decode_deltas_to_boxes", "encode_box_to_deltas", "pad"]
