"""Callbacks for `Model.fit` (`rt.callbacks`): hooks called at epoch and batch ends.

    class Print(rt.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(epoch, logs["loss"])

    model.fit(x, y, epochs=5, callbacks=[Print(), rt.callbacks.EarlyStopping(patience=2)])
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence

from ..function.logs import user_stacklevel
from .callback_base import Callback
from .tensorboard_callback import TensorBoard


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

    def families(self, keys: Optional[Sequence[str]] = None) -> list[list[str]]:
        """The curves grouped one family a plot: `[name, "val_" + name]` for the loss and each
        metric (the validation curve when there is one), in the order `fit` reported them.
        `keys` keeps only the families holding one of those names."""
        names = list(self.history)
        if keys is not None:
            if isinstance(keys, str):
                raise TypeError("History.plot(keys=...) takes a list of names, not a str.")
            unknown = [k for k in keys if k not in self.history]
            if unknown:
                raise KeyError(f"History.plot(keys=...): no curve named {unknown}; the history "
                               f"has {names}.")
        groups: list[list[str]] = []
        for name in names:
            base = name[4:] if name.startswith("val_") and name[4:] in self.history else name
            group = next((g for g in groups if g[0] == base), None)
            if group is None:
                groups.append([name] if base == name else [base, name])
            elif name not in group:
                group.append(name)
        if keys is not None:
            groups = [g for g in groups if any(k in g for k in keys)]
        return groups

    def plot(self, keys: Optional[Sequence[str]] = None, ax: Any = None) -> list:
        """Draws one axis per metric family with matplotlib (the loss, then each metric), the
        validation curve (dashed) beside the training one; returns the list of axes.

        `keys` keeps the families of those names; `ax` is a sequence of axes to draw on, one
        per family (a single axes for a single family); by default a new figure is made."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("History.plot needs matplotlib: pip install matplotlib "
                              "(or 'autograph-rt[plot]'); History.history has the numbers.") from None
        groups = self.families(keys)
        if not groups:
            raise ValueError("History.plot: the history is empty; call it after fit.")
        if ax is None:
            _, grid = plt.subplots(1, len(groups), figsize=(4.5 * len(groups), 3.5),
                                   squeeze=False)
            axes = list(grid[0])
        else:
            axes = [ax] if hasattr(ax, "plot") else list(ax)
            if len(axes) != len(groups):
                raise ValueError(f"History.plot(ax=...): {len(groups)} families "
                                 f"({[g[0] for g in groups]}) need {len(groups)} axes, "
                                 f"got {len(axes)}.")
        epochs = [e + 1 for e in self.epoch]
        for axis, group in zip(axes, groups):
            for name in group:
                axis.plot(epochs[:len(self.history[name])], self.history[name], label=name,
                          linestyle="--" if name.startswith("val_") and name != group[0] else "-")
            axis.set_title(group[0])
            axis.set_xlabel("epoch")
            axis.legend()
        return axes


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
                          f"(it reported {sorted(logs or {})}).", stacklevel=user_stacklevel())
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


class LambdaCallback(Callback):
    """A callback from functions: `on_epoch_end(epoch, logs)`, `on_train_batch_end(batch,
    logs)`, `on_epoch_begin(epoch, logs)`, `on_train_begin(logs)`, `on_train_end(logs)`."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_end=None) -> None:
        super().__init__()
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end,
                 "on_train_batch_end": on_train_batch_end}
        for name, fn in hooks.items():
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"LambdaCallback {name} must be callable, got {fn!r}.")
                setattr(self, name, _lambda_hook(fn, name))


def _lambda_hook(fn, name: str):
    if name in ("on_train_begin", "on_train_end"):
        return lambda logs=None: fn(logs)
    return lambda index, logs=None: fn(index, logs)


class ModelCheckpoint(Callback):
    """Saves the model (or only its weights) after each epoch: `filepath` may hold
    `{epoch}` (from 1) and log names (`"ckpt-{epoch:02d}-{val_loss:.3f}.keras"`). With
    `save_best_only`, it saves only when `monitor` improves (`mode` as in EarlyStopping)."""

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq: str = "epoch") -> None:
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"ModelCheckpoint mode must be 'auto', 'min' or 'max', not {mode!r}")
        if save_freq != "epoch":
            raise NotImplementedError("ModelCheckpoint(save_freq=...) saves once an epoch: only "
                                      "'epoch' is implemented.")
        self.filepath = str(filepath)
        self.monitor, self.verbose = monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.best: Optional[float] = None

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        if self.save_best_only:
            value = logs.get(self.monitor)
            if value is None:
                warnings.warn(f"ModelCheckpoint monitors {self.monitor!r}, which fit did not "
                              f"report (it reported {sorted(logs)}).", stacklevel=user_stacklevel())
                return
            better = self.best is None or (value > self.best if self.maximize
                                           else value < self.best)
            if not better:
                return
            self.best = value
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        if self.verbose:
            print(f"Epoch {epoch + 1}: saved the model to {path}")


class TerminateOnNaN(Callback):
    """Stops training when a batch's loss is NaN or infinite."""

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            self.model.stop_training = True


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to `schedule(epoch, current_rate)` at each epoch's
    start."""

    def __init__(self, schedule, verbose: int = 0) -> None:
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        optimizer = self.model.optimizer
        rate = float(self.schedule(epoch, float(optimizer.learning_rate)))
        optimizer.learning_rate = rate
        if self.verbose:
            print(f"Epoch {epoch + 1}: learning rate {rate}")


__all__ = ["Callback", "EarlyStopping", "History", "LambdaCallback", "LearningRateScheduler",
           "ModelCheckpoint", "TensorBoard", "TerminateOnNaN"]
