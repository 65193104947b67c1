"""`keras.config`: Keras 3's global settings as this runtime keeps them (the backend is
"tensorflow", weights are float32 and images channels-last)."""

from __future__ import annotations

from ..traceback_utils import (  # noqa: F401 - re-exported under Keras's names
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from .backend import epsilon, floatx, image_data_format  # noqa: F401 - re-exported

__all__ = ["backend", "disable_traceback_filtering", "enable_traceback_filtering", "epsilon",
           "floatx", "image_data_format", "is_traceback_filtering_enabled", "set_floatx",
           "set_image_data_format"]


def backend() -> str:
    """The backend Keras runs on: "tensorflow" (this runtime stands in for it)."""
    return "tensorflow"


def set_floatx(value: str) -> None:
    """Accepts "float32", the only float type of layer weights here."""
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"Unknown `floatx` value: {value!r}. Expected one of 'float16', "
                         "'bfloat16', 'float32', 'float64'.")
    if value != "float32":
        raise NotImplementedError(f"set_floatx({value!r}): layer weights are float32 in this "
                                  "runtime; cast inputs and outputs instead.")


def set_image_data_format(data_format: str) -> None:
    """Accepts "channels_last", the only image layout here."""
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown `data_format`: {data_format!r}. Expected 'channels_last' or "
                         "'channels_first'.")
    if data_format != "channels_last":
        raise NotImplementedError("set_image_data_format('channels_first'): images are "
                                  "channels-last in this runtime; transpose them first.")
