"""Callbacks for `Model.fit` (`rt.callbacks`): hooks called at epoch and batch ends.

    class Print(rt.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(epoch, logs["loss"])

    model.fit(x, y, epochs=5, callbacks=[Print(), rt.callbacks.EarlyStopping(patience=2)])
"""

from __future__ import annotations

import warnings
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


class History(Callback):
    """What `fit` returns: `history` maps "loss", each metric and "val_*" to one value a epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[float]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.history, self.epoch = {}, []

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)

    def plot(self, keys=None, ax=None):
        """Plots each history curve against the epoch with matplotlib; returns the axes."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("History.plot needs matplotlib: pip install matplotlib "
                              "(or 'autograph-rt[plot]'); History.history has the numbers.") from None
        if ax is None:
            _, ax = plt.subplots()
        for key in keys or self.history:
            ax.plot([e + 1 for e in self.epoch], self.history[key], label=key)
        ax.set_xlabel("epoch")
        ax.legend()
        return ax


class EarlyStopping(Callback):
    """Stops training when `monitor` has not improved by `min_delta` for `patience` epochs.

    `mode` "min", "max", or "auto" (max for names with "acc", else min).
    `restore_best_weights` puts back the weights of the best epoch when it stops."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0.0, patience: int = 0,
                 mode: str = "auto", restore_best_weights: bool = False) -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping mode must be 'auto', 'min' or 'max', not {mode!r}")
        self.monitor, self.patience = monitor, patience
        self.min_delta = abs(min_delta)
        self.maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.restore_best_weights = restore_best_weights
        self.stopped_epoch: Optional[int] = None

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait, self.best, self.best_weights, self.stopped_epoch = 0, None, None, None

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f"EarlyStopping monitors {self.monitor!r}, which fit did not report "
                          f"(it reported {sorted(logs or {})}).", stacklevel=2)
            return
        if self.best is None or self._improved(value):
            self.best, self.wait = value, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait > self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.best_weights is not None:
                self.model.set_weights(self.best_weights)

    def _improved(self, value: float) -> bool:
        if self.maximize:
            return value > self.best + self.min_delta
        return value < self.best - self.min_delta


__all__ = ["Callback", "EarlyStopping", "History"]
