"""keras.visualization: draw_segmentation_masks against Keras 3.15's arrays
(tests/models/data/keras3_visualization.json, written by make_keras3_visualization.py
there); draw_bounding_boxes's outlines checked pixel by pixel in NumPy (Keras draws them
with OpenCV, which neither environment here has)."""

import json
import pathlib

import numpy as np
import pytest

import runtime as rt

vis = rt.keras.visualization
RECORD = json.loads((pathlib.Path(__file__).parent / "data" / "keras3_visualization.json")
                    .read_text())
IMAGES = np.asarray(RECORD["images"], "float32")
MASKS = np.asarray(RECORD["masks"], "int32")


def test_segmentation_masks_are_keras():
    out = vis.draw_segmentation_masks(IMAGES, MASKS)
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out, RECORD["blend"])
    np.testing.assert_array_equal(vis.draw_segmentation_masks(IMAGES, MASKS, num_classes=5,
                                                              alpha=0.3),
                                  RECORD["classes_alpha"])
    np.testing.assert_array_equal(vis.draw_segmentation_masks(IMAGES, MASKS, num_classes=4,
                                                              blend=False),
                                  RECORD["no_blend"])
    np.testing.assert_array_equal(vis.draw_segmentation_masks(
        IMAGES, MASKS, num_classes=2, color_mapping={0: [255, 0, 0], 1: [0, 255, 0]}),
        RECORD["colors"])
    with pytest.raises(TypeError, match="integer dtype"):
        vis.draw_segmentation_masks(IMAGES, MASKS.astype("float32"))
    with pytest.raises(ValueError, match="batched 4D"):
        vis.draw_segmentation_masks(IMAGES[0], MASKS[0])


@pytest.mark.skipif(vis.cv2 is not None, reason="OpenCV draws the outlines when installed")
def test_bounding_boxes_outline_each_box():
    images = np.zeros((1, 12, 14, 3), "float32")
    boxes = {"boxes": np.array([[[2, 3, 9, 8], [0, 0, 5, 5]]], "float32"),
             "labels": np.array([[0, -1]])}
    out = vis.draw_bounding_boxes(images, boxes, "xyxy", color=(10, 20, 30), line_thickness=1)
    assert out.dtype == np.uint8 and out.shape == (1, 12, 14, 3)
    drawn = np.zeros((12, 14), bool)
    drawn[3, 2:10] = drawn[8, 2:10] = drawn[3:9, 2] = drawn[3:9, 9] = True
    np.testing.assert_array_equal(out[0, ..., 0] == 10, drawn)  # the -1 box is skipped
    np.testing.assert_array_equal(out[0][drawn], np.tile([10, 20, 30], (drawn.sum(), 1)))
    thick = vis.draw_bounding_boxes(images, boxes, "xywh", line_thickness=3)
    assert (thick[0, ..., 0] == 128).sum() > drawn.sum()
    with pytest.raises(ImportError, match="OpenCV"):
        vis.draw_bounding_boxes(images, boxes, "xyxy", class_mapping={0: "cat"})
    with pytest.raises(ValueError, match="'boxes' and 'labels'"):
        vis.draw_bounding_boxes(images, {"boxes": boxes["boxes"]}, "xyxy")
