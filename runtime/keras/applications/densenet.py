"""`keras.applications.densenet`: the input scaling its models expect ("torch" mode of
`imagenet_utils.preprocess_input`) and the ImageNet decoding; the models themselves
are not offered (calling one raises NotImplementedError)."""

from __future__ import annotations

from . import imagenet_utils as _utils

decode_predictions = _utils.decode_predictions

DenseNet121 = _utils._refused_model("DenseNet121")
DenseNet169 = _utils._refused_model("DenseNet169")
DenseNet201 = _utils._refused_model("DenseNet201")


def preprocess_input(x, data_format: str | None = None):
    """`x` (pixels in [0, 255]) scaled as DenseNet121, DenseNet169, DenseNet201 expect."""
    return _utils.preprocess_input(x, data_format=data_format, mode="torch")


__all__ = ["preprocess_input", "decode_predictions", "DenseNet121", "DenseNet169", "DenseNet201"]
