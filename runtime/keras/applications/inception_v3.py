"""`keras.applications.inception_v3`: InceptionV3 (built by `more_builders`; ImageNet
weights cannot be downloaded here), the input scaling it expects ("tf" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding, as Keras's."""

from __future__ import annotations

from . import imagenet_utils as _utils
from .more_builders import InceptionV3

decode_predictions = _utils.decode_predictions


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled to [-1, 1], as InceptionV3 expects."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


__all__ = ["preprocess_input", "decode_predictions", "InceptionV3"]
