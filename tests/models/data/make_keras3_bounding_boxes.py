"""Writes keras3_bounding_boxes.json: keras.utils.bounding_boxes results from Keras 3.15
(TensorFlow 2.21 backend) on fixed boxes. Run it with a Python that has TensorFlow and Keras:
`python tests/models/data/make_keras3_bounding_boxes.py`; read by
tests/models/test_bounding_boxes.py."""

import json
import os

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402

bb = keras.utils.bounding_boxes
BOXES = np.array([[10.0, 20.0, 50.0, 60.0], [0.0, 5.0, 30.0, 25.0], [-5.0, 40.0, 120.0, 90.0]],
                 "float32")
OTHERS = np.array([[15.0, 25.0, 45.0, 70.0], [100.0, 100.0, 110.0, 130.0]], "float32")
FORMATS = ["xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh"]


def plain(x):
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    return np.asarray(x).tolist()


def main():
    record = {"boxes": BOXES.tolist(), "others": OTHERS.tolist(), "convert": {}}
    for source in FORMATS:
        for target in FORMATS:
            record["convert"][f"{source}>{target}"] = plain(
                bb.convert_format(BOXES, source, target, height=100, width=80))
    record["clip"] = plain(bb.clip_to_image_size(
        {"boxes": BOXES, "labels": np.array([1, 2, 3])}, height=50, width=40))
    record["clip_rel"] = plain(bb.clip_to_image_size(
        {"boxes": BOXES / 50, "labels": np.array([1, 2, 3])}, bounding_box_format="rel_xyxy"))
    record["iou"] = plain(bb.compute_iou(BOXES, OTHERS, "xyxy"))
    record["iou_batched_masked"] = plain(bb.compute_iou(
        np.stack([BOXES, BOXES - 60]), np.stack([OTHERS, OTHERS]), "xywh", use_masking=True))
    record["ciou"] = plain(bb.compute_ciou(BOXES[:2], OTHERS, "xyxy"))
    record["affine"] = plain(bb.affine_transform(
        np.stack([BOXES, BOXES]), angle=np.array([30.0, -10.0], "float32"),
        translate_x=np.array([0.1, 0.0], "float32"), translate_y=np.array([0.0, -0.2], "float32"),
        scale=np.array([1.2, 0.9], "float32"), shear_x=np.array([5.0, 0.0], "float32"),
        shear_y=np.array([0.0, 10.0], "float32"), height=100, width=80))
    record["crop"] = plain(bb.crop(BOXES, top=10, left=5, height=40, width=30))
    record["pad"] = plain(bb.pad(BOXES, top=10, left=5))
    anchors = OTHERS[[0, 1, 0]]
    record["deltas"] = plain(bb.encode_box_to_deltas(anchors, BOXES, "xyxy", "xyxy"))
    record["deltas_var"] = plain(bb.encode_box_to_deltas(
        anchors, BOXES, "xyxy", "xywh", encoding_format="center_xywh",
        variance=[0.1, 0.1, 0.2, 0.2]))
    record["decoded"] = plain(bb.decode_deltas_to_boxes(
        anchors, np.asarray(record["deltas_var"], "float32"), "xyxy", "xywh",
        encoded_format="center_xywh", variance=[0.1, 0.1, 0.2, 0.2]))
    path = os.path.join(os.path.dirname(__file__), "keras3_bounding_boxes.json")
    with open(path, "w") as f:
        json.dump(record, f)


if __name__ == "__main__":
    main()
