"""`rt.train.CheckpointManager`: numbered saves of a Checkpoint in a directory, keeping the
newest few (the directory's `checkpoint` state file lists them: see `state`)."""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from .. import context
from ..arguments import strict_keywords
from . import format as _format
from .checkpoint import Checkpoint
from .state import _read_state, _write_state, fspath


class CheckpointManager:
    """Saves a `Checkpoint` as `directory/checkpoint_name-N`, keeping the newest `max_to_keep`.

    Older checkpoints beyond `max_to_keep` (None: keep all) are deleted, except that with
    `keep_checkpoint_every_n_hours` one checkpoint per that many hours is kept on disk (no
    longer listed in `checkpoints`). Checkpoints already listed in the directory's state file
    are taken over on construction. With `step_counter` and `checkpoint_interval`, `save`
    does nothing until the counter has advanced by the interval since the last save.
    """

    @strict_keywords("CheckpointManager")
    def __init__(self, checkpoint: Checkpoint, directory: str | os.PathLike,
                 max_to_keep: int | None, keep_checkpoint_every_n_hours: float | None = None,
                 checkpoint_name: str = "ckpt", step_counter: Any = None,
                 checkpoint_interval: int | None = None, init_fn: Any = None) -> None:
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager needs an rt.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}.")
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or
                                        not isinstance(max_to_keep, (int, np.integer))
                                        or max_to_keep <= 0):
            raise ValueError(f"CheckpointManager max_to_keep must be a positive int or None, "
                             f"got {max_to_keep!r}.")
        if not isinstance(checkpoint_name, str) or not checkpoint_name or "/" in checkpoint_name:
            raise ValueError(f"CheckpointManager checkpoint_name must be a non-empty file name, "
                             f"got {checkpoint_name!r}.")
        if checkpoint_interval is not None:
            if step_counter is None:
                raise ValueError("CheckpointManager checkpoint_interval needs a step_counter.")
            if not isinstance(checkpoint_interval, (int, np.integer)) or checkpoint_interval <= 0:
                raise ValueError(f"CheckpointManager checkpoint_interval must be a positive int, "
                                 f"got {checkpoint_interval!r}.")
        self._checkpoint = checkpoint
        self._directory = fspath(directory, "directory")
        self._max_to_keep = None if max_to_keep is None else int(max_to_keep)
        self._keep_seconds = (None if keep_checkpoint_every_n_hours is None
                              else float(keep_checkpoint_every_n_hours) * 3600.0)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step: int | None = None
        state = _read_state(self._directory)
        self._checkpoints: list[tuple[str, float]] = []
        self._preserved = time.time()
        if state is not None:
            stamps = state["timestamps"]
            if len(stamps) != len(state["paths"]):
                stamps = [time.time()] * len(state["paths"])
            self._checkpoints = [(p, t) for p, t in zip(state["paths"], stamps)
                                 if _format.exists(p)]
            if state["preserved"] is not None:
                self._preserved = state["preserved"]

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The managed checkpoint prefixes, oldest first."""
        return [path for path, _ in self._checkpoints]

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest managed checkpoint's prefix, or None."""
        return self._checkpoints[-1][0] if self._checkpoints else None

    @property
    def checkpoint_interval(self) -> int | None:
        return self._interval

    def _step(self) -> int:
        return int(np.asarray(getattr(self._step_counter, "numpy", lambda: self._step_counter)()))

    @strict_keywords("CheckpointManager.save")
    def save(self, checkpoint_number: Any = None, check_interval: bool = True,
             options: Any = None) -> str | None:
        """Saves `directory/checkpoint_name-N` and returns its prefix (None when skipped by
        `checkpoint_interval`). N is `checkpoint_number` (an int or an integer variable or
        tensor) or else the checkpoint's `save_counter`, which every save increments."""
        if self._interval is not None and check_interval:
            step = self._step()
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        counter = self._checkpoint.save_counter
        with context.init_scope():
            counter.assign_add(np.int64(1))
        if checkpoint_number is None:
            number = int(counter.numpy())
        else:
            number = int(np.asarray(getattr(checkpoint_number, "numpy",
                                            lambda: checkpoint_number)()))
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        self._checkpoints = [(p, t) for p, t in self._checkpoints if p != path]
        self._checkpoints.append((path, time.time()))
        self._sweep()
        _write_state(self._directory, path, self.checkpoints,
                     [t for _, t in self._checkpoints], self._preserved)
        return path

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._checkpoints) > self._max_to_keep:
            path, stamp = self._checkpoints.pop(0)
            if self._keep_seconds is not None and stamp - self._preserved >= self._keep_seconds:
                self._preserved = stamp
                continue
            _format.delete(path)

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint and returns its path; with none, calls `init_fn`
        (if given) and returns None."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None
