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
