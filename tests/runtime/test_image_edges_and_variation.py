"""rt.image.sobel_edges and rt.image.total_variation against NumPy formulas (TensorFlow's
documented definitions: Sobel kernels over the REFLECT-padded image, dy then dx; the sum
of absolute neighbour differences), and their gradients against finite differences."""

import numpy as np
import pytest

import runtime as rt


def _numpy_sobel(x):
    ky = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], np.float64)
    kx = ky.T
    n, h, w, c = x.shape
    p = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)), mode="reflect")
    out = np.zeros((n, h, w, c, 2))
    for i in range(3):
        for j in range(3):
            out[..., 0] += ky[i, j] * p[:, i:i + h, j:j + w, :]
            out[..., 1] += kx[i, j] * p[:, i:i + h, j:j + w, :]
    return out


def test_sobel_edges_match_numpy_and_tensorflow():
    # the input is made in float64 and rounded once: NumPy versions differ in the last bit of
    # float32 powers, which `% 7` turns into different inputs
    x = ((np.arange(2 * 4 * 5 * 3, dtype=np.float64) ** 1.5).astype(np.float32) % np.float32(7)
         ).reshape(2, 4, 5, 3)
    got = rt.image.sobel_edges(x)
    assert got.shape.as_list() == [2, 4, 5, 3, 2] and got.dtype == rt.float32
    np.testing.assert_allclose(got.numpy(), _numpy_sobel(x), rtol=1e-5, atol=1e-5)
    # TensorFlow 2.21 (with NumPy 2.4) prints these for the same input (first row of dy is 0:
    # REFLECT)
    np.testing.assert_allclose(got.numpy()[0, 1, :, 0, 0],
                               [-2.6176157, -0.6313267, 5.5354595, 4.0347786, -1.6464005], rtol=1e-5)


def test_sobel_edges_refuse_a_single_image_and_integers():
    with pytest.raises(ValueError, match="4-D"):
        rt.image.sobel_edges(np.zeros((4, 5, 3), np.float32))
    with pytest.raises(TypeError, match="floating"):
        rt.image.sobel_edges(np.zeros((1, 4, 5, 3), np.int32))


def test_total_variation_matches_numpy_for_images_and_batches():
    rng = np.random.default_rng(1)
    x = rng.random((3, 6, 7, 2)).astype(np.float32)

    def tv(img):
        return np.abs(np.diff(img, axis=-3)).sum() + np.abs(np.diff(img, axis=-2)).sum()
    np.testing.assert_allclose(rt.image.total_variation(x).numpy(), [tv(i) for i in x],
                               rtol=1e-5)
    np.testing.assert_allclose(rt.image.total_variation(x[1]).numpy(), tv(x[1]), rtol=1e-5)
    ints = (x * 100).astype(np.int32)
    assert rt.image.total_variation(ints).numpy().tolist() == [int(tv(i)) for i in ints]
    with pytest.raises(ValueError, match="3 or 4-dimensional"):
        rt.image.total_variation(x[0, 0])


def test_gradients_of_the_style_transfer_regulariser():
    rng = np.random.default_rng(2)
    x = rng.random((1, 5, 6, 3))
    v = rt.Variable(x)

    def loss(value):
        return rt.reduce_sum(rt.image.total_variation(value)) + \
            rt.reduce_sum(rt.image.sobel_edges(value) ** 2)
    with rt.GradientTape() as tape:
        total = loss(v)
    grad = tape.gradient(total, v).numpy()
    eps = 1e-6
    for index in [(0, 0, 0, 0), (0, 2, 3, 1), (0, 4, 5, 2)]:
        bumped = x.copy()
        bumped[index] += eps
        numeric = (loss(rt.constant(bumped)).numpy() - total.numpy()) / eps
        assert grad[index] == pytest.approx(numeric, rel=1e-3, abs=1e-3)


def test_resize_with_pad_matches_tensorflow():
    # TensorFlow 2.21's output for the same input: a 5x8 image into 6x6 is resized to 3x6
    # (the aspect ratio kept) and placed at row 1
    x = (np.arange(5 * 8 * 1) * 7 % 23).astype(np.uint8).reshape(5, 8, 1)
    got = rt.image.resize_with_pad(x, 6, 6)
    assert got.dtype == rt.float32 and got.shape.as_list() == [6, 6, 1]
    np.testing.assert_allclose(got.numpy()[1, :, 0], [4.5, 10.0, 15.5, 9.5, 15.0, 7.722],
                               atol=1e-3)
    assert not got.numpy()[[0, 4, 5]].any()
    np.testing.assert_allclose(got.numpy()[1:4], rt.image.resize(x, [3, 6]).numpy())
    nearest = rt.image.resize_with_pad(x.astype(np.float32), 7, 4, method="nearest")
    assert not nearest.numpy()[[0, 1, 4, 5, 6]].any()
    np.testing.assert_array_equal(nearest.numpy()[2:4, :, 0], x[[1, 3]][:, 1::2, 0])
    assert rt.image.resize_with_pad(np.zeros((2, 3, 5, 1), np.float32), 4, 4).shape == \
        [2, 4, 4, 1]
