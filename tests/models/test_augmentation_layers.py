"""Keras 3's augmentation layers (RandomHue ... RandAugment): outputs with deterministic
factors against Keras 3.15's on the TensorFlow backend (tests/models/data/keras3_augmentation.json,
written by make_keras3_augmentation.py there), random parts statistically, configs as Keras's
get_config gives them, and Keras's errors."""

import json
import pathlib

import numpy as np
import pytest

import runtime as rt

L = rt.keras.layers
RECORD = json.loads((pathlib.Path(__file__).parent / "data" / "keras3_augmentation.json")
                    .read_text())
IMAGES = np.asarray(RECORD["images"], "float32")


def _config(layer):
    config = layer.get_config()
    for key in ("name", "dtype", "trainable"):
        config.pop(key)
    return config


@pytest.mark.parametrize("name", sorted(RECORD["cases"]))
def test_deterministic_outputs_are_keras(name):
    case = RECORD["cases"][name]
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
    scale = kwargs.get("value_range", (0, 255))[1] / 255
    layer = getattr(L, case["layer"])(**kwargs)
    out = layer(IMAGES * scale, training=case["training"])
    assert out.dtype == rt.float32
    np.testing.assert_allclose(out, case["output"], rtol=1e-5, atol=1e-3 * scale)


def test_hue_turns_by_a_signed_half_factor():
    out = L.RandomHue((0.3, 0.3), seed=3)(IMAGES).numpy()
    for image, choices in zip(out, RECORD["hue"]):
        assert any(np.allclose(image.ravel(), c, atol=2e-3) for c in choices)
    signs = {tuple(np.round(L.RandomHue((0.3, 0.3), seed=s)(IMAGES[:1]).numpy().ravel(), 2))
             for s in range(12)}
    assert len(signs) == 2  # both directions are drawn


def test_inference_keeps_or_casts_as_keras():
    ints = IMAGES.astype("int32")
    for layer in (L.RandomHue(0.5), L.RandomSaturation(0.5), L.RandomColorDegeneration(0.5),
                  L.RandomColorJitter(), L.RandomPosterization(4), L.Equalization()):
        out = layer(ints, training=False)
        assert out.dtype == rt.int32
        np.testing.assert_array_equal(out, ints)
    for layer in (L.RandomSharpness(0.5), L.Solarization(), L.RandomGaussianBlur()):
        out = layer(ints, training=False)
        assert out.dtype == rt.float32
        np.testing.assert_array_equal(out, IMAGES)


def test_random_factors_are_drawn_in_range():
    x = np.full((400, 1, 1, 3), 100.0, "float32")
    x[..., 0] = 200.0
    out = L.RandomColorDegeneration((0.2, 0.6), seed=0)(x).numpy()
    grey = 0.2989 * 200 + 0.587 * 100 + 0.114 * 100
    weight = (out[:, 0, 0, 0] - 200) / (grey - 200)
    assert 0.2 - 1e-5 <= weight.min() < 0.25 and 0.55 < weight.max() <= 0.6 + 1e-5
    assert abs(weight.mean() - 0.4) < 0.03
    bits = L.RandomPosterization((2, 6), seed=0)(np.full((300, 1, 1, 1), 255.0)).numpy()
    assert set(np.unique(bits.ravel())) == {256 - 2 ** (8 - b) for b in (2, 3, 4, 5)}
    ramp = np.arange(256, dtype="float32").reshape(1, 16, 16, 1)
    layer = L.Solarization(threshold_factor=(0.5, 0.5), seed=0)  # thresholds in [0.5, 127.5]
    first = [int(np.argmax(layer(ramp).numpy().ravel() != ramp.ravel())) for _ in range(60)]
    assert 0 <= min(first) < 15 and 112 < max(first) <= 127
    applied = L.RandomGaussianBlur(factor=(0.5, 0.5), seed=0)(
        np.pad(np.full((400, 1, 1, 1), 255.0), ((0, 0), (1, 1), (1, 1), (0, 0)))).numpy()
    assert 0.4 < np.mean(applied[:, 0, 0, 0] > 0) < 0.6


def test_dict_inputs_transform_images_and_keep_labels():
    labels = np.eye(2, dtype="float32")
    out = L.RandomColorDegeneration((0.4, 0.4))({"images": IMAGES, "labels": labels})
    np.testing.assert_allclose(out["images"], RECORD["cases"]["degeneration"]["output"],
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(out["labels"], labels)
    with pytest.raises(NotImplementedError, match="segmentation_masks"):
        L.RandomHue(0.5)({"images": IMAGES, "segmentation_masks": IMAGES})


def test_configs_are_keras():
    assert _config(L.RandomHue(0.5)) == {"data_format": "channels_last", "factor": (0, 0.5),
                                         "value_range": (0, 255), "seed": None}
    assert _config(L.RandomSaturation(0.5)) == {"data_format": "channels_last",
                                                "factor": (-0.5, 0.5), "value_range": [0, 255],
                                                "seed": None}
    assert _config(L.RandomSharpness(0.5))["factor"] == (0, 0.5)
    assert _config(L.RandomPosterization(4))["factor"] == (1, 4)
    assert _config(L.Solarization()) == {"data_format": "channels_last", "value_range": [0, 255],
                                         "addition_factor": (0, 0.0),
                                         "threshold_factor": (0, 0.0), "seed": None}
    assert _config(L.Equalization()) == {"data_format": "channels_last", "bins": 256,
                                         "value_range": [0, 255]}
    assert _config(L.RandomGaussianBlur()) == {
        "data_format": "channels_last", "factor": (0, 1.0), "kernel_size": (3, 3),
        "sigma": (0, 1.0), "value_range": (0, 255), "seed": None}
    assert _config(L.RandomColorJitter()) == {
        "data_format": "channels_last", "value_range": (0, 255), "brightness_factor": None,
        "contrast_factor": None, "saturation_factor": None, "hue_factor": None, "seed": None}
    layer = L.RandomSharpness((0.2, 0.4), seed=5)
    assert L.RandomSharpness.from_config(layer.get_config()).get_config() == layer.get_config()


def test_errors_are_keras():
    with pytest.raises(ValueError, match="factor"):
        L.RandomHue(1.5)
    with pytest.raises(ValueError, match="value_range"):
        L.RandomSaturation(0.5, value_range=5)
    with pytest.raises(ValueError, match="odd"):
        L.RandomGaussianBlur(kernel_size=4)
    with pytest.raises(ValueError, match="addition_factor"):
        L.Solarization(addition_factor=2.0)
    with pytest.raises(ValueError, match="rank 3 or 4"):
        L.RandomSharpness(0.5)({"images": np.zeros((2, 3)), "labels": np.zeros(2)})


@pytest.mark.parametrize("key, kwargs", [
    ("shear_x", {"x_factor": (0.3, 0.3)}),
    ("shear_y", {"y_factor": (0.25, 0.25), "fill_mode": "constant",
                 "interpolation": "nearest"})])
def test_shear_is_keras_in_either_direction(key, kwargs):
    seen = set()
    for seed in range(8):
        out = L.RandomShear(**kwargs, seed=seed)(IMAGES).numpy()
        for i, (image, choices) in enumerate(zip(out, RECORD[key])):
            matches = [np.allclose(image.ravel(), c, atol=2e-3) for c in choices]
            assert any(matches)
            seen.add((i, matches.index(True)))
    assert len(seen) == 4  # both signs drawn for both images


def test_perspective_warp_is_keras():
    layer = L.RandomPerspective(fill_value=7.0)
    start = np.array([[[0.0, 0.0], [4.0, 0.0], [0.0, 3.0], [4.0, 3.0]]] * 2)
    out = layer._images(IMAGES, {"apply": np.array([True, True]), "start": start,
                                 "end": np.asarray(RECORD["perspective"]["end"])})
    np.testing.assert_allclose(out, RECORD["perspective"]["output"], rtol=1e-4, atol=2e-3)
    # the drawn corners move by at most scale / 2 of their coordinates
    t = L.RandomPerspective(scale=0.4, seed=0)._draw(np.zeros((500, 4, 5, 3)))
    shift = (t["end"] - t["start"])[:, 3] / t["start"][:, 3]
    assert np.all(np.abs(shift) <= 0.2) and shift.min() < -0.19 and shift.max() > 0.19
    np.testing.assert_array_equal(L.RandomPerspective(factor=(0.0, 0.0))(IMAGES), IMAGES)


def test_elastic_transform_moves_pixels_smoothly_within_range():
    ramp = np.tile(np.arange(32, dtype="float32")[None, :, None, None] * 8, (3, 1, 32, 1))
    out = L.RandomElasticTransform(factor=(1.0, 1.0), scale=(1.0, 1.0), seed=0)(ramp).numpy()
    assert out.shape == ramp.shape and out.min() >= 0 and out.max() <= 255
    assert 0 < np.abs(out - ramp).mean() < 40
    np.testing.assert_array_equal(L.RandomElasticTransform(scale=0.0)(ramp), ramp)
    np.testing.assert_array_equal(L.RandomElasticTransform()(ramp, training=False), ramp)


def test_mixup_mixes_images_and_labels_by_one_weight():
    images = np.arange(8, dtype="float32")[:, None, None, None] * np.ones((8, 2, 2, 1))
    labels = np.eye(8, dtype="float32")
    out = L.MixUp(alpha=0.5, seed=1)({"images": images, "labels": labels})
    y = out["labels"].numpy()
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-6)
    mixed = (y * np.arange(8)).sum(axis=1)  # the label-weighted mean of the sources
    np.testing.assert_allclose(out["images"].numpy()[:, 0, 0, 0], mixed, rtol=1e-5)
    weights = np.concatenate([L.MixUp(alpha=0.2, seed=s)._draw(images)["weight"]
                              for s in range(200)])
    assert abs(weights.mean() - 0.5) < 0.03 and abs(weights.var() - 0.25 / 1.4) < 0.02


def test_cutmix_pastes_a_box_and_mixes_labels_by_its_area():
    images = np.arange(4, dtype="float32")[:, None, None, None] * np.ones((4, 8, 8, 1)) + 1
    labels = np.eye(4, dtype="float32")
    out = L.CutMix(seed=2)({"images": images, "labels": labels})
    x, y = out["images"].numpy(), out["labels"].numpy()
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-6)
    for i in range(4):
        own = np.mean(x[i] == images[i])  # the label keeps the box's continuous area
        assert abs(own - y[i, i]) < 0.3 or y[i, i] == 1
        rows, cols = np.nonzero(x[i, ..., 0] != images[i, 0, 0, 0])
        if rows.size:  # the pasted part is one rectangle
            assert rows.size == (np.ptp(rows) + 1) * (np.ptp(cols) + 1)
    single = L.CutMix()(images[0])
    np.testing.assert_array_equal(single, images[0])


def test_random_erasing_fills_one_box():
    x = np.full((50, 10, 10, 1), 100.0, "float32")
    out = L.RandomErasing(factor=(1.0, 1.0), fill_value=5.0, seed=0)(x).numpy()
    fraction = np.mean(out == 5.0, axis=(1, 2, 3))
    assert np.all(fraction > 0) and 0.02 <= fraction.mean() <= 0.4
    assert set(np.unique(out)) == {5.0, 100.0}
    noise = L.RandomErasing(factor=(1.0, 1.0), seed=0)(x).numpy()
    assert noise.min() >= 0 and noise.max() <= 255
    np.testing.assert_array_equal(L.RandomErasing(factor=(0.0, 0.0))(x), x)


def test_policies_run_and_keep_range():
    for layer in (L.AugMix(seed=0), L.AugMix(all_ops=False, seed=1), L.RandAugment(seed=0),
                  L.RandAugment(num_ops=4, factor=0.8, seed=2)):
        out = layer(IMAGES).numpy()
        assert out.shape == IMAGES.shape and out.min() >= 0 and out.max() <= 255
        np.testing.assert_array_equal(layer(IMAGES, training=False), IMAGES)
    assert _config(L.AugMix()) == {
        "data_format": "channels_last", "value_range": (0, 255), "num_chains": 3,
        "chain_depth": 3, "factor": (0, 0.3), "alpha": 1.0, "all_ops": True,
        "interpolation": "bilinear", "seed": None}
    assert _config(L.RandAugment()) == {
        "data_format": "channels_last", "value_range": (0, 255), "num_ops": 2,
        "factor": (0, 0.5), "interpolation": "bilinear", "seed": None}


def test_max_num_bounding_boxes_pads_and_truncates():
    boxes = np.arange(2 * 4 * 4, dtype="float32").reshape(2, 4, 4)
    labels = np.arange(8, dtype="int32").reshape(2, 4)
    data = {"images": IMAGES, "bounding_boxes": {"boxes": boxes, "labels": labels}}
    out = L.MaxNumBoundingBoxes(max_number=6)(data)
    np.testing.assert_array_equal(out["bounding_boxes"]["boxes"][:, :4], boxes)
    np.testing.assert_array_equal(out["bounding_boxes"]["boxes"][:, 4:], -1)
    np.testing.assert_array_equal(out["bounding_boxes"]["labels"][:, 4:], -1)
    out = L.MaxNumBoundingBoxes(max_number=2, fill_value=0)(data)
    np.testing.assert_array_equal(out["bounding_boxes"]["labels"], labels[:, :2])
    np.testing.assert_array_equal(out["images"], IMAGES)
    assert _config(L.MaxNumBoundingBoxes(3)) == {"data_format": "channels_last",
                                                 "max_number": 3}


def test_geometry_configs_and_errors_are_keras():
    assert _config(L.RandomShear(0.2)) == {
        "data_format": "channels_last", "x_factor": (-0.2, 0.2), "y_factor": (-0.0, 0.0),
        "fill_mode": "reflect", "interpolation": "bilinear", "seed": None, "fill_value": 0.0}
    assert _config(L.RandomPerspective()) == {
        "data_format": "channels_last", "factor": (0, 1.0), "scale": 1.0,
        "interpolation": "bilinear", "fill_value": 0.0, "seed": None}
    assert _config(L.RandomErasing()) == {
        "data_format": "channels_last", "factor": (0, 1.0), "scale": (0.02, 0.33),
        "fill_value": None, "value_range": (0, 255), "seed": None}
    assert _config(L.ContrastLimitedAdaptiveHistogramEqualization()) == {
        "data_format": "channels_last", "value_range": (0, 255), "clip_limit": 4.0,
        "tile_grid_size": (8, 8)}
    with pytest.raises(ValueError, match="x_factor"):
        L.RandomShear(1.5)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        L.RandomShear(0.2, fill_mode="mirror")
    with pytest.raises(ValueError, match="scale"):
        L.RandomPerspective(scale=2.0)
    with pytest.raises(NotImplementedError, match="interpolation"):
        L.RandomElasticTransform(interpolation="bicubic")
