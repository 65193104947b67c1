"""The architectures of Keras's InceptionV3, InceptionResNetV2, NASNet (Mobile, Large) and
EfficientNetV2 (B0-B3, S, M, L) applications, built from keras.layers with Keras's layer
names, shapes and parameter counts for `weights=None` (as `builders` does for the others).
Pretrained ImageNet weights cannot be downloaded here: `weights="imagenet"` raises, and
`weights=<path>` loads a file written by `save_weights`.
"""

from __future__ import annotations

import math
from typing import Callable

from ...layers.base import Layer as _Layer
from .. import layers as _layers
from .builders import _check, _correct_pad, _finish, _initializer, _inputs, _published, _top

# -- InceptionV3 -------------------------------------------------------------------------------


def _conv_bn(x, filters: int, kernel, strides=1, padding: str = "same", name=None,
             activation: str | None = "relu", use_bias: bool = False, act_suffix: str = ""):
    """A bias-free convolution, a BatchNormalization without scale and a ReLU (the Inception
    models' unit); named `<name>_conv`/`_bn`/`<name>` (InceptionV3) or `<name>`/`_bn`/`_ac`
    (InceptionResNetV2, `act_suffix="_ac"`) when `name` is given."""
    L = _layers
    resnet_names = bool(act_suffix)
    conv_name = None if name is None else (name if resnet_names else f"{name}_conv")
    x = L.Conv2D(filters, kernel, strides=strides, padding=padding, use_bias=use_bias,
                 name=conv_name)(x)
    if not use_bias:
        x = L.BatchNormalization(axis=3, scale=False,
                                 name=None if name is None else f"{name}_bn")(x)
    if activation is not None:
        x = L.Activation(activation, name=None if name is None else
                         (f"{name}{act_suffix}" if resnet_names else name))(x)
    return x


def _avg_branch(x, filters: int):
    pooled = _layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return _conv_bn(pooled, filters, (1, 1))


def _inception_a(x, pool_filters: int, name: str):
    b1 = _conv_bn(x, 64, (1, 1))
    b5 = _conv_bn(_conv_bn(x, 48, (1, 1)), 64, (5, 5))
    b3 = _conv_bn(_conv_bn(_conv_bn(x, 64, (1, 1)), 96, (3, 3)), 96, (3, 3))
    return _layers.Concatenate(axis=3, name=name)([b1, b5, b3, _avg_branch(x, pool_filters)])


def _inception_c(x, width: int, name: str):
    """The factorised 7x7 module (mixed4 to mixed7) with `width` inner filters."""
    b1 = _conv_bn(x, 192, (1, 1))
    b7 = _conv_bn(x, width, (1, 1))
    b7 = _conv_bn(_conv_bn(b7, width, (1, 7)), 192, (7, 1))
    d = _conv_bn(x, width, (1, 1))
    for kernel in ((7, 1), (1, 7), (7, 1)):
        d = _conv_bn(d, width, kernel)
    d = _conv_bn(d, 192, (1, 7))
    return _layers.Concatenate(axis=3, name=name)([b1, b7, d, _avg_branch(x, 192)])


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
                pooling=None, classes=1000, classifier_activation="softmax",
                name="inception_v3"):
    """Keras's InceptionV3 architecture (299x299 inputs by default, at least 75x75);
    weights=None or a weights file ('imagenet' cannot be downloaded here)."""
    _check(weights, classes, include_top, "InceptionV3")
    L = _layers
    inputs = _inputs(input_tensor, input_shape, (299, 299, 3), 75, include_top, "InceptionV3")
    x = _conv_bn(inputs, 32, (3, 3), strides=(2, 2), padding="valid")
    x = _conv_bn(x, 32, (3, 3), padding="valid")
    x = _conv_bn(x, 64, (3, 3))
    x = L.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _conv_bn(x, 80, (1, 1), padding="valid")
    x = _conv_bn(x, 192, (3, 3), padding="valid")
    x = L.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        x = _inception_a(x, pool_filters, f"mixed{i}")
    b3 = _conv_bn(x, 384, (3, 3), strides=(2, 2), padding="valid")
    d = _conv_bn(_conv_bn(x, 64, (1, 1)), 96, (3, 3))
    d = _conv_bn(d, 96, (3, 3), strides=(2, 2), padding="valid")
    x = L.Concatenate(axis=3, name="mixed3")([b3, d, L.MaxPooling2D((3, 3), strides=(2, 2))(x)])
    for i, width in enumerate((128, 160, 160, 192)):
        x = _inception_c(x, width, f"mixed{4 + i}")
    b3 = _conv_bn(_conv_bn(x, 192, (1, 1)), 320, (3, 3), strides=(2, 2), padding="valid")
    b7 = _conv_bn(_conv_bn(_conv_bn(x, 192, (1, 1)), 192, (1, 7)), 192, (7, 1))
    b7 = _conv_bn(b7, 192, (3, 3), strides=(2, 2), padding="valid")
    x = L.Concatenate(axis=3, name="mixed8")([b3, b7, L.MaxPooling2D((3, 3), strides=(2, 2))(x)])
    for i in range(2):
        b1 = _conv_bn(x, 320, (1, 1))
        b3 = _conv_bn(x, 384, (1, 1))
        b3 = L.Concatenate(axis=3, name=f"mixed9_{i}")(
            [_conv_bn(b3, 384, (1, 3)), _conv_bn(b3, 384, (3, 1))])
        d = _conv_bn(_conv_bn(x, 448, (1, 1)), 384, (3, 3))
        d = L.Concatenate(axis=3)([_conv_bn(d, 384, (1, 3)), _conv_bn(d, 384, (3, 1))])
        x = L.Concatenate(axis=3, name=f"mixed{9 + i}")([b1, b3, d, _avg_branch(x, 192)])
    outputs = _top(x, include_top, pooling, classes, classifier_activation)
    return _finish(inputs, outputs, name, weights)


# -- InceptionResNetV2 -------------------------------------------------------------------------

class CustomScaleLayer(_Layer):
    """inputs[0] + inputs[1] * scale: the scaled residual of InceptionResNetV2's blocks."""

    def __init__(self, scale, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def get_config(self):
        return {**super().get_config(), "scale": self.scale}

    def call(self, inputs):
        return inputs[0] + inputs[1] * self.scale


# per block type, its branches: each a list of (filters, kernel) convolutions from the input
_RESNET_BLOCKS = {
    "block35": [[(32, 1)], [(32, 1), (32, 3)], [(32, 1), (48, 3), (64, 3)]],
    "block17": [[(192, 1)], [(128, 1), (160, (1, 7)), (192, (7, 1))]],
    "block8": [[(192, 1)], [(192, 1), (224, (1, 3)), (256, (3, 1))]],
}


def _resnet_block(x, scale: float, block_type: str, block_idx: int, activation="relu"):
    L = _layers
    branches = []
    for convs in _RESNET_BLOCKS[block_type]:
        y = x
        for filters, kernel in convs:
            y = _conv_bn(y, filters, kernel, act_suffix="_ac")
        branches.append(y)
    block = f"{block_type}_{block_idx}"
    mixed = L.Concatenate(axis=3, name=f"{block}_mixed")(branches)
    up = _conv_bn(mixed, x.shape[3], 1, activation=None, use_bias=True, name=f"{block}_conv",
                  act_suffix="_ac")
    x = CustomScaleLayer(scale)([x, up])
    return x if activation is None else L.Activation(activation, name=f"{block}_ac")(x)


def InceptionResNetV2(include_top=True, weights="imagenet", input_tensor=None,
                      input_shape=None, pooling=None, classes=1000,
                      classifier_activation="softmax", name="inception_resnet_v2"):
    """Keras's InceptionResNetV2 architecture (299x299 inputs by default, at least 75x75);
    weights=None or a weights file ('imagenet' cannot be downloaded here)."""
    _check(weights, classes, include_top, "InceptionResNetV2")
    L = _layers
    inputs = _inputs(input_tensor, input_shape, (299, 299, 3), 75, include_top,
                     "InceptionResNetV2")

    def unit(t, filters, kernel, **kw):
        return _conv_bn(t, filters, kernel, act_suffix="_ac", **kw)
    x = unit(inputs, 32, 3, strides=2, padding="valid")
    x = unit(unit(x, 32, 3, padding="valid"), 64, 3)
    x = L.MaxPooling2D(3, strides=2)(x)
    x = unit(unit(x, 80, 1, padding="valid"), 192, 3, padding="valid")
    x = L.MaxPooling2D(3, strides=2)(x)
    b0 = unit(x, 96, 1)
    b1 = unit(unit(x, 48, 1), 64, 5)
    b2 = unit(unit(unit(x, 64, 1), 96, 3), 96, 3)
    pool = unit(L.AveragePooling2D(3, strides=1, padding="same")(x), 64, 1)
    x = L.Concatenate(axis=3, name="mixed_5b")([b0, b1, b2, pool])
    for idx in range(1, 11):
        x = _resnet_block(x, 0.17, "block35", idx)
    b0 = unit(x, 384, 3, strides=2, padding="valid")
    b1 = unit(unit(unit(x, 256, 1), 256, 3), 384, 3, strides=2, padding="valid")
    pool = L.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = L.Concatenate(axis=3, name="mixed_6a")([b0, b1, pool])
    for idx in range(1, 21):
        x = _resnet_block(x, 0.1, "block17", idx)
    b0 = unit(unit(x, 256, 1), 384, 3, strides=2, padding="valid")
    b1 = unit(unit(x, 256, 1), 288, 3, strides=2, padding="valid")
    b2 = unit(unit(unit(x, 256, 1), 288, 3), 320, 3, strides=2, padding="valid")
    pool = L.MaxPooling2D(3, strides=2, padding="valid")(x)
    x = L.Concatenate(axis=3, name="mixed_7a")([b0, b1, b2, pool])
    for idx in range(1, 10):
        x = _resnet_block(x, 0.2, "block8", idx)
    x = _resnet_block(x, 1.0, "block8", 10, activation=None)
    x = unit(x, 1536, 1, name="conv_7b")
    outputs = _top(x, include_top, pooling, classes, classifier_activation)
    return _finish(inputs, outputs, name, weights)


# -- NASNet ------------------------------------------------------------------------------------

def _nas_bn(name=None):
    return _layers.BatchNormalization(axis=-1, momentum=0.9997, epsilon=1e-3, name=name)


def _nas_conv(filters: int, name: str):
    return _layers.Conv2D(filters, (1, 1), strides=(1, 1), padding="same", use_bias=False,
                          kernel_initializer="he_normal", name=name)


def _separable_block(x, filters: int, kernel: int = 3, stride: int = 1, block_id: str = ""):
    L = _layers
    x = L.Activation("relu")(x)
    padding = "same"
    if stride == 2:
        x = L.ZeroPadding2D(padding=_correct_pad(x, kernel),
                            name=f"separable_conv_1_pad_{block_id}")(x)
        padding = "valid"
    x = L.SeparableConv2D(filters, (kernel, kernel), strides=(stride, stride), padding=padding,
                          use_bias=False, name=f"separable_conv_1_{block_id}")(x)
    x = L.Activation("relu")(_nas_bn(f"separable_conv_1_bn_{block_id}")(x))
    x = L.SeparableConv2D(filters, (kernel, kernel), padding="same", use_bias=False,
                          name=f"separable_conv_2_{block_id}")(x)
    return _nas_bn(f"separable_conv_2_bn_{block_id}")(x)


def _adjust(p, ip, filters: int, block_id: str):
    """The previous cell's output `p` brought to the size and width of `ip`."""
    L = _layers
    if p is None:
        return ip
    if p.shape[-2] != ip.shape[-2]:
        p = L.Activation("relu", name=f"adjust_relu_1_{block_id}")(p)
        p1 = L.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                name=f"adjust_avg_pool_1_{block_id}")(p)
        p1 = _nas_conv(filters // 2, f"adjust_conv_1_{block_id}")(p1)
        p2 = L.Cropping2D(cropping=((1, 0), (1, 0)))(L.ZeroPadding2D(((0, 1), (0, 1)))(p))
        p2 = L.AveragePooling2D((1, 1), strides=(2, 2), padding="valid",
                                name=f"adjust_avg_pool_2_{block_id}")(p2)
        p2 = _nas_conv(filters // 2, f"adjust_conv_2_{block_id}")(p2)
        return _nas_bn(f"adjust_bn_{block_id}")(L.Concatenate(axis=-1)([p1, p2]))
    if p.shape[-1] != filters:
        p = _nas_conv(filters, f"adjust_conv_projection_{block_id}")(L.Activation("relu")(p))
        return _nas_bn(f"adjust_bn_{block_id}")(p)
    return p


def _cell_input(ip, kind: str, filters: int, block_id: str):
    h = _nas_conv(filters, f"{kind}_conv_1_{block_id}")(_layers.Activation("relu")(ip))
    return _nas_bn(f"{kind}_bn_1_{block_id}")(h)


def _normal_cell(ip, p, filters: int, block_id: str):
    L = _layers
    p = _adjust(p, ip, filters, block_id)
    h = _cell_input(ip, "normal", filters, block_id)

    def pool(t, side):
        return L.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                                  name=f"normal_{side}_{block_id}")(t)
    x1 = L.Add(name=f"normal_add_1_{block_id}")(
        [_separable_block(h, filters, 5, block_id=f"normal_left1_{block_id}"),
         _separable_block(p, filters, block_id=f"normal_right1_{block_id}")])
    x2 = L.Add(name=f"normal_add_2_{block_id}")(
        [_separable_block(p, filters, 5, block_id=f"normal_left2_{block_id}"),
         _separable_block(p, filters, 3, block_id=f"normal_right2_{block_id}")])
    x3 = L.Add(name=f"normal_add_3_{block_id}")([pool(h, "left3"), p])
    x4 = L.Add(name=f"normal_add_4_{block_id}")([pool(p, "left4"), pool(p, "right4")])
    x5 = L.Add(name=f"normal_add_5_{block_id}")(
        [_separable_block(h, filters, block_id=f"normal_left5_{block_id}"), h])
    x = L.Concatenate(axis=-1, name=f"normal_concat_{block_id}")([p, x1, x2, x3, x4, x5])
    return x, ip


def _reduction_cell(ip, p, filters: int, block_id: str):
    L = _layers
    p = _adjust(p, ip, filters, block_id)
    h = _cell_input(ip, "reduction", filters, block_id)
    h3 = L.ZeroPadding2D(padding=_correct_pad(h, 3), name=f"reduction_pad_1_{block_id}")(h)

    def sep(t, kernel, label, stride=2):
        return _separable_block(t, filters, kernel, stride, f"reduction_{label}_{block_id}")

    def pool(kind, label):
        layer = L.MaxPooling2D if kind == "max" else L.AveragePooling2D
        return layer((3, 3), strides=(2, 2), padding="valid",
                     name=f"reduction_{label}_{block_id}")(h3)
    x1 = L.Add(name=f"reduction_add_1_{block_id}")([sep(h, 5, "left1"), sep(p, 7, "right1")])
    x2 = L.Add(name=f"reduction_add_2_{block_id}")([pool("max", "left2"), sep(p, 7, "right2")])
    x3 = L.Add(name=f"reduction_add3_{block_id}")([pool("avg", "left3"), sep(p, 5, "right3")])
    x4 = L.AveragePooling2D((3, 3), strides=(1, 1), padding="same",
                            name=f"reduction_left4_{block_id}")(x1)
    x4 = L.Add()([x2, x4])
    x5 = L.Add(name=f"reduction_add4_{block_id}")([sep(x1, 3, "left4", stride=1),
                                                     pool("max", "right5")])
    return L.Concatenate(axis=-1, name=f"reduction_concat_{block_id}")([x2, x3, x4, x5]), ip


def _nasnet(penultimate: int, blocks: int, stem: int, skip_reduction: bool, size: int,
            model_name: str, public: str) -> Callable:
    def build(input_shape=None, include_top=True, weights="imagenet", input_tensor=None,
              pooling=None, classes=1000, classifier_activation="softmax", name=model_name):
        _check(weights, classes, include_top, public)
        L = _layers
        if input_shape is None and not include_top and size == 224:
            input_shape = (224, 224, 3)  # NASNetMobile's default without the top, as Keras's
        inputs = _inputs(input_tensor, input_shape, (size, size, 3), 32, include_top, public)
        filters = penultimate // 24
        x = L.Conv2D(stem, (3, 3), strides=(2, 2), padding="valid", use_bias=False,
                     kernel_initializer="he_normal", name="stem_conv1")(inputs)
        x = _nas_bn("stem_bn1")(x)
        x, p = _reduction_cell(x, None, filters // 4, "stem_1")
        x, p = _reduction_cell(x, p, filters // 2, "stem_2")
        for stage in range(3):
            width = filters * 2 ** stage
            if stage:
                x, p0 = _reduction_cell(x, p, width, f"reduce_{stage * blocks}")
                p = p if skip_reduction else p0
            for i in range(blocks):
                x, p = _normal_cell(x, p, width, f"{stage * blocks + i + 1}" if stage else f"{i}")
        x = L.Activation("relu")(x)
        if include_top:
            x = L.GlobalAveragePooling2D()(x)
            outputs = L.Dense(classes, activation=classifier_activation, name="predictions")(x)
        else:
            outputs = _top(x, False, pooling, classes, classifier_activation)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, f" ({size}x{size} inputs by default)")


NASNetMobile = _nasnet(1056, 4, 32, False, 224, "nasnet_mobile", "NASNetMobile")
NASNetLarge = _nasnet(4032, 6, 96, True, 331, "nasnet_large", "NASNetLarge")


# -- EfficientNetV2 ----------------------------------------------------------------------------

_CONV_INIT = {"scale": 2.0, "mode": "fan_out", "distribution": "truncated_normal"}
_DENSE_INIT = {"scale": 1.0 / 3.0, "mode": "fan_out", "distribution": "uniform"}

# kernel 3 everywhere; (repeats, filters in, filters out, expansion, squeeze-excite ratio,
# strides, fused): the Fused-MBConv stages first
_V2_BASE = [(1, 32, 16, 1, 0, 1, True), (2, 16, 32, 4, 0, 2, True), (2, 32, 48, 4, 0, 2, True),
            (3, 48, 96, 4, 0.25, 2, False), (5, 96, 112, 6, 0.25, 1, False),
            (8, 112, 192, 6, 0.25, 2, False)]
_V2_PLANS = {
    "s": [(2, 24, 24, 1, 0, 1, True), (4, 24, 48, 4, 0, 2, True), (4, 48, 64, 4, 0, 2, True),
          (6, 64, 128, 4, 0.25, 2, False), (9, 128, 160, 6, 0.25, 1, False),
          (15, 160, 256, 6, 0.25, 2, False)],
    "m": [(3, 24, 24, 1, 0, 1, True), (5, 24, 48, 4, 0, 2, True), (5, 48, 80, 4, 0, 2, True),
          (7, 80, 160, 4, 0.25, 2, False), (14, 160, 176, 6, 0.25, 1, False),
          (18, 176, 304, 6, 0.25, 2, False), (5, 304, 512, 6, 0.25, 1, False)],
    "l": [(4, 32, 32, 1, 0, 1, True), (7, 32, 64, 4, 0, 2, True), (7, 64, 96, 4, 0, 2, True),
          (10, 96, 192, 4, 0.25, 2, False), (19, 192, 224, 6, 0.25, 1, False),
          (25, 224, 384, 6, 0.25, 2, False), (7, 384, 640, 6, 0.25, 1, False)],
}


def _v2_conv(filters: int, kernel: int, name: str, strides: int = 1, **kwargs):
    return _layers.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False,
                          kernel_initializer=_initializer({"config": _CONV_INIT}), name=name,
                          **kwargs)


def _v2_bn(name: str):
    return _layers.BatchNormalization(axis=3, momentum=0.9, name=name)


def _v2_block(inputs, f_in: int, f_out: int, expand: int, se_ratio: float, strides: int,
              fused: bool, drop_rate: float, name: str):
    """One (Fused-)MBConv block of EfficientNetV2, as Keras names its layers."""
    L = _layers
    filters = f_in * expand
    x = inputs
    if expand != 1:
        x = _v2_conv(filters, 3 if fused else 1, f"{name}expand_conv",
                     strides=strides if fused else 1)(x)
        x = L.Activation("swish", name=f"{name}expand_activation")(_v2_bn(f"{name}expand_bn")(x))
    if not fused:
        x = L.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False,
                              depthwise_initializer=_initializer({"config": _CONV_INIT}),
                              name=f"{name}dwconv2")(x)
        x = L.Activation("swish", name=f"{name}activation")(_v2_bn(f"{name}bn")(x))
    if 0 < se_ratio <= 1:
        se = L.GlobalAveragePooling2D(name=f"{name}se_squeeze")(x)
        se = L.Reshape((1, 1, filters), name=f"{name}se_reshape")(se)
        se = L.Conv2D(max(1, int(f_in * se_ratio)), 1, padding="same", activation="swish",
                      kernel_initializer=_initializer({"config": _CONV_INIT}),
                      name=f"{name}se_reduce")(se)
        se = L.Conv2D(filters, 1, padding="same", activation="sigmoid",
                      kernel_initializer=_initializer({"config": _CONV_INIT}),
                      name=f"{name}se_expand")(se)
        x = L.Multiply(name=f"{name}se_excite")([x, se])
    single = fused and expand == 1  # a fused block without expansion projects with its 3x3
    x = _v2_conv(f_out, 3 if single else 1, f"{name}project_conv",
                 strides=strides if single else 1)(x)
    x = _v2_bn(f"{name}project_bn")(x)
    if single:
        x = L.Activation("swish", name=f"{name}project_activation")(x)
    if strides == 1 and f_in == f_out:
        if drop_rate:
            x = L.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=f"{name}drop")(x)
        x = L.Add(name=f"{name}add")([x, inputs])
    return x


def _efficientnet_v2(width: float, depth: float, size: int, variant: str,
                     public: str) -> Callable:
    plan = _V2_PLANS.get(variant, _V2_BASE)
    model_name = f"efficientnetv2-{variant}"

    def round_filters(filters: float) -> int:
        return int(max(8, int(filters * width + 4) // 8 * 8))

    def build(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,
              pooling=None, classes=1000, classifier_activation="softmax",
              include_preprocessing=True, name=model_name):
        _check(weights, classes, include_top, public)
        L = _layers
        inputs = _inputs(input_tensor, input_shape, (size, size, 3), 32, include_top, public)
        x = inputs
        if include_preprocessing:
            if variant.startswith("b") and inputs.shape[-1] == 3:
                x = L.Rescaling(scale=1.0 / 255)(x)
                x = L.Normalization(mean=[0.485, 0.456, 0.406],
                                    variance=[0.229 ** 2, 0.224 ** 2, 0.225 ** 2], axis=3)(x)
            else:
                x = L.Rescaling(scale=1.0 / 128.0, offset=-1)(x)
        x = _v2_conv(round_filters(plan[0][1]), 3, "stem_conv", strides=2)(x)
        x = L.Activation("swish", name="stem_activation")(_v2_bn("stem_bn")(x))
        total = float(sum(stage[0] for stage in plan))
        done = 0
        for i, (repeats, f_in, f_out, expand, se_ratio, stride, fused) in enumerate(plan):
            f_in, f_out = round_filters(f_in), round_filters(f_out)
            for j in range(int(math.ceil(depth * repeats))):
                x = _v2_block(x, f_in if j == 0 else f_out, f_out, expand, se_ratio,
                              stride if j == 0 else 1, fused, 0.2 * done / total,
                              f"block{i + 1}{chr(j + 97)}_")
                done += 1
        x = _v2_conv(round_filters(1280), 1, "top_conv")(x)
        x = L.Activation("swish", name="top_activation")(_v2_bn("top_bn")(x))

        def v2_top(t):
            t = L.GlobalAveragePooling2D(name="avg_pool")(t)
            t = L.Dropout(0.2, name="top_dropout")(t)
            return L.Dense(classes, activation=classifier_activation,
                           kernel_initializer=_initializer({"config": _DENSE_INIT}),
                           bias_initializer="zeros", name="predictions")(t)
        outputs = _top(x, include_top, pooling, classes, classifier_activation, v2_top,
                       named_pools=True)
        return _finish(inputs, outputs, name, weights)
    return _published(build, public, " (its input scaling included with include_preprocessing: "
                      "pixels in [0, 255])")


EfficientNetV2B0 = _efficientnet_v2(1.0, 1.0, 224, "b0", "EfficientNetV2B0")
EfficientNetV2B1 = _efficientnet_v2(1.0, 1.1, 240, "b1", "EfficientNetV2B1")
EfficientNetV2B2 = _efficientnet_v2(1.1, 1.2, 260, "b2", "EfficientNetV2B2")
EfficientNetV2B3 = _efficientnet_v2(1.2, 1.4, 300, "b3", "EfficientNetV2B3")
EfficientNetV2S = _efficientnet_v2(1.0, 1.0, 384, "s", "EfficientNetV2S")
EfficientNetV2M = _efficientnet_v2(1.0, 1.0, 480, "m", "EfficientNetV2M")
EfficientNetV2L = _efficientnet_v2(1.0, 1.0, 480, "l", "EfficientNetV2L")
