"""`Callback`: the base class of `Model.fit`'s callbacks (its hooks do nothing)."""

from __future__ import annotations

from typing import Any, Optional


class Callback:
    """Override the hooks you need; `self.model` is the model being trained."""

    def __init__(self) -> None:
        self.model: Any = None

    def set_model(self, model) -> None:
        self.model = model

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        pass

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        pass

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """`logs`: the epoch's mean loss and metrics, and `val_*` ones with validation data."""

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """`logs`: the loss and metrics of this batch."""
