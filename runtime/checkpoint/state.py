"""The directory's `checkpoint` state file, and `rt.train.latest_checkpoint`.

The state file (named `checkpoint`, in the checkpoints' directory) lists the checkpoints of
that directory, oldest first, and the latest, in TensorFlow's text layout:

    model_checkpoint_path: "ckpt-3"
    all_model_checkpoint_paths: "ckpt-2"
    all_model_checkpoint_paths: "ckpt-3"
    all_model_checkpoint_timestamps: 1700000000.5
    ...

Paths inside the directory are written relative to it. `Checkpoint.save` and
`CheckpointManager.save` update it (atomically).
"""

from __future__ import annotations

import json
import os
import re
import time
import types
from typing import Any

from ..arguments import strict_keywords
from . import format as _format


def fspath(path: Any, what: str) -> str:
    try:
        text = os.fspath(path)
    except TypeError:
        raise TypeError(f"{what} must be a str or os.PathLike path, got "
                        f"{type(path).__name__}.") from None
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text:
        raise ValueError(f"{what} must not be empty.")
    return text


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
    directory = fspath(checkpoint_dir, "checkpoint_dir")
    state = _read_state(directory, latest_filename)
    if state is None or state["latest"] is None or not _format.exists(state["latest"]):
        return None
    return state["latest"]


@strict_keywords("get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir: str | os.PathLike,
                         latest_filename: str | None = None):
    """The directory's state (`.model_checkpoint_path`, `.all_model_checkpoint_paths`), or
    None when it has no state file."""
    directory = fspath(checkpoint_dir, "checkpoint_dir")
    state = _read_state(directory, latest_filename)
    if state is None:
        return None
    return types.SimpleNamespace(model_checkpoint_path=state["latest"],
                                 all_model_checkpoint_paths=list(state["paths"]),
                                 all_model_checkpoint_timestamps=list(state["timestamps"]))


