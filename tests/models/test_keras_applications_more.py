"""keras.applications' InceptionV3, InceptionResNetV2, NASNet and EfficientNetV2 models built
with Keras's architecture (runtime/keras/applications/more_builders.py), against what Keras
3.15 gave for the same calls with weights=None: the parameter count, the number of layers,
the SHA-1 of their sorted names (first 16 hex digits), the model's name, and without the top
(pooling="avg"; 75x75 inputs for the Inception models, 64x64 for the others) the parameter
count and the last layer's name."""

import hashlib

import numpy as np
import pytest

from runtime import keras

A = keras.applications

KERAS = {  # name: (parameters, layers, sorted-names digest, model name, headless, pool layer)
    "InceptionV3": (23851784, 313, "ff3b73fa41033bf3", "inception_v3", 21802784,
                    "global_average_pooling2d"),
    "InceptionResNetV2": (55873736, 782, "a70d6cbc066fe8d0", "inception_resnet_v2", 54336736,
                          "global_average_pooling2d"),
    "NASNetMobile": (5326716, 771, "1b185773e229fdfa", "nasnet_mobile", 4269716,
                     "global_average_pooling2d"),
    "NASNetLarge": (88949818, 1041, "63f21448c38ee203", "nasnet_large", 84916818,
                    "global_average_pooling2d"),
    "EfficientNetV2B0": (7200312, 273, "7c8f71992bee0e73", "efficientnetv2-b0", 5919312,
                         "avg_pool"),
    "EfficientNetV2B1": (8212124, 337, "f386afff65a6cd27", "efficientnetv2-b1", 6931124,
                         "avg_pool"),
    "EfficientNetV2B2": (10178374, 352, "fecab8b5747fdcf9", "efficientnetv2-b2", 8769374,
                         "avg_pool"),
    "EfficientNetV2B3": (14467622, 412, "09368ce3f4ebb8eb", "efficientnetv2-b3", 12930622,
                         "avg_pool"),
    "EfficientNetV2S": (21612360, 516, "84a4f0970a62e407", "efficientnetv2-s", 20331360,
                        "avg_pool"),
    "EfficientNetV2M": (54431388, 743, "913b3fc7c48089cf", "efficientnetv2-m", 53150388,
                        "avg_pool"),
    "EfficientNetV2L": (119027848, 1031, "93eb38b82d3549e1", "efficientnetv2-l", 117746848,
                        "avg_pool"),
}
# a minute or more each to build (their weights' initial values are drawn): marked slow
LARGE = {"NASNetLarge", "EfficientNetV2M", "EfficientNetV2L"}
SLOW = LARGE | {"InceptionResNetV2", "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2S"}


def _digest(model) -> str:
    names = "\n".join(sorted(layer.name for layer in model.layers))
    return hashlib.sha1(names.encode()).hexdigest()[:16]


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in sorted(KERAS)])
def test_architectures_have_keras_counts_and_names(name):
    total, layers, digest, model_name, headless, pool = KERAS[name]
    keras.utils.clear_session()   # unnamed layers are numbered from a fresh session, as Keras
    model = getattr(A, name)(weights=None)
    assert (model.count_params(), len(model.layers), model.name) == (total, layers, model_name)
    assert _digest(model) == digest
    if name in LARGE:
        return
    size = 75 if name.startswith("Inception") else 64
    keras.utils.clear_session()
    features = getattr(A, name)(weights=None, include_top=False, pooling="avg",
                                input_shape=(size, size, 3))
    assert (features.count_params(), features.layers[-1].name) == (headless, pool)
    out = features(np.full((1, size, size, 3), 100.0, np.float32))
    assert out.shape == (1, features.output_shape[-1]) and np.isfinite(out.numpy()).all()


def test_namespaces_and_preprocessing():
    pixels = np.array([[[0.0, 127.5, 255.0]]], np.float32)
    for module in (A.inception_v3, A.inception_resnet_v2, A.nasnet):
        np.testing.assert_allclose(module.preprocess_input(pixels.copy()), [[[-1.0, 0.0, 1.0]]])
    assert A.efficientnet_v2.preprocess_input(pixels) is pixels
    assert A.efficientnet_v2.EfficientNetV2S is A.EfficientNetV2S
    assert A.nasnet.NASNetMobile is A.NASNetMobile and A.inception_v3.InceptionV3 is A.InceptionV3
    assert A.inception_resnet_v2.decode_predictions is A.imagenet_utils.decode_predictions


def test_custom_scale_layer_adds_the_scaled_branch():
    layer = A.inception_resnet_v2.CustomScaleLayer(0.17)
    x, up = np.ones((1, 2, 2, 3), np.float32), np.full((1, 2, 2, 3), 2.0, np.float32)
    np.testing.assert_allclose(layer([x, up]).numpy(), x + 0.17 * up, rtol=1e-6)
    assert layer.get_config()["scale"] == 0.17


def test_small_models_take_a_weights_file_and_refuse_imagenet(tmp_path):
    model = A.EfficientNetV2B0(weights=None, input_shape=(32, 32, 3), classes=4)
    out = model(np.random.RandomState(0).rand(2, 32, 32, 3).astype(np.float32) * 255)
    np.testing.assert_allclose(out.numpy().sum(axis=1), [1.0, 1.0], rtol=1e-5)
    path = str(tmp_path / "v2.weights.h5")
    model.save_weights(path)
    again = A.efficientnet_v2.EfficientNetV2B0(weights=path, input_shape=(32, 32, 3), classes=4)
    for a, b in zip(model.weights, again.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="cannot be downloaded"):
        A.InceptionV3()
    with pytest.raises(ValueError, match="at least 75x75"):
        A.InceptionResNetV2(weights=None, include_top=False, input_shape=(64, 64, 3))
    features = A.InceptionV3(weights=None, include_top=False, input_shape=(160, 160, 3))
    assert features.output_shape == (None, 3, 3, 2048)   # Keras 3.15: (None, 3, 3, 2048)
