"""`keras.config`: Keras 3's global settings as this runtime keeps them (the backend is
"tensorflow", weights are float32 and images channels-last)."""

from __future__ import annotations

from ..traceback_utils import (  # noqa: F401 - re-exported under Keras's names
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from .backend import (  # noqa: F401 - re-exported
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

__all__ = ["backend", "disable_traceback_filtering", "enable_traceback_filtering", "epsilon",
           "floatx", "image_data_format", "is_traceback_filtering_enabled", "set_epsilon",
           "set_floatx", "set_image_data_format"]


def backend() -> str:
    """The backend Keras runs on: "tensorflow" (this runtime stands in for it)."""
    return "tensorflow"
