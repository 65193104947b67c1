"""keras.applications' input scalings and ImageNet decoding, against Keras 3's documented
formulas (mode "tf": x / 127.5 - 1; "caffe": RGB to BGR minus ImageNet's mean pixel;
"torch": x / 255 normalised by ImageNet's mean and std) and the values TensorFlow 2.21
prints; the models themselves are refused by name."""

import json

import numpy as np
import pytest

import runtime as rt
from runtime.keras import applications
from runtime.keras.applications import imagenet_utils

PIXELS = np.array([[[[0.0, 127.5, 255.0]]]], np.float32)


def test_tf_mode_models_scale_to_minus_one_one():
    for module in (applications.mobilenet_v2, applications.inception_v3,
                   applications.mobilenet, applications.xception):
        np.testing.assert_allclose(module.preprocess_input(PIXELS.copy()), [[[[-1, 0, 1]]]])
    uint8 = applications.mobilenet_v2.preprocess_input(np.array([[[0, 255, 51]]], np.uint8))
    assert uint8.dtype == np.float32
    np.testing.assert_allclose(uint8, [[[-1.0, 1.0, 51 / 127.5 - 1]]], rtol=1e-6)


def test_caffe_mode_flips_to_bgr_and_subtracts_the_mean_pixel():
    want = PIXELS[..., ::-1] - np.array([103.939, 116.779, 123.68], np.float32)
    np.testing.assert_allclose(applications.vgg19.preprocess_input(PIXELS.copy()), want,
                               rtol=1e-6)
    # TensorFlow 2.21 prints [[[[151.061 10.721001 -123.68]]]] for a tensor too
    out = applications.vgg16.preprocess_input(rt.constant(PIXELS))
    assert isinstance(out, rt.Tensor)
    np.testing.assert_allclose(out.numpy(), [[[[151.061, 10.721001, -123.68]]]], rtol=1e-6)
    first = imagenet_utils.preprocess_input(np.transpose(PIXELS, (0, 3, 1, 2)),
                                            data_format="channels_first")
    np.testing.assert_allclose(first, np.transpose(want, (0, 3, 1, 2)), rtol=1e-6)


def test_torch_mode_normalises_each_channel():
    mean, std = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
    np.testing.assert_allclose(applications.densenet.preprocess_input(PIXELS.copy()),
                               (PIXELS / 255 - mean) / std, rtol=1e-5)


def test_bad_mode_and_imagenet_weights_refused():
    with pytest.raises(ValueError, match="mode"):
        imagenet_utils.preprocess_input(PIXELS, mode="keras")
    with pytest.raises(ValueError, match="cannot be downloaded"):
        applications.InceptionV3(input_shape=(160, 160, 3), include_top=False)
    assert applications.resnet.ResNet50 is applications.ResNet50


def test_decode_predictions_reads_the_class_index(tmp_path, monkeypatch):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = tmp_path / "imagenet_class_index.json"
    path.write_text(json.dumps(index))
    monkeypatch.setattr(imagenet_utils, "_CLASS_INDEX", None)
    monkeypatch.setattr(imagenet_utils, "get_file", lambda *a, **k: str(path))
    preds = np.zeros((2, 1000), np.float32)
    preds[0, [3, 7, 9]] = [0.2, 0.5, 0.3]
    preds[1, 999] = 1.0
    top = applications.mobilenet_v2.decode_predictions(preds, top=2)
    assert [(c, n) for c, n, _ in top[0]] == [("n00000007", "class_7"), ("n00000009", "class_9")]
    assert top[0][0][2] == pytest.approx(0.5) and top[1][0][:2] == ("n00000999", "class_999")
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\)"):
        applications.vgg19.decode_predictions(np.zeros((2, 10)))
