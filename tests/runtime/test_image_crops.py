"""tf.image.crop_and_resize, extract_patches, tf.extract_volume_patches and
draw_bounding_boxes (runtime/ops/image_crops.py).

Oracles: plain-Python loops over TensorFlow's documented definitions (the sampling points of a
box, the windows of a patch, the outline of a box), the examples of TensorFlow's own
documentation of extract_patches, values and gradients recorded from TensorFlow 2.21, and
central finite differences for the gradients in the image and the boxes.
"""

import math

import numpy as np
import pytest

import runtime as rt
from tests.gradients.fd import check_gradients, numeric_gradients


def _crop_loop(image, boxes, box_indices, size, method, extrapolation):
    """crop_and_resize by its definition, one sample at a time."""
    _, height, width, depth = image.shape
    ch, cw = size
    out = np.zeros((len(boxes), ch, cw, depth))
    for n, (y1, x1, y2, x2) in enumerate(boxes.astype(np.float64)):
        img = image[box_indices[n]].astype(np.float64)
        for i in range(ch):
            y = (y1 + i * (y2 - y1) / (ch - 1)) * (height - 1) if ch > 1 else \
                0.5 * (y1 + y2) * (height - 1)
            for j in range(cw):
                x = (x1 + j * (x2 - x1) / (cw - 1)) * (width - 1) if cw > 1 else \
                    0.5 * (x1 + x2) * (width - 1)
                if not (0 <= y <= height - 1 and 0 <= x <= width - 1):
                    out[n, i, j] = extrapolation
                elif method == "nearest":
                    out[n, i, j] = img[int(math.floor(y + 0.5)), int(math.floor(x + 0.5))]
                else:
                    t, b, lft, r = math.floor(y), math.ceil(y), math.floor(x), math.ceil(x)
                    fy, fx = y - t, x - lft
                    upper = img[t, lft] * (1 - fx) + img[t, r] * fx
                    lower = img[b, lft] * (1 - fx) + img[b, r] * fx
                    out[n, i, j] = upper * (1 - fy) + lower * fy
    return out


_RNG = np.random.default_rng(0)
IMAGE = _RNG.random((2, 5, 7, 3)).astype(np.float32)
# inside, partly outside, flipped, a point, the whole image
BOXES = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.3, 1.3, 0.5], [0.9, 0.85, 0.15, 0.1],
                  [0.5, 0.5, 0.5, 0.5], [0.0, 0.0, 1.0, 1.0]], np.float32)
INDICES = np.array([0, 1, 0, 1, 1], np.int32)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(4, 3), (1, 1), (1, 5), (6, 6)])
def test_crop_and_resize_samples_as_defined(method, size):
    got = rt.image.crop_and_resize(IMAGE, BOXES, INDICES, size, method=method,
                                   extrapolation_value=-1.0)
    assert got.dtype == rt.float32 and got.shape == (5, *size, 3)
    np.testing.assert_allclose(got.numpy(), _crop_loop(IMAGE, BOXES, INDICES, size, method, -1.0),
                               atol=2e-6)


def test_crop_and_resize_of_ints_is_float32_and_staged_alike():
    u8 = (IMAGE * 255).astype(np.uint8)
    got = rt.image.crop_and_resize(u8, BOXES, INDICES, (3, 3))
    assert got.dtype == rt.float32
    np.testing.assert_allclose(got.numpy(), _crop_loop(u8, BOXES, INDICES, (3, 3), "bilinear", 0),
                               rtol=1e-6, atol=1e-4)
    staged = rt.function(lambda i, b: rt.image.crop_and_resize(i, b, INDICES, [3, 3]))
    np.testing.assert_array_equal(staged(u8, BOXES).numpy(), got.numpy())


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_gradients(method):
    # boxes whose samples stay off pixel edges under a small step, one partly outside
    boxes = np.array([[0.13, 0.21, 0.77, 0.88], [-0.17, 0.31, 1.23, 0.52],
                      [0.91, 0.83, 0.17, 0.12]], np.float64)
    index = np.array([0, 1, 1], np.int32)
    image = IMAGE.astype(np.float64)
    weights = np.random.default_rng(1).random((3, 4, 3, 3))

    def total(img, bx):
        return float(np.sum(rt.image.crop_and_resize(img, bx, index, (4, 3), method=method)
                            .numpy().astype(np.float64) * weights))

    img_t, box_t = rt.constant(image), rt.constant(boxes.astype(np.float32))
    with rt.GradientTape() as tape:
        tape.watch([img_t, box_t])
        y = rt.reduce_sum(rt.cast(rt.image.crop_and_resize(img_t, box_t, index, (4, 3),
                                                           method=method), rt.float64) * weights)
    g_image, g_boxes = tape.gradient(y, [img_t, box_t])
    assert g_image.dtype == rt.float64 and g_boxes.dtype == rt.float32
    # the crop is linear in the image: the gradient is exact
    expected = numeric_gradients(lambda img: total(img, boxes), [image], 0.5)[0]
    np.testing.assert_allclose(g_image.numpy(), expected, rtol=1e-5, atol=1e-5)
    if method == "bilinear":  # TensorFlow's nearest box gradient is the bilinear one
        expected = numeric_gradients(lambda bx: total(image, bx), [boxes], 1e-3)[0]
        np.testing.assert_allclose(g_boxes.numpy(), expected, rtol=2e-3, atol=2e-3)


# recorded from TensorFlow 2.21: d sum(crop_and_resize(IMAGE, BOXES, INDICES, (4, 3)) * W) / d BOXES,
# W = np.random.default_rng(1).random((5, 4, 3, 3)).astype(np.float32); its samples land on pixel
# edges (the whole image, the flipped box), where the box gradient takes TensorFlow's side
TF_BOX_GRAD = [[0.8793181777000427, 6.336089134216309, 3.372223138809204, -6.812445163726807],
               [-0.4239863455295563, 4.842151641845703, -2.076796531677246, 1.8206368684768677],
               [2.382103443145752, -7.382835865020752, 0.9804810285568237, -0.5300083160400391],
               [0.0, 0.0, 0.0, 0.0], [2.8736579418182373, 0.0, 2.4007363319396973, 0.0]]


def test_crop_and_resize_box_gradient_matches_tensorflow():
    weights = np.random.default_rng(1).random((5, 4, 3, 3)).astype(np.float32)
    boxes = rt.constant(BOXES)
    with rt.GradientTape() as tape:
        tape.watch(boxes)
        y = rt.reduce_sum(rt.image.crop_and_resize(IMAGE, boxes, INDICES, (4, 3)) * weights)
    np.testing.assert_allclose(tape.gradient(y, boxes).numpy(), TF_BOX_GRAD, rtol=1e-5, atol=1e-5)


def test_crop_and_resize_errors():
    with pytest.raises(ValueError, match="method"):
        rt.image.crop_and_resize(IMAGE, BOXES, INDICES, (2, 2), method="bicubic")
    with pytest.raises(rt.errors.InvalidArgumentError, match="box_indices"):
        rt.image.crop_and_resize(IMAGE, BOXES, [0, 1, 2, 0, 0], (2, 2))
    with pytest.raises(rt.errors.InvalidArgumentError, match="crop_size"):
        rt.image.crop_and_resize(IMAGE, BOXES, INDICES, (0, 2))
    with pytest.raises(rt.errors.InvalidArgumentError, match="4-D"):
        rt.image.crop_and_resize(IMAGE[0], BOXES, INDICES, (2, 2))


def _patches_loop(x, k, s, r, padding):
    """extract_patches by its definition (zero padding split as TensorFlow's SAME)."""
    spatial = x.ndim - 2
    pads, outs = [], []
    for d in range(spatial):
        n, span = x.shape[1 + d], (k[d] - 1) * r[d] + 1
        if padding == "VALID":
            outs.append((n - span) // s[d] + 1)
            pads.append(0)
        else:
            outs.append(-(-n // s[d]))
            pads.append(max((outs[-1] - 1) * s[d] + span - n, 0) // 2)
    out = np.zeros((x.shape[0], *outs, int(np.prod(k)) * x.shape[-1]), x.dtype)
    for o in np.ndindex(*outs):
        values = []
        for w in np.ndindex(*k):
            where = [o[d] * s[d] + w[d] * r[d] - pads[d] for d in range(spatial)]
            inside = all(0 <= where[d] < x.shape[1 + d] for d in range(spatial))
            values.append(x[(slice(None), *where)] if inside else np.zeros((x.shape[0], x.shape[-1])))
        out[(slice(None), *o)] = np.concatenate(values, axis=-1)
    return out


def test_extract_patches_documented_examples():
    # tf.image.extract_patches's documentation: a 10x10 image of 1..100
    n = 10
    images = [[[[x * n + y + 1] for y in range(n)] for x in range(n)]]
    got = rt.image.extract_patches(images, [1, 3, 3, 1], [1, 5, 5, 1], [1, 1, 1, 1], "VALID")
    np.testing.assert_array_equal(got.numpy(), [[[[1, 2, 3, 11, 12, 13, 21, 22, 23],
                                                  [6, 7, 8, 16, 17, 18, 26, 27, 28]],
                                                 [[51, 52, 53, 61, 62, 63, 71, 72, 73],
                                                  [56, 57, 58, 66, 67, 68, 76, 77, 78]]]])
    got = rt.image.extract_patches(images, [1, 3, 3, 1], [1, 5, 5, 1], [1, 2, 2, 1], "VALID")
    np.testing.assert_array_equal(got.numpy(), [[[[1, 3, 5, 21, 23, 25, 41, 43, 45],
                                                  [6, 8, 10, 26, 28, 30, 46, 48, 50]],
                                                 [[51, 53, 55, 71, 73, 75, 91, 93, 95],
                                                  [56, 58, 60, 76, 78, 80, 96, 98, 100]]]])


@pytest.mark.parametrize("k,s,r,padding", [((3, 3), (2, 2), (1, 1), "VALID"),
                                           ((2, 3), (3, 2), (2, 1), "SAME"),
                                           ((1, 1), (1, 1), (1, 1), "VALID"),
                                           ((4, 4), (1, 1), (2, 2), "SAME")])
def test_extract_patches_as_defined_and_differentiable(k, s, r, padding):
    x = _RNG.random((2, 7, 6, 3))
    got = rt.image.extract_patches(x, [1, *k, 1], [1, *s, 1], [1, *r, 1], padding)
    np.testing.assert_array_equal(got.numpy(), _patches_loop(x, k, s, r, padding))
    check_gradients(lambda t: rt.image.extract_patches(t, [1, *k, 1], [1, *s, 1], [1, *r, 1],
                                                       padding), x[:1, :5, :4, :2],
                    modes=("eager",))


@pytest.mark.parametrize("k,s,padding", [((2, 2, 3), (1, 2, 2), "VALID"),
                                         ((3, 2, 2), (2, 1, 3), "SAME")])
def test_extract_volume_patches_as_defined(k, s, padding):
    v = _RNG.random((2, 5, 4, 6, 2)).astype(np.float32)
    got = rt.extract_volume_patches(v, [1, *k, 1], [1, *s, 1], padding)
    np.testing.assert_array_equal(got.numpy(), _patches_loop(v, k, s, (1, 1, 1), padding))


def test_patch_argument_errors():
    with pytest.raises(ValueError, match="sizes"):
        rt.image.extract_patches(np.zeros((1, 4, 4, 1)), [2, 2, 1, 1], [1, 1, 1, 1],
                                 [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="padding"):
        rt.image.extract_patches(np.zeros((1, 4, 4, 1)), [1, 2, 2, 1], [1, 1, 1, 1],
                                 [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="5-D"):
        rt.extract_volume_patches(np.zeros((1, 4, 4, 1)), [1, 1, 2, 2, 1], [1] * 5, "VALID")


def _draw_loop(images, boxes, colors):
    """The outline of each box, one pixel wide, by TensorFlow's definition."""
    out = images.copy()
    _, height, width, depth = images.shape
    for b in range(boxes.shape[0]):
        for k, (y0, x0, y1, x1) in enumerate(boxes[b]):
            y0, y1 = int(y0 * (height - 1)), int(y1 * (height - 1))
            x0, x1 = int(x0 * (width - 1)), int(x1 * (width - 1))
            color = colors[k % len(colors)][:depth]
            for i in range(height):
                for j in range(width):
                    on_row = i in (y0, y1) and x0 <= j <= x1
                    on_col = j in (x0, x1) and y0 <= i <= y1
                    if y0 <= y1 and x0 <= x1 and (on_row or on_col):
                        out[b, i, j] = color
    return out


def test_draw_bounding_boxes():
    images = np.full((2, 9, 11, 3), 0.25, np.float32)
    boxes = np.array([[[0.1, 0.1, 0.6, 0.7], [-0.1, 0.3, 0.5, 1.2], [0.6, 0.6, 0.2, 0.9]],
                      [[0.0, 0.0, 1.0, 1.0], [0.5, 0.5, 0.52, 0.52], [1.1, 0.0, 1.2, 1.0]]],
                     np.float32)
    colors = np.array([[1, 0, 0, 1], [0, 0.5, 1, 1]], np.float32)
    got = rt.image.draw_bounding_boxes(images, boxes, colors)
    np.testing.assert_array_equal(got.numpy(), _draw_loop(images, boxes, colors))
    # no colors: TensorFlow's table, yellow first, then blue
    default = rt.image.draw_bounding_boxes(images[:1, :, :, :], boxes[:1, :2], None).numpy()
    np.testing.assert_array_equal(default[0, 0, 3], [0, 0, 1])      # the second box's top edge
    np.testing.assert_array_equal(default[0, 0 + 1, 1], [1, 1, 0])  # the first box's top edge
    with pytest.raises(TypeError, match="float32 or float16"):
        rt.image.draw_bounding_boxes(images.astype(np.uint8), boxes, colors)


def _check_crop(begin, size, box, height, width, boxes, covered, aspect, area):
    y, x, _ = begin.numpy().tolist()
    h, w, c = size.numpy().tolist()
    assert c == -1 and 0 <= y and 0 <= x and y + h <= height and x + w <= width
    np.testing.assert_allclose(box.numpy()[0, 0], [y / height, x / width, (y + h) / height,
                                                   (x + w) / width], rtol=1e-6)
    if (h, w) == (height, width):
        return False  # the fallback: no attempt succeeded
    assert area[0] * height * width <= h * w <= area[1] * height * width
    # the width is the rounded height times a drawn ratio
    assert aspect[0] - 0.5 / h - 1e-9 <= w / h <= aspect[1] + 0.5 / h + 1e-9
    best = 0.0
    for y0, x0, y1, x1 in np.asarray(boxes).reshape(-1, 4) * [height, width, height, width]:
        inter = max(0, min(y + h, y1) - max(y, y0)) * max(0, min(x + w, x1) - max(x, x0))
        best = max(best, inter / ((y1 - y0) * (x1 - x0)))
    assert best >= covered - 1e-9
    return True


def test_sample_distorted_bounding_box_meets_its_constraints():
    boxes = [[[0.1, 0.2, 0.5, 0.6], [0.5, 0.5, 0.9, 0.7]]]
    found = 0
    for k in range(60):
        out = rt.image.stateless_sample_distorted_bounding_box(
            [40, 60, 3], boxes, [k, 7], min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0),
            area_range=(0.1, 0.8))
        found += _check_crop(*out, 40, 60, boxes, 0.5, (0.5, 2.0), (0.1, 0.8))
    assert found > 50
    rt.random.set_seed(5)
    for _ in range(20):
        out = rt.image.sample_distorted_bounding_box([40, 60, 3], boxes, seed=3)
        _check_crop(*out, 40, 60, boxes, 0.1, (0.75, 1.33), (0.05, 1.0))


def test_sample_distorted_bounding_box_draws():
    boxes = [[[0.1, 0.2, 0.5, 0.6]]]
    again = [rt.image.stateless_sample_distorted_bounding_box([40, 60, 3], boxes, [1, 2])[1]
             .numpy().tolist() for _ in range(2)]
    assert again[0] == again[1]
    staged = rt.function(lambda s: rt.image.stateless_sample_distorted_bounding_box(
        [40, 60, 3], boxes, s)[1])
    assert staged(rt.constant([1, 2])).numpy().tolist() == again[0]
    rt.random.set_seed(9)
    first = [rt.image.sample_distorted_bounding_box([40, 60, 3], boxes, seed=4)[1].numpy().tolist()
             for _ in range(5)]
    rt.random.set_seed(9)
    second = [rt.image.sample_distorted_bounding_box([40, 60, 3], boxes, seed=4)[1].numpy()
              .tolist() for _ in range(5)]
    assert first == second and len({tuple(s) for s in first}) > 1
    # an int64 image_size gives int64 begin and size (TensorFlow 2.21)
    begin, size, _ = rt.image.sample_distorted_bounding_box(rt.constant([40, 60, 3], rt.int64),
                                                            boxes)
    assert begin.dtype == rt.int64 and size.dtype == rt.int64


def test_sample_distorted_bounding_box_fallbacks_and_errors():
    # TensorFlow 2.21: no crop can cover the box at that aspect ratio: the whole image
    begin, size, box = rt.image.sample_distorted_bounding_box(
        [40, 60, 3], [[[0.1, 0.2, 0.5, 0.6]]], min_object_covered=1.0, area_range=[0.9, 1.0],
        aspect_ratio_range=[5, 6])
    assert begin.numpy().tolist() == [0, 0, 0] and size.numpy().tolist() == [40, 60, -1]
    np.testing.assert_array_equal(box.numpy(), [[[0, 0, 1, 1]]])
    out = rt.image.sample_distorted_bounding_box([40, 60, 3], np.zeros((1, 0, 4), np.float32),
                                                 use_image_if_no_bounding_boxes=True)
    _check_crop(*out, 40, 60, [[0, 0, 1, 1]], 0.1, (0.75, 1.33), (0.05, 1.0))
    with pytest.raises(rt.errors.InvalidArgumentError, match="use_image_if_no_bounding_boxes"):
        rt.image.sample_distorted_bounding_box([40, 60, 3], np.zeros((1, 0, 4), np.float32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="area_range"):
        rt.image.sample_distorted_bounding_box([40, 60, 3], [[[0, 0, 1, 1]]], area_range=[0, 2])


def test_keras_extract_patches_3d():
    from runtime import keras

    v = _RNG.random((2, 5, 6, 7, 2)).astype(np.float32)
    # Keras 3: strides default to the size; a 4-D volume gives a 4-D result
    got = keras.ops.image.extract_patches_3d(v, (2, 3, 2))
    np.testing.assert_array_equal(got.numpy(), _patches_loop(v, (2, 3, 2), (2, 3, 2), (1, 1, 1),
                                                             "VALID"))
    got = keras.ops.image.extract_patches_3d(v[0], 2, strides=1, padding="same")
    np.testing.assert_array_equal(got.numpy(), _patches_loop(v[:1], (2, 2, 2), (1, 1, 1),
                                                             (1, 1, 1), "SAME")[0])
    got = keras.ops.image.extract_patches_3d(v, 2, strides=1, dilation_rate=2)
    assert got.shape == (2, 3, 4, 5, 16)  # Keras 3.15's shape
    np.testing.assert_array_equal(got.numpy(), _patches_loop(v, (2, 2, 2), (1, 1, 1), (2, 2, 2),
                                                             "VALID"))
    with pytest.raises(ValueError, match="rank"):
        keras.ops.image.extract_patches_3d(v[0, 0], 2)


# recorded from TensorFlow 2.21: extract_glimpse(arange(35).reshape(1, 5, 7, 1), size, [offset],
# centered, normalized, noise='zero')[0, :, :, 0]
TF_GLIMPSES = [
    ((2, 2), [1, 1], True, True, [[34, 0], [0, 0]]),
    ((2, 2), [1, 1], True, False, [[25, 26], [32, 33]]),
    ((3, 3), [1, 1], False, True, [[0] * 3] * 3),
    ((2, 2), [1, 1], False, False, [[8, 9], [15, 16]]),
    ((3, 3), [0.3, -0.6], True, True, [[7, 8, 9], [14, 15, 16], [21, 22, 23]]),
    ((2, 3), [0.3, -0.6], True, False, [[16, 17, 18], [23, 24, 25]]),
    ((3, 3), [0.3, -0.6], False, False, [[0, 1, 2], [7, 8, 9], [14, 15, 16]]),
    ((2, 3), [1, 1], True, True, [[33, 34, 0], [0, 0, 0]]),
    ((2, 2), [2.5, 3.5], False, False, [[17, 18], [24, 25]]),
    ((3, 3), [-1, 6], False, False, [[0, 0, 0], [6, 0, 0], [13, 0, 0]]),
]


@pytest.mark.parametrize("size,offset,centered,normalized,expected", TF_GLIMPSES)
def test_extract_glimpse_places_windows_as_tensorflow(size, offset, centered, normalized,
                                                      expected):
    x = np.arange(35, dtype=np.float32).reshape(1, 5, 7, 1)
    got = rt.image.extract_glimpse(x, size, [offset], centered=centered, normalized=normalized,
                                   noise="zero")
    np.testing.assert_array_equal(got.numpy()[0, :, :, 0], expected)


def test_extract_glimpse_documented_example_and_noise():
    # TensorFlow's documentation
    x = [[[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]], [[6.0], [7.0], [8.0]]]]
    got = rt.image.extract_glimpse(x, size=(2, 2), offsets=[[1, 1]], centered=False,
                                   normalized=False)
    np.testing.assert_array_equal(got.numpy(), [[[[4.0], [5.0]], [[7.0], [8.0]]]])
    image = np.arange(35, dtype=np.float32).reshape(1, 5, 7, 1) * 2 + 10
    outside = rt.image.extract_glimpse(image, (40, 40), [[0, 0]]).numpy()[0, :5, :, 0]
    assert outside.min() >= 10 and outside.max() <= 78 and outside.std() > 10
    gauss = rt.image.extract_glimpse(image, (40, 40), [[0, 0]], noise="gaussian").numpy()
    assert gauss.min() >= 10 and gauss.max() <= 78
    with pytest.raises(rt.errors.InvalidArgumentError, match="noise"):
        rt.image.extract_glimpse(image, (2, 2), [[0, 0]], noise="bad")
