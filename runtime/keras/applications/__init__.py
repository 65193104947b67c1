"""`keras.applications`: the ImageNet models' input scalings (`<model>.preprocess_input`)
and prediction decoding (`decode_predictions`), as Keras 3's. VGG16/19, ResNet50/101/152
and their V2 forms, MobileNet, MobileNetV2 / V3, EfficientNetB0-B7, ConvNeXt, DenseNet121/169/201 and
Xception are built with Keras's architecture (`builders`), InceptionV3, InceptionResNetV2,
NASNetMobile / Large and EfficientNetV2B0-B3 / S / M / L too (`more_builders`): `weights=None`,
or the path of a weights file (ImageNet weights cannot be downloaded here)."""

from __future__ import annotations

from . import (
    convnext,
    densenet,
    efficientnet,
    efficientnet_v2,
    imagenet_utils,
    inception_resnet_v2,
    inception_v3,
    mobilenet,
    mobilenet_v2,
    mobilenet_v3,
    nasnet,
    resnet,
    resnet50,
    resnet_v2,
    vgg16,
    vgg19,
    xception,
)
from .convnext import ConvNeXtBase, ConvNeXtLarge, ConvNeXtSmall, ConvNeXtTiny, ConvNeXtXLarge
from .densenet import DenseNet121, DenseNet169, DenseNet201
from .efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from .efficientnet_v2 import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)
from .inception_resnet_v2 import InceptionResNetV2
from .inception_v3 import InceptionV3
from .mobilenet import MobileNet
from .mobilenet_v2 import MobileNetV2
from .mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from .nasnet import NASNetLarge, NASNetMobile
from .resnet import ResNet101, ResNet152
from .resnet50 import ResNet50
from .resnet_v2 import ResNet50V2, ResNet101V2, ResNet152V2
from .vgg16 import VGG16
from .vgg19 import VGG19
from .xception import Xception

__all__ = ["densenet", "imagenet_utils", "inception_v3", "mobilenet", "mobilenet_v2", "resnet",
           "resnet50", "vgg16", "vgg19", "xception", "DenseNet121", "DenseNet169",
           "DenseNet201", "InceptionV3", "MobileNet", "MobileNetV2", "ResNet50", "ResNet101",
           "ResNet152", "VGG16", "VGG19", "Xception", "resnet_v2", "ResNet50V2", "ResNet101V2",
           "ResNet152V2", "efficientnet", "EfficientNetB0", "EfficientNetB1", "EfficientNetB2",
           "EfficientNetB3", "EfficientNetB4", "EfficientNetB5", "EfficientNetB6",
           "EfficientNetB7", "mobilenet_v3", "MobileNetV3Large", "MobileNetV3Small", "convnext",
           "ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge",
           "efficientnet_v2", "EfficientNetV2B0", "EfficientNetV2B1", "EfficientNetV2B2",
           "EfficientNetV2B3", "EfficientNetV2S", "EfficientNetV2M", "EfficientNetV2L",
           "inception_resnet_v2", "InceptionResNetV2", "nasnet", "NASNetMobile", "NASNetLarge"]
