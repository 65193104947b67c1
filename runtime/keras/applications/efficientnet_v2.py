"""`keras.applications.efficientnet_v2`: EfficientNetV2B0 to B3, S, M and L (built by
`more_builders`, their input scaling inside the model with `include_preprocessing`; ImageNet
weights cannot be downloaded here), the ImageNet decoding, and `preprocess_input`, which
returns its input (the models scale pixels in [0, 255] themselves), as Keras's."""

from __future__ import annotations

from . import imagenet_utils as _utils
from .more_builders import (
    EfficientNetV2B0,
    EfficientNetV2B1,
    EfficientNetV2B2,
    EfficientNetV2B3,
    EfficientNetV2L,
    EfficientNetV2M,
    EfficientNetV2S,
)

decode_predictions = _utils.decode_predictions


def preprocess_input(x, data_format: str | None = None):
    """`x` unchanged: the EfficientNetV2 models take pixels in [0, 255] and scale them."""
    return x


__all__ = ["preprocess_input", "decode_predictions", "EfficientNetV2B0", "EfficientNetV2B1",
           "EfficientNetV2B2", "EfficientNetV2B3", "EfficientNetV2S", "EfficientNetV2M",
           "EfficientNetV2L"]
