"""TensorFlow 2 core names the generative tutorials use: `tf.random_normal_initializer` and
the other `tf.*_initializer` classes (as Keras initializers: the same draws and configs), and
`tf.image.ResizeMethod`'s names, which `tf.image.resize` takes. Checked against TensorFlow's
documented defaults and values, and NumPy."""

import numpy as np
import pytest

import runtime as rt


def test_core_initializers_draw_as_documented():
    rt.random.set_seed(7)
    normal = rt.random_normal_initializer(0.0, 0.02)
    values = normal(shape=[200, 50]).numpy()
    assert values.dtype == np.float32
    assert abs(values.mean()) < 0.002 and values.std() == pytest.approx(0.02, rel=0.05)
    uniform = rt.random_uniform_initializer(-1.0, 1.0)([1000]).numpy()
    assert uniform.min() >= -1.0 and uniform.max() < 1.0 and uniform.std() > 0.5
    np.testing.assert_array_equal(rt.constant_initializer(3.0)([2, 2]).numpy(),
                                  np.full((2, 2), 3.0, np.float32))
    np.testing.assert_array_equal(rt.zeros_initializer()([3]).numpy(), np.zeros(3))
    np.testing.assert_array_equal(rt.ones_initializer()([3], dtype=rt.float64).numpy(),
                                  np.ones(3))
    # TensorFlow's defaults: mean 0, stddev 0.05; minval -0.05, maxval 0.05
    assert (rt.random_normal_initializer().mean, rt.random_normal_initializer().stddev) == \
        (0.0, 0.05)
    assert (rt.random_uniform_initializer().minval,
            rt.random_uniform_initializer().maxval) == (-0.05, 0.05)


def test_a_core_initializer_initialises_a_keras_layer():
    # the pix2pix tutorial: Conv2D(kernel_initializer=tf.random_normal_initializer(0., 0.02))
    rt.random.set_seed(3)
    conv = rt.keras.layers.Conv2D(64, 4, strides=2, padding="same", use_bias=False,
                                  kernel_initializer=rt.random_normal_initializer(0.0, 0.02))
    conv.build((None, 16, 16, 3))
    kernel = conv.get_weights()[0]
    assert kernel.shape == (4, 4, 3, 64)
    assert kernel.std() == pytest.approx(0.02, rel=0.1)


def test_resize_method_names_are_resizes_methods():
    assert rt.image.ResizeMethod.BILINEAR == "bilinear"
    assert rt.image.ResizeMethod.NEAREST_NEIGHBOR == "nearest"
    image = np.arange(16, dtype=np.float32).reshape(4, 4, 1)
    out = rt.image.resize(image, [2, 2], method=rt.image.ResizeMethod.NEAREST_NEIGHBOR)
    np.testing.assert_array_equal(out.numpy()[..., 0], image[1::2, 1::2, 0])
    with pytest.raises((ValueError, NotImplementedError)):
        rt.image.resize(image, [2, 2], method=rt.image.ResizeMethod.BICUBIC)


def test_from_tensor_slices_of_python_strings_gives_bytes():
    # the CSV tutorial slices pandas columns (object arrays of str): TensorFlow makes string
    # tensors holding bytes, printed as b'female'
    column = np.array(["male", "female"], dtype=object)
    ds = rt.data.Dataset.from_tensor_slices({"sex": column, "age": np.array([22.0, 38.0])})
    assert ds.element_spec["sex"].dtype == rt.string
    rows = list(ds)
    assert [r["sex"].numpy() for r in rows] == [b"male", b"female"]
    assert f"{rows[1]['sex']}" == "b'female'"


def test_random_crop_takes_a_block_of_the_input_at_a_random_offset():
    x = np.arange(2 * 6 * 7 * 3, dtype=np.float32).reshape(2, 6, 7, 3)
    offsets = set()
    for _ in range(20):
        crop = rt.image.random_crop(x, size=[2, 4, 4, 3]).numpy()
        assert crop.shape == (2, 4, 4, 3)
        i, j = np.argwhere(x[0, :, :, 0] == crop[0, 0, 0, 0])[0]
        np.testing.assert_array_equal(crop, x[:, i:i + 4, j:j + 4])  # a block of the input
        offsets.add((i, j))
    assert len(offsets) > 1 and all(i <= 2 and j <= 3 for i, j in offsets)
    # in a Dataset.map (the pix2pix tutorial's jitter) the crop's shape is known
    ds = rt.data.Dataset.from_tensors(x).map(lambda im: rt.image.random_crop(im, [2, 3, 3, 3]))
    assert ds.element_spec.shape.as_list() == [2, 3, 3, 3]
    with pytest.raises(rt.errors.InvalidArgumentError, match="value.shape >= size"):
        rt.image.random_crop(x, [2, 7, 3, 3])


IMAGE = np.random.default_rng(0).random((6, 8, 3)).astype(np.float32)


def test_stateless_random_adjustments_are_functions_of_their_seed():
    # tf.image.stateless_random_*: the same seed, the same result (TensorFlow documents it)
    for fn, args in ((rt.image.stateless_random_brightness, (0.5,)),
                     (rt.image.stateless_random_contrast, (0.1, 0.9)),
                     (rt.image.stateless_random_flip_left_right, ()),
                     (rt.image.stateless_random_crop, ([4, 4, 3],))):
        first = fn(IMAGE, *args, seed=(1, 2)).numpy()
        np.testing.assert_array_equal(first, fn(IMAGE, *args, seed=(1, 2)).numpy())
    shifts = {float(np.mean(rt.image.stateless_random_brightness(IMAGE, 0.5, seed=(i, 0))
                            .numpy() - IMAGE)) for i in range(5)}
    assert len(shifts) == 5 and all(-0.5 <= s < 0.5 for s in shifts)


def test_random_adjustments_do_what_their_names_say():
    delta = rt.image.random_brightness(IMAGE, 0.3).numpy() - IMAGE
    assert np.ptp(delta) < 1e-6 and -0.3 <= delta.mean() < 0.3  # one shift for every pixel
    mean = IMAGE.mean(axis=(0, 1))
    out = rt.image.random_contrast(IMAGE, 0.2, 0.5).numpy()
    factor = (out - mean) / (IMAGE - mean)
    assert np.ptp(factor) < 1e-3 and 0.2 <= factor.mean() < 0.5  # one factor a channel
    batch = np.stack([IMAGE] * 16)
    flipped = rt.image.random_flip_left_right(batch).numpy()
    kinds = [np.array_equal(x, IMAGE[:, ::-1]) for x in flipped]
    assert all(k or np.array_equal(x, IMAGE) for k, x in zip(kinds, flipped))
    assert 0 < sum(kinds) < 16  # each image of a batch drawn on its own
    up = rt.image.stateless_random_flip_up_down(IMAGE, seed=(0, 0)).numpy()
    assert np.array_equal(up, IMAGE) or np.array_equal(up, IMAGE[::-1])
    crop = rt.image.stateless_random_crop(IMAGE, [4, 4, 3], seed=(3, 4)).numpy()
    i, j = np.argwhere(IMAGE[:, :, 0] == crop[0, 0, 0])[0]
    np.testing.assert_array_equal(crop, IMAGE[i:i + 4, j:j + 4])


def test_random_adjustments_refuse_bad_ranges_in_tensorflows_words():
    with pytest.raises(ValueError, match="max_delta must be non-negative"):
        rt.image.random_brightness(IMAGE, -0.1)
    with pytest.raises(ValueError, match="upper must be > lower"):
        rt.image.stateless_random_contrast(IMAGE, 0.5, 0.5, seed=(1, 1))
    with pytest.raises(ValueError, match="lower must be non-negative"):
        rt.image.random_contrast(IMAGE, -0.5, 0.5)
