"""Writes keras3_augmentation.json: outputs of Keras 3.15's augmentation layers (TensorFlow
2.21 backend) on fixed images, with factors that make the draws deterministic. Run it with a
Python that has TensorFlow and Keras: `python tests/models/data/make_keras3_augmentation.py`.
tests/models/test_augmentation_layers.py reads the file."""

import json
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

IMAGES = np.random.default_rng(0).integers(0, 256, (2, 4, 5, 3)).astype("float32")
CASES = [  # (name, layer, keyword arguments, training)
    ("saturation", "RandomSaturation", {"factor": (0.7, 0.7)}, True),
    ("saturation_low", "RandomSaturation", {"factor": (0.2, 0.2)}, True),
    ("degeneration", "RandomColorDegeneration", {"factor": (0.4, 0.4)}, True),
    ("sharpness", "RandomSharpness", {"factor": (0.8, 0.8)}, True),
    ("sharpness_unit", "RandomSharpness", {"factor": (0.2, 0.2), "value_range": (0, 1)},
     True),
    ("posterization", "RandomPosterization", {"factor": (3, 3)}, True),
    ("solarization_unit", "Solarization", {"value_range": (0, 1)}, True),
    ("solarization_default", "Solarization", {}, True),
    ("equalization", "Equalization", {}, True),
    ("equalization_bins", "Equalization", {"bins": 16}, True),
    ("equalization_inference", "Equalization", {}, False),
    ("blur", "RandomGaussianBlur", {"factor": (1.0, 1.0), "sigma": (0.5, 0.5)}, True),
    ("blur_5", "RandomGaussianBlur", {"factor": (1.0, 1.0), "kernel_size": 5,
                                      "sigma": (0.8, 0.8)}, True),
    ("jitter", "RandomColorJitter", {"brightness_factor": (0.1, 0.1),
                                     "saturation_factor": (0.7, 0.7)}, True),
    ("hue_inference", "RandomHue", {"factor": 0.5}, False),
    ("clahe", "ContrastLimitedAdaptiveHistogramEqualization", {"tile_grid_size": (2, 2)},
     False),
    ("clahe_training", "ContrastLimitedAdaptiveHistogramEqualization",
     {"tile_grid_size": (3, 2), "clip_limit": 2.0}, True),
    ("clahe_unclipped", "ContrastLimitedAdaptiveHistogramEqualization",
     {"tile_grid_size": (1, 3), "clip_limit": 0.0}, True),
    ("clahe_unit", "ContrastLimitedAdaptiveHistogramEqualization",
     {"tile_grid_size": (2, 2), "value_range": (0, 1)}, True),
    ("shear_inference", "RandomShear", {"x_factor": 0.3}, False),
]
END_POINTS = [[[0.5, -1.0], [4.2, 0.3], [-0.4, 3.1], [3.6, 2.5]],
              [[0.0, 0.0], [4.0, 0.5], [0.3, 3.0], [4.5, 3.4]]]
START_POINTS = [[[0.0, 0.0], [4.0, 0.0], [0.0, 3.0], [4.0, 3.0]]] * 2


def run(layer, kwargs, training, images=IMAGES):
    scale = kwargs.get("value_range", (0, 255))[1] / 255
    out = getattr(keras.layers, layer)(**kwargs)(images * scale, training=training)
    return np.asarray(out).tolist()


def hue_outputs():
    """Each image's two outputs with factor (0.3, 0.3) (the hue turned by +0.15 or -0.15,
    whichever a draw picks), gathered over seeds."""
    seen = [set(), set()]
    for seed in range(40):
        out = np.asarray(keras.layers.RandomHue((0.3, 0.3), seed=seed)(IMAGES))
        for i in range(2):
            seen[i].add(tuple(np.round(out[i].ravel(), 3).tolist()))
    return [[list(v) for v in sorted(s)] for s in seen]


def shear_outputs(kwargs):
    """Each image's outputs with a fixed shear (negated for a random half of the draws),
    gathered over seeds."""
    seen = [set(), set()]
    for seed in range(40):
        out = np.asarray(keras.layers.RandomShear(**kwargs, seed=seed)(IMAGES))
        for i in range(2):
            seen[i].add(tuple(np.round(out[i].ravel(), 3).tolist()))
    return [[list(v) for v in sorted(s)] for s in seen]


def main():
    record = {"images": IMAGES.tolist(),
              "cases": {name: {"layer": layer, "kwargs": kwargs, "training": training,
                               "output": run(layer, kwargs, training)}
                        for name, layer, kwargs, training in CASES},
              "hue": hue_outputs(),
              "shear_x": shear_outputs({"x_factor": (0.3, 0.3)}),
              "shear_y": shear_outputs({"y_factor": (0.25, 0.25), "fill_mode": "constant",
                                        "interpolation": "nearest"}),
              "perspective": {"end": END_POINTS, "output": np.asarray(
                  keras.ops.image.perspective_transform(IMAGES, START_POINTS, END_POINTS,
                                                        fill_value=7.0)).tolist()}}
    path = os.path.join(os.path.dirname(__file__), "keras3_augmentation.json")
    with open(path, "w") as f:
        json.dump(record, f)


if __name__ == "__main__":
    main()
