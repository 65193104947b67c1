"""`keras.preprocessing.image`: the Pillow image helpers Keras 3 keeps under this name, and
its deprecated `ImageDataGenerator`."""

from ..image_utils import array_to_img, img_to_array, load_img, save_img, smart_resize
from .image_generator import DirectoryIterator, ImageDataGenerator, NumpyArrayIterator

__all__ = ["DirectoryIterator", "ImageDataGenerator", "NumpyArrayIterator", "array_to_img",
           "img_to_array", "load_img", "save_img", "smart_resize"]
