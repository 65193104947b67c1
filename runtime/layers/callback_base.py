"""`Callback`: the base class of `Model.fit`'s callbacks (its hooks do nothing)."""

from __future__ import annotations

from typing import Any, Optional


class Callback:
    """Override the hooks you need, as in Keras; `self.model` is the model being trained and
    `self.params` the run's settings ({"verbose", "epochs", "steps"}).

    `fit` calls the train hooks (and the test hooks while it validates), `evaluate` the test
    hooks and `predict` the predict hooks, given `callbacks=`. `on_batch_begin` and
    `on_batch_end` are Keras's older names of the train batch hooks: overriding them works."""

    params: Optional[dict] = None

    def __init__(self) -> None:
        self.model: Any = None
        self.params = None

    def set_model(self, model) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        pass

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        pass

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        """`logs`: the epoch's mean loss and metrics, and `val_*` ones with validation data."""

    def on_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_train_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """`logs`: the loss and metrics of this batch."""
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs: Optional[dict] = None) -> None:
        pass

    def on_test_end(self, logs: Optional[dict] = None) -> None:
        """`logs`: the evaluation's loss and metrics."""

    def on_test_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_test_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_predict_begin(self, logs: Optional[dict] = None) -> None:
        pass

    def on_predict_end(self, logs: Optional[dict] = None) -> None:
        pass

    def on_predict_batch_begin(self, batch: int, logs: Optional[dict] = None) -> None:
        pass

    def on_predict_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        """`logs`: {"outputs": the batch's predictions}."""
