"""`keras.applications.densenet`: the input scaling its models expect ("torch" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding; the models
are built by `builders` (weights=None; ImageNet weights cannot be downloaded here)."""

from __future__ import annotations

from . import builders as _builders
from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions

DenseNet121 = _builders.DenseNet121
DenseNet169 = _builders.DenseNet169
DenseNet201 = _builders.DenseNet201


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled as DenseNet121, DenseNet169, DenseNet201 expect."""
    return _utils.preprocess_input(x, data_format=data_format, mode="torch")


__all__ = ["preprocess_input", "decode_predictions", "DenseNet121", "DenseNet169", "DenseNet201"]
