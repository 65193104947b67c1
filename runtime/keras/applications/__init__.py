"""`keras.applications`: the ImageNet models' input scalings (`<model>.preprocess_input`)
and prediction decoding (`decode_predictions`), as Keras 3's. The models and their
pretrained weights are not offered here: calling `MobileNetV2(...)`, `VGG19(...)`, ... raises
NotImplementedError naming the model."""

from __future__ import annotations

from . import (
    densenet,
    imagenet_utils,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    resnet,
    resnet50,
    vgg16,
    vgg19,
    xception,
)
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .inception_v3 import InceptionV3
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .resnet import ResNet101, ResNet152
from .resnet50 import ResNet50
from .vgg16 import VGG16
from .vgg19 import VGG19
from .xception import Xception

__all__ = ["densenet", "imagenet_utils", "inception_v3", "mobilenet", "mobilenet_v2", "resnet",
           "resnet50", "vgg16", "vgg19", "xception", "DenseNet121", "DenseNet169",
           "DenseNet201", "InceptionV3", "MobileNet", "MobileNetV2", "ResNet50", "ResNet101",
           "ResNet152", "VGG16", "VGG19", "Xception"]
