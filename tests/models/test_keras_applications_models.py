"""keras.applications' VGG and ResNet (v1, v2) models built with Keras's architecture
(runtime/keras/applications/builders.py): the parameter and layer counts Keras 3.15 printed
for the same calls with weights=None, the outputs' shapes, a weights file given as
`weights`, and the refusal of weights="imagenet"."""

import numpy as np
import pytest

from runtime import keras

A = keras.applications

# (total parameters, layers) with the top; parameters with include_top=False, pooling="avg"
# on 64x64 inputs: as Keras 3.15 printed them
KERAS_COUNTS = {
    "VGG16": (138357544, 23, 14714688), "VGG19": (143667240, 26, 20024384),
    "ResNet50": (25636712, 177, 23587712), "ResNet101": (44707176, 347, 42658176),
    "ResNet152": (60419944, 517, 58370944), "ResNet50V2": (25613800, 192, 23564800),
    "ResNet101V2": (44675560, 379, 42626560), "ResNet152V2": (60380648, 566, 58331648),
}


@pytest.mark.parametrize("name", sorted(KERAS_COUNTS))
def test_architectures_have_keras_counts(name):
    total, layers, headless = KERAS_COUNTS[name]
    model = getattr(A, name)(weights=None)
    assert (model.count_params(), len(model.layers)) == (total, layers)
    if name not in ("VGG16", "ResNet50", "ResNet50V2"):
        return
    features = getattr(A, name)(weights=None, include_top=False, pooling="avg",
                                input_shape=(64, 64, 3))
    assert features.count_params() == headless


@pytest.mark.parametrize("name, kwargs, total, headless, model_name", [
    ("MobileNet", {}, 4253864, 3228864, "mobilenet_1.00_224"),
    ("MobileNet", {"alpha": 0.5, "depth_multiplier": 2}, 2159672, 1646672, "mobilenet_0.50_224"),
    ("MobileNetV2", {}, 3538984, 2257984, "mobilenetv2_1.00_224"),
    ("MobileNetV2", {"alpha": 1.4}, 6156712, 4363712, "mobilenetv2_1.40_224"),
    ("MobileNetV2", {"alpha": 0.35}, 1691208, 410208, "mobilenetv2_0.35_224"),
])
def test_mobilenets_have_keras_counts(name, kwargs, total, headless, model_name):
    model = getattr(A, name)(weights=None, **kwargs)
    assert (model.count_params(), model.name) == (total, model_name)
    features = getattr(A, name)(weights=None, include_top=False, pooling="max",
                                input_shape=(97, 97, 3), **kwargs)
    assert features.count_params() == headless
    assert features(np.zeros((1, 97, 97, 3), np.float32)).shape[0] == 1


@pytest.mark.parametrize("name, total, layers, headless", [
    ("EfficientNetB0", 5330571, 240, 4049571), ("EfficientNetB1", 7856239, 342, 6575239),
    ("EfficientNetB2", 9177569, 342, None), ("EfficientNetB3", 12320535, 387, None),
])
def test_efficientnets_have_keras_counts(name, total, layers, headless):
    model = getattr(A.efficientnet, name)(weights=None)
    assert (model.count_params(), len(model.layers), model.name) == (total, layers, name.lower())
    if headless is not None:
        features = getattr(A, name)(weights=None, include_top=False, pooling="max",
                                    input_shape=(64, 64, 3))
        assert features.count_params() == headless and features.layers[-1].name == "max_pool"
        out = features(np.full((1, 64, 64, 3), 128.0, np.float32))
        assert out.shape == (1, 1280) and np.isfinite(out.numpy()).all()
    assert A.efficientnet.preprocess_input(7.0) == 7.0


@pytest.mark.parametrize("name, total, layers, shape, headless, pool_name", [
    ("DenseNet121", 8062504, 429, (64, 64, 3), 7037504, "avg_pool"),
    ("DenseNet169", 14307880, 597, None, None, None),
    ("DenseNet201", 20242984, 709, None, None, None),
    ("Xception", 22910480, 134, (71, 71, 3), 20861480, "global_average_pooling2d"),
])
def test_densenets_and_xception_have_keras_counts(name, total, layers, shape, headless,
                                                   pool_name):
    model = getattr(A, name)(weights=None)
    assert (model.count_params(), len(model.layers), model.name) == (total, layers, name.lower())
    if shape is not None:
        keras.utils.clear_session()
        features = getattr(A, name)(weights=None, include_top=False, pooling="avg",
                                    input_shape=shape)
        assert features.count_params() == headless
        assert features.layers[-1].name == pool_name
        assert features(np.zeros((1, *shape), np.float32)).shape[0] == 1


@pytest.mark.parametrize("name, kwargs, total, headless", [
    ("MobileNetV3Small", {}, 2554968, 939120), ("MobileNetV3Large", {}, 5507432, 2996352),
    ("MobileNetV3Small", {"alpha": 0.75, "minimalistic": True}, 1742192, 273800),
    ("MobileNetV3Large", {"alpha": 1.25}, 8286760, 4764160),
])
def test_mobilenet_v3_has_keras_counts(name, kwargs, total, headless):
    model = getattr(A, name)(weights=None, **kwargs)
    assert (model.count_params(), model.name) == (total, name)
    features = getattr(A, name)(weights=None, include_top=False, pooling="avg",
                                input_shape=(64, 64, 3), **kwargs)
    assert features.count_params() == headless and features.layers[-1].name == "avg_pool"
    out = features(np.full((2, 64, 64, 3), 200.0, np.float32))
    assert out.shape[0] == 2 and np.isfinite(out.numpy()).all()
    assert A.mobilenet_v3.preprocess_input(3.0) == 3.0


@pytest.mark.parametrize("name, total, headless", [
    ("ConvNeXtTiny", 28589128, 27820128), ("ConvNeXtSmall", 50223688, None),
])
def test_convnext_has_keras_parameter_counts(name, total, headless):
    # Keras wraps the stem and the downsampling layers in Sequential models and does not
    # count the residual additions as layers: the weights and their names are the same
    model = getattr(A.convnext, name)(weights=None)
    assert (model.count_params(), model.name) == (total, name.replace("ConvNeXt", "convnext_")
                                                  .lower())
    assert "convnext_tiny_stage_0_block_0_layer_scale" in {lyr.name for lyr in model.layers} \
        or name != "ConvNeXtTiny"
    if headless is not None:
        features = getattr(A, name)(weights=None, include_top=False, pooling="avg",
                                    input_shape=(64, 64, 3), include_preprocessing=False)
        assert features.count_params() == headless
        out = features(np.random.RandomState(0).rand(1, 64, 64, 3).astype(np.float32))
        assert out.shape == (1, 768)
        np.testing.assert_allclose(out.numpy().mean(), 0.0, atol=1e-4)  # the final LayerNorm


def test_small_models_run_and_take_a_weights_file(tmp_path):
    model = A.ResNet50V2(weights=None, input_shape=(32, 32, 3), classes=5)
    out = model(np.random.RandomState(0).rand(2, 32, 32, 3).astype(np.float32))
    assert out.shape == (2, 5)
    np.testing.assert_allclose(out.numpy().sum(axis=1), [1.0, 1.0], rtol=1e-5)
    path = str(tmp_path / "resnet.weights.h5")
    model.save_weights(path)
    again = A.resnet_v2.ResNet50V2(weights=path, input_shape=(32, 32, 3), classes=5)
    for a, b in zip(model.weights, again.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    features = A.VGG16(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert features(np.zeros((1, 32, 32, 3), np.float32)).shape == (1, 1, 1, 512)
    pooled = A.resnet.ResNet101(weights=None, include_top=False, pooling="max",
                                input_shape=(32, 32, 3))
    assert pooled(np.zeros((1, 32, 32, 3), np.float32)).shape == (1, 2048)


def test_imagenet_weights_and_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="cannot be downloaded"):
        A.ResNet50()
    with pytest.raises(ValueError, match="weights"):
        A.VGG19(weights="no/such/file.h5")
    with pytest.raises(ValueError, match="at least 32x32"):
        A.ResNet50(weights=None, input_shape=(16, 16, 3))
    with pytest.raises(ValueError, match="pooling"):
        A.VGG16(weights=None, include_top=False, pooling="mean")
    np.testing.assert_allclose(A.resnet_v2.preprocess_input(np.array([[[255.0, 0, 127.5]]])),
                               [[[1.0, -1.0, 0.0]]])
