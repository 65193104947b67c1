"""`keras.applications.efficientnet`: EfficientNetB0 to B7 (built by `builders`, their input
scaling inside the model; ImageNet weights cannot be downloaded here), the ImageNet
decoding, and `preprocess_input`, which returns its input (the models scale pixels in
[0, 255] themselves), as Keras's."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions
EfficientNetB0, EfficientNetB1 = _builders.EfficientNetB0, _builders.EfficientNetB1
EfficientNetB2, EfficientNetB3 = _builders.EfficientNetB2, _builders.EfficientNetB3
EfficientNetB4, EfficientNetB5 = _builders.EfficientNetB4, _builders.EfficientNetB5
EfficientNetB6, EfficientNetB7 = _builders.EfficientNetB6, _builders.EfficientNetB7


def preprocess_input(x, data_format: str | None = None):
    """`x` unchanged: the EfficientNet models take pixels in [0, 255] and scale them."""
    return x


__all__ = ["preprocess_input", "decode_predictions", "EfficientNetB0", "EfficientNetB1",
           "EfficientNetB2", "EfficientNetB3", "EfficientNetB4", "EfficientNetB5",
           "EfficientNetB6", "EfficientNetB7"]
