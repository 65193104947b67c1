"""rt.image.resize of images whose height and width are known only when the graph runs
(decoded in a Dataset.map, as TensorFlow's image-loading tutorial does): the same values as
TensorFlow 2.21 prints for the same program, and as a NumPy half-pixel-centre resize."""

import numpy as np
import pytest

import runtime as rt

IMAGE = (np.arange(4 * 5 * 1) * 7 % 23).astype(np.uint8).reshape(4, 5, 1)


def _dataset():
    return rt.data.Dataset.from_generator(
        lambda: iter([IMAGE]), output_signature=rt.TensorSpec([None, None, 1], rt.uint8))


def _numpy_bilinear(x, h_out, w_out):
    def taps(n_in, n_out):
        src = (np.arange(n_out) + 0.5) * n_in / n_out - 0.5
        low = np.floor(src)
        return (np.clip(low, 0, n_in - 1).astype(int), np.clip(np.ceil(src), 0, n_in - 1)
                .astype(int), src - low)
    x = x.astype(np.float64)
    lo, hi, f = taps(x.shape[0], h_out)
    x = x[lo] + (x[hi] - x[lo]) * f[:, None, None]
    lo, hi, f = taps(x.shape[1], w_out)
    return x[:, lo] + (x[:, hi] - x[:, lo]) * f[None, :, None]


def test_bilinear_resize_in_a_dataset_map():
    ds = _dataset().map(lambda im: rt.image.resize(im, [3, 7]))
    assert ds.element_spec.shape.as_list() == [3, 7, 1]
    assert ds.element_spec.dtype == rt.float32
    got = next(iter(ds)).numpy()[..., 0]
    np.testing.assert_allclose(got, _numpy_bilinear(IMAGE, 3, 7)[..., 0], rtol=1e-5)
    # TensorFlow 2.21's values for the same program
    np.testing.assert_allclose(got[0], [2.0, 6.0, 9.9048, 12.1667, 17.1667, 13.9524, 7.0],
                               atol=1e-3)


def test_nearest_resize_in_a_dataset_map_keeps_the_dtype():
    ds = _dataset().map(lambda im: rt.image.resize(im, [3, 7], method="nearest"))
    got = next(iter(ds)).numpy()[..., 0]
    assert got.dtype == np.uint8
    assert got.tolist() == [[0, 7, 7, 14, 21, 21, 5], [1, 8, 8, 15, 22, 22, 6],
                            [13, 20, 20, 4, 11, 11, 18]]


def test_preserve_aspect_ratio_needs_a_known_size():
    with pytest.raises(ValueError, match="preserve_aspect_ratio"):
        next(iter(_dataset().map(
            lambda im: rt.image.resize(im, [3, 7], preserve_aspect_ratio=True))))
