"""Keras 3 names: keras.preprocessing.image's one-image transforms and Iterator,
keras.visualization's galleries, keras.ops' istft / rearrange / vectorize / view /
image.elastic_transform / image.scale_and_translate, keras.backend's conv3d / pool3d /
gradients.

Expected values are closed forms (NumPy, SciPy's definition of the transforms) or values
TensorFlow 2.21 with Keras 3.15 returned for the same inputs (rounded to 4 decimals)."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as tf

K = tf.keras.backend
ops = tf.keras.ops
P = tf.keras.preprocessing.image

pytest.importorskip("scipy")


def _np(t):
    return np.asarray(t)


# -- keras.preprocessing.image -------------------------------------------------------------

def _ramp(shape):
    return np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)


def test_apply_affine_transform_shift_is_a_translation_with_cval_outside():
    x = _ramp((2, 4, 5))  # channels first: Keras's default axes
    out = P.apply_affine_transform(x, tx=1, ty=-2, fill_mode="constant", cval=-1.0)
    expected = np.full_like(x, -1.0)
    # Keras's matrix is in (x, y): the output pixel (r, c) reads the input at (r + ty, c + tx)
    for r in range(4):
        for c in range(5):
            if 0 <= r - 2 < 4 and 0 <= c + 1 < 5:
                expected[:, r, c] = x[:, r - 2, c + 1]
    np.testing.assert_array_equal(out, expected)
    assert out.shape == x.shape and out.dtype == x.dtype


def test_apply_affine_transform_matches_keras():
    x = _ramp((2, 4, 5))
    keras_30 = [[1.201, 2.1567, 5.5228, 8.8888, 11.5897],
                [2.6208, 5.9869, 9.3529, 12.7189, 15.9199],
                [6.451, 9.817, 13.183, 16.549, 18.6651],
                [10.5801, 13.6471, 16.433, 17.299, 18.1651]]
    np.testing.assert_allclose(P.apply_affine_transform(x, theta=30)[0], keras_30, atol=2e-4)
    square = _ramp((3, 3, 1))
    rotated = P.apply_affine_transform(square, theta=90, row_axis=0, col_axis=1,
                                       channel_axis=2)
    np.testing.assert_allclose(rotated[..., 0], [[2, 5, 8], [1, 4, 7], [0, 3, 6]], atol=1e-6)
    # channels last and columns before rows: the same image, axes moved
    moved = P.apply_affine_transform(np.moveaxis(x, 0, 2), theta=30, row_axis=0, col_axis=1,
                                     channel_axis=2)
    np.testing.assert_allclose(moved[..., 0], keras_30, atol=2e-4)


def test_apply_affine_transform_identity_and_errors():
    x = _ramp((3, 4, 5))
    assert P.apply_affine_transform(x) is not None
    np.testing.assert_array_equal(P.apply_affine_transform(x), x)
    with pytest.raises(ValueError, match="must be distinct"):
        P.apply_affine_transform(x, theta=3, row_axis=1, col_axis=1)
    with pytest.raises(ValueError, match="Channels are allowed"):
        P.apply_affine_transform(x, theta=3, channel_axis=1, row_axis=0, col_axis=2)
    with pytest.raises(ValueError, match="multi-channel 2D"):
        P.apply_affine_transform(x[0], theta=3)
    with pytest.raises(TypeError):
        P.apply_affine_transform(x, thetta=3)


@pytest.mark.parametrize("name, args, params", [
    ("random_rotation", (40,), lambda: {"theta": np.random.uniform(-40, 40)}),
    ("random_shear", (30,), lambda: {"shear": np.random.uniform(-30, 30)}),
    ("random_shift", (0.2, 0.3), lambda: {"tx": np.random.uniform(-0.3, 0.3) * 4,
                                          "ty": np.random.uniform(-0.2, 0.2) * 5}),
    ("random_zoom", ((0.7, 1.2),), lambda: dict(zip(("zx", "zy"),
                                                    np.random.uniform(0.7, 1.2, 2)))),
])
def test_random_transforms_draw_from_numpys_generator_as_keras(name, args, params):
    x = _ramp((2, 4, 5))
    np.random.seed(7)
    out = getattr(P, name)(x, *args)
    np.random.seed(7)
    np.testing.assert_allclose(out, P.apply_affine_transform(x, **params()), atol=1e-6)
    assert out.shape == x.shape
    assert x.min() <= out.min() and out.max() <= x.max()  # bilinear, nearest fill


def test_random_zoom_checks_its_range():
    x = _ramp((1, 3, 3))
    np.testing.assert_array_equal(P.random_zoom(x, (1, 1)), x)
    with pytest.raises(ValueError, match="zoom_range"):
        P.random_zoom(x, (1, 2, 3))


def test_channel_shifts():
    x = _ramp((2, 3, 4))
    np.testing.assert_array_equal(P.apply_channel_shift(x, 20.0), np.clip(x + 20, 0, 23))
    last = np.moveaxis(x, 0, 2)
    np.testing.assert_array_equal(P.apply_channel_shift(last, -7.5, channel_axis=2),
                                  np.clip(last - 7.5, 0, 23))
    np.random.seed(4)
    out = P.random_channel_shift(x, 10.0)
    np.random.seed(4)
    np.testing.assert_array_equal(out, np.clip(x + np.random.uniform(-10, 10), 0, 23))


def test_brightness_shifts_match_keras():
    pytest.importorskip("PIL")
    img = (np.arange(18).reshape(2, 3, 3) * 10.0).astype("float32")
    np.testing.assert_array_equal(P.apply_brightness_shift(img, 1.5), [
        [[0, 22, 45], [67, 90, 112], [135, 157, 180]],
        [[202, 225, 247], [255, 255, 255], [255, 255, 255]]])
    np.testing.assert_array_equal(P.apply_brightness_shift(img, 0.5, scale=False),
                                  (img * 0.5).astype(int))
    out = P.apply_brightness_shift(img * 3 - 50, 1.2, scale=False)
    np.testing.assert_allclose(out, [[[-50, -14, 22], [58, 94, 130], [166, 202, 238]],
                                     [[274, 310, 346], [382, 418, 454], [460, 460, 460]]],
                               atol=1e-3)
    assert out.dtype == np.float32
    np.random.seed(5)
    drawn = P.random_brightness(img, (0.5, 1.5))
    np.random.seed(5)
    np.testing.assert_array_equal(drawn, P.apply_brightness_shift(
        img, np.random.uniform(0.5, 1.5)))
    with pytest.raises(ValueError, match="brightness_range"):
        P.random_brightness(img, (1.0,))


class _Indices(P.Iterator):
    def _get_batches_of_transformed_samples(self, index_array):
        return index_array


def test_iterator_orders_batches_as_keras():
    it = _Indices(10, 4, True, 3)
    assert isinstance(it, tf.keras.utils.PyDataset)
    assert [next(it).tolist() for _ in range(5)] == [
        [5, 4, 1, 2], [9, 6, 7, 0], [3, 8], [8, 1, 7, 0], [6, 5, 2, 4]]
    assert len(it) == 3
    assert it[1].tolist() == [6, 5, 2, 4]
    assert it.total_batches_seen == 6
    plain = _Indices(7, 3, False, None)
    assert [next(plain).tolist() for _ in range(4)] == [[0, 1, 2], [3, 4, 5], [6], [0, 1, 2]]
    assert plain[2].tolist() == [6]
    with pytest.raises(ValueError, match="has length 3"):
        plain[3]
    with pytest.raises(NotImplementedError):
        next(P.Iterator(2, 1, False, None))


def test_image_data_generator_flows_are_iterators_that_fit_reads_by_epoch():
    x = np.random.default_rng(0).random((10, 4, 4, 1)).astype("float32")
    y = (np.arange(10) % 2).astype("float32")
    flow = P.ImageDataGenerator().flow(x, y, batch_size=4, shuffle=False)
    assert isinstance(flow, P.Iterator) and isinstance(flow, tf.keras.utils.PyDataset)
    np.testing.assert_array_equal(flow._get_batches_of_transformed_samples(np.array([3, 1]))[1],
                                  y[[3, 1]])
    model = tf.keras.Sequential([tf.keras.layers.Input((4, 4, 1)), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    seen = []

    class Count(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(batch)

    # as in Keras, an epoch is len(flow) = 3 batches (no steps_per_epoch needed)
    history = model.fit(flow, epochs=2, verbose=0, callbacks=[Count()])
    assert len(history.history["loss"]) == 2 and seen == [0, 1, 2, 0, 1, 2]


# -- keras.visualization ---------------------------------------------------------------------

@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    pyplot.close("all")
    yield pyplot
    pyplot.close("all")


def _shown(pyplot):
    fig = pyplot.gcf()
    return fig, [a for a in fig.axes if a.images]


def _images(n=5):
    return np.random.default_rng(0).integers(0, 255, size=(n, 8, 10, 3)).astype("float32")


def test_plot_image_gallery_lays_out_keras_grid(plt):
    images = _images()
    tf.keras.visualization.plot_image_gallery(images, show=False)
    fig, shown = _shown(plt)
    # rows = ceil(sqrt(5)) = 3, cols = 5 // 3 = 1
    assert len(fig.axes) == 3 and len(shown) == 3
    np.testing.assert_array_equal(shown[1].images[0].get_array(), images[1].astype("uint8"))
    assert list(fig.get_size_inches()) == [2.0, 6.0]
    plt.close("all")
    tf.keras.visualization.plot_image_gallery(
        images, rows=1, cols=3, y_true=np.array([0, 1, 2]), y_pred=np.array([1, 1, 5]),
        label_map={0: "cat", 1: "dog", 2: "x"}, show=False, scale=3)
    fig, shown = _shown(plt)
    assert [a.get_title() for a in fig.axes] == [
        "Label: cat  Pred: dog", "Label: dog  Pred: dog", "Label: x  Pred: Unknown"]
    assert list(fig.get_size_inches()) == [9.0, 3.0]


def test_plot_image_gallery_value_range_channels_first_and_path(plt, tmp_path):
    images = _images(4)
    tf.keras.visualization.plot_image_gallery(images / 255.0, value_range=(0, 1), show=False,
                                              rows=2, cols=3)
    fig, shown = _shown(plt)
    assert len(fig.axes) == 6 and len(shown) == 4  # cells past the last image stay blank
    np.testing.assert_allclose(shown[2].images[0].get_array(),
                               (images[2] / 255.0 * 255).astype("uint8"), atol=1)
    plt.close("all")
    tf.keras.visualization.plot_image_gallery(images.transpose(0, 3, 1, 2), rows=2, cols=2,
                                              data_format="channels_first", show=False)
    _, shown = _shown(plt)
    np.testing.assert_array_equal(shown[3].images[0].get_array(), images[3].astype("uint8"))
    plt.close("all")
    path = tmp_path / "gallery.png"
    tf.keras.visualization.plot_image_gallery(images, path=str(path))
    assert path.stat().st_size > 0 and plt.get_fignums() == []


def test_plot_image_gallery_errors(plt):
    images = _images()
    with pytest.raises(ValueError, match="batch"):
        tf.keras.visualization.plot_image_gallery(images[0])
    with pytest.raises(ValueError, match="either `path`"):
        tf.keras.visualization.plot_image_gallery(images, path="x.png", show=True)
    with pytest.raises(ValueError, match="label_map"):
        tf.keras.visualization.plot_image_gallery(images, y_true=[1])
    with pytest.raises(TypeError):
        tf.keras.visualization.plot_image_gallery(images, colums=2)


def test_plot_bounding_box_gallery_draws_boxes_and_legend(plt):
    images = _images(4)
    boxes = {"boxes": np.array([[[1, 1, 5, 6]]] * 4, "float32"), "labels": np.array([[0]] * 4)}
    tf.keras.visualization.plot_bounding_box_gallery(images, "xyxy", y_true=boxes,
                                                     legend=True, rows=2, cols=2, show=False)
    fig, shown = _shown(plt)
    assert len(shown) == 4 and len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["Ground Truth", "Prediction"]
    drawn = tf.keras.visualization.draw_bounding_boxes(images, boxes, "xyxy",
                                                       color=(0, 188, 212))
    np.testing.assert_array_equal(shown[0].images[0].get_array(), drawn[0])
    assert tuple(drawn[0][1, 3]) == (0, 188, 212)  # on the box's top edge
    with pytest.raises(ValueError, match="Only pass `legend` OR"):
        tf.keras.visualization.plot_bounding_box_gallery(images, "xyxy", legend=True,
                                                         legend_handles=[object()])


def test_plot_segmentation_mask_gallery_one_row_per_image(plt):
    images = _images(3)
    masks = np.random.default_rng(1).integers(0, 3, size=(3, 8, 10, 1))
    tf.keras.visualization.plot_segmentation_mask_gallery(images, num_classes=3, y_true=masks,
                                                          y_pred=masks[..., 0], show=False)
    fig, shown = _shown(plt)
    assert len(fig.axes) == 9 and len(shown) == 9
    painted = tf.keras.visualization.draw_segmentation_masks(images, masks, num_classes=3)
    np.testing.assert_array_equal(shown[3].images[0].get_array(), images[1].astype("uint8"))
    np.testing.assert_array_equal(shown[4].images[0].get_array(), painted[1])
    np.testing.assert_array_equal(shown[5].images[0].get_array(), painted[1])
    plt.close("all")
    tf.keras.visualization.plot_segmentation_mask_gallery(images[:2], num_classes=3,
                                                          y_true=masks[:2], show=False)
    fig, _ = _shown(plt)
    assert len(fig.axes) == 4


# -- keras.ops -------------------------------------------------------------------------------

def test_istft_inverts_stft():
    x = (np.sin(np.arange(40) * 0.3) + 0.1 * np.arange(40)).astype("float32")
    for kwargs in ({}, {"window": None}, {"window": "hamming", "center": False}):
        spec = ops.stft(x, 16, 4, 16, **kwargs)
        back = _np(ops.istft(spec, 16, 4, 16, **kwargs))
        # inside: the overlapping windows' squares sum to what inverse_stft_window_fn
        # divides by (at the edges fewer frames overlap, as in TensorFlow)
        if "window" in kwargs and kwargs["window"] is None:
            # no window: the frames just add up, 16 / 4 of them over each sample
            np.testing.assert_allclose(back[4:-4], 4 * x[4:-4], rtol=1e-5, atol=1e-4)
        elif kwargs.get("center", True):
            np.testing.assert_allclose(back[4:-4], x[4:-4], atol=1e-4)
        else:
            np.testing.assert_allclose(back[12:-12], x[12:28], atol=1e-4)
    assert _np(ops.istft(ops.stft(x, 16, 4, 16), 16, 4, 16, length=30)).shape == (30,)


def test_istft_with_a_shorter_window_matches_keras():
    sig = np.cos(np.arange(24, dtype="float32") * 0.5)
    spec = ops.stft(sig, 8, 2, 10, window="hamming")
    np.testing.assert_allclose(_np(spec[0])[:2], [
        [3.0993, -2.4265, 0.9624, -0.0729, -0.012, -0.0012],
        [1.7358, -1.2615, 0.5389, -0.0583, -0.056, -0.0618]], atol=2e-4)
    np.testing.assert_allclose(_np(ops.istft(spec, 8, 2, 10, window="hamming")), [
        0.8166, 0.8521, 0.5403, 0.0707, -0.4161, -0.8011, -0.99, -0.9365, -0.6536, -0.2108,
        0.2837, 0.7087, 0.9602, 0.9766, 0.7539, 0.3466, -0.1455, -0.602, -0.9111, -0.9972,
        -0.8391, -0.4755, 0.0044, 0.4693], atol=2e-4)
    with pytest.raises(ValueError, match="fft_length"):
        ops.istft(spec, 12, 2, 10)
    with pytest.raises(ValueError, match="window"):
        ops.istft(spec, 8, 2, 10, window="blackman")
    with pytest.raises(ValueError, match="tuple"):
        ops.istft(spec[0], 8, 2, 10)


def test_new_ops_trace_into_functions():
    sig = np.cos(np.arange(24, dtype="float32") * 0.5)
    spec = ops.stft(sig, 8, 2, 10, window="hamming")
    inverse = tf.function(lambda re, im: ops.istft((re, im), 8, 2, 10, window="hamming"))
    np.testing.assert_allclose(inverse(*spec), ops.istft(spec, 8, 2, 10, window="hamming"),
                               atol=1e-6)
    img = _E[None, :, :, None]
    elastic = tf.function(lambda t: ops.image.elastic_transform(t, alpha=3.0, sigma=1.0,
                                                                seed=11))
    np.testing.assert_allclose(elastic(img), ops.image.elastic_transform(
        img, alpha=3.0, sigma=1.0, seed=11), atol=1e-6)
    resize = tf.function(lambda t, s: ops.image.scale_and_translate(
        t, (1, 3, 4, 1), s, [0.3, -0.5], (1, 2), "cubic"))
    scale = np.array([0.8, 1.5], "float32")
    np.testing.assert_allclose(resize(img, scale), ops.image.scale_and_translate(
        img, (1, 3, 4, 1), scale, [0.3, -0.5], (1, 2), "cubic"), atol=1e-6)
    norms = tf.function(lambda a: ops.vectorize(lambda r: ops.sum(r * r),
                                                signature="(n)->()")(a))
    np.testing.assert_allclose(norms(np.arange(6.0).reshape(2, 3)), [5.0, 50.0])


def test_scale_and_translate_has_gradients():
    img = tf.constant(_E[None, :, :, None])
    with tf.GradientTape() as tape:
        tape.watch(img)
        total = tf.reduce_sum(ops.image.scale_and_translate(img, (1, 10, 12, 1), [2.0, 2.0],
                                                            [0.0, 0.0], (1, 2), "linear"))
    # upsampling by 2 with a partition-of-unity kernel: each input pixel feeds about 4 outputs
    grad = _np(tape.gradient(total, img))
    assert grad.shape == img.shape and np.all(grad > 0)
    np.testing.assert_allclose(grad.sum(), 120.0, rtol=1e-5)


def test_rearrange_follows_einops():
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    np.testing.assert_array_equal(ops.rearrange(x, "b h w c -> b c h w"),
                                  x.transpose(0, 3, 1, 2))
    np.testing.assert_array_equal(ops.rearrange(x, "b h w c -> (b h) w c"),
                                  x.reshape(6, 4, 5))
    np.testing.assert_array_equal(ops.rearrange(x, "b h w c -> h (b w) c"),
                                  x.transpose(1, 0, 2, 3).reshape(3, 8, 5))
    np.testing.assert_array_equal(ops.rearrange(x, "b h (w1 w) c -> (b w1) h w c", w1=2),
                                  x.reshape(2, 3, 2, 2, 5).transpose(0, 2, 1, 3, 4)
                                  .reshape(4, 3, 2, 5))
    flat = np.arange(24).reshape(2, 12)
    np.testing.assert_array_equal(ops.rearrange(flat, "a (b c) -> a c b", c=4),
                                  flat.reshape(2, 3, 4).transpose(0, 2, 1))
    assert _np(ops.rearrange(flat, "a b -> a b")).dtype == flat.dtype
    for pattern, lengths, match in [
            ("a b -> a", {}, "not on both sides"), ("a b c -> a b c", {}, "rank"),
            ("a (b c) -> a b c", {}, "all but one"), ("a (b c) -> a b c", {"b": 5}, "split"),
            ("a b -> b a", {"z": 2}, "name no axis"), ("a b -> a a", {}, "twice"),
            ("a ... -> a", {}, "ellipsis")]:
        with pytest.raises(ValueError, match=match):
            ops.rearrange(flat, pattern, **lengths)


def test_rearrange_traces():
    f = tf.function(lambda t: ops.rearrange(t, "b (h w) -> b w h", h=2))
    x = np.arange(12.0).reshape(2, 6).astype("float32")
    np.testing.assert_array_equal(f(x), x.reshape(2, 2, 3).transpose(0, 2, 1))


def test_vectorize_as_numpy():
    x, y = np.arange(6.0).reshape(2, 3), np.arange(3.0)
    add = ops.vectorize(lambda a, b: a * 2 + b)
    np.testing.assert_array_equal(add(x, y), np.vectorize(lambda a, b: a * 2 + b)(x, y))
    dot = ops.numpy.vectorize(lambda a, b: ops.sum(a * b), signature="(n),(n)->()")
    np.testing.assert_array_equal(dot(x, y), x @ y)
    outer = ops.vectorize(lambda a: (ops.sum(a), a * 2), signature="(n)->(),(n)")
    total, doubled = outer(x)
    np.testing.assert_array_equal(total, x.sum(1))
    np.testing.assert_array_equal(doubled, x * 2)
    scaled = ops.vectorize(lambda a, k, power=1: a * k ** power, excluded={1, "power"})
    np.testing.assert_array_equal(scaled(x, 3.0, power=2), x * 9)
    with pytest.raises(ValueError, match="signature"):
        ops.vectorize(lambda a: a, signature="(n->()")
    with pytest.raises(TypeError, match="positional arguments"):
        dot(x)
    with pytest.raises(ValueError, match="core dimension"):
        dot(x, np.arange(4.0))
    with pytest.raises(ValueError, match="output shape"):
        ops.vectorize(lambda a: a, signature="(n)->()")(x)


def test_view_reads_the_bits_as_numpy():
    a = np.array([1, 2, 3], dtype="int32")
    np.testing.assert_array_equal(ops.view(a, "float32"), a.view("float32"))
    b = np.array([[1, 2, 3, 4]], dtype="int16")
    np.testing.assert_array_equal(ops.view(b, "int32"), b.view("int32"))
    np.testing.assert_array_equal(ops.numpy.view(a, "int16"), a.view("int16"))
    assert _np(ops.view(a, "int16")).dtype == np.int16
    np.testing.assert_array_equal(ops.view(np.array([1.5, 2.0], "float32")), [1.5, 2.0])
    with pytest.raises(ValueError, match="divisible"):
        ops.view(np.array([1, 2, 3], "int16"), "int32")
    with pytest.raises(ValueError, match="divisible"):
        ops.view(np.array(1, "int32"), "int16")


def test_scale_and_translate_matches_keras():
    img = np.arange(9, dtype="float32").reshape(3, 3)
    scale = np.array([2.0, 2.0], "float32")
    out = ops.image.scale_and_translate(img, (5, 5), scale, -(scale / 2.0 - 0.5), (0, 1),
                                        "linear")
    np.testing.assert_allclose(out, np.arange(5)[:, None] * 1.5 + np.arange(5) * 0.5,
                               atol=1e-6)  # Keras's documented example
    np.testing.assert_allclose(ops.image.scale_and_translate(
        img, (3, 3), [1.0, 1.0], [0.0, 0.0], (0, 1), "cubic"), img, atol=1e-6)
    x = np.array([[2.6161, 2.9849, 8.1423], [0.9192, 6.001, 7.2856],
                  [1.879, 0.5515, 2.7497], [6.5743, 5.6227, 1.5006]],
                 "float32")[None, :, :, None]
    cubic = ops.image.scale_and_translate(x, (1, 3, 5, 1), np.array([0.8, 1.5], "float32"),
                                          np.array([0.3, -0.5], "float32"), (1, 2), "cubic")
    np.testing.assert_allclose(_np(cubic)[0, :, :, 0], [
        [2.6177, 2.6782, 5.8102, 8.5813, 0.0], [1.4706, 4.2872, 6.255, 7.1601, 0.0],
        [3.2372, 2.3034, 2.1487, 2.2918, 0.0]], atol=5e-4)
    lanczos = ops.image.scale_and_translate(x, (1, 2, 2, 1), np.array([0.5, 0.6], "float32"),
                                            np.array([0.0, 0.2], "float32"), (1, 2), "lanczos3")
    np.testing.assert_allclose(_np(lanczos)[0, :, :, 0], [[1.7676, 5.861], [3.8693, 2.9078]],
                               atol=5e-4)
    with pytest.raises(ValueError, match="method"):
        ops.image.scale_and_translate(img, (3, 3), [1.0, 1.0], [0.0, 0.0], (0, 1), "area")


def test_scale_and_translate_rounds_integer_images():
    xi = np.array([[10, 200], [30, 40]], dtype="uint8")
    out = _np(ops.image.scale_and_translate(xi, (4, 4), [2.0, 2.0], [-0.5, -0.5], (0, 1),
                                            "cubic"))
    assert out.dtype == np.uint8 and out.min() >= 10 and out.max() <= 200
    as_float = _np(ops.image.scale_and_translate(xi.astype("float32"), (4, 4), [2.0, 2.0],
                                                 [-0.5, -0.5], (0, 1), "cubic"))
    np.testing.assert_array_equal(out, np.clip(np.round(as_float), 10, 200))


_E = np.array([
    [0.4326, 0.4228, 0.9674, 0.3916, 0.346, 0.8912],
    [0.3181, 0.4709, 0.1072, 0.2019, 0.6798, 0.6444],
    [0.5166, 0.8621, 0.8922, 0.8294, 0.6925, 0.5228],
    [0.1007, 0.7019, 0.8977, 0.3851, 0.5921, 0.4072],
    [0.1718, 0.6038, 0.0199, 0.0994, 0.4885, 0.504]], "float32")


def test_elastic_transform_matches_keras_for_an_int_seed():
    x = np.stack([_E, _E[::-1]], axis=-1)[None]
    out = _np(ops.image.elastic_transform(x, alpha=3.0, sigma=1.0, seed=11))
    np.testing.assert_allclose(out[0, :, :, 0], [
        [0.4528, 0.4775, 0.8795, 0.4298, 0.4394, 0.807],
        [0.8373, 0.7595, 0.2308, 0.3525, 0.5151, 0.6279],
        [0.7049, 0.8942, 0.7542, 0.8096, 0.6952, 0.4974],
        [0.5621, 0.0472, 0.1731, 0.3774, 0.5991, 0.4095],
        [0.601, 0.2676, 0.0987, 0.1699, 0.4006, 0.4944]], atol=5e-4)
    nearest = _np(ops.image.elastic_transform(x, alpha=3.0, sigma=1.0, seed=11,
                                              interpolation="nearest", fill_mode="constant",
                                              fill_value=-1.0))
    assert set(np.round(nearest[0, :, :, 0], 4).ravel()) <= set(np.round(_E, 4).ravel()) | {-1}
    np.testing.assert_allclose(nearest[0, 4, :3, 0], [-1, -1, -1])


def test_elastic_transform_shapes_and_identity():
    x = np.random.default_rng(1).uniform(0, 255, size=(2, 9, 11, 3)).astype("float32")
    np.testing.assert_allclose(ops.image.elastic_transform(x, alpha=0.0, seed=1), x,
                               rtol=1e-6)
    one = _np(ops.image.elastic_transform(x[0], seed=5, sigma=1.0, alpha=4.0))
    assert one.shape == (9, 11, 3)
    first = _np(ops.image.elastic_transform(x.transpose(0, 3, 1, 2), seed=5, sigma=1.0,
                                            alpha=4.0, data_format="channels_first"))
    assert first.shape == (2, 3, 9, 11)
    np.testing.assert_allclose(first[0].transpose(1, 2, 0), one, rtol=1e-6)
    for mode in ("reflect", "wrap", "nearest"):
        y = _np(ops.image.elastic_transform(x, seed=3, alpha=8.0, sigma=2.0, fill_mode=mode))
        assert y.shape == x.shape and x.min() <= y.min() and y.max() <= x.max() + 1e-3
    with pytest.raises(ValueError, match="interpolation"):
        ops.image.elastic_transform(x, interpolation="bicubic")
    with pytest.raises(ValueError, match="fill_mode"):
        ops.image.elastic_transform(x, fill_mode="mirror")
    with pytest.raises(ValueError, match="rank"):
        ops.image.elastic_transform(x[0, 0])


# -- keras.backend ---------------------------------------------------------------------------

def _conv3d_reference(x, k, stride=(1, 1, 1)):
    n, d1, d2, d3, _ = x.shape
    k1, k2, k3, _, out = k.shape
    o = [(d - kk) // s + 1 for d, kk, s in zip((d1, d2, d3), (k1, k2, k3), stride)]
    y = np.zeros((n, *o, out))
    for i in range(o[0]):
        for j in range(o[1]):
            for m in range(o[2]):
                a, b, c = i * stride[0], j * stride[1], m * stride[2]
                patch = x[:, a:a + k1, b:b + k2, c:c + k3]
                y[:, i, j, m] = np.einsum("nabci,abcio->no", patch, k)
    return y


def test_conv3d_and_pool3d():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 6, 4, 3)).astype("float32")
    k = rng.normal(size=(2, 3, 2, 3, 4)).astype("float32")
    np.testing.assert_allclose(K.conv3d(x, k), _conv3d_reference(x, k), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(K.conv3d(x, k, strides=(2, 1, 2)),
                               _conv3d_reference(x, k, (2, 1, 2)), rtol=1e-4, atol=1e-4)
    assert _np(K.conv3d(x, k, strides=(1, 2, 1), padding="same")).shape == (2, 5, 3, 4, 4)
    first = K.conv3d(x.transpose(0, 4, 1, 2, 3), k, data_format="channels_first")
    np.testing.assert_allclose(_np(first).transpose(0, 2, 3, 4, 1), _conv3d_reference(x, k),
                               rtol=1e-4, atol=1e-4)
    pooled = _np(K.pool3d(x, (2, 2, 2), strides=(2, 2, 2)))
    np.testing.assert_allclose(pooled, x[:, :4, :6, :4].reshape(2, 2, 2, 3, 2, 2, 2, 3)
                               .max(axis=(2, 4, 6)))
    avg = _np(K.pool3d(x.transpose(0, 4, 1, 2, 3), (2, 2, 2), strides=(2, 2, 2),
                       data_format="channels_first", pool_mode="avg"))
    np.testing.assert_allclose(avg.transpose(0, 2, 3, 4, 1),
                               x[:, :4, :6, :4].reshape(2, 2, 2, 3, 2, 2, 2, 3)
                               .mean(axis=(2, 4, 6)), rtol=1e-5, atol=1e-6)
    assert _np(K.pool3d(x, (2, 3, 2), strides=(2, 2, 1), padding="same",
                        pool_mode="avg")).shape == (2, 3, 3, 4, 3)
    with pytest.raises(ValueError, match="Invalid pooling mode"):
        K.pool3d(x, (2, 2, 2), pool_mode="min")
    with pytest.raises(ValueError, match="Unknown data_format"):
        K.conv3d(x, k, data_format="nchw")
    with pytest.raises(TypeError):
        K.conv3d(x, k, stride=2)


def test_conv3d_and_pool3d_trace():
    step = tf.function(lambda a, k: K.pool3d(K.conv3d(a, k), (2, 2, 2), strides=(2, 2, 2)))
    out = _np(step(np.ones((1, 4, 4, 4, 2), "float32"), np.ones((1, 1, 1, 2, 3), "float32")))
    np.testing.assert_array_equal(out, np.full((1, 2, 2, 2, 3), 2.0))


def test_gradients_inside_a_function_only():
    @tf.function
    def f(v):
        return K.gradients(tf.reduce_sum(v * v * 3.0), [v])

    np.testing.assert_allclose(f(tf.constant([1.0, 2.0]))[0], [6.0, 12.0])
    with pytest.raises(RuntimeError, match="GradientTape"):
        K.gradients(tf.constant(1.0), [tf.constant(2.0)])
