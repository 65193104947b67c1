"""`keras.applications.xception`: the input scaling its models expect ("tf" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding; the models
are built by `builders` (weights=None; ImageNet weights cannot be downloaded here)."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions

Xception = _builders.Xception


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled as Xception expects."""
    return _utils.preprocess_input(x, data_format=data_format, mode="tf")


__all__ = ["preprocess_input", "decode_predictions", "Xception"]
