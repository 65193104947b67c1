"""`keras.applications.convnext`: ConvNeXtTiny, Small, Base, Large and XLarge (built by
`builders`, the ImageNet normalisation inside with `include_preprocessing`; ImageNet weights
cannot be downloaded here), the ImageNet decoding, and `preprocess_input`, which returns its
input, as Keras's."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions
ConvNeXtTiny, ConvNeXtSmall = _builders.ConvNeXtTiny, _builders.ConvNeXtSmall
ConvNeXtBase, ConvNeXtLarge = _builders.ConvNeXtBase, _builders.ConvNeXtLarge
ConvNeXtXLarge = _builders.ConvNeXtXLarge


def preprocess_input(x, data_format: str | None = None):
    """`x` unchanged: the ConvNeXt models take pixels in [0, 255] and normalise them."""
    return x


__all__ = ["preprocess_input", "decode_predictions", "ConvNeXtTiny", "ConvNeXtSmall",
           "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge"]
