"""`keras.applications.mobilenet_v3`: the ImageNet decoding and `preprocess_input`, which
returns its input (MobileNetV3Small / MobileNetV3Large scale pixels in [0, 255] themselves,
with `include_preprocessing`), as Keras's; the models are `keras.applications`'."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions
MobileNetV3Small, MobileNetV3Large = _builders.MobileNetV3Small, _builders.MobileNetV3Large


def preprocess_input(x, data_format: str | None = None):
    """`x` unchanged: the MobileNetV3 models take pixels in [0, 255] and scale them."""
    return x


__all__ = ["preprocess_input", "decode_predictions"]
