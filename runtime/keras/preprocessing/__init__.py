"""`keras.preprocessing`: the `sequence` helpers Keras 3 keeps under this name."""

from ..dataset_sources import text_dataset_from_directory, timeseries_dataset_from_array
from . import sequence

__all__ = ["sequence", "text_dataset_from_directory", "timeseries_dataset_from_array"]
