"""`keras.applications.resnet_v2`: ResNet50V2, ResNet101V2 and ResNet152V2 (built by
`builders`; ImageNet weights cannot be downloaded here), the input scaling they expect ("tf"
mode: pixels to [-1, 1]) and the ImageNet decoding."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions
ResNet50V2, ResNet101V2, ResNet152V2 = (_builders.ResNet50V2, _builders.ResNet101V2,
                                        _builders.ResNet152V2)


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled to [-1, 1], as the ResNetV2 models expect."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


__all__ = ["preprocess_input", "decode_predictions", "ResNet50V2", "ResNet101V2",
           "ResNet152V2"]
