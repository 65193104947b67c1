"""keras.utils.bounding_boxes against Keras 3.15's results on the TensorFlow backend
(tests/models/data/keras3_bounding_boxes.json, written by make_keras3_bounding_boxes.py
there): every format conversion, clipping, IoU (batched and masked), CIoU, the affine
transform of boxes, crop, pad and the anchor deltas both ways; errors as Keras's."""

import json
import pathlib

import numpy as np
import pytest

import runtime as rt

bb = rt.keras.utils.bounding_boxes
RECORD = json.loads((pathlib.Path(__file__).parent / "data" / "keras3_bounding_boxes.json")
                    .read_text())
BOXES = np.asarray(RECORD["boxes"], "float32")
OTHERS = np.asarray(RECORD["others"], "float32")


def _close(got, want, **kw):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-4, **kw)


@pytest.mark.parametrize("pair", sorted(RECORD["convert"]))
def test_convert_format_is_keras(pair):
    source, target = pair.split(">")
    out = bb.convert_format(BOXES, source, target, height=100, width=80)
    assert out.dtype == rt.float32
    _close(out, RECORD["convert"][pair])


def test_clip_iou_ciou_are_keras():
    clipped = bb.clip_to_image_size({"boxes": BOXES, "labels": np.array([1, 2, 3])},
                                    height=50, width=40)
    _close(clipped["boxes"], RECORD["clip"]["boxes"])
    np.testing.assert_array_equal(clipped["labels"], RECORD["clip"]["labels"])
    rel = bb.clip_to_image_size({"boxes": BOXES / 50, "labels": np.array([1, 2, 3])},
                                bounding_box_format="rel_xyxy")
    _close(rel["boxes"], RECORD["clip_rel"]["boxes"])
    np.testing.assert_array_equal(rel["labels"], RECORD["clip_rel"]["labels"])
    _close(bb.compute_iou(BOXES, OTHERS, "xyxy"), RECORD["iou"])
    _close(bb.compute_iou(np.stack([BOXES, BOXES - 60]), np.stack([OTHERS, OTHERS]), "xywh",
                          use_masking=True), RECORD["iou_batched_masked"])
    _close(bb.compute_ciou(BOXES[:2], OTHERS, "xyxy"), RECORD["ciou"])


def test_affine_crop_pad_and_deltas_are_keras():
    out = bb.affine_transform(
        np.stack([BOXES, BOXES]), angle=np.array([30.0, -10.0]),
        translate_x=np.array([0.1, 0.0]), translate_y=np.array([0.0, -0.2]),
        scale=np.array([1.2, 0.9]), shear_x=np.array([5.0, 0.0]),
        shear_y=np.array([0.0, 10.0]), height=100, width=80)
    _close(out, RECORD["affine"])
    _close(bb.crop(BOXES, top=10, left=5, height=40, width=30), RECORD["crop"])
    _close(bb.pad(BOXES, top=10, left=5), RECORD["pad"])
    anchors = OTHERS[[0, 1, 0]]
    _close(bb.encode_box_to_deltas(anchors, BOXES, "xyxy", "xyxy"), RECORD["deltas"])
    deltas = bb.encode_box_to_deltas(anchors, BOXES, "xyxy", "xywh",
                                     encoding_format="center_xywh",
                                     variance=[0.1, 0.1, 0.2, 0.2])
    _close(deltas, RECORD["deltas_var"])
    decoded = bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xywh",
                                        encoded_format="center_xywh",
                                        variance=[0.1, 0.1, 0.2, 0.2])
    _close(decoded, RECORD["decoded"])
    _close(decoded, BOXES)  # decoding inverts encoding
    levels = bb.decode_deltas_to_boxes({"p3": anchors}, {"p3": deltas}, "xyxy", "xywh",
                                       encoded_format="center_xywh",
                                       variance=[0.1, 0.1, 0.2, 0.2])
    _close(levels["p3"], BOXES)


def test_errors_are_keras():
    with pytest.raises(ValueError, match="last dimension of 4"):
        bb.convert_format(np.zeros((2, 3)), "xyxy", "xywh")
    with pytest.raises(ValueError, match="Invalid source or target format"):
        bb.convert_format(BOXES, "xyxy", "cxcy")
    with pytest.raises(ValueError, match="must receive `height` and `width`"):
        bb.convert_format(BOXES, "xyxy", "rel_xyxy")
    with pytest.raises(ValueError, match="`height` and `width` must be set"):
        bb.clip_to_image_size({"boxes": BOXES})
    with pytest.raises(ValueError, match="variance"):
        bb.encode_box_to_deltas(BOXES, BOXES, "xyxy", "xyxy", variance=[1, 2])
    with pytest.raises(ValueError, match="encoding_format"):
        bb.encode_box_to_deltas(BOXES, BOXES, "xyxy", "xyxy", encoding_format="xyxy")
    with pytest.raises(ValueError, match="image_shape"):
        bb.compute_iou(BOXES, OTHERS, "rel_xyxy")
