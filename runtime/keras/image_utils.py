"""`keras.utils.image_dataset_from_directory` and the Pillow image helpers `load_img`,
`img_to_array`, `array_to_img`, `save_img` (also `keras.preprocessing.image.*`), as Keras 3
has them on TensorFlow.

`image_dataset_from_directory` lists the files as Keras does (`dataset_sources.index_directory`:
class folders in alphanumeric order, files sorted, the same seeded NumPy shuffle, so
`file_paths` and a validation split hold the same files) and decodes each in `Dataset.map`
with `rt.io.decode_image`, resized as `tf.image.resize` (half-pixel centers, no
antialiasing). Its dataset's own `shuffle` draws from this runtime's generator: the order
within an epoch differs from TensorFlow's.
"""

from __future__ import annotations

import io
import math
import os
import pathlib
import warnings
from typing import Any, Optional

import numpy as np

from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..data import AUTOTUNE, Dataset
from ..layers.preprocessing.image import resize_weights
from ..ops.io import read_file
from ..ops.io_image import decode_image, pillow
from ..ops.py_function import numpy_function
from .dataset_sources import check_labels, check_validation_split, index_directory, label_array, split_for

ALLOWLIST_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")  # Keras's, lower case
_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                   "mitchellcubic")
_CHANNELS = {"rgb": 3, "rgba": 4, "grayscale": 1}


# -- decoding and resizing in the dataset ------------------------------------------------------

def _pad_box(height: int, width: int, target_h: int, target_w: int):
    """(resized h, resized w, top, left) of `tf.image.resize_with_pad`."""
    ratio = max(width / target_w, height / target_h)
    new_h, new_w = math.floor(height / ratio), math.floor(width / ratio)
    top = max(0, math.floor((target_h - height / ratio) / 2))
    left = max(0, math.floor((target_w - width / ratio) / 2))
    return new_h, new_w, top, left


def _crop(image: np.ndarray, target_h: int, target_w: int) -> np.ndarray:
    """Keras's `smart_resize` crop: the largest centered window of the target's aspect."""
    height, width = image.shape[:2]
    crop_h = max(min(height, int(float(width * target_h) / target_w)), 1)
    crop_w = max(min(width, int(float(height * target_w) / target_h)), 1)
    top, left = int(float(height - crop_h) / 2), int(float(width - crop_w) / 2)
    return image[top:top + crop_h, left:left + crop_w]


def _lerp(x: np.ndarray, axis: int, n_out: int) -> np.ndarray:
    """`x` linearly resampled to `n_out` samples along `axis` (half-pixel centers), in
    float32 as TensorFlow's kernel: `a + (b - a) * fraction`."""
    n_in = x.shape[axis]
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    low = np.floor(src)
    a = np.take(x, np.clip(low, 0, n_in - 1).astype(np.intp), axis=axis)
    b = np.take(x, np.clip(np.ceil(src), 0, n_in - 1).astype(np.intp), axis=axis)
    shape = [1] * x.ndim
    shape[axis] = n_out
    return a + (b - a) * (src - low).astype(np.float32).reshape(shape)


def _resize(image: np.ndarray, height: int, width: int, method: str) -> np.ndarray:
    """[h, w, c] to [height, width, c]: bilinear by two taps (along the width, then the
    height, as TensorFlow), other methods by their separable weight matrices."""
    if method == "bilinear":
        return _lerp(_lerp(image.astype(np.float32), 1, width), 0, height)
    rows = resize_weights(image.shape[0], height, method).astype(np.float32)
    cols = resize_weights(image.shape[1], width, method).astype(np.float32)
    flat = rows @ image.reshape(image.shape[0], -1).astype(np.float32)
    out = np.matmul(cols, flat.reshape(height, image.shape[1], -1))
    return out.astype(image.dtype) if method == "nearest" else out


def resize_image(image: np.ndarray, size: tuple[int, int], method: str,
                 crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False
                 ) -> np.ndarray:
    """One decoded image [h, w, c] at `size` as Keras's loader makes it: `tf.image.resize`
    (nearest keeps the dtype, the other methods give float32), after a centered crop to the
    target's aspect ratio, or fitted inside it and zero-padded (`resize_with_pad`)."""
    target_h, target_w = size
    if crop_to_aspect_ratio:
        image = _crop(image, target_h, target_w)
    elif pad_to_aspect_ratio:
        new_h, new_w, top, left = _pad_box(image.shape[0], image.shape[1], target_h, target_w)
        inner = _resize(image, new_h, new_w, method)
        out = np.zeros((target_h, target_w, image.shape[2]), inner.dtype)
        out[top:top + new_h, left:left + new_w] = inner
        return out
    return _resize(image, target_h, target_w, method)


def _loader(size, channels, method, data_format, crop, pad):
    dtype = _dtypes.uint8 if method == "nearest" else _dtypes.float32
    shape = [size[0], size[1], channels]
    if data_format == "channels_first":
        shape = [channels, size[0], size[1]]

    def resize(image):
        out = resize_image(image, size, method, crop, pad)
        return out.transpose(2, 0, 1) if data_format == "channels_first" else out

    def load(path):
        image = decode_image(read_file(path), channels=channels, expand_animations=False)
        out = numpy_function(resize, [image], dtype, stateful=False)
        out.set_shape(shape)
        return out
    return load


def _paths_and_labels_to_dataset(paths, labels, label_mode, num_classes, load, shuffle: bool,
                                 buffer_size: int, seed) -> Dataset:
    path_ds = Dataset.from_tensor_slices(np.array(paths, dtype=object))
    if label_mode:
        label_ds = Dataset.from_tensor_slices(label_array(labels, label_mode, num_classes))
        ds = Dataset.zip((path_ds, label_ds))
    else:
        ds = path_ds
    if shuffle:
        ds = ds.shuffle(buffer_size=buffer_size, seed=seed)
    if label_mode:
        return ds.map(lambda x, y: (load(x), y), num_parallel_calls=AUTOTUNE)
    return ds.map(load, num_parallel_calls=AUTOTUNE)


def _check_arguments(labels, label_mode, class_names, color_mode, image_size, interpolation,
                     data_format, format, crop, pad) -> tuple:
    check_labels(labels, label_mode, class_names, "image")
    if color_mode not in _CHANNELS:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    if isinstance(image_size, int):
        image_size = (image_size, image_size)
    elif not isinstance(image_size, (list, tuple)) or len(image_size) != 2:
        raise ValueError("Invalid `image_size` value. Expected a tuple of 2 integers. "
                         f"Received: image_size={image_size}")
    method = str(interpolation).lower()
    if method not in _INTERPOLATIONS:
        raise ValueError(f"Argument `interpolation` should be one of {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    if method not in ("bilinear", "nearest", "bicubic", "area"):
        raise NotImplementedError(f"interpolation={interpolation!r} is not implemented here; "
                                  "use 'bilinear', 'nearest', 'bicubic' or 'area'.")
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError("`data_format` must be 'channels_last' or 'channels_first', got "
                         f"data_format={data_format!r}.")
    if format != "tf":
        if format == "grain":
            raise NotImplementedError('format="grain" is not offered here; use format="tf".')
        raise ValueError(f'`format` should be either "tf" or "grain". Received: format={format}')
    if crop and pad:
        raise ValueError("Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio` can be set "
                         "to `True`.")
    return (int(image_size[0]), int(image_size[1])), method


@strict_keywords("image_dataset_from_directory")
def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None,
                                 color_mode: str = "rgb", batch_size: Optional[int] = 32,
                                 image_size=(256, 256), shuffle: bool = True,
                                 seed: Optional[int] = None,
                                 validation_split: Optional[float] = None,
                                 subset: Optional[str] = None, interpolation: str = "bilinear",
                                 follow_links: bool = False, crop_to_aspect_ratio: bool = False,
                                 pad_to_aspect_ratio: bool = False, data_format=None,
                                 format: str = "tf", verbose: bool = True):
    """A `Dataset` of (image, label) batches from the image files (.bmp .gif .jpeg .jpg .png)
    under `directory`, one subdirectory per class (`labels="inferred"`), as Keras 3 builds it:
    images float32 [batch, *image_size, channels] (uint8 with interpolation "nearest"),
    labels int32 / one-hot float32 ("categorical") / float32 [batch, 1] ("binary").
    `.class_names` and `.file_paths` are set; `subset="both"` returns (training, validation).
    """
    size, method = _check_arguments(labels, label_mode, class_names, color_mode, image_size,
                                    interpolation, data_format, format, crop_to_aspect_ratio,
                                    pad_to_aspect_ratio)
    if labels is None or label_mode is None:
        labels, label_mode = None, None
    check_validation_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, labels, class_names = index_directory(
        os.fspath(directory), labels, ALLOWLIST_FORMATS, class_names=class_names,
        shuffle=shuffle, seed=seed, follow_links=follow_links, verbose=verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={class_names}")
    load = _loader(size, _CHANNELS[color_mode], method, data_format or "channels_last",
                   crop_to_aspect_ratio, pad_to_aspect_ratio)
    buffer_size = batch_size * 8 if batch_size is not None else 1024
    num_classes = len(class_names) if class_names else 0

    def build(part: str, shuffled: bool):
        part_paths, part_labels = split_for(paths, labels, validation_split, part)
        if not part_paths:
            what = {"training": "training images", "validation": "validation images"}.get(
                part, "images")
            raise ValueError(f"No {what} found in directory {directory}. Allowed formats: "
                             f"{ALLOWLIST_FORMATS}")
        ds = _paths_and_labels_to_dataset(part_paths, part_labels, label_mode, num_classes,
                                          load, shuffled, buffer_size, seed)
        if batch_size is not None:
            ds = ds.batch(batch_size)
        ds = ds.prefetch(AUTOTUNE)
        ds.class_names, ds.file_paths = class_names, list(part_paths)
        return ds

    if subset == "both":
        return [build("training", shuffle), build("validation", False)]
    return build(subset, shuffle)


# -- Pillow helpers -----------------------------------------------------------------------------

def _resampling(name: str):
    image = pillow("keras.utils.load_img")
    methods = {"nearest": image.Resampling.NEAREST, "bilinear": image.Resampling.BILINEAR,
               "bicubic": image.Resampling.BICUBIC, "hamming": image.Resampling.HAMMING,
               "box": image.Resampling.BOX, "lanczos": image.Resampling.LANCZOS}
    if name not in methods:
        raise ValueError(f"Invalid interpolation method {name} specified. Supported methods "
                         f"are {', '.join(methods)}")
    return methods[name]


@strict_keywords("load_img")
def load_img(path, color_mode: str = "rgb", target_size=None, interpolation: str = "nearest",
             keep_aspect_ratio: bool = False):
    """The image file at `path` (or in a BytesIO) as a PIL Image in `color_mode` ("rgb",
    "rgba", "grayscale"), resized to `target_size` (height, width) with Pillow's
    `interpolation`; `keep_aspect_ratio` crops the center to the target's aspect first."""
    image_module = pillow("keras.utils.load_img")
    if isinstance(path, io.BytesIO):
        image = image_module.open(path)
    elif isinstance(path, (str, bytes, pathlib.Path)):
        with open(os.fspath(path), "rb") as fh:
            image = image_module.open(io.BytesIO(fh.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    wanted = {"grayscale": ("L", "I;16", "I"), "rgba": ("RGBA",), "rgb": ("RGB",)}
    if color_mode not in wanted:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if image.mode not in wanted[color_mode]:
        image = image.convert(wanted[color_mode][0])
    if target_size is None:
        return image
    size = (int(target_size[1]), int(target_size[0]))
    if image.size == size:
        return image
    resample = _resampling(interpolation)
    if not keep_aspect_ratio:
        return image.resize(size, resample)
    width, height = image.size
    crop_h = min(height, width * size[1] // size[0])
    crop_w = min(width, height * size[0] // size[1])
    top, left = (height - crop_h) // 2, (width - crop_w) // 2
    return image.resize(size, resample, box=(left, top, left + crop_w, top + crop_h))


@strict_keywords("img_to_array")
def img_to_array(img, data_format=None, dtype=None) -> np.ndarray:
    """A PIL Image (or array) as a NumPy array [h, w, c] (`channels_first`: [c, h, w]) of
    `dtype` (float32 by default); a 2-D image gets a channel axis of 1."""
    x = np.asarray(img, dtype=dtype or "float32")
    first = data_format == "channels_first"
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if first else x
    if x.ndim == 2:
        return x[None] if first else x[..., None]
    raise ValueError(f"Unsupported image shape: {x.shape}")


@strict_keywords("array_to_img")
def array_to_img(x, data_format=None, scale: bool = True, dtype=None):
    """A PIL Image of the 3-D array `x` (1, 3 or 4 channels); `scale` maps its range onto
    [0, 255] first."""
    image_module = pillow("keras.utils.array_to_img (and save_img)")
    x = np.array(x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with "
                         f"shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x = x / top
        x = x * 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image_module.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:
            return image_module.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_module.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def save_img(path, x, data_format=None, file_format=None, scale: bool = True,
             **kwargs: Any) -> None:
    """Writes the 3-D array `x` as an image file (its format from `file_format` or the
    suffix of `path`; RGBA saved as JPEG loses its alpha, with a warning). Other keywords go
    to Pillow's `Image.save`."""
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    image = array_to_img(x, data_format=data_format, scale=scale)
    if image.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("The JPEG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        image = image.convert("RGB")
    image.save(path, format=file_format, **kwargs)


def smart_resize(x, size, interpolation: str = "bilinear", data_format: str = "channels_last"):
    """The image (or batch) `x` cropped at its center to the aspect ratio of `size` and
    resized to it (as Keras's `smart_resize`); a NumPy array in, a NumPy array out."""
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    array = np.asarray(x)
    if array.ndim not in (3, 4):
        raise ValueError("Expected an image array with shape `(height, width, channels)`, or "
                         "`(batch_size, height, width, channels)`, but got input with incorrect "
                         f"rank, of shape {array.shape}.")
    batch = array if array.ndim == 4 else array[None]
    if data_format == "channels_first":
        batch = batch.transpose(0, 2, 3, 1)
    out = np.stack([resize_image(image, tuple(size), str(interpolation).lower(), True)
                    for image in batch])
    if data_format == "channels_first":
        out = out.transpose(0, 3, 1, 2)
    return out if array.ndim == 4 else out[0]


__all__ = ["image_dataset_from_directory", "load_img", "img_to_array", "array_to_img",
           "save_img", "smart_resize"]
