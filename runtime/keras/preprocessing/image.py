"""`keras.preprocessing.image`: the Pillow image helpers Keras 3 keeps under this name."""

from ..image_utils import array_to_img, img_to_array, load_img, save_img, smart_resize

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]
