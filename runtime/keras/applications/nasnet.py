"""`keras.applications.nasnet`: NASNetMobile and NASNetLarge (built by `more_builders`;
ImageNet weights cannot be downloaded here), the input scaling they expect ("tf" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding, as Keras's."""

from __future__ import annotations

from . import imagenet_utils as _utils
from .more_builders import NASNetLarge, NASNetMobile

decode_predictions = _utils.decode_predictions


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled to [-1, 1], as the NASNet models expect."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


__all__ = ["preprocess_input", "decode_predictions", "NASNetMobile", "NASNetLarge"]
