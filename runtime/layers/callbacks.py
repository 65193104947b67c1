"""Callbacks for `Model.fit` (`rt.callbacks`): hooks called at epoch and batch ends.

    class Print(rt.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(epoch, logs["loss"])

    model.fit(x, y, epochs=5, callbacks=[Print(), rt.callbacks.EarlyStopping(patience=2)])
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import warnings
from typing import Any, Optional, Sequence

import numpy as np

from ..arguments import check_keywords, strict_keywords
from ..function.logs import user_stacklevel
from . import backup as _backup
from .callback_base import Callback
from .ema_callback import SwapEMAWeights
from .progress import EpochProgress
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
        metric (the validation curve when there is one): the loss first, then the metrics in
        the history's order (by name, as Keras 3 logs them). `keys` keeps only the families
        holding one of those names."""
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
        groups.sort(key=lambda group: group[0] != "loss")  # stable: the loss first
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


def _maximizes(monitor: str) -> bool:
    """Whether "auto" mode maximizes `monitor`: accuracies, AUC, precision and recall go up,
    losses and errors down."""
    name = monitor[4:] if monitor.startswith("val_") else monitor
    return any(part in name for part in ("acc", "auc", "precision", "recall"))


def _mode_maximizes(owner: str, mode: str, monitor: str) -> bool:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{owner} mode must be 'auto', 'min' or 'max', not {mode!r}.")
    return mode == "max" or (mode == "auto" and _maximizes(monitor))


class EarlyStopping(Callback):
    """Stops training when `monitor` has not improved by more than `min_delta` for `patience`
    epochs, as Keras does.

    `mode` "min", "max", or "auto" (max for accuracies, AUC, precision and recall, else min).
    `baseline`: the wait only restarts on an epoch that also beats it. `start_from_epoch`:
    epochs before it are not watched. `restore_best_weights` puts back the weights of the
    best epoch when training ends. `verbose=1` prints when it stops and restores."""

    @strict_keywords()
    def __init__(self, monitor: str = "val_loss", min_delta: float = 0.0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: Optional[float] = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        self.maximize = _mode_maximizes("EarlyStopping", mode, monitor)
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.min_delta = abs(min_delta)
        self.baseline, self.start_from_epoch = baseline, start_from_epoch
        self.restore_best_weights = restore_best_weights
        self.on_train_begin()

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best, self.best_weights = None, None

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(f"EarlyStopping monitors {self.monitor!r}, which fit did not report "
                          f"(it reported {sorted(logs or {})}).", stacklevel=user_stacklevel())
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self._improved(value, self.best):
            self.best, self.best_epoch = value, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improved(value, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: "
                      f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def _improved(self, value: float, reference: Optional[float]) -> bool:
        if reference is None:
            return True
        if self.maximize:
            return value - self.min_delta > reference
        return value + self.min_delta < reference


_HOOKS = tuple(name for name in vars(Callback) if name.startswith("on_"))


class LambdaCallback(Callback):
    """A callback from functions, as Keras's: `on_epoch_begin/end(epoch, logs)`,
    `on_train_begin/end(logs)`, `on_train_batch_begin/end(batch, logs)`, and as keywords any
    other hook (`on_test_begin=lambda logs: ...`, `on_predict_batch_end=...`)."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs: Any) -> None:
        check_keywords("LambdaCallback", kwargs, _HOOKS)
        super().__init__()
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end,
                 "on_train_begin": on_train_begin, "on_train_end": on_train_end,
                 "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end, **kwargs}
        for name, fn in hooks.items():
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"LambdaCallback {name} must be callable, got {fn!r}.")
                setattr(self, name, _lambda_hook(fn, name))


def _lambda_hook(fn, name: str):
    if name.endswith(("_begin", "_end")) and "batch" not in name and "epoch" not in name:
        return lambda logs=None: fn(logs)
    return lambda index, logs=None: fn(index, logs)


class ModelCheckpoint(Callback):
    """Saves the model (or only its weights) after each epoch, or every `save_freq` batches:
    `filepath` may hold `{epoch}` (from 1), `{batch}` (from 1, when saving by batch) and log
    names (`"ckpt-{epoch:02d}-{val_loss:.3f}.keras"`). With `save_best_only`, it saves only
    when `monitor` improves (`mode` as in EarlyStopping; a monitor fit did not report warns
    and saves, as Keras does). `verbose=1` prints Keras's messages."""

    @strict_keywords()
    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", save_freq="epoch",
                 initial_value_threshold: Optional[float] = None) -> None:
        super().__init__()
        self.maximize = _mode_maximizes("ModelCheckpoint", mode, monitor)
        if save_freq != "epoch" and (isinstance(save_freq, bool) or
                                     not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError(f"ModelCheckpoint(save_freq=...) must be 'epoch' or a positive "
                             f"number of batches, got {save_freq!r}.")
        self.filepath = os.fspath(filepath)
        self.monitor, self.verbose, self.save_freq = monitor, verbose, save_freq
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.best: Optional[float] = initial_value_threshold
        self._epoch = 0
        self._batches = 0

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._epoch = epoch

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self.save_freq == "epoch":
            return
        self._batches += 1
        if self._batches >= self.save_freq:
            self._batches = 0
            self._save(self._epoch, batch, logs or {})

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, None, logs or {})

    def _save(self, epoch: int, batch: Optional[int], logs: dict) -> None:
        keys = {"epoch": epoch + 1, **logs}
        if batch is not None and "batch" not in logs:
            keys["batch"] = batch + 1
        path = self.filepath.format(**keys)
        if not self._should_save(epoch, logs, path):
            return
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {path}")

    def _should_save(self, epoch: int, logs: dict, path: str) -> bool:
        """Keras's rule: always without save_best_only; else when `monitor` improved (or is
        missing, with a warning)."""
        if not self.save_best_only:
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: saving model to {path}")
            return True
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"ModelCheckpoint can save the best model only with {self.monitor!r} "
                          f"available (fit reported {sorted(logs)}); saving.",
                          stacklevel=user_stacklevel())
            return True
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self.best is None or (value > self.best if self.maximize else value < self.best):
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                      f"{value:.5f}, saving model to {path}")
            self.best = value
            return True
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False


class TerminateOnNaN(Callback):
    """Stops training at the batch whose loss is NaN or infinite, as Keras does: fit ends that
    epoch (its callbacks run) and stops; with `raise_error=True` it raises `RuntimeError`
    at once instead (the other callbacks' `on_train_end` do not run)."""

    @strict_keywords()
    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is None or math.isfinite(loss):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: "
                               f"{loss}. Terminating training immediately.")
        print(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True


class ProgbarLogger(Callback):
    """Prints fit's progress: Keras's `Epoch 3/5` line, then the epoch's progress bar
    (`runtime.layers.progress`), at the `verbose` fit was given. fit adds one when `verbose`
    is not 0 and none is in its callbacks."""

    def __init__(self) -> None:
        super().__init__()
        self._progress: Optional[EpochProgress] = None

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        params = self.params or {}
        verbose = params.get("verbose", 1)
        self._progress = EpochProgress(epoch, params.get("epochs", 1), params.get("steps"),
                                       1 if verbose == "auto" else int(verbose))

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self._progress is not None:
            self._progress.batch_done(logs or {})

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if self._progress is not None:
            self._progress.epoch_done(logs or {})
            self._progress = None


class BackupAndRestore(Callback):
    """Lets an interrupted `fit` resume, as Keras's: after each epoch (or every `save_freq`
    batches) it writes the weights, the optimizer's state and the epoch reached into
    `backup_dir`; a later `fit` with the same callback starts from there (the epochs done
    are not run again). The backup is deleted when fit ends normally, unless
    `delete_checkpoint=False`. `double_checkpoint` keeps the previous backup too, used when
    the latest cannot be read."""

    @strict_keywords()
    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint: bool = False,
                 delete_checkpoint: bool = True) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError("BackupAndRestore: backup_dir is empty; give the directory "
                             "for the backup.")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or
                                     not isinstance(save_freq, int) or save_freq < 1):
            raise ValueError(f"BackupAndRestore(save_freq=...) must be 'epoch' or a positive "
                             f"number of batches, got {save_freq!r}.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq, self.double_checkpoint = save_freq, double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self._path = os.path.join(self.backup_dir, "latest.backup.npz")
        self._epoch = 0
        self._batches = 0

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self._batches = 0
        for path in (self._path, self._path + ".bkp"):
            if os.path.exists(path):
                try:
                    self._epoch = _backup.restore(self.model, path)
                except (OSError, ValueError, KeyError):
                    if path.endswith(".bkp") or not self.double_checkpoint:
                        raise
                    continue
                self.model._initial_epoch = self._epoch
                return
        self._epoch = 0

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        self._epoch = epoch + 1
        if self.save_freq == "epoch":
            self._save()

    def on_train_batch_end(self, batch: int, logs: Optional[dict] = None) -> None:
        if self.save_freq == "epoch":
            return
        self._batches += 1
        if self._batches >= self.save_freq:
            self._batches = 0
            self._save()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self.delete_checkpoint and os.path.isdir(self.backup_dir):
            shutil.rmtree(self.backup_dir)

    def _save(self) -> None:
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint and os.path.exists(self._path):
            shutil.copyfile(self._path, self._path + ".bkp")
        _backup.save(self.model, self._path, self._epoch)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to `schedule(epoch, current_rate)` (or, for a
    schedule of one argument, `schedule(epoch)`) at each epoch's start, as Keras does; each
    epoch's logs (and so the history) get the "learning_rate"."""

    @strict_keywords()
    def __init__(self, schedule, verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise TypeError(f"LearningRateScheduler: schedule must be a callable "
                            f"schedule(epoch, learning_rate), got {schedule!r:.60}.")
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: Optional[dict] = None) -> None:
        optimizer = self.model.optimizer
        try:
            rate = self.schedule(epoch, float(optimizer.learning_rate))
        except TypeError:  # Keras's older one-argument schedules
            rate = self.schedule(epoch)
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.floating,
                                                            np.integer)):
            raise ValueError(f"LearningRateScheduler: the schedule must return a float, got "
                             f"{rate!r:.60}.")
        optimizer.learning_rate = float(rate)
        if self.verbose:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                  f"{float(rate)}.")

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        if logs is not None:
            logs["learning_rate"] = float(self.model.optimizer.learning_rate)


class ReduceLROnPlateau(Callback):
    """Multiplies the optimizer's learning rate by `factor` (never below `min_lr`) when
    `monitor` has not improved by more than `min_delta` for `patience` epochs, then waits
    `cooldown` epochs before watching again, as Keras does; each epoch's logs (and so the
    history) get the "learning_rate"."""

    @strict_keywords()
    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0) -> None:
        super().__init__()
        if not isinstance(factor, (int, float)) or factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0 (it multiplies "
                             f"the learning rate); got factor={factor!r}.")
        self.maximize = _mode_maximizes("ReduceLROnPlateau", mode, monitor)
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = abs(min_delta), cooldown, min_lr
        self.on_train_begin()

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        self.best: Optional[float] = None
        self.wait = self.cooldown_counter = 0

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = float(optimizer.learning_rate)
        value = logs.get(self.monitor)
        if value is None:
            warnings.warn(f"ReduceLROnPlateau monitors {self.monitor!r}, which fit did not "
                          f"report (it reported {sorted(logs)}).", stacklevel=user_stacklevel())
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.best is None or (value - self.min_delta > self.best if self.maximize
                                 else value + self.min_delta < self.best):
            self.best, self.wait = value, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience and self._reduce(optimizer, epoch):
                self.cooldown_counter, self.wait = self.cooldown, 0

    def _reduce(self, optimizer, epoch: int) -> bool:
        old = float(optimizer.learning_rate)
        if not old > np.float32(self.min_lr):
            return False
        optimizer.learning_rate = max(old * self.factor, self.min_lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to "
                  f"{float(optimizer.learning_rate)}.")
        return True


class CSVLogger(Callback):
    """Writes one CSV row per epoch: "epoch" then the logs by sorted name (with "val_"
    columns for them when the first epoch had no validation), as Keras does. `append`
    continues an existing file (without a second header)."""

    @strict_keywords()
    def __init__(self, filename, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        self.filename, self.sep, self.append = os.fspath(filename), separator, append
        self.keys: Optional[list[str]] = None
        self._file: Any = None
        self._writer: Any = None

    def on_train_begin(self, logs: Optional[dict] = None) -> None:
        header = True
        if self.append and os.path.exists(self.filename):
            with open(self.filename, encoding="utf-8") as existing:
                header = not existing.readline()
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._file = open(self.filename, "a" if self.append else "w", newline="",
                          encoding="utf-8")
        self._header, self._writer, self.keys = header, None, None

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self._writer is None:
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch", *self.keys],
                                          delimiter=self.sep)
            if self._header:
                self._writer.writeheader()
        self._writer.writerow({"epoch": epoch, **{k: logs.get(k, "NA") for k in self.keys}})
        self._file.flush()

    def on_train_end(self, logs: Optional[dict] = None) -> None:
        if self._file is not None and not self._file.closed:
            self._file.close()
        self._writer = None


class RemoteMonitor(Callback):
    """Posts each epoch's logs (and `"epoch"`) to a server at `root + path`: as a form field
    `field` holding their JSON, or as a JSON body with `send_as_json`; an unreachable server
    is warned about, as Keras does (sent with Python's urllib; Keras uses requests)."""

    def __init__(self, root: str = "http://localhost:9000", path: str = "/publish/epoch/end/",
                 field: str = "data", headers: Optional[dict] = None,
                 send_as_json: bool = False) -> None:
        super().__init__()
        self.root, self.path, self.field = root, path, field
        self.headers, self.send_as_json = headers, send_as_json

    def on_epoch_end(self, epoch: int, logs: Optional[dict] = None) -> None:
        import urllib.error  # loaded with the first post (urllib.request loads http.client)
        import urllib.parse
        import urllib.request

        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10):
                pass
        except (urllib.error.URLError, OSError):
            warnings.warn(f"Could not reach RemoteMonitor root server at {self.root}",
                          stacklevel=2)


class CallbackList(Callback):
    """Callbacks called together, for a training loop of your own: each hook of the list
    calls that hook of every callback in order. `add_history` appends a `History`
    (`add_progbar` a `ProgbarLogger`) when none is given; `model` and the keyword
    `params` are handed to each callback."""

    def __init__(self, callbacks=None, add_history: bool = False, add_progbar: bool = False,
                 model=None, **params: Any) -> None:
        super().__init__()
        self.callbacks = list(callbacks or [])
        for callback in self.callbacks:
            if not isinstance(callback, Callback):
                raise TypeError(f"CallbackList takes keras.callbacks.Callback objects, got "
                                f"{callback!r:.80}.")
        if add_history and not any(isinstance(c, History) for c in self.callbacks):
            self.callbacks.append(History())
        if add_progbar and not any(isinstance(c, ProgbarLogger) for c in self.callbacks):
            self.callbacks.append(ProgbarLogger())
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback: Callback) -> None:
        self.callbacks.append(callback)

    def set_model(self, model) -> None:
        super().set_model(model)
        for callback in self.callbacks:
            callback.set_model(model)

    def set_params(self, params: dict) -> None:
        super().set_params(params)
        for callback in self.callbacks:
            callback.set_params(params)

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)


def _forward(hook: str):
    def call(self, *args, **kwargs):
        for callback in self.callbacks:
            getattr(callback, hook)(*args, **kwargs)
    call.__name__ = call.__qualname__ = hook
    call.__doc__ = f"Calls `{hook}` of every callback in order."
    return call


for _hook in ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
              "on_batch_begin", "on_batch_end", "on_train_batch_begin", "on_train_batch_end",
              "on_test_begin", "on_test_end", "on_test_batch_begin", "on_test_batch_end",
              "on_predict_begin", "on_predict_end", "on_predict_batch_begin",
              "on_predict_batch_end"):
    setattr(CallbackList, _hook, _forward(_hook))


__all__ = ["CallbackList", "RemoteMonitor", "BackupAndRestore", "CSVLogger", "Callback", "EarlyStopping", "History",
           "LambdaCallback", "LearningRateScheduler", "ModelCheckpoint", "ProgbarLogger",
           "ReduceLROnPlateau", "SwapEMAWeights", "TensorBoard", "TerminateOnNaN"]
