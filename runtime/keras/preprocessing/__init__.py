"""`keras.preprocessing`: the `sequence` and `image` helpers and the dataset sources Keras 3
keeps under this name."""

from ..dataset_sources import text_dataset_from_directory, timeseries_dataset_from_array
from ..image_utils import image_dataset_from_directory
from . import image, sequence, text

__all__ = ["image", "image_dataset_from_directory", "sequence", "text", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
