"""`keras.visualization`: drawing boxes and segmentation masks onto batches of images,
returning NumPy arrays as Keras 3 does.

`draw_bounding_boxes` draws with OpenCV when `cv2` is installed (as Keras, which requires
it); without it the box outlines are drawn in NumPy (`line_thickness` pixels wide, centred
on the box's edges) and a class label to write raises ImportError naming OpenCV.

`plot_image_gallery`, `plot_bounding_box_gallery` and `plot_segmentation_mask_gallery` lay
images out in a matplotlib figure (matplotlib imported when called: the `plot` extra)."""

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


def _pyplot(what: str):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"The `{what}` function requires the `matplotlib` package. Please "
                          "install it with `pip install matplotlib` (or "
                          "'autograph-rt[plot]').") from None
    return plt


def plot_image_gallery(images, y_true=None, y_pred=None, label_map=None, rows=None, cols=None,
                       value_range=(0, 255), scale=2, path=None, show=None, transparent=True,
                       dpi=60, legend_handles=None, data_format=None) -> None:
    """A matplotlib figure of `images` (N, H, W, C) on a `rows` x `cols` grid (by default
    ceil(sqrt(N)) rows and N // rows columns, as Keras), each image mapped from
    `value_range` onto [0, 255] and shown as uint8, titled "Label: ..." / "Pred: ..." from
    `label_map` when `y_true` / `y_pred` are given. Saved to `path` (and closed), or shown
    with `plt.show()` (`show`, the default without a path). Cells past the last image are
    left blank (Keras fails there)."""
    plt = _pyplot("plot_image_gallery")
    if path is not None and show:
        raise ValueError("plot_gallery() expects either `path` to be set, or `show` to be "
                         "true.")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError("If `y_true` or `y_pred` are provided, a `label_map` must also be "
                         "provided.")
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"plot_image_gallery(data_format={data_format!r}): expected "
                         "'channels_last' or 'channels_first'.")
    show = show if show is not None else path is None
    images = _numpy(images)
    if images.ndim != 4:
        raise ValueError("`plot_images_gallery()` requires you to batch your `np.array` "
                         "samples together.")
    batch_size = images.shape[0]
    rows = rows or int(np.ceil(np.sqrt(batch_size)))
    cols = cols or int(np.ceil(batch_size // rows))
    images = images[:min(rows * cols, batch_size)]
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    fig, axes = plt.subplots(nrows=rows, ncols=cols, figsize=(cols * scale, rows * scale),
                             frameon=False, layout="tight", squeeze=False, sharex="row",
                             sharey="col")
    fig.subplots_adjust(wspace=0, hspace=0)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    low, high = value_range
    if (low, high) != (0, 255):
        images = (images.astype("float32") - np.float32(low)) / \
            (np.float32(high) - np.float32(low)) * np.float32(255)
    y_true = None if y_true is None else _numpy(y_true)
    y_pred = None if y_pred is None else _numpy(y_pred)
    for row in range(rows):
        for col in range(cols):
            index = row * cols + col
            axis = axes[row, col]
            axis.axis("off")
            if index >= len(images):
                continue
            axis.imshow(images[index].astype("uint8"))
            axis.margins(x=0, y=0)
            title = []
            if y_true is not None and index < len(y_true):
                title.append(f"Label: {label_map.get(y_true[index], 'Unknown')}")
            if y_pred is not None and index < len(y_pred):
                title.append(f"Pred: {label_map.get(y_pred[index], 'Unknown')}")
            if title:
                axis.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent,
                    dpi=dpi)
        plt.close()
    elif show:
        plt.show()
        plt.close()


def plot_bounding_box_gallery(images, bounding_box_format, y_true=None, y_pred=None,
                              value_range=(0, 255), true_color=(0, 188, 212),
                              pred_color=(255, 235, 59), line_thickness=2, font_scale=1.0,
                              text_thickness=None, class_mapping=None,
                              ground_truth_mapping=None, prediction_mapping=None, legend=False,
                              legend_handles=None, rows=None, cols=None, data_format=None,
                              **kwargs) -> None:
    """`plot_image_gallery` of `images` with the boxes of `y_true` (in `true_color`) and
    `y_pred` (in `pred_color`) drawn by `draw_bounding_boxes` (labels from
    `ground_truth_mapping` / `prediction_mapping`, else `class_mapping`); `legend` adds
    "Ground Truth" and "Prediction" patches. Other keywords go to plot_image_gallery."""
    _pyplot("plot_bounding_box_gallery")
    from matplotlib import patches

    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    images = _numpy(images)
    if images.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape="
                         f"{images.shape}")
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    drawn = images

    def draw(source, boxes, color, mapping):
        return draw_bounding_boxes(source, boxes, bounding_box_format, class_mapping=mapping,
                                   color=color, line_thickness=line_thickness,
                                   text_thickness=text_thickness, font_scale=font_scale)

    if y_true is not None:
        drawn = draw(drawn, y_true, true_color, ground_truth_mapping)
    if y_pred is not None:
        drawn = draw(drawn, y_pred, pred_color, prediction_mapping)
    if legend:
        if legend_handles:
            raise ValueError("Only pass `legend` OR `legend_handles` to "
                             "`keras.visualization.plot_bounding_box_gallery()`.")
        legend_handles = [
            patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
            patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction")]
    return plot_image_gallery(drawn, value_range=value_range, legend_handles=legend_handles,
                              rows=rows, cols=cols, **kwargs)


def plot_segmentation_mask_gallery(images, num_classes, value_range=(0, 255), y_true=None,
                                   y_pred=None, color_mapping=None, blend=True, alpha=0.8,
                                   ignore_index=-1, data_format=None, **kwargs) -> None:
    """`plot_image_gallery` with one row per image: the image, then (when given) its
    `y_true` and `y_pred` masks ((N, H, W, 1) integers) painted on it by
    `draw_segmentation_masks`. Other keywords go to plot_image_gallery."""
    _pyplot("plot_segmentation_mask_gallery")
    images = _numpy(images)
    if images.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: images.shape="
                         f"{images.shape}")
    first = data_format == "channels_first"
    if first:
        images = images.transpose(0, 2, 3, 1)
    drawn = []
    for masks in (y_true, y_pred):
        if masks is None:
            continue
        masks = _numpy(masks)
        if first:
            masks = masks.transpose(0, 2, 3, 1)
        if masks.ndim == 3:
            masks = masks[..., None]
        drawn.append(draw_segmentation_masks(images, masks.astype("int32"),
                                             num_classes=num_classes,
                                             color_mapping=color_mapping, alpha=alpha,
                                             ignore_index=ignore_index, blend=blend))
    gallery = [panel for i in range(images.shape[0])
               for panel in [images[i]] + [d[i] for d in drawn]]
    return plot_image_gallery(np.stack(gallery, axis=0), value_range=value_range,
                              rows=images.shape[0], cols=1 + len(drawn), **kwargs)


__all__ = ["draw_bounding_boxes", "draw_segmentation_masks", "plot_bounding_box_gallery",
           "plot_image_gallery", "plot_segmentation_mask_gallery"]
