"""`keras.visualization`: drawing boxes and segmentation masks onto batches of images,
returning NumPy arrays as Keras 3 does.

`draw_bounding_boxes` draws with OpenCV when `cv2` is installed (as Keras, which requires
it); without it the box outlines are drawn in NumPy (`line_thickness` pixels wide, centred
on the box's edges) and a class label to write raises ImportError naming OpenCV."""

from __future__ import annotations

import numpy as np

from . import bounding_boxes as _boxes

try:
    import cv2  # optional, as for Keras
except ImportError:  # pragma: no cover - depends on the environment
    cv2 = None


def _numpy(value) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _text_origin(x: int, y: int, font_scale: float, thickness: int) -> tuple[int, int]:
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8
    return x + 3, y + 2 * font_height + thickness + 3


def _outline(image: np.ndarray, x1: int, y1: int, x2: int, y2: int, color,
             thickness: int) -> None:
    h, w = image.shape[:2]
    low, high = (thickness - 1) // 2, thickness // 2
    color = np.asarray(color, image.dtype)[: image.shape[-1]]
    left, right = sorted((x1, x2))
    top, bottom = sorted((y1, y2))
    for y in (top, bottom):  # horizontal edges
        rows = slice(max(y - low, 0), max(min(y + high + 1, h), 0))
        image[rows, max(left - low, 0):max(min(right + high + 1, w), 0)] = color
    for x in (left, right):  # vertical edges
        cols = slice(max(x - low, 0), max(min(x + high + 1, w), 0))
        image[max(top - low, 0):max(min(bottom + high + 1, h), 0), cols] = color


def draw_bounding_boxes(images, bounding_boxes, bounding_box_format, class_mapping=None,
                        color=(128, 128, 128), line_thickness: int = 2, text_thickness: int = 1,
                        font_scale: float = 1.0, data_format=None) -> np.ndarray:
    """uint8 images (N, H, W, C) with each box of `bounding_boxes` ({"boxes", "labels"},
    optionally "confidences"; label -1 skips a box) outlined in `color`, and its class name
    from `class_mapping` written above it (OpenCV's Hershey simplex font)."""
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    images = _numpy(images)
    if images.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape="
                         f"{images.shape}")
    if not isinstance(bounding_boxes, dict):
        raise TypeError(f"`bounding_boxes` should be a dict. Received: bounding_boxes="
                        f"{bounding_boxes} of type {type(bounding_boxes)}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError("`bounding_boxes` should be a dict containing 'boxes' and 'labels' "
                         f"keys. Received: bounding_boxes={bounding_boxes}")
    channels_first = data_format == "channels_first"
    height, width = images.shape[2:] if channels_first else images.shape[1:3]
    if channels_first:
        images = images.transpose(0, 2, 3, 1)
    boxes = _numpy(_boxes.convert_format(dict(bounding_boxes), bounding_box_format, "xyxy",
                                         height, width)["boxes"])
    labels = _numpy(bounding_boxes["labels"])
    confidences = (_numpy(bounding_boxes["confidences"]) if "confidences" in bounding_boxes
                   else None)
    if images.dtype.kind == "f" and images.size > 0:
        images = np.clip(images, 0, 1) * 255 if images.max() <= 1.0 else np.clip(images, 0, 255)
    images = images.astype("uint8")
    result = []
    for i in range(images.shape[0]):
        image = np.ascontiguousarray(images[i])
        for k in range(boxes[i].shape[0]):
            x1, y1, x2, y2 = (int(v) for v in boxes[i][k].astype("int32"))
            label = int(labels[i][k])
            if label == -1:
                continue
            if cv2 is not None:
                cv2.rectangle(image, (x1, y1), (x2, y2), color, line_thickness)
            else:
                _outline(image, x1, y1, x2, y2, color, line_thickness)
            if label in class_mapping:
                text = class_mapping[label]
                if confidences is not None:
                    text = f"{text} | {confidences[i][k]:.2f}"
                if cv2 is None:
                    raise ImportError("draw_bounding_boxes writes class labels with OpenCV: "
                                      "install it with `pip install opencv-python`, or pass "
                                      "no class_mapping to draw the boxes alone.")
                cv2.putText(img=image, text=text,
                            org=_text_origin(x1, y1, font_scale, text_thickness),
                            fontFace=cv2.FONT_HERSHEY_SIMPLEX, fontScale=font_scale,
                            color=color, thickness=text_thickness)
        result.append(image)
    return np.stack(result, axis=0)


def _palette(num_classes: int) -> list:
    base = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [((i * base) % 255).tolist() for i in range(num_classes)]


def draw_segmentation_masks(images, segmentation_masks, num_classes=None, color_mapping=None,
                            alpha: float = 0.8, blend: bool = True, ignore_index: int = -1,
                            data_format=None) -> np.ndarray:
    """Images (N, H, W, C) with each pixel of class c (from the integer masks (N, H, W, 1))
    painted in class c's colour (`color_mapping`, or Keras's palette), blended with the
    image by `alpha` into uint8 (pixels of `ignore_index` unchanged); with `blend=False`
    the painted float32 images. As in Keras, `num_classes` defaults to the largest class
    in the masks, so that class itself is not painted."""
    images = _numpy(images)
    masks = _numpy(segmentation_masks)
    if images.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape="
                         f"{images.shape}")
    if data_format == "channels_first":
        images, masks = images.transpose(0, 2, 3, 1), masks.transpose(0, 2, 3, 1)
    images = images.astype("float32")
    if masks.dtype.kind not in "iu":
        raise TypeError("`segmentation_masks` must be in integer dtype. Received: "
                        f"segmentation_masks.dtype={masks.dtype.name}")
    if num_classes is None:
        num_classes = int(masks.max())
    colors = _palette(num_classes) if color_mapping is None else \
        [color_mapping[i] for i in range(num_classes)]
    valid = (masks != ignore_index)[..., 0]
    painted = images.copy()
    for c, color in enumerate(colors):
        painted[masks[..., 0] == c] = np.asarray(color, "float32")[None, :]
    if not blend:
        return painted
    out = images * (1 - alpha) + painted * alpha
    out = np.where(valid[..., None], out, images)
    return out.astype("uint8")


__all__ = ["draw_bounding_boxes", "draw_segmentation_masks"]
