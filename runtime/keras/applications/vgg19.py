"""`keras.applications.vgg19`: the input scaling its models expect ("caffe" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding; the model is built
by `builders` (weights=None; ImageNet weights cannot be downloaded here)."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions

VGG19 = _builders.VGG19


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled as VGG19 expects."""
    return _utils.preprocess_input(x, data_format=data_format, mode="caffe")


__all__ = ["preprocess_input", "decode_predictions", "VGG19"]
