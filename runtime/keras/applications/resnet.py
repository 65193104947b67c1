"""`keras.applications.resnet`: the input scaling its models expect ("caffe" mode of
`imagenet_utils.preprocess_input`), the ImageNet decoding, and the models (built by
`builders`; ImageNet weights cannot be downloaded here)."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils
from .resnet50 import ResNet50  # one constructor for both modules

decode_predictions = _utils.decode_predictions

ResNet101, ResNet152 = _builders.ResNet101, _builders.ResNet152


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled as ResNet50, ResNet101, ResNet152 expect."""
    return _utils.preprocess_input(x, data_format=data_format, mode="caffe")


__all__ = ["preprocess_input", "decode_predictions", "ResNet50", "ResNet101", "ResNet152"]
