"""`keras.applications.resnet`: the input scaling its models expect ("caffe" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding; the models themselves
are not offered (calling one raises NotImplementedError)."""

from __future__ import annotations

from . import imagenet_utils as _utils
from .resnet50 import ResNet50  # one constructor for both modules

decode_predictions = _utils.decode_predictions

ResNet101 = _utils._refused_model("ResNet101")
ResNet152 = _utils._refused_model("ResNet152")


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled as ResNet50, ResNet101, ResNet152 expect."""
    return _utils.preprocess_input(x, data_format=data_format, mode="caffe")


__all__ = ["preprocess_input", "decode_predictions", "ResNet50", "ResNet101", "ResNet152"]
