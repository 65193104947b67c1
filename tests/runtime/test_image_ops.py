"""rt.image against NumPy reference implementations written here, eagerly, staged and
compiled, with gradients against finite differences."""

import colorsys

import numpy as np
import pytest

import runtime as rt

RNG = np.random.default_rng(7)
IMG = RNG.random((5, 7, 3)).astype(np.float32)
BATCH = RNG.random((2, 4, 6, 3)).astype(np.float32)


def ref_bilinear(img, out_h, out_w):
    """Half-pixel-center bilinear resize, pixel by pixel."""
    h, w = img.shape[-3], img.shape[-2]
    out = np.zeros(img.shape[:-3] + (out_h, out_w, img.shape[-1]), np.float64)
    for i in range(out_h):
        y = max((i + 0.5) * h / out_h - 0.5, 0.0)
        y0 = min(int(np.floor(y)), h - 1)
        y1 = min(y0 + 1, h - 1)
        fy = y - np.floor(y)
        for j in range(out_w):
            x = max((j + 0.5) * w / out_w - 0.5, 0.0)
            x0 = min(int(np.floor(x)), w - 1)
            x1 = min(x0 + 1, w - 1)
            fx = x - np.floor(x)
            top = img[..., y0, x0, :] * (1 - fx) + img[..., y0, x1, :] * fx
            bottom = img[..., y1, x0, :] * (1 - fx) + img[..., y1, x1, :] * fx
            out[..., i, j, :] = top * (1 - fy) + bottom * fy
    return out


def ref_nearest(img, out_h, out_w):
    h, w = img.shape[-3], img.shape[-2]
    rows = [min(int((i + 0.5) * h / out_h), h - 1) for i in range(out_h)]
    cols = [min(int((j + 0.5) * w / out_w), w - 1) for j in range(out_w)]
    return img[..., rows, :, :][..., :, cols, :]


@pytest.mark.parametrize("size", [(10, 14), (3, 4), (5, 7), (8, 3), (1, 1)])
@pytest.mark.parametrize("img", [IMG, BATCH], ids=["image", "batch"])
def test_resize_bilinear_and_nearest(size, img):
    got = rt.image.resize(img, size)
    assert got.dtype == rt.float32
    np.testing.assert_allclose(got.numpy(), ref_bilinear(img, *size), rtol=1e-5, atol=1e-6)
    near = rt.image.resize(img, size, method="nearest")
    np.testing.assert_array_equal(near.numpy(), ref_nearest(img, *size))


def test_resize_known_values_and_int_input():
    row = np.array([[[0.0], [1.0]]], np.float32)   # 1 x 2 x 1
    np.testing.assert_allclose(rt.image.resize(row, [1, 4]).numpy().ravel(), [0, 0.25, 0.75, 1])
    u8 = (IMG * 255).astype(np.uint8)
    got = rt.image.resize(u8, [9, 4])
    assert got.dtype == rt.float32
    np.testing.assert_allclose(got.numpy(), ref_bilinear(u8.astype(np.float64), 9, 4), rtol=1e-5)
    assert rt.image.resize(u8, [9, 4], method="nearest").dtype == rt.uint8
    assert rt.image.resize(IMG, [10, 10], preserve_aspect_ratio=True).shape.as_tuple() == (7, 10, 3)


def test_resize_errors():
    with pytest.raises(ValueError, match="size"):
        rt.image.resize(IMG, [3])
    with pytest.raises(ValueError, match="method"):
        rt.image.resize(IMG, [3, 3], method="bicubicle")
    with pytest.raises(ValueError, match="images"):
        rt.image.resize(IMG[0], [3, 3])


def test_convert_image_dtype():
    u8 = np.array([0, 1, 128, 255], np.uint8).reshape(1, 4, 1)
    np.testing.assert_allclose(rt.image.convert_image_dtype(u8, rt.float32).numpy(), u8 / 255.0,
                               rtol=1e-6)
    f = np.array([0.0, 0.25, 0.5, 1.0], np.float32).reshape(1, 4, 1)
    np.testing.assert_array_equal(rt.image.convert_image_dtype(f, rt.uint8).numpy(),
                                  (f * 255.5).astype(np.uint8))
    over = np.array([1.5, -0.5], np.float32).reshape(1, 2, 1)
    np.testing.assert_array_equal(rt.image.convert_image_dtype(over, rt.uint8, saturate=True)
                                  .numpy().ravel(), [255, 0])
    assert rt.image.convert_image_dtype(f, rt.float64).dtype == rt.float64
    # TensorFlow 2.21 multiplies by (65535 + 1) // (255 + 1) = 256 (and divides back by 256)
    np.testing.assert_array_equal(rt.image.convert_image_dtype(u8, rt.uint16).numpy().ravel(),
                                  [0, 256, 32768, 65280])
    u16 = np.array([0, 255, 256, 511, 512, 65535], np.uint16).reshape(1, 6, 1)
    np.testing.assert_array_equal(rt.image.convert_image_dtype(u16, rt.uint8).numpy().ravel(),
                                  [0, 0, 1, 1, 2, 255])
    # int8 -> uint8: cast (wrapping, or clipped with saturate) then doubled, as TensorFlow
    i8 = np.array([-128, -1, 0, 1, 127], np.int8).reshape(1, 5, 1)
    np.testing.assert_array_equal(rt.image.convert_image_dtype(i8, rt.uint8).numpy().ravel(),
                                  [0, 254, 0, 2, 254])
    np.testing.assert_array_equal(rt.image.convert_image_dtype(i8, rt.uint8, saturate=True)
                                  .numpy().ravel(), [0, 0, 0, 2, 254])
    # without saturate, float -> uint8 out of range wraps as TensorFlow's cast: 1.5 -> 127
    np.testing.assert_array_equal(rt.image.convert_image_dtype(over, rt.uint8).numpy().ravel(),
                                  [127, 129])
    with pytest.raises(TypeError, match="dtype"):
        rt.image.convert_image_dtype(f, rt.string)


def test_brightness_contrast():
    np.testing.assert_allclose(rt.image.adjust_brightness(IMG, 0.1).numpy(), IMG + 0.1, rtol=1e-6)
    mean = IMG.mean(axis=(0, 1), keepdims=True)
    np.testing.assert_allclose(rt.image.adjust_contrast(IMG, 2.0).numpy(),
                               (IMG - mean) * 2.0 + mean, rtol=1e-5, atol=1e-6)
    bmean = BATCH.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(rt.image.adjust_contrast(BATCH, 0.5).numpy(),
                               (BATCH - bmean) * 0.5 + bmean, rtol=1e-5, atol=1e-6)
    u8 = np.array([[[10], [200]]], np.uint8)
    out = rt.image.adjust_brightness(u8, 0.5)
    assert out.dtype == rt.uint8
    np.testing.assert_array_equal(out.numpy().ravel(), [137, 255])


def test_grayscale_and_back():
    gray = rt.image.rgb_to_grayscale(IMG).numpy()
    np.testing.assert_allclose(gray, IMG @ np.array([[0.2989], [0.5870], [0.1140]]), rtol=1e-5)
    rgb = rt.image.grayscale_to_rgb(gray).numpy()
    np.testing.assert_array_equal(rgb, np.repeat(gray, 3, axis=-1))
    with pytest.raises(ValueError, match="channel"):
        rt.image.grayscale_to_rgb(IMG)


def test_flips_and_rotations():
    np.testing.assert_array_equal(rt.image.flip_left_right(IMG).numpy(), IMG[:, ::-1])
    np.testing.assert_array_equal(rt.image.flip_up_down(IMG).numpy(), IMG[::-1])
    np.testing.assert_array_equal(rt.image.flip_left_right(BATCH).numpy(), BATCH[:, :, ::-1])
    for k in range(-1, 6):
        np.testing.assert_array_equal(rt.image.rot90(IMG, k).numpy(), np.rot90(IMG, k, axes=(0, 1)))
        np.testing.assert_array_equal(rt.image.rot90(BATCH, k).numpy(),
                                      np.rot90(BATCH, k, axes=(1, 2)))
    with pytest.raises(TypeError, match="k"):
        rt.image.rot90(IMG, 1.5)


def test_crops_and_pads():
    np.testing.assert_array_equal(rt.image.crop_to_bounding_box(IMG, 1, 2, 3, 4).numpy(),
                                  IMG[1:4, 2:6])
    np.testing.assert_array_equal(rt.image.crop_to_bounding_box(BATCH, 0, 1, 2, 2).numpy(),
                                  BATCH[:, 0:2, 1:3])
    with pytest.raises(ValueError, match="width"):
        rt.image.crop_to_bounding_box(IMG, 0, 5, 2, 4)
    padded = rt.image.pad_to_bounding_box(IMG, 1, 2, 8, 10).numpy()
    want = np.zeros((8, 10, 3), np.float32)
    want[1:6, 2:9] = IMG
    np.testing.assert_array_equal(padded, want)
    with pytest.raises(ValueError, match="target_height"):
        rt.image.pad_to_bounding_box(IMG, 1, 0, 5, 7)
    # central_crop as TF documents: start = int((size - size * fraction) / 2)
    for fraction in (0.5, 0.3, 1.0):
        top, left = int((5 - 5 * fraction) / 2), int((7 - 7 * fraction) / 2)
        np.testing.assert_array_equal(rt.image.central_crop(IMG, fraction).numpy(),
                                      IMG[top:5 - top, left:7 - left])
    with pytest.raises(ValueError, match="central_fraction"):
        rt.image.central_crop(IMG, 0.0)
    np.testing.assert_array_equal(rt.image.resize_with_crop_or_pad(IMG, 3, 9).numpy(),
                                  np.pad(IMG[1:4], [[0, 0], [1, 1], [0, 0]]))


def test_per_image_standardization():
    for img in (IMG, BATCH):
        axes = (-3, -2, -1)
        mean = img.mean(axis=axes, keepdims=True)
        std = np.maximum(img.std(axis=axes, keepdims=True), 1 / np.sqrt(np.prod(img.shape[-3:])))
        np.testing.assert_allclose(rt.image.per_image_standardization(img).numpy(),
                                   (img - mean) / std, rtol=1e-4, atol=1e-5)
    flat = np.full((2, 2, 1), 7, np.uint8)
    out = rt.image.per_image_standardization(flat)
    assert out.dtype == rt.float32
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 2, 1)))


def test_hsv_and_saturation():
    hsv = rt.image.rgb_to_hsv(IMG).numpy()
    want = np.array([[colorsys.rgb_to_hsv(*px) for px in row] for row in IMG])
    np.testing.assert_allclose(hsv, want, atol=1e-5)
    np.testing.assert_allclose(rt.image.hsv_to_rgb(hsv).numpy(), IMG, atol=1e-5)
    sat = rt.image.adjust_saturation(IMG, 0.4).numpy()
    ref = np.array([[colorsys.hsv_to_rgb(h, min(s * 0.4, 1.0), v) for h, s, v in row]
                    for row in want])
    np.testing.assert_allclose(sat, ref, atol=1e-5)


@pytest.mark.parametrize("jit", [False, True])
def test_staged(jit):
    def f(x):
        return (rt.image.resize(x, [6, 9]), rt.image.adjust_contrast(x, 1.5),
                rt.image.per_image_standardization(x), rt.image.rot90(x, 3),
                rt.image.central_crop(x, 0.5), rt.image.rgb_to_grayscale(x))

    staged = rt.function(f, jit_compile=jit)
    for got, want in zip(staged(BATCH), f(BATCH)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def _numeric_grad(fn, x, eps=1e-6):
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += eps
        down[idx] -= eps
        grad[idx] = (fn(up) - fn(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("name", ["resize", "contrast", "standardize", "gray"])
def test_gradients(name):
    x = RNG.random((3, 4, 3))
    weights = RNG.random((5, 2, 3)) if name == "resize" else RNG.random((3, 4, 3))
    if name == "gray":
        weights = RNG.random((3, 4, 1))
    ops = {"resize": lambda t: rt.image.resize(t, [5, 2]),
           "contrast": lambda t: rt.image.adjust_contrast(t, 1.7),
           "standardize": rt.image.per_image_standardization,
           "gray": rt.image.rgb_to_grayscale}
    op = ops[name]

    def loss(value):
        return float(rt.reduce_sum(op(rt.constant(value)) * weights))

    v = rt.Variable(x)
    with rt.GradientTape() as tape:
        y = rt.reduce_sum(op(v * 1.0) * weights)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), _numeric_grad(loss, x),
                               rtol=1e-5, atol=1e-7)
