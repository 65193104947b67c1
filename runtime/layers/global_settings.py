"""Keras 3's process-wide switches that `keras.config` sets and the training loop and progress
output read: interactive logging, the epoch and step limits for debugging runs
(`set_max_epochs`, `set_max_steps_per_epoch`, or the environment variables `KERAS_MAX_EPOCHS`
and `KERAS_MAX_STEPS_PER_EPOCH`), and the flash attention setting."""

from __future__ import annotations

import logging
import os
import warnings
from typing import Optional

_STATE = {
    "interactive": True,
    "max_epochs": int(os.environ["KERAS_MAX_EPOCHS"]) if "KERAS_MAX_EPOCHS" in os.environ
    else None,
    "max_steps": int(os.environ["KERAS_MAX_STEPS_PER_EPOCH"])
    if "KERAS_MAX_STEPS_PER_EPOCH" in os.environ else None,
    "flash_attention": None,
}


def enable_interactive_logging() -> None:
    """Progress bars and messages are written to stdout (the default)."""
    _STATE["interactive"] = True


def disable_interactive_logging() -> None:
    """Progress output goes to the Python logger "keras" (at INFO), one record a line,
    instead of stdout."""
    _STATE["interactive"] = False


def is_interactive_logging_enabled() -> bool:
    return _STATE["interactive"]


class _LogStream:
    """A text stream that logs each complete line to the "keras" logger."""

    def __init__(self) -> None:
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text.replace("\r", "\n")
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.strip():
                logging.getLogger("keras").info(line)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def output_stream(default):
    """`default` (stdout) while interactive logging is on, else a stream to the logger."""
    return default if _STATE["interactive"] else _LogStream()


def _check_limit(value, what: str) -> Optional[int]:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ValueError(f"{what} must be a positive integer or None, got {value!r}.")
    return value


def set_max_epochs(max_epochs: Optional[int]) -> None:
    """Caps the epochs of every `fit` (None: no cap), for quick debugging runs."""
    _STATE["max_epochs"] = _check_limit(max_epochs, "max_epochs")


def max_epochs() -> Optional[int]:
    return _STATE["max_epochs"]


def set_max_steps_per_epoch(max_steps_per_epoch: Optional[int]) -> None:
    """Caps the steps of each epoch of `fit`, `evaluate` and `predict` (None: no cap)."""
    _STATE["max_steps"] = _check_limit(max_steps_per_epoch, "max_steps_per_epoch")


def max_steps_per_epoch() -> Optional[int]:
    return _STATE["max_steps"]


def capped_epochs(epochs: int) -> int:
    limit = _STATE["max_epochs"]
    if limit and limit < epochs:
        warnings.warn(f"Limiting epochs to {limit}", stacklevel=3)
        return limit
    return epochs


def capped_steps(steps: Optional[int]) -> Optional[int]:
    limit = _STATE["max_steps"]
    if limit and (not steps or limit < steps):
        warnings.warn(f"Limiting steps_per_epoch to {limit}", stacklevel=3)
        return limit
    return steps


def enable_flash_attention() -> None:
    """Lets attention layers try flash attention where it applies (the default, recorded as
    None, as Keras does); the layers here fall back to plain attention, which Keras does on
    a CPU too."""
    _STATE["flash_attention"] = None


def disable_flash_attention() -> None:
    _STATE["flash_attention"] = False


def is_flash_attention_enabled() -> Optional[bool]:
    """False once disabled; else None (enabled, the default)."""
    return _STATE["flash_attention"]
