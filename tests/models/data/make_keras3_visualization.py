"""Writes keras3_visualization.json: keras.visualization.draw_segmentation_masks results
from Keras 3.15 (TensorFlow 2.21 backend) on fixed images and masks. Run it with a Python
that has TensorFlow and Keras: `python tests/models/data/make_keras3_visualization.py`;
read by tests/models/test_visualization.py."""

import json
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

draw = keras.visualization.draw_segmentation_masks


def main():
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, (2, 6, 7, 3)).astype("float32")
    masks = rng.integers(-1, 4, (2, 6, 7, 1)).astype("int32")
    record = {
        "images": images.tolist(), "masks": masks.tolist(),
        "blend": np.asarray(draw(images, masks)).tolist(),
        "classes_alpha": np.asarray(draw(images, masks, num_classes=5, alpha=0.3)).tolist(),
        "no_blend": np.asarray(draw(images, masks, num_classes=4, blend=False)).tolist(),
        "colors": np.asarray(draw(images, masks, num_classes=2,
                                  color_mapping={0: [255, 0, 0], 1: [0, 255, 0]})).tolist(),
    }
    path = os.path.join(os.path.dirname(__file__), "keras3_visualization.json")
    with open(path, "w") as f:
        json.dump(record, f)


if __name__ == "__main__":
    main()
