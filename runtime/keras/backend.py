"""`keras.backend`: the few global settings Keras keeps here."""

from __future__ import annotations

from ..layers import base as _base

_EPSILON = 1e-7


def floatx() -> str:
    """The float type of layer weights: "float32"."""
    return "float32"


def epsilon() -> float:
    """The fuzz factor of losses and metrics (1e-7)."""
    return _EPSILON


def clear_session() -> None:
    """Resets the automatic layer names (`dense`, `dense_1`, ... start again)."""
    with _base._names_lock:
        _base._names.clear()


def image_data_format() -> str:
    """"channels_last": images are [batch, height, width, channels]."""
    return "channels_last"


__all__ = ["floatx", "epsilon", "clear_session", "image_data_format"]
