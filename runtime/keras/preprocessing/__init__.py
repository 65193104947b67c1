"""`keras.preprocessing`: the `sequence` helpers Keras 3 keeps under this name."""

from . import sequence

__all__ = ["sequence"]
