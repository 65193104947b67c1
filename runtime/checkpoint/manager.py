"""`rt.train.CheckpointManager` and the directory's `checkpoint` state file.

The state file (named `checkpoint`, in the checkpoints' directory) lists the checkpoints of
that directory, oldest first, and the latest, in TensorFlow's text layout:

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    ...

Paths inside the directory are written relative to it. `rt.train.latest_checkpoint(dir)`
reads it; `Checkpoint.save` and `CheckpointManager.save` update it (atomically).
"""

from __future__ import annotations

import json
import os
import re
import time
import types
from typing import Any

import numpy as np

from ..arguments import strict_keywords
from . import format as _format
from .checkpoint import Checkpoint, _fspath

STATE_FILE = "checkpoint"
_LINE = re.compile(r'^\s*(model_checkpoint_path|all_model_checkpoint_paths|'
                   r'all_model_checkpoint_timestamps|last_preserved_timestamp)\s*:\s*(.+?)\s*$')


def _read_state(directory: str, latest_filename: str | None = None) -> dict | None:
    path = os.path.join(directory, latest_filename or STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    state: dict[str, Any] = {"latest": None, "paths": [], "timestamps": [], "preserved": None}
    for line in lines:
        match = _LINE.match(line)
        if not match:
            continue
        field, raw = match.groups()
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if field == "model_checkpoint_path" and isinstance(value, str):
            state["latest"] = value
        elif field == "all_model_checkpoint_paths" and isinstance(value, str):
            state["paths"].append(value)
        elif field == "all_model_checkpoint_timestamps" and isinstance(value, (int, float)):
            state["timestamps"].append(float(value))
        elif field == "last_preserved_timestamp" and isinstance(value, (int, float)):
            state["preserved"] = float(value)
    absolute = [p if os.path.isabs(p) else os.path.join(directory, p) for p in state["paths"]]
    state["paths"] = absolute
    if state["latest"] is not None and not os.path.isabs(state["latest"]):
        state["latest"] = os.path.join(directory, state["latest"])
    return state


def _relative(directory: str, path: str) -> str:
    if os.path.dirname(os.path.abspath(path)) == os.path.abspath(directory):
        return os.path.basename(path)
    return path


def _write_state(directory: str, latest: str, paths: list[str], timestamps: list[float],
                 preserved: float | None = None) -> None:
    lines = [f"model_checkpoint_path: {json.dumps(_relative(directory, latest))}"]
    lines += [f"all_model_checkpoint_paths: {json.dumps(_relative(directory, p))}"
              for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps]
    if preserved is not None:
        lines.append(f"last_preserved_timestamp: {preserved!r}")
    os.makedirs(directory or ".", exist_ok=True)
    _format._write_atomically(os.path.join(directory or ".", STATE_FILE),
                              ("\n".join(lines) + "\n").encode("utf-8"))


def record_latest(path: str) -> None:
    """Adds `path` to its directory's state file as the latest checkpoint."""
    directory = os.path.dirname(path) or "."
    state = _read_state(directory) or {"paths": [], "timestamps": [], "preserved": None}
    pairs = [(p, t) for p, t in zip(state["paths"], state["timestamps"] or
                                    [time.time()] * len(state["paths"])) if p != path]
    pairs.append((path, time.time()))
    _write_state(directory, path, [p for p, _ in pairs], [t for _, t in pairs],
                 state["preserved"])


@strict_keywords("latest_checkpoint")
def latest_checkpoint(checkpoint_dir: str | os.PathLike,
                      latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`, or None when there
    is none (no state file, or its checkpoint's files are gone)."""
    directory = _fspath(checkpoint_dir, "checkpoint_dir")
    state = _read_state(directory, latest_filename)
    if state is None or state["latest"] is None or not _format.exists(state["latest"]):
        return None
    return state["latest"]


@strict_keywords("get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir: str | os.PathLike,
                         latest_filename: str | None = None):
    """The directory's state (`.model_checkpoint_path`, `.all_model_checkpoint_paths`), or
    None when it has no state file."""
    directory = _fspath(checkpoint_dir, "checkpoint_dir")
    state = _read_state(directory, latest_filename)
    if state is None:
        return None
    return types.SimpleNamespace(model_checkpoint_path=state["latest"],
                                 all_model_checkpoint_paths=list(state["paths"]),
                                 all_model_checkpoint_timestamps=list(state["timestamps"]))


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
        self._directory = _fspath(directory, "directory")
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
        from .. import context
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
