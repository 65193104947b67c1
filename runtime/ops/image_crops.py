"""tf.image's crops and patches: `crop_and_resize` (bilinear or nearest, with its gradients in
the image and the boxes), `extract_patches` and `tf.extract_volume_patches` (gathers of the
padded input, so they differentiate as gathers do) and `draw_bounding_boxes`.

crop_and_resize samples box b (normalized [y1, x1, y2, x2] of image box_indices[b]) at
crop_size points a side, as TensorFlow's kernel does: row y of a crop of height h > 1 reads the
image at y1 * (H - 1) + y * (y2 - y1) * (H - 1) / (h - 1) (the box's middle when h = 1); a
point outside the image takes `extrapolation_value`. Its output is float32 whatever the
image's dtype.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes as _dtypes
from ..attr_kinds import BOOL, DTYPE, FLOAT, INT, OPT_INT, kind, one_of
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import constant_value
from ..opdef import Effect, define
from ..shapes import TensorShape
from ..tensor import Tensor
from . import array_composed as _composed
from . import array_math as _math
from . import random as _random
from . import random_distributions as _distributions
from . import random_stateless as _rs
from .core import apply, convert_to_tensor

_METHOD = one_of("bilinear", "nearest")


# -- crop_and_resize ------------------------------------------------------------------------------

def _sample_points(boxes, size: int, extent: int, lo: int):
    """The image coordinates ([N, size]) of `size` samples between boxes[:, lo] and
    boxes[:, lo + 2] (normalized), computed in float32 as TensorFlow's kernel computes them
    (a sample that lands a rounding away from a pixel takes that pixel's side), and
    d coordinate / d start, d coordinate / d end."""
    f32 = np.float32
    start, end = boxes[:, lo:lo + 1].astype(f32), boxes[:, lo + 2:lo + 3].astype(f32)
    span = f32(extent - 1)
    if size > 1:
        k = np.arange(size, dtype=f32)
        scale = (end - start) * span / f32(size - 1)
        coords = start * span + k * scale
        ratio = (extent - 1) / (size - 1)
        return coords.astype(np.float64), np.broadcast_to((extent - 1) - k * ratio, coords.shape), \
            np.broadcast_to(k * ratio, coords.shape)
    coords = f32(0.5) * (start + end) * span
    half = np.full(coords.shape, 0.5 * (extent - 1))
    return coords.astype(np.float64), half, half


def _geometry(image_shape, boxes, crop_size):
    _, height, width, _ = image_shape
    ch, cw = (int(v) for v in crop_size)
    boxes = np.asarray(boxes)
    ys, dy1, dy2 = _sample_points(boxes, ch, height, 0)
    xs, dx1, dx2 = _sample_points(boxes, cw, width, 1)
    y_in = (ys >= 0) & (ys <= height - 1)
    x_in = (xs >= 0) & (xs <= width - 1)
    return ys, xs, y_in, x_in, (dy1, dy2, dx1, dx2)


def _check_crop_inputs(image, boxes, box_indices, crop_size):
    image = np.asarray(image)
    boxes, box_indices = np.asarray(boxes), np.asarray(box_indices)
    crop_size = np.asarray(crop_size)
    if image.ndim != 4:
        raise InvalidArgumentError(f"crop_and_resize: `image` must be 4-D [batch, height, width, "
                                   f"depth], got shape {list(image.shape)}.")
    if boxes.ndim != 2 or boxes.shape[1] != 4 or box_indices.shape != boxes.shape[:1]:
        raise InvalidArgumentError(f"crop_and_resize: `boxes` must be [num_boxes, 4] and "
                                   f"`box_indices` [num_boxes], got {list(boxes.shape)} and "
                                   f"{list(box_indices.shape)}.")
    if crop_size.shape != (2,) or (crop_size <= 0).any():
        raise InvalidArgumentError(f"crop_and_resize: `crop_size` must be two positive ints, got "
                                   f"{crop_size.tolist()}.")
    if image.shape[1] <= 0 or image.shape[2] <= 0:
        raise InvalidArgumentError("crop_and_resize: `image` must have positive height and width.")
    bad = (box_indices < 0) | (box_indices >= image.shape[0])
    if bad.any():
        raise InvalidArgumentError(f"crop_and_resize: `box_indices` must be in [0, "
                                   f"{image.shape[0]}), got {int(box_indices[bad][0])}.")
    return image, boxes, box_indices.astype(np.int64), crop_size


def _corners(ys, xs, height, width):
    top, left = np.floor(ys).astype(np.int64), np.floor(xs).astype(np.int64)
    bottom, right = np.ceil(ys).astype(np.int64), np.ceil(xs).astype(np.int64)
    clip = lambda v, n: np.clip(v, 0, n - 1)  # noqa: E731 (out-of-image points are masked)
    return (clip(top, height), clip(bottom, height), clip(left, width), clip(right, width),
            ys - np.floor(ys), xs - np.floor(xs))


def _round_half_away(v):
    return (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int64)


def _crop_kernel(image, boxes, box_indices, crop_size, method, extrapolation_value):
    image, boxes, index, crop_size = _check_crop_inputs(image, boxes, box_indices, crop_size)
    _, height, width, depth = image.shape
    ys, xs, y_in, x_in, _ = _geometry(image.shape, boxes, crop_size)
    img = image.astype(np.float64)[index]                   # [N, H, W, C]
    n = np.arange(len(index))[:, None, None]
    if method == "nearest":
        r = np.clip(_round_half_away(ys), 0, height - 1)
        c = np.clip(_round_half_away(xs), 0, width - 1)
        out = img[n, r[:, :, None], c[:, None, :]]
    else:
        top, bottom, left, right, yl, xl = _corners(ys, xs, height, width)
        t, b = top[:, :, None], bottom[:, :, None]
        lft, rgt = left[:, None, :], right[:, None, :]
        xw = xl[:, None, :, None]
        upper = img[n, t, lft] + (img[n, t, rgt] - img[n, t, lft]) * xw
        lower = img[n, b, lft] + (img[n, b, rgt] - img[n, b, lft]) * xw
        out = upper + (lower - upper) * yl[:, :, None, None]
    inside = (y_in[:, :, None] & x_in[:, None, :])[..., None]
    out = np.where(inside, out, extrapolation_value)
    return out.reshape(len(index), int(crop_size[0]), int(crop_size[1]), depth).astype(np.float32)


def _crop_infer(image, boxes, box_indices, crop_size, method, extrapolation_value):
    if image.shape.rank not in (None, 4):
        raise InvalidArgumentError(f"crop_and_resize: `image` must be 4-D, got shape "
                                   f"{image.shape}.")
    if boxes.shape.rank not in (None, 2) or box_indices.shape.rank not in (None, 1):
        raise InvalidArgumentError(f"crop_and_resize: `boxes` must be 2-D and `box_indices` "
                                   f"1-D, got shapes {boxes.shape} and {box_indices.shape}.")
    if not box_indices.dtype.is_integer or not crop_size.dtype.is_integer:
        raise TypeError("crop_and_resize: `box_indices` and `crop_size` must be ints.")
    size = constant_value(crop_size)
    ch, cw = (None, None) if size is None else (int(v) for v in np.ravel(size))
    n = boxes.shape.as_list()[0] if boxes.shape.rank is not None else None
    depth = image.shape.as_list()[3] if image.shape.rank is not None else None
    return TensorShape([n, ch, cw, depth]), _dtypes.float32


_CROP_ATTRS = {"method": _METHOD, "extrapolation_value": FLOAT}
CROP_AND_RESIZE = define("CropAndResize", _crop_infer, _crop_kernel, attrs=_CROP_ATTRS)


def _grad_image_kernel(grads, boxes, box_indices, image_size, method, dtype):
    grads = np.asarray(grads, np.float64)
    image_size = [int(v) for v in np.ravel(image_size)]
    batch, height, width, depth = image_size
    boxes, index = np.asarray(boxes), np.asarray(box_indices).astype(np.int64)
    crop_size = grads.shape[1:3]
    ys, xs, y_in, x_in, _ = _geometry(image_size, boxes, crop_size)
    out = np.zeros((batch, height, width, depth))
    inside = (y_in[:, :, None] & x_in[:, None, :])[..., None]
    g = np.where(inside, grads, 0.0)
    bi = np.broadcast_to(index[:, None, None], g.shape[:3])
    if method == "nearest":
        r = np.clip(_round_half_away(ys), 0, height - 1)
        c = np.clip(_round_half_away(xs), 0, width - 1)
        rr = np.broadcast_to(r[:, :, None], g.shape[:3])
        cc = np.broadcast_to(c[:, None, :], g.shape[:3])
        np.add.at(out, (bi, rr, cc), g)
    else:
        top, bottom, left, right, yl, xl = _corners(ys, xs, height, width)
        yw, xw = yl[:, :, None, None], xl[:, None, :, None]
        for rows, wy in ((top, 1 - yw), (bottom, yw)):
            for cols, wx in ((left, 1 - xw), (right, xw)):
                rr = np.broadcast_to(rows[:, :, None], g.shape[:3])
                cc = np.broadcast_to(cols[:, None, :], g.shape[:3])
                np.add.at(out, (bi, rr, cc), g * wy * wx)
    return out.astype(dtype.as_numpy_dtype)


def _grad_image_infer(grads, boxes, box_indices, image_size, method, dtype):
    size = constant_value(image_size)
    dims = [None] * 4 if size is None else [int(v) for v in np.ravel(size)]
    return TensorShape(dims), dtype


CROP_AND_RESIZE_GRAD_IMAGE = define(
    "CropAndResizeGradImage", _grad_image_infer, _grad_image_kernel, differentiable=False,
    attrs={"method": _METHOD, "dtype": DTYPE})


def _grad_boxes_kernel(grads, image, boxes, box_indices):
    grads = np.asarray(grads, np.float64)
    image = np.asarray(image, np.float64)
    boxes, index = np.asarray(boxes), np.asarray(box_indices).astype(np.int64)
    _, height, width, _ = image.shape
    crop_size = grads.shape[1:3]
    ys, xs, y_in, x_in, (dy1, dy2, dx1, dx2) = _geometry(image.shape, boxes, crop_size)
    top, bottom, left, right, yl, xl = _corners(ys, xs, height, width)
    img = image[index]
    n = np.arange(len(index))[:, None, None]
    t, b = top[:, :, None], bottom[:, :, None]
    lft, rgt = left[:, None, :], right[:, None, :]
    tl, tr, bl, br = img[n, t, lft], img[n, t, rgt], img[n, b, lft], img[n, b, rgt]
    xw, yw = xl[:, None, :, None], yl[:, :, None, None]
    upper, lower = tl + (tr - tl) * xw, bl + (br - bl) * xw
    d_y = ((lower - upper) * grads).sum(axis=3)                       # d out / d y, [N, h, w]
    d_x = (((tr - tl) * (1 - yw) + (br - bl) * yw) * grads).sum(axis=3)
    inside = y_in[:, :, None] & x_in[:, None, :]
    d_y, d_x = np.where(inside, d_y, 0.0), np.where(inside, d_x, 0.0)
    out = np.stack([(d_y * dy1[:, :, None]).sum(axis=(1, 2)), (d_x * dx1[:, None, :]).sum(axis=(1, 2)),
                    (d_y * dy2[:, :, None]).sum(axis=(1, 2)), (d_x * dx2[:, None, :]).sum(axis=(1, 2))],
                   axis=1)
    return out.astype(np.asarray(boxes).dtype)


CROP_AND_RESIZE_GRAD_BOXES = define(
    "CropAndResizeGradBoxes", lambda grads, image, boxes, box_indices: (boxes.shape, boxes.dtype),
    _grad_boxes_kernel, differentiable=False)


@CROP_AND_RESIZE.def_grad
def _crop_and_resize_grad(op, g):
    image, boxes, box_indices, _ = op.inputs
    method = op.attrs["method"]
    g_image = apply(CROP_AND_RESIZE_GRAD_IMAGE, [g, boxes, box_indices, _math.shape(image)],
                    {"method": method, "dtype": image.dtype}) if image.dtype.is_floating else None
    g_boxes = apply(CROP_AND_RESIZE_GRAD_BOXES, [g, _math.cast(image, _dtypes.float32), boxes,
                                                 box_indices])
    return [g_image, g_boxes, None, None]


@export("image.crop_and_resize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0, name=None) -> Tensor:
    """Crops of `image` [batch, height, width, depth] resized to `crop_size` [crop_height,
    crop_width]: one a row of `boxes` [num_boxes, 4] (normalized [y1, x1, y2, x2]; y1 > y2
    flips the crop) from the image `box_indices[i]`, sampled with `method` ('bilinear' or
    'nearest'); points outside the image take `extrapolation_value`. Returns float32
    [num_boxes, crop_height, crop_width, depth]; differentiable in the image and the boxes."""
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"crop_and_resize: method must be 'bilinear' or 'nearest', got "
                         f"{method!r}.")
    image = convert_to_tensor(image)
    boxes = convert_to_tensor(boxes, dtype_hint=_dtypes.float32)
    if not boxes.dtype.is_floating:
        raise TypeError(f"crop_and_resize: `boxes` must be floats, got {boxes.dtype.name}.")
    if boxes.dtype != _dtypes.float32:
        boxes = _math.cast(boxes, _dtypes.float32)
    box_indices = convert_to_tensor(box_indices, dtype_hint=_dtypes.int32)
    crop_size = convert_to_tensor(crop_size, dtype=_dtypes.int32)
    return apply(CROP_AND_RESIZE, [image, boxes, box_indices, crop_size],
                 {"method": method, "extrapolation_value": float(extrapolation_value)},
                 name=name)


# -- extract_patches / extract_volume_patches ---------------------------------------------------

def _window_axis(size: int, k: int, stride: int, rate: int, padding: str):
    """(pad before, pad after, [out, k] indices into the padded axis) of one spatial axis."""
    span = (k - 1) * rate + 1
    if padding == "VALID":
        out = max((size - span) // stride + 1, 0)
        before = after = 0
    else:
        out = -(-size // stride)
        total = max((out - 1) * stride + span - size, 0)
        before, after = total // 2, total - total // 2
    index = np.arange(out)[:, None] * stride + np.arange(k)[None, :] * rate
    return before, after, index


def _four(values, what: str, fn: str, rank: int) -> list:
    values = [int(v) for v in values]
    if len(values) != rank or values[0] != 1 or values[-1] != 1:
        raise ValueError(f"{fn}: `{what}` must be {rank} ints [1, ..., 1] (none over the batch "
                         f"and depth), got {values}.")
    if any(v <= 0 for v in values):
        raise ValueError(f"{fn}: `{what}` must be positive, got {values}.")
    return values[1:-1]


def patches(x, ksizes, strides, rates, padding, fn, name=None):
    """Patches of the spatial axes of x ([batch, *spatial, depth]) as gathers of the padded x:
    [batch, *out, prod(ksizes) * depth], each patch laid out [*k, depth]."""
    x = convert_to_tensor(x)
    rank = len(ksizes) + 2
    if x.shape.rank != rank:
        raise ValueError(f"{fn}: the input must be {rank}-D [batch, ..., depth] of known rank, "
                         f"got shape {x.shape}.")
    padding = str(padding).upper()
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{fn}: padding must be 'SAME' or 'VALID', got {padding!r}.")
    dims = x.shape.as_list()
    if any(d is None for d in dims[1:]):
        raise ValueError(f"{fn}: the spatial sizes and depth must be known when traced, got "
                         f"shape {x.shape}.")
    pads, indices = [[0, 0]], []
    for d, k, s, r in zip(dims[1:-1], ksizes, strides, rates):
        before, after, index = _window_axis(d, k, s, r, padding)
        pads.append([before, after])
        indices.append(index)
    pads.append([0, 0])
    y = _composed.pad(x, pads) if any(p != [0, 0] for p in pads) else x
    spatial = len(ksizes)
    for axis, index in enumerate(indices):  # each axis a becomes (out_a, k_a)
        y = _math.gather(y, index, axis=1 + 2 * axis)
    # [batch, o1, k1, o2, k2, ..., depth] -> [batch, o1, o2, ..., k1, k2, ..., depth]
    perm = [0] + [1 + 2 * a for a in range(spatial)] + [2 + 2 * a for a in range(spatial)] + \
        [1 + 2 * spatial]
    y = _math.transpose(y, perm)
    outs = [index.shape[0] for index in indices]
    batch = _math.shape(x)[:1]
    tail = _math.int_vector(outs + [int(np.prod(ksizes)) * dims[-1]])
    return _math.reshape(y, _math.concat([batch, tail], 0), name=name)


@export("image.extract_patches")
def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """Patches of `images` [batch, rows, cols, depth]: windows of `sizes` [1, size_rows,
    size_cols, 1] every `strides` [1, stride_rows, stride_cols, 1] rows and columns, reading
    every `rates`-th pixel (dilation), each flattened into the last axis ([batch, out_rows,
    out_cols, size_rows * size_cols * depth]). 'SAME' padding pads with zeros; 'VALID' keeps
    whole windows only."""
    fn = "extract_patches"
    return patches(images, _four(sizes, "sizes", fn, 4), _four(strides, "strides", fn, 4),
                    _four(rates, "rates", fn, 4), padding, fn, name)


@export("extract_volume_patches")
def extract_volume_patches(input, ksizes, strides, padding, name=None) -> Tensor:  # noqa: A002
    """Patches of `input` [batch, planes, rows, cols, depth]: windows of `ksizes` [1, kp, kr,
    kc, 1] every `strides` [1, sp, sr, sc, 1], each flattened into the last axis ([batch,
    out_planes, out_rows, out_cols, kp * kr * kc * depth]); 'SAME' pads with zeros."""
    fn = "extract_volume_patches"
    return patches(input, _four(ksizes, "ksizes", fn, 5), _four(strides, "strides", fn, 5),
                    [1, 1, 1], padding, fn, name)


# -- draw_bounding_boxes ---------------------------------------------------------------------

# TensorFlow's colors when none are given: yellow, blue, red, lime, purple, olive, maroon, navy,
# aqua, fuchsia
_DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1],
                            [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1],
                            [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw_kernel(images, boxes, colors):
    images = np.asarray(images)
    boxes = np.asarray(boxes, np.float32)
    colors = np.asarray(colors, np.float32)
    if images.ndim != 4 or images.shape[3] not in (1, 2, 3, 4):
        raise InvalidArgumentError(f"draw_bounding_boxes: `images` must be [batch, height, "
                                   f"width, depth] with depth 1 to 4, got {list(images.shape)}.")
    if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != images.shape[0]:
        raise InvalidArgumentError(f"draw_bounding_boxes: `boxes` must be [batch, num_boxes, 4] "
                                   f"for {images.shape[0]} images, got {list(boxes.shape)}.")
    if colors.size == 0:
        colors = _DEFAULT_COLORS
    if colors.ndim != 2 or colors.shape[1] < images.shape[3]:
        raise InvalidArgumentError(f"draw_bounding_boxes: `colors` must be [num_colors, "
                                   f">= depth], got {list(colors.shape)}.")
    canvas = images.copy()
    _, height, width, depth = images.shape
    for b in range(boxes.shape[0]):
        for k in range(boxes.shape[1]):
            color = colors[k % len(colors), :depth].astype(images.dtype)
            y0, x0, y1, x1 = (int(v) for v in (boxes[b, k, 0] * (height - 1),
                                               boxes[b, k, 1] * (width - 1),
                                               boxes[b, k, 2] * (height - 1),
                                               boxes[b, k, 3] * (width - 1)))
            if y0 > y1 or x0 > x1 or y1 < 0 or x1 < 0 or y0 >= height or x0 >= width:
                continue
            ry0, ry1 = max(y0, 0), min(y1, height - 1)
            rx0, rx1 = max(x0, 0), min(x1, width - 1)
            if y0 >= 0:
                canvas[b, y0, rx0:rx1 + 1] = color
            if y1 < height:
                canvas[b, y1, rx0:rx1 + 1] = color
            if x0 >= 0:
                canvas[b, ry0:ry1 + 1, x0] = color
            if x1 < width:
                canvas[b, ry0:ry1 + 1, x1] = color
    return canvas


DRAW_BOUNDING_BOXES = define("DrawBoundingBoxesV2",
                             lambda images, boxes, colors: (images.shape, images.dtype),
                             _draw_kernel, differentiable=False)


@export("image.draw_bounding_boxes")
def draw_bounding_boxes(images, boxes, colors, name=None) -> Tensor:
    """`images` [batch, height, width, depth] (float32 or float16) with the outlines of
    `boxes` [batch, num_boxes, 4] (normalized [y_min, x_min, y_max, x_max]) drawn one pixel
    wide, box i in colors[i % num_colors] ([num_colors, 4] RGBA, the first depth channels
    used); None or empty colors cycle TensorFlow's ten default colors."""
    images = convert_to_tensor(images)
    if images.dtype not in (_dtypes.float32, _dtypes.float16):
        raise TypeError(f"draw_bounding_boxes: `images` must be float32 or float16, got "
                        f"{images.dtype.name}.")
    boxes = convert_to_tensor(boxes, dtype=_dtypes.float32)
    colors = convert_to_tensor(np.zeros((0, 4), np.float32) if colors is None else colors,
                               dtype=_dtypes.float32)
    return apply(DRAW_BOUNDING_BOXES, [images, boxes, colors], name=name)


# -- sample_distorted_bounding_box ----------------------------------------------------------------

def _random_crop(gen, height, width, boxes, min_covered, aspect, area_range):
    """One attempt of TensorFlow's crop search: (y, x, h, w) or None."""
    min_area, max_area = area_range[0] * height * width, area_range[1] * height * width
    lo = int(round(np.sqrt(min_area / aspect)))
    hi = int(round(np.sqrt(max_area / aspect)))
    if int(round(hi * aspect)) > width:
        hi = int((width + 0.5 - 1e-7) / aspect)
    hi = min(hi, height)
    lo = min(lo, hi)
    if lo < hi:
        lo += int(gen.integers(0, hi - lo + 1))
    h = lo
    w = int(round(h * aspect))
    if w * h < min_area:
        h += 1
        w = int(round(h * aspect))
    if w * h > max_area:
        h -= 1
        w = int(round(h * aspect))
    if not (min_area <= w * h <= max_area) or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(gen.integers(0, height - h + 1))
    x = int(gen.integers(0, width - w + 1))
    for y0, x0, y1, x1 in boxes:
        inter = max(0.0, min(y + h, y1) - max(y, y0)) * max(0.0, min(x + w, x1) - max(x, x0))
        area = (y1 - y0) * (x1 - x0)
        if area > 0 and inter / area >= min_covered:
            return y, x, h, w
    return None


def _distorted_box(gen, image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
                   area_range, max_attempts, use_image_if_no_bounding_boxes):
    size = np.asarray(image_size)
    if size.shape != (3,) or (size[:2] <= 0).any():
        raise InvalidArgumentError(f"sample_distorted_bounding_box: `image_size` must be "
                                   f"[height, width, channels] with positive sizes, got "
                                   f"{size.tolist()}.")
    height, width = int(size[0]), int(size[1])
    boxes = np.asarray(bounding_boxes, np.float64).reshape(-1, 4)
    if boxes.size == 0:
        if not use_image_if_no_bounding_boxes:
            raise InvalidArgumentError("sample_distorted_bounding_box: no bounding boxes given; "
                                       "pass use_image_if_no_bounding_boxes=True to use the "
                                       "whole image.")
        boxes = np.array([[0.0, 0.0, 1.0, 1.0]])
    if ((boxes < 0) | (boxes > 1)).any():
        raise InvalidArgumentError("sample_distorted_bounding_box: bounding boxes must be in "
                                   "[0, 1].")
    pixels = boxes * [height, width, height, width]
    min_covered = float(np.asarray(min_object_covered))
    found = None
    for _ in range(int(max_attempts)):
        aspect = gen.uniform(aspect_ratio_range[0], aspect_ratio_range[1])
        found = _random_crop(gen, height, width, pixels, min_covered, aspect, area_range)
        if found is not None:
            break
    y, x, h, w = found if found is not None else (0, 0, height, width)
    dtype = size.dtype
    return (np.array([y, x, 0], dtype), np.array([h, w, -1], dtype),
            np.array([[[y / height, x / width, (y + h) / height, (x + w) / width]]], np.float32))


def _distort_infer(image_size, bounding_boxes, min_object_covered, *seed, **attrs):
    if not image_size.dtype.is_integer or image_size.shape.rank not in (None, 1):
        raise TypeError("sample_distorted_bounding_box: `image_size` must be a 1-D int tensor.")
    if bounding_boxes.shape.rank not in (None, 3):
        raise InvalidArgumentError(f"sample_distorted_bounding_box: `bounding_boxes` must be "
                                   f"[batch, N, 4], got shape {bounding_boxes.shape}.")
    return [(TensorShape([3]), image_size.dtype), (TensorShape([3]), image_size.dtype),
            (TensorShape([1, 1, 4]), _dtypes.float32)]


@kind("a pair of floats")
def _FLOAT_PAIR(v, ctx):  # noqa: N802 (an attribute kind, named as attr_kinds' are)
    ok = isinstance(v, tuple) and len(v) == 2 and all(type(x) is float for x in v)
    return None if ok else "a pair of floats"


_DISTORT_ATTRS = {"aspect_ratio_range": _FLOAT_PAIR, "area_range": _FLOAT_PAIR, "max_attempts": INT,
                  "use_image_if_no_bounding_boxes": BOOL}


def _distort_kernel(image_size, bounding_boxes, min_object_covered, seed, seed2, **attrs):
    key, counter = _random.SEEDS.draw("SampleDistortedBoundingBoxV2", _dtypes.float32, seed,
                                      seed2, 1)
    return _distorted_box(_distributions._philox_generator(key, counter), image_size,
                          bounding_boxes, min_object_covered, **attrs)


SAMPLE_DISTORTED_BOUNDING_BOX = define(
    "SampleDistortedBoundingBoxV2", _distort_infer, _distort_kernel, num_outputs=3,
    differentiable=False, effects=Effect.RANDOM,
    attrs={"seed": OPT_INT, "seed2": OPT_INT, **_DISTORT_ATTRS})


def _stateless_distort_kernel(image_size, bounding_boxes, min_object_covered, seed, **attrs):
    return _distorted_box(_rs.bit_generator(seed), image_size, bounding_boxes,
                          min_object_covered, **attrs)


STATELESS_SAMPLE_DISTORTED_BOUNDING_BOX = define(
    "StatelessSampleDistortedBoundingBox", _distort_infer, _stateless_distort_kernel,
    num_outputs=3, differentiable=False, attrs=_DISTORT_ATTRS)


def _distort_args(fn, image_size, bounding_boxes, min_object_covered, aspect_ratio_range,
                  area_range, max_attempts, use_image_if_no_bounding_boxes):
    aspect = (0.75, 1.33) if aspect_ratio_range is None else \
        tuple(float(v) for v in aspect_ratio_range)
    area = (0.05, 1.0) if area_range is None else tuple(float(v) for v in area_range)
    if len(aspect) != 2 or len(area) != 2:
        raise ValueError(f"{fn}: aspect_ratio_range and area_range must be pairs of floats.")
    if aspect[0] <= 0 or aspect[1] <= 0:
        raise InvalidArgumentError(f"{fn}: aspect_ratio_range must be positive, got {aspect}.")
    if not (0 < area[0] <= 1 and 0 < area[1] <= 1):
        raise InvalidArgumentError(f"{fn}: area_range must be within (0, 1], got {area}.")
    attempts = 100 if max_attempts is None else int(max_attempts)
    if attempts <= 0:
        raise InvalidArgumentError(f"{fn}: max_attempts must be positive, got {attempts}.")
    size = convert_to_tensor(image_size, dtype_hint=_dtypes.int32)
    boxes = convert_to_tensor(bounding_boxes, dtype=_dtypes.float32)
    covered = convert_to_tensor(min_object_covered, dtype=_dtypes.float32)
    attrs = {"aspect_ratio_range": aspect, "area_range": area, "max_attempts": attempts,
             "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
    return [size, boxes, covered], attrs


@export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None,
                                  name=None) -> tuple[Tensor, Tensor, Tensor]:
    """A random crop of an image of `image_size` [height, width, channels] for data
    augmentation, as TensorFlow searches for one: up to `max_attempts` (100) crops of an
    aspect ratio drawn from `aspect_ratio_range` ([0.75, 1.33]) and an area within
    `area_range` ([0.05, 1]) of the image's, until one covers at least `min_object_covered`
    of one of `bounding_boxes` [batch, N, 4] (the whole image when none does). Returns
    (begin [y, x, 0], size [h, w, -1], the crop as a box [1, 1, 4]) for `rt.slice` and
    `draw_bounding_boxes`; a fresh crop every run, reproducible with the seeds."""
    inputs, attrs = _distort_args("sample_distorted_bounding_box", image_size, bounding_boxes,
                                  min_object_covered, aspect_ratio_range, area_range,
                                  max_attempts, use_image_if_no_bounding_boxes)
    pair = _random.SEEDS.seed_pair(int(seed) if seed else None)
    seeds = {"seed": None, "seed2": None} if pair is None else {"seed": pair[0],
                                                                 "seed2": pair[1]}
    return tuple(apply(SAMPLE_DISTORTED_BOUNDING_BOX, inputs, {**seeds, **attrs}, name=name))


@export("image.stateless_sample_distorted_bounding_box")
def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed,
                                            min_object_covered=0.1, aspect_ratio_range=None,
                                            area_range=None, max_attempts=None,
                                            use_image_if_no_bounding_boxes=None,
                                            name=None) -> tuple[Tensor, Tensor, Tensor]:
    """`sample_distorted_bounding_box` whose crop is a function of `seed` (a pair of ints)."""
    inputs, attrs = _distort_args("stateless_sample_distorted_bounding_box", image_size,
                                  bounding_boxes, min_object_covered, aspect_ratio_range,
                                  area_range, max_attempts, use_image_if_no_bounding_boxes)
    return tuple(apply(STATELESS_SAMPLE_DISTORTED_BOUNDING_BOX, [*inputs, _rs.seed_tensor(seed)],
                       attrs, name=name))


# -- extract_glimpse ------------------------------------------------------------------------------

def _glimpse_corner(offset, extent: int, size: int, centered: bool, normalized: bool) -> int:
    """The first row (or column) of a glimpse, as TensorFlow's ExtractGlimpseV2 places it."""
    if normalized:
        value = offset * extent
        if centered:
            value = value / 2.0 + extent / 2.0 - size / 2.0
    else:
        value = offset + extent / 2.0 if centered else offset
    return int(np.float32(value))  # C's truncation toward zero, of a float32


def _glimpse_kernel(images, size, offsets, centered, normalized, noise):
    images, offsets = np.asarray(images), np.asarray(offsets, np.float32)
    gh, gw = (int(v) for v in np.ravel(size))
    batch, height, width, depth = images.shape
    if offsets.shape != (batch, 2):
        raise InvalidArgumentError(f"extract_glimpse: `offsets` must be [batch, 2], got "
                                   f"{list(offsets.shape)} for a batch of {batch}.")
    gen = _random.generator(None)
    out = np.zeros((batch, gh, gw, depth), images.dtype)
    for b in range(batch):
        img = images[b].astype(np.float64)
        if noise == "uniform":
            fill = gen.uniform(img.min(axis=(0, 1)), img.max(axis=(0, 1)), (gh, gw, depth))
        elif noise == "gaussian":
            fill = np.clip(gen.normal(img.mean(axis=(0, 1)), img.std(axis=(0, 1)), (gh, gw, depth)),
                           img.min(axis=(0, 1)), img.max(axis=(0, 1)))
        else:
            fill = np.zeros((gh, gw, depth))
        y0 = _glimpse_corner(float(offsets[b, 0]), height, gh, centered, normalized)
        x0 = _glimpse_corner(float(offsets[b, 1]), width, gw, centered, normalized)
        rows, cols = np.arange(y0, y0 + gh), np.arange(x0, x0 + gw)
        inside = ((rows >= 0) & (rows < height))[:, None] & ((cols >= 0) & (cols < width))[None]
        patch = img[np.clip(rows, 0, height - 1)[:, None], np.clip(cols, 0, width - 1)[None]]
        out[b] = np.where(inside[..., None], patch, fill).astype(images.dtype)
    return out


def _glimpse_infer(images, size, offsets, **attrs):
    if images.shape.rank not in (None, 4):
        raise InvalidArgumentError(f"extract_glimpse: `input` must be 4-D, got shape "
                                   f"{images.shape}.")
    value = constant_value(size)
    gh, gw = (None, None) if value is None else (int(v) for v in np.ravel(value))
    dims = images.shape.as_list() if images.shape.rank is not None else [None] * 4
    return TensorShape([dims[0], gh, gw, dims[3]]), images.dtype


EXTRACT_GLIMPSE = define(
    "ExtractGlimpseV2", _glimpse_infer, _glimpse_kernel, differentiable=False,
    effects=Effect.RANDOM, attrs={"centered": BOOL, "normalized": BOOL,
                                  "noise": one_of("uniform", "gaussian", "zero", "")})


@export("image.extract_glimpse")
def extract_glimpse(input, size, offsets, centered=True, normalized=True,  # noqa: A002
                    noise="uniform", name=None) -> Tensor:
    """A `size` [height, width] window of each image of `input` [batch, height, width,
    depth] at `offsets` [batch, 2] ([y, x]), placed as TensorFlow places it: unnormalized
    offsets are pixels (from the centre with `centered`), normalized ones fractions of the
    image ([-1, 1] from the centre, the window centred there; [0, 1] from the corner).
    Pixels outside the image are filled with `noise`: 'uniform' (between the channel's
    least and greatest values), 'gaussian' (the channel's mean and standard deviation,
    clipped to them) or 'zero'."""
    if noise not in ("uniform", "gaussian", "zero", ""):
        raise InvalidArgumentError(f"extract_glimpse: noise must be 'uniform', 'gaussian' or "
                                   f"'zero', got {noise!r}.")
    images = convert_to_tensor(input)
    if not images.dtype.is_floating:
        raise TypeError(f"extract_glimpse: `input` must be float, got {images.dtype.name}.")
    size = convert_to_tensor(size, dtype=_dtypes.int32)
    offsets = convert_to_tensor(offsets, dtype=_dtypes.float32)
    return apply(EXTRACT_GLIMPSE, [images, size, offsets],
                 {"centered": bool(centered), "normalized": bool(normalized), "noise": noise},
                 name=name)
