"""The architectures of Keras's VGG and ResNet (v1 and v2) applications, built from
keras.layers with Keras's layer names and shapes, so `weights=None` gives the same model
(and parameter count) as Keras. Pretrained ImageNet weights cannot be downloaded here:
`weights="imagenet"` raises, and `weights=<path>` loads a file written by `save_weights`.
"""

from __future__ import annotations

import math
import os
from typing import Callable

from ...layers import initializers as _initializers
from ...layers.base import Layer as _Layer
from ...layers.functional import Input
from ...layers.model import Model
from .. import layers as _layers

_EPS = 1.001e-5


def _check(weights, classes: int, include_top: bool, name: str) -> None:
    if weights == "imagenet":
        raise ValueError(
            f"keras.applications.{name}(weights='imagenet'): pretrained weights cannot be "
            "downloaded by this runtime. Pass weights=None for a freshly initialised model, "
            "or the path of a weights file written by Model.save_weights.")
    if weights is not None and not (isinstance(weights, (str, os.PathLike))
                                    and os.path.exists(weights)):
        raise ValueError(f"The `weights` argument should be either `None` (random "
                         f"initialization), 'imagenet', or the path to the weights file to "
                         f"be loaded. Received: weights={weights!r}")
    if isinstance(classes, bool) or not isinstance(classes, int) or classes < 1:
        raise ValueError(f"keras.applications.{name}: classes must be a positive int, got "
                         f"{classes!r}.")


def _inputs(input_tensor, input_shape, default: tuple, minimum: int, include_top: bool,
            name: str):
    if input_tensor is not None:
        return input_tensor
    shape = tuple(input_shape) if input_shape is not None else \
        (default if include_top else (None, None, 3))
    if len(shape) != 3:
        raise ValueError(f"keras.applications.{name}: input_shape must be (height, width, "
                         f"channels), got {shape}.")
    if include_top and input_shape is not None and tuple(shape) != default:
        pass  # Keras accepts another size without weights; the top then fits that size
    for dim in shape[:2]:
        if dim is not None and dim < minimum:
            raise ValueError(f"Input size must be at least {minimum}x{minimum}; Received: "
                             f"input_shape={shape}")
    return Input(shape=shape)


def _top(x, include_top: bool, pooling, classes: int, classifier_activation, flatten_top=None,
         named_pools: bool = False):
    """The classifier (`flatten_top`, or average pooling and a Dense layer), or without it
    the `pooling` ("avg" / "max" layers named as such with `named_pools`)."""
    L = _layers
    if include_top:
        if flatten_top is not None:
            return flatten_top(x)
        x = L.GlobalAveragePooling2D(name="avg_pool")(x)
        return L.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling in ("avg", "max"):
        pool = L.GlobalAveragePooling2D if pooling == "avg" else L.GlobalMaxPooling2D
        return pool(name=f"{pooling}_pool" if named_pools else None)(x)
    if pooling is not None:
        raise ValueError(f"pooling must be None, 'avg' or 'max', got {pooling!r}.")
    return x


def _published(build: Callable, public: str, detail: str) -> Callable:
    """`build` named `public`, documented with the model's `detail`."""
    build.__name__ = build.__qualname__ = public
    build.__doc__ = (f"Keras's {public} architecture{detail}; weights=None or a weights file "
                     "('imagenet' cannot be downloaded here).")
    return build


def _finish(inputs, outputs, name: str, weights) -> Model:
    model = Model(inputs, outputs, name=name)
    if weights is not None:
        model.load_weights(weights)
    return model


# -- VGG ---------------------------------------------------------------------------------------

def _vgg(blocks: list[int], model_name: str, public: str):
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=model_name):
        _check(weights, classes, include_top, public)
        L = _layers
        inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, public)
        x = inputs
        for b, (filters, convs) in enumerate(zip((64, 128, 256, 512, 512), blocks), start=1):
            for i in range(1, convs + 1):
                x = L.Conv2D(filters, (3, 3), activation="relu", padding="same",
                             name=f"block{b}_conv{i}")(x)
            x = L.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{b}_pool")(x)

        def flatten_top(t):
            t = L.Flatten(name="flatten")(t)
            t = L.Dense(4096, activation="relu", name="fc1")(t)
            t = L.Dense(4096, activation="relu", name="fc2")(t)
            return L.Dense(classes, activation=classifier_activation, name="predictions")(t)
        outputs = _top(x, include_top, pooling, classes, classifier_activation, flatten_top)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, "")


VGG16 = _vgg([2, 2, 3, 3, 3], "vgg16", "VGG16")
VGG19 = _vgg([2, 2, 4, 4, 4], "vgg19", "VGG19")


# -- ResNet v1 and v2 ----------------------------------------------------------------------

def _bn(name: str):
    return _layers.BatchNormalization(axis=3, epsilon=_EPS, name=name)


def _block_v1(x, filters: int, stride: int = 1, conv_shortcut: bool = True, name: str = ""):
    L = _layers
    if conv_shortcut:
        shortcut = L.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = L.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = L.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(x))
    x = L.Conv2D(filters, 3, padding="same", name=f"{name}_2_conv")(x)
    x = L.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn")(x))
    x = L.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(f"{name}_3_bn")(x)
    x = L.Add(name=f"{name}_add")([shortcut, x])
    return L.Activation("relu", name=f"{name}_out")(x)


def _stack_v1(x, filters: int, blocks: int, stride1: int = 2, name: str = ""):
    x = _block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = _block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def _block_v2(x, filters: int, stride: int = 1, conv_shortcut: bool = False, name: str = ""):
    L = _layers
    preact = L.Activation("relu", name=f"{name}_preact_relu")(_bn(f"{name}_preact_bn")(x))
    if conv_shortcut:
        shortcut = L.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = L.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = L.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = L.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(x))
    x = L.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = L.Conv2D(filters, 3, strides=stride, use_bias=False, name=f"{name}_2_conv")(x)
    x = L.Activation("relu", name=f"{name}_2_relu")(_bn(f"{name}_2_bn")(x))
    x = L.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return L.Add(name=f"{name}_out")([shortcut, x])


def _stack_v2(x, filters: int, blocks: int, stride1: int = 2, name: str = ""):
    x = _block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = _block_v2(x, filters, name=f"{name}_block{i}")
    return _block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _resnet(depths: list[int], preact: bool, model_name: str, public: str) -> Callable:
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=model_name):
        _check(weights, classes, include_top, public)
        L = _layers
        inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, public)
        x = L.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(inputs)
        x = L.Conv2D(64, 7, strides=2, use_bias=True, name="conv1_conv")(x)
        if not preact:
            x = L.Activation("relu", name="conv1_relu")(_bn("conv1_bn")(x))
        x = L.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
        x = L.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
        for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths), start=2):
            if preact:
                x = _stack_v2(x, filters, blocks, stride1=1 if stage == 5 else 2,
                              name=f"conv{stage}")
            else:
                x = _stack_v1(x, filters, blocks, stride1=1 if stage == 2 else 2,
                              name=f"conv{stage}")
        if preact:
            x = L.Activation("relu", name="post_relu")(_bn("post_bn")(x))
        outputs = _top(x, include_top, pooling, classes, classifier_activation)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, "")


ResNet50 = _resnet([3, 4, 6, 3], False, "resnet50", "ResNet50")
ResNet101 = _resnet([3, 4, 23, 3], False, "resnet101", "ResNet101")
ResNet152 = _resnet([3, 8, 36, 3], False, "resnet152", "ResNet152")
ResNet50V2 = _resnet([3, 4, 6, 3], True, "resnet50v2", "ResNet50V2")
ResNet101V2 = _resnet([3, 4, 23, 3], True, "resnet101v2", "ResNet101V2")
ResNet152V2 = _resnet([3, 8, 36, 3], True, "resnet152v2", "ResNet152V2")


# -- MobileNet (v1) and MobileNetV2 ----------------------------------------------------------

def _make_divisible(value: float, divisor: int = 8, min_value: int | None = None) -> int:
    min_value = min_value or divisor
    rounded = max(min_value, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def _correct_pad(x, kernel: int = 3) -> tuple:
    """Keras's padding before a stride-2 'valid' convolution: one less on the top / left of
    an even-sized input."""
    rows, cols = x.shape[1], x.shape[2]
    adjust = (1, 1) if rows is None else (1 - rows % 2, 1 - cols % 2)
    half = kernel // 2
    return ((half - adjust[0], half), (half - adjust[1], half))


def _size_name(inputs) -> int:
    rows = inputs.shape[1]
    return 224 if rows is None else int(rows)


def MobileNet(input_shape=None, alpha=1.0, depth_multiplier=1, dropout=1e-3,
              include_top=True, weights="imagenet", input_tensor=None, pooling=None,
              classes=1000, classifier_activation="softmax", name=None):
    """Keras's MobileNet architecture (width `alpha`, `depth_multiplier`); weights=None or a
    weights file ('imagenet' cannot be downloaded here)."""
    _check(weights, classes, include_top, "MobileNet")
    L = _layers
    inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, "MobileNet")

    def relu6(t, label):
        return L.ReLU(6.0, name=label)(t)
    x = L.Conv2D(int(32 * alpha), (3, 3), padding="same", use_bias=False, strides=(2, 2),
                 name="conv1")(inputs)
    x = relu6(L.BatchNormalization(axis=-1, name="conv1_bn")(x), "conv1_relu")
    plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + \
        [(1024, 2), (1024, 1)]
    for block_id, (filters, stride) in enumerate(plan, start=1):
        if stride != 1:
            x = L.ZeroPadding2D(((0, 1), (0, 1)), name=f"conv_pad_{block_id}")(x)
        x = L.DepthwiseConv2D((3, 3), padding="same" if stride == 1 else "valid",
                              depth_multiplier=depth_multiplier, strides=(stride, stride),
                              use_bias=False, name=f"conv_dw_{block_id}")(x)
        x = relu6(L.BatchNormalization(axis=-1, name=f"conv_dw_{block_id}_bn")(x),
                  f"conv_dw_{block_id}_relu")
        x = L.Conv2D(int(filters * alpha), (1, 1), padding="same", use_bias=False,
                     strides=(1, 1), name=f"conv_pw_{block_id}")(x)
        x = relu6(L.BatchNormalization(axis=-1, name=f"conv_pw_{block_id}_bn")(x),
                  f"conv_pw_{block_id}_relu")

    def conv_top(t):
        t = L.GlobalAveragePooling2D(keepdims=True)(t)
        t = L.Dropout(dropout, name="dropout")(t)
        t = L.Conv2D(classes, (1, 1), padding="same", name="conv_preds")(t)
        t = L.Reshape((classes,), name="reshape_2")(t)
        return L.Activation(classifier_activation, name="predictions")(t)
    outputs = _top(x, include_top, pooling, classes, classifier_activation, conv_top)
    if name is None:
        name = f"mobilenet_{alpha:0.2f}_{_size_name(inputs)}"
    return _finish(inputs, outputs, name, weights)


def _inverted_residual(inputs, expansion: int, stride: int, alpha: float, filters: int,
                       block_id: int):
    L = _layers
    in_channels = inputs.shape[-1]
    pointwise = _make_divisible(int(filters * alpha), 8)
    x, prefix = inputs, f"block_{block_id}_"

    def bn(t, label):
        return L.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=label)(t)
    if block_id:
        x = L.Conv2D(expansion * in_channels, kernel_size=1, padding="same", use_bias=False,
                     activation=None, name=prefix + "expand")(x)
        x = L.ReLU(6.0, name=prefix + "expand_relu")(bn(x, prefix + "expand_BN"))
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = L.ZeroPadding2D(padding=_correct_pad(x, 3), name=prefix + "pad")(x)
    x = L.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                          padding="same" if stride == 1 else "valid",
                          name=prefix + "depthwise")(x)
    x = L.ReLU(6.0, name=prefix + "depthwise_relu")(bn(x, prefix + "depthwise_BN"))
    x = L.Conv2D(pointwise, kernel_size=1, padding="same", use_bias=False, activation=None,
                 name=prefix + "project")(x)
    x = bn(x, prefix + "project_BN")
    if in_channels == pointwise and stride == 1:
        return L.Add(name=prefix + "add")([inputs, x])
    return x


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=None):
    """Keras's MobileNetV2 architecture (width `alpha`); weights=None or a weights file
    ('imagenet' cannot be downloaded here)."""
    _check(weights, classes, include_top, "MobileNetV2")
    L = _layers
    inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, "MobileNetV2")
    x = L.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2), padding="same",
                 use_bias=False, name="Conv1")(inputs)
    x = L.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="bn_Conv1")(x)
    x = L.ReLU(6.0, name="Conv1_relu")(x)
    plan = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
            (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6),
            (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6)]
    for block_id, (filters, stride, expansion) in enumerate(plan):
        x = _inverted_residual(x, expansion, stride, alpha, filters, block_id)
    last = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = L.Conv2D(last, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = L.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name="Conv_1_bn")(x)
    x = L.ReLU(6.0, name="out_relu")(x)

    def pooled_top(t):
        t = L.GlobalAveragePooling2D()(t)
        return L.Dense(classes, activation=classifier_activation, name="predictions")(t)
    outputs = _top(x, include_top, pooling, classes, classifier_activation, pooled_top)
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{_size_name(inputs)}"
    return _finish(inputs, outputs, name, weights)


# -- EfficientNet (B0 to B7) -----------------------------------------------------------------

_CONV_INIT = {"class_name": "VarianceScaling",
              "config": {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}}
_DENSE_INIT = {"class_name": "VarianceScaling",
               "config": {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}}
# kernel, repeats, filters in, filters out, expansion, strides (squeeze-excite ratio 0.25)
_EFFICIENT_BLOCKS = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2),
                     (3, 3, 40, 80, 6, 2), (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2),
                     (3, 1, 192, 320, 6, 1)]


def _initializer(spec: dict):
    return _initializers.VarianceScaling(**spec["config"])


def _mbconv(inputs, activation: str, drop_rate: float, name: str, filters_in: int,
            filters_out: int, kernel_size: int, strides: int, expand_ratio: int):
    L = _layers
    filters = filters_in * expand_ratio
    if expand_ratio != 1:
        x = L.Conv2D(filters, 1, padding="same", use_bias=False,
                     kernel_initializer=_initializer(_CONV_INIT), name=name + "expand_conv")(inputs)
        x = L.BatchNormalization(axis=-1, name=name + "expand_bn")(x)
        x = L.Activation(activation, name=name + "expand_activation")(x)
    else:
        x = inputs
    if strides == 2:
        x = L.ZeroPadding2D(padding=_correct_pad(x, kernel_size), name=name + "dwconv_pad")(x)
    x = L.DepthwiseConv2D(kernel_size, strides=strides,
                          padding="valid" if strides == 2 else "same", use_bias=False,
                          depthwise_initializer=_initializer(_CONV_INIT), name=name + "dwconv")(x)
    x = L.BatchNormalization(axis=-1, name=name + "bn")(x)
    x = L.Activation(activation, name=name + "activation")(x)
    squeezed = max(1, int(filters_in * 0.25))
    se = L.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se = L.Reshape((1, 1, filters), name=name + "se_reshape")(se)
    se = L.Conv2D(squeezed, 1, padding="same", activation=activation,
                  kernel_initializer=_initializer(_CONV_INIT), name=name + "se_reduce")(se)
    se = L.Conv2D(filters, 1, padding="same", activation="sigmoid",
                  kernel_initializer=_initializer(_CONV_INIT), name=name + "se_expand")(se)
    x = L.Multiply(name=name + "se_excite")([x, se])
    x = L.Conv2D(filters_out, 1, padding="same", use_bias=False,
                 kernel_initializer=_initializer(_CONV_INIT), name=name + "project_conv")(x)
    x = L.BatchNormalization(axis=-1, name=name + "project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = L.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = L.Add(name=name + "add")([x, inputs])
    return x


def _efficientnet(width: float, depth: float, size: int, dropout_rate: float, model_name: str,
                  public: str) -> Callable:
    def round_filters(filters: float) -> int:
        filters *= width
        rounded = max(8, int(filters + 4) // 8 * 8)
        return int(rounded + 8 if rounded < 0.9 * filters else rounded)

    def round_repeats(repeats: int) -> int:
        return int(math.ceil(depth * repeats))

    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=model_name):
        _check(weights, classes, include_top, public)
        L = _layers
        inputs = _inputs(input_tensor, input_shape, (size, size, 3), 32, include_top, public)
        x = L.Rescaling(1.0 / 255.0)(inputs)
        x = L.Normalization(axis=-1)(x)
        x = L.ZeroPadding2D(padding=_correct_pad(x, 3), name="stem_conv_pad")(x)
        x = L.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                     kernel_initializer=_initializer(_CONV_INIT), name="stem_conv")(x)
        x = L.BatchNormalization(axis=-1, name="stem_bn")(x)
        x = L.Activation("swish", name="stem_activation")(x)
        total = float(sum(round_repeats(spec[1]) for spec in _EFFICIENT_BLOCKS))
        done = 0
        for i, (kernel, repeats, f_in, f_out, expand, stride) in enumerate(_EFFICIENT_BLOCKS):
            f_in, f_out = round_filters(f_in), round_filters(f_out)
            for j in range(round_repeats(repeats)):
                x = _mbconv(x, "swish", 0.2 * done / total, f"block{i + 1}{chr(j + 97)}_",
                            f_in if j == 0 else f_out, f_out, kernel, stride if j == 0 else 1,
                            expand)
                done += 1
        x = L.Conv2D(round_filters(1280), 1, padding="same", use_bias=False,
                     kernel_initializer=_initializer(_CONV_INIT), name="top_conv")(x)
        x = L.BatchNormalization(axis=-1, name="top_bn")(x)
        x = L.Activation("swish", name="top_activation")(x)

        def efficient_top(t):
            t = L.GlobalAveragePooling2D(name="avg_pool")(t)
            if dropout_rate > 0:
                t = L.Dropout(dropout_rate, name="top_dropout")(t)
            return L.Dense(classes, activation=classifier_activation,
                           kernel_initializer=_initializer(_DENSE_INIT), name="predictions")(t)
        outputs = _top(x, include_top, pooling, classes, classifier_activation, efficient_top,
                       named_pools=True)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, " (its input scaling included: pixels in [0, 255])")


EfficientNetB0 = _efficientnet(1.0, 1.0, 224, 0.2, "efficientnetb0", "EfficientNetB0")
EfficientNetB1 = _efficientnet(1.0, 1.1, 240, 0.2, "efficientnetb1", "EfficientNetB1")
EfficientNetB2 = _efficientnet(1.1, 1.2, 260, 0.3, "efficientnetb2", "EfficientNetB2")
EfficientNetB3 = _efficientnet(1.2, 1.4, 300, 0.3, "efficientnetb3", "EfficientNetB3")
EfficientNetB4 = _efficientnet(1.4, 1.8, 380, 0.4, "efficientnetb4", "EfficientNetB4")
EfficientNetB5 = _efficientnet(1.6, 2.2, 456, 0.4, "efficientnetb5", "EfficientNetB5")
EfficientNetB6 = _efficientnet(1.8, 2.6, 528, 0.5, "efficientnetb6", "EfficientNetB6")
EfficientNetB7 = _efficientnet(2.0, 3.1, 600, 0.5, "efficientnetb7", "EfficientNetB7")


# -- DenseNet and Xception -------------------------------------------------------------------

def _dense_conv_block(x, growth: int, name: str):
    L = _layers
    y = L.Activation("relu", name=f"{name}_0_relu")(_bn(f"{name}_0_bn")(x))
    y = L.Conv2D(4 * growth, 1, use_bias=False, name=f"{name}_1_conv")(y)
    y = L.Activation("relu", name=f"{name}_1_relu")(_bn(f"{name}_1_bn")(y))
    y = L.Conv2D(growth, 3, padding="same", use_bias=False, name=f"{name}_2_conv")(y)
    return L.Concatenate(axis=3, name=f"{name}_concat")([x, y])


def _transition(x, reduction: float, name: str):
    L = _layers
    x = L.Activation("relu", name=f"{name}_relu")(_bn(f"{name}_bn")(x))
    x = L.Conv2D(int(x.shape[-1] * reduction), 1, use_bias=False, name=f"{name}_conv")(x)
    return L.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def _densenet(blocks: list[int], model_name: str, public: str) -> Callable:
    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=model_name):
        _check(weights, classes, include_top, public)
        L = _layers
        inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, public)
        x = L.ZeroPadding2D(padding=((3, 3), (3, 3)))(inputs)
        x = L.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
        x = L.Activation("relu", name="conv1_relu")(_bn("conv1_bn")(x))
        x = L.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
        x = L.MaxPooling2D(3, strides=2, name="pool1")(x)
        for stage, count in enumerate(blocks, start=2):
            for i in range(1, count + 1):
                x = _dense_conv_block(x, 32, f"conv{stage}_block{i}")
            if stage < 5:
                x = _transition(x, 0.5, f"pool{stage}")
        x = L.Activation("relu", name="relu")(_bn("bn")(x))
        outputs = _top(x, include_top, pooling, classes, classifier_activation,
                       named_pools=True)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, "")


DenseNet121 = _densenet([6, 12, 24, 16], "densenet121", "DenseNet121")
DenseNet169 = _densenet([6, 12, 32, 32], "densenet169", "DenseNet169")
DenseNet201 = _densenet([6, 12, 48, 32], "densenet201", "DenseNet201")


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
             pooling=None, classes=1000, classifier_activation="softmax", name="xception"):
    """Keras's Xception architecture (299x299 inputs by default); weights=None or a weights
    file ('imagenet' cannot be downloaded here)."""
    _check(weights, classes, include_top, "Xception")
    L = _layers
    inputs = _inputs(input_tensor, input_shape, (299, 299, 3), 71, include_top, "Xception")

    def bn(label=None):
        return L.BatchNormalization(axis=-1, name=label)

    def sep(t, filters, label):
        return L.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=label)(t)

    def relu(t, label):
        return L.Activation("relu", name=label)(t)

    def shortcut(t, filters):
        t = L.Conv2D(filters, (1, 1), strides=(2, 2), padding="same", use_bias=False)(t)
        return bn()(t)

    x = L.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(inputs)
    x = relu(bn("block1_conv1_bn")(x), "block1_conv1_act")
    x = L.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = relu(bn("block1_conv2_bn")(x), "block1_conv2_act")
    for block, filters in ((2, 128), (3, 256), (4, 728)):
        residual = shortcut(x, filters)
        if block > 2:
            x = relu(x, f"block{block}_sepconv1_act")
        x = bn(f"block{block}_sepconv1_bn")(sep(x, filters, f"block{block}_sepconv1"))
        x = relu(x, f"block{block}_sepconv2_act")
        x = bn(f"block{block}_sepconv2_bn")(sep(x, filters, f"block{block}_sepconv2"))
        x = L.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
        x = L.Add()([x, residual])
    for block in range(5, 13):
        residual = x
        for k in (1, 2, 3):
            x = relu(x, f"block{block}_sepconv{k}_act")
            x = bn(f"block{block}_sepconv{k}_bn")(sep(x, 728, f"block{block}_sepconv{k}"))
        x = L.Add()([x, residual])
    residual = shortcut(x, 1024)
    x = relu(x, "block13_sepconv1_act")
    x = bn("block13_sepconv1_bn")(sep(x, 728, "block13_sepconv1"))
    x = relu(x, "block13_sepconv2_act")
    x = bn("block13_sepconv2_bn")(sep(x, 1024, "block13_sepconv2"))
    x = L.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = L.Add()([x, residual])
    x = relu(bn("block14_sepconv1_bn")(sep(x, 1536, "block14_sepconv1")), "block14_sepconv1_act")
    x = relu(bn("block14_sepconv2_bn")(sep(x, 2048, "block14_sepconv2")), "block14_sepconv2_act")
    outputs = _top(x, include_top, pooling, classes, classifier_activation)
    return _finish(inputs, outputs, name, weights)


# -- MobileNetV3 -----------------------------------------------------------------------------

def _v3_bn(label: str):
    return _layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=label)


def _v3_relu(x):
    return _layers.ReLU()(x)


def _v3_hard_sigmoid(x):
    return _layers.ReLU(6.0)(x + 3.0) * (1.0 / 6.0)


def _v3_hard_swish(x):
    return _layers.Activation("hard_swish")(x)


def _v3_block(x, expansion: float, filters: int, kernel: int, stride: int, se_ratio,
              activation, block_id: int):
    L = _layers
    shortcut, prefix, infilters = x, "expanded_conv_", x.shape[-1]
    if block_id:
        prefix = f"expanded_conv_{block_id}_"
        x = L.Conv2D(_make_divisible(infilters * expansion), kernel_size=1, padding="same",
                     use_bias=False, name=f"{prefix}expand")(x)
        x = activation(_v3_bn(f"{prefix}expand_bn")(x))
    if stride == 2:
        x = L.ZeroPadding2D(padding=_correct_pad(x, kernel), name=f"{prefix}depthwise_pad")(x)
    x = L.DepthwiseConv2D(kernel, strides=stride, padding="same" if stride == 1 else "valid",
                          use_bias=False, name=f"{prefix}depthwise")(x)
    x = activation(_v3_bn(f"{prefix}depthwise_bn")(x))
    if se_ratio:
        width = _make_divisible(infilters * expansion)
        se = L.GlobalAveragePooling2D(keepdims=True, name=f"{prefix}squeeze_excite_avg_pool")(x)
        se = L.Conv2D(_make_divisible(width * se_ratio), kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv")(se)
        se = L.ReLU(name=f"{prefix}squeeze_excite_relu")(se)
        se = L.Conv2D(width, kernel_size=1, padding="same",
                      name=f"{prefix}squeeze_excite_conv_1")(se)
        x = L.Multiply(name=f"{prefix}squeeze_excite_mul")([x, _v3_hard_sigmoid(se)])
    x = L.Conv2D(filters, kernel_size=1, padding="same", use_bias=False,
                 name=f"{prefix}project")(x)
    x = _v3_bn(f"{prefix}project_bn")(x)
    if stride == 1 and infilters == filters:
        x = L.Add(name=f"{prefix}add")([shortcut, x])
    return x


# expansion, filters, kernel ("k": 5, or 3 when minimalistic), stride, squeeze-excite,
# activation ("h": hard swish, or relu when minimalistic; "r": relu)
_V3_SMALL = [(1, 16, 3, 2, True, "r"), (72 / 16, 24, 3, 2, False, "r"),
             (88 / 24, 24, 3, 1, False, "r"), (4, 40, "k", 2, True, "h"),
             (6, 40, "k", 1, True, "h"), (6, 40, "k", 1, True, "h"), (3, 48, "k", 1, True, "h"),
             (3, 48, "k", 1, True, "h"), (6, 96, "k", 2, True, "h"), (6, 96, "k", 1, True, "h"),
             (6, 96, "k", 1, True, "h")]
_V3_LARGE = [(1, 16, 3, 1, False, "r"), (4, 24, 3, 2, False, "r"), (3, 24, 3, 1, False, "r"),
             (3, 40, "k", 2, True, "r"), (3, 40, "k", 1, True, "r"), (3, 40, "k", 1, True, "r"),
             (6, 80, 3, 2, False, "h"), (2.5, 80, 3, 1, False, "h"), (2.3, 80, 3, 1, False, "h"),
             (2.3, 80, 3, 1, False, "h"), (6, 112, 3, 1, True, "h"), (6, 112, 3, 1, True, "h"),
             (6, 160, "k", 2, True, "h"), (6, 160, "k", 1, True, "h"),
             (6, 160, "k", 1, True, "h")]


def _mobilenet_v3(plan: list, last_point: int, public: str) -> Callable:
    def build(input_shape=None, alpha=1.0, minimalistic=False, include_top=True,
              weights="imagenet", input_tensor=None, classes=1000, pooling=None,
              dropout_rate=0.2, classifier_activation="softmax", include_preprocessing=True,
              name=public):
        _check(weights, classes, include_top, public)
        L = _layers
        if input_shape is None and input_tensor is None:
            input_shape = (224, 224, 3)  # Keras: (None, None, 3); depthwise convolutions
            # here need the spatial size while a model is built
        inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, public)
        kernel, activation = (3, _v3_relu) if minimalistic else (5, _v3_hard_swish)
        se_ratio = None if minimalistic else 0.25
        x = L.Rescaling(scale=1.0 / 127.5, offset=-1.0)(inputs) if include_preprocessing \
            else inputs
        x = L.Conv2D(16, kernel_size=3, strides=(2, 2), padding="same", use_bias=False,
                     name="conv")(x)
        x = activation(_v3_bn("conv_bn")(x))
        for block_id, (expansion, filters, k, stride, se, act) in enumerate(plan):
            x = _v3_block(x, expansion, _make_divisible(filters * alpha),
                          kernel if k == "k" else k, stride, se_ratio if se else None,
                          activation if act == "h" else _v3_relu, block_id)
        last_conv = _make_divisible(x.shape[-1] * 6)
        point = _make_divisible(last_point * alpha) if alpha > 1.0 else last_point
        x = L.Conv2D(last_conv, kernel_size=1, padding="same", use_bias=False, name="conv_1")(x)
        x = activation(_v3_bn("conv_1_bn")(x))
        def conv_top(t):
            t = L.GlobalAveragePooling2D(keepdims=True)(t)
            t = L.Conv2D(point, kernel_size=1, padding="same", use_bias=True, name="conv_2")(t)
            t = activation(t)
            if dropout_rate > 0:
                t = L.Dropout(dropout_rate)(t)
            t = L.Conv2D(classes, kernel_size=1, padding="same", name="logits")(t)
            return L.Activation(activation=classifier_activation,
                                name="predictions")(L.Flatten()(t))
        outputs = _top(x, include_top, pooling, classes, classifier_activation, conv_top,
                       named_pools=True)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, " (alpha, minimalistic, its input scaling with include_preprocessing)")


MobileNetV3Small = _mobilenet_v3(_V3_SMALL, 1024, "MobileNetV3Small")
MobileNetV3Large = _mobilenet_v3(_V3_LARGE, 1280, "MobileNetV3Large")


# -- ConvNeXt ----------------------------------------------------------------------------------

class LayerScale(_Layer):
    """x times a learned per-channel scale, initialised to `init_values` (ConvNeXt's)."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values, self.projection_dim = init_values, projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(shape=(self.projection_dim,),
                                     initializer=_initializers.Constant(self.init_values),
                                     trainable=True)
        self.built = True

    def call(self, x):
        return x * self.gamma


_CONVNEXT = {"tiny": ([3, 3, 9, 3], [96, 192, 384, 768]),
             "small": ([3, 3, 27, 3], [96, 192, 384, 768]),
             "base": ([3, 3, 27, 3], [128, 256, 512, 1024]),
             "large": ([3, 3, 27, 3], [192, 384, 768, 1536]),
             "xlarge": ([3, 3, 27, 3], [256, 512, 1024, 2048])}


def _convnext(size: str, public: str) -> Callable:
    depths, dims = _CONVNEXT[size]

    def build(include_top=True, include_preprocessing=True, weights="imagenet",
              input_tensor=None, input_shape=None, pooling=None, classes=1000,
              classifier_activation="softmax", name=f"convnext_{size}"):
        _check(weights, classes, include_top, public)
        L = _layers
        inputs = _inputs(input_tensor, input_shape, (224, 224, 3), 32, include_top, public)
        x = inputs
        if include_preprocessing:
            x = L.Normalization(mean=[0.485 * 255, 0.456 * 255, 0.406 * 255],
                                variance=[(0.229 * 255) ** 2, (0.224 * 255) ** 2,
                                          (0.225 * 255) ** 2],
                                name=f"{name}_prestem_normalization")(x)
        x = L.Conv2D(dims[0], kernel_size=4, strides=4, name=f"{name}_stem_conv")(x)
        x = L.LayerNormalization(epsilon=1e-6, name=f"{name}_stem_layernorm")(x)
        for i, (depth, dim) in enumerate(zip(depths, dims)):
            if i:
                x = L.LayerNormalization(epsilon=1e-6,
                                         name=f"{name}_downsampling_layernorm_{i - 1}")(x)
                x = L.Conv2D(dim, kernel_size=2, strides=2,
                             name=f"{name}_downsampling_conv_{i - 1}")(x)
            for j in range(depth):
                block = f"{name}_stage_{i}_block_{j}"
                y = L.Conv2D(dim, kernel_size=7, padding="same", groups=dim,
                             name=f"{block}_depthwise_conv")(x)
                y = L.LayerNormalization(epsilon=1e-6, name=f"{block}_layernorm")(y)
                y = L.Dense(4 * dim, name=f"{block}_pointwise_conv_1")(y)
                y = L.Activation("gelu", name=f"{block}_gelu")(y)
                y = L.Dense(dim, name=f"{block}_pointwise_conv_2")(y)
                y = LayerScale(1e-6, dim, name=f"{block}_layer_scale")(y)
                # Keras's drop_path_rate is 0 for these models: the branch is an identity
                x = x + L.Activation("linear", name=f"{block}_identity")(y)
        if include_top:
            x = L.GlobalAveragePooling2D(name=f"{name}_head_gap")(x)
            x = L.LayerNormalization(epsilon=1e-6, name=f"{name}_head_layernorm")(x)
            outputs = L.Dense(classes, activation=classifier_activation,
                              name=f"{name}_head_dense")(x)
        else:
            if pooling == "avg":
                x = L.GlobalAveragePooling2D()(x)
            elif pooling == "max":
                x = L.GlobalMaxPooling2D()(x)
            elif pooling is not None:
                raise ValueError(f"pooling must be None, 'avg' or 'max', got {pooling!r}.")
            outputs = L.LayerNormalization(epsilon=1e-6)(x)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, " (ImageNet normalisation inside with include_preprocessing)")


ConvNeXtTiny = _convnext("tiny", "ConvNeXtTiny")
ConvNeXtSmall = _convnext("small", "ConvNeXtSmall")
ConvNeXtBase = _convnext("base", "ConvNeXtBase")
ConvNeXtLarge = _convnext("large", "ConvNeXtLarge")
ConvNeXtXLarge = _convnext("xlarge", "ConvNeXtXLarge")
