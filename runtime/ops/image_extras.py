"""More of `tf.image` / `tf.io`: JPEG re-compression (`adjust_jpeg_quality` and its random
and stateless random forms) and `decode_webp`, both through Pillow (an optional dependency,
imported when the first image is processed, as rt.io's JPEG codec).

Difference from TensorFlow: the JPEG round trip is Pillow's libjpeg, not TensorFlow's, so the
re-compressed pixels may differ from TensorFlow's by the codecs' rounding; the quality drawn
by `stateless_random_jpeg_quality` is TensorFlow's (the stateless draws are Philox's).
"""

from __future__ import annotations

import io as _io

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..shapes import TensorSpec
from ..tensor import Tensor
from . import random as _random
from . import random_stateless as _stateless
from .core import convert_to_tensor
from .image import convert_image_dtype
from .io_image import pillow, sniff
from .py_function import numpy_function

_WEBP_UNKNOWN = "Unknown image file format. One of JPEG, PNG, GIF, BMP, WebP required."


# -- JPEG quality --------------------------------------------------------------------------

def _recompress(image, quality):
    image = np.asarray(image)
    quality = int(quality)
    if image.ndim != 3:
        raise InvalidArgumentError(f"image must be 3-dimensional{list(image.shape)}")
    if image.shape[-1] not in (1, 3):
        raise InvalidArgumentError(f"image must have 1 or 3 channels, got {list(image.shape)}")
    if not 0 <= quality <= 100:
        raise InvalidArgumentError(f"quality must be in [0,100], got {quality}")
    Image = pillow("JPEG re-compression (image.adjust_jpeg_quality)")  # noqa: N806
    picture = Image.fromarray(image[..., 0] if image.shape[-1] == 1 else image)
    buffer = _io.BytesIO()
    picture.save(buffer, format="JPEG", quality=quality)
    decoded = np.asarray(Image.open(_io.BytesIO(buffer.getvalue())).convert(picture.mode))
    return decoded.reshape(image.shape).astype(np.uint8)


def _jpeg_round_trip(image, quality, fn: str):
    x = convert_to_tensor(image)
    if x.shape.rank is not None and x.shape.rank != 3:
        raise InvalidArgumentError(f"{fn}: image must be 3-dimensional [height, width, "
                                   f"channels], got shape {x.shape}.")
    pixels = convert_image_dtype(x, _dtypes.uint8, saturate=True)
    q = convert_to_tensor(quality, _dtypes.int32)
    known = q.shape.rank
    if known not in (None, 0):
        raise ValueError(f"{fn}: `jpeg_quality` must be a scalar, got shape {q.shape}.")
    out = numpy_function(_recompress, [pixels, q], TensorSpec(x.shape, _dtypes.uint8),
                         stateful=False)
    return convert_image_dtype(out, x.dtype, saturate=True)


@export("image.adjust_jpeg_quality")
def adjust_jpeg_quality(image, jpeg_quality, dct_method="", name=None) -> Tensor:
    """The image (`[height, width, 1 or 3]`, any image dtype) after a round trip through JPEG
    at `jpeg_quality` (0 to 100, a scalar tensor too), in the image's dtype. `dct_method` is
    a hint, as for `decode_jpeg`."""
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise ValueError(f"`dct_method` must be '', 'INTEGER_FAST' or 'INTEGER_ACCURATE', got "
                         f"{dct_method!r}.")
    return _jpeg_round_trip(image, jpeg_quality, "adjust_jpeg_quality")


def _check_quality_range(min_jpeg_quality, max_jpeg_quality):
    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100
            or max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")


@export("image.random_jpeg_quality")
def random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality, seed=None) -> Tensor:
    """`adjust_jpeg_quality` at a quality drawn uniformly from the integers in
    `[min_jpeg_quality, max_jpeg_quality)`, afresh at each call."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = _random.uniform([], min_jpeg_quality, max_jpeg_quality, dtype=_dtypes.int32,
                              seed=seed)
    return _jpeg_round_trip(image, quality, "random_jpeg_quality")


@export("image.stateless_random_jpeg_quality")
def stateless_random_jpeg_quality(image, min_jpeg_quality, max_jpeg_quality,
                                  seed) -> Tensor:
    """`random_jpeg_quality` whose quality is a function of `seed` (a pair of ints): the
    quality TensorFlow draws for that seed."""
    _check_quality_range(min_jpeg_quality, max_jpeg_quality)
    quality = _stateless.stateless_uniform([], seed, min_jpeg_quality, max_jpeg_quality,
                                           dtype=_dtypes.int32)
    return _jpeg_round_trip(image, quality, "stateless_random_jpeg_quality")


# -- WebP ----------------------------------------------------------------------------------

def _webp_kernel(channels: int):
    def kernel(contents):
        data = contents.item() if isinstance(contents, np.ndarray) else contents
        data = data if isinstance(data, bytes) else bytes(data)
        if sniff(data) != "webp":
            raise InvalidArgumentError(_WEBP_UNKNOWN)
        Image = pillow("Decoding WebP images")  # noqa: N806
        try:
            picture = Image.open(_io.BytesIO(data))
            picture.load()
        except Exception as exc:  # Pillow raises OSError, ValueError, ...
            raise InvalidArgumentError(f"Invalid WebP data, size {len(data)}: {exc}") from None
        mode = "RGBA" if ("A" in picture.mode or "transparency" in picture.info) else "RGB"
        native = len(mode)
        if channels not in (0, native):
            raise InvalidArgumentError("Number of channels requested does not match input")
        frames = []
        for index in range(getattr(picture, "n_frames", 1)):
            picture.seek(index)
            frames.append(np.asarray(picture.convert(mode), np.uint8))
        return np.stack(frames)
    return kernel


@export("io.decode_webp", "image.decode_webp")
def decode_webp(contents, channels=0, dtype=_dtypes.uint8, name=None) -> Tensor:
    """The frames of the WebP image in the scalar string `contents`: uint8 `[frames, height,
    width, channels]` (one frame for a still image). `channels` 0 keeps the file's (3 RGB or
    4 RGBA); 3 or 4 must match it."""
    if int(channels) not in (0, 3, 4):
        raise ValueError(f"`channels` must be 0, 3 or 4, got {channels}.")
    if _dtypes.as_dtype(dtype) != _dtypes.uint8:
        raise TypeError(f"decode_webp: `dtype` must be uint8, got {_dtypes.as_dtype(dtype).name}.")
    x = convert_to_tensor(contents, _dtypes.string)
    if x.shape.rank not in (None, 0):
        raise ValueError(f"decode_webp: `contents` must be a scalar string, got shape {x.shape}.")
    return numpy_function(_webp_kernel(int(channels)), [x],
                          TensorSpec([None, None, None, int(channels) or None], _dtypes.uint8),
                          stateful=False)
