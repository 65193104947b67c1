"""`keras.preprocessing.image`: the Pillow image helpers Keras 3 keeps under this name, and
its deprecated `ImageDataGenerator`, `Iterator` and one-image transforms."""

from ..image_utils import array_to_img, img_to_array, load_img, save_img, smart_resize
from .image_generator import DirectoryIterator, ImageDataGenerator, NumpyArrayIterator
from .image_transforms import (
    Iterator,
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    random_brightness,
    random_channel_shift,
    random_rotation,
    random_shear,
    random_shift,
    random_zoom,
)

__all__ = ["DirectoryIterator", "ImageDataGenerator", "Iterator", "NumpyArrayIterator",
           "apply_affine_transform", "apply_brightness_shift", "apply_channel_shift",
           "array_to_img", "img_to_array", "load_img", "random_brightness",
           "random_channel_shift", "random_rotation", "random_shear", "random_shift",
           "random_zoom", "save_img", "smart_resize"]
