"""The per-epoch progress display of `Model.fit`: a bar that fits the terminal, else one line.

On a terminal (`verbose=1`) the epoch's line is redrawn after each step, at most as wide as
the terminal (`shutil.get_terminal_size`): the bar shrinks, and is dropped when it would be
narrower than `MIN_BAR`; at the epoch's end every metric is shown whole, the line wrapped
between metrics when they do not fit. Into a file or a pipe (or with `verbose=2`), each epoch
writes one line when it ends.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import IO, Optional

import numpy as np

MIN_BAR = 10        # a narrower bar is dropped
MAX_BAR = 30
_SEPARATOR = " - "


def _format(logs: dict) -> str:
    return _SEPARATOR.join(_metric_texts(logs))


def _metric_texts(logs: dict) -> list[str]:
    return [f"{k}: {metric_text(v)}" for k, v in logs.items()]


def metric_text(value) -> str:
    """A logged value with 4 decimals (an array of them, e.g. one F1 score per class, too)."""
    if np.ndim(value):
        return np.array2string(np.asarray(value), precision=4, separator=", ")
    return f"{value:.4f}"


def terminal_width(fallback: int = 80) -> int:
    """The terminal's width in columns (`COLUMNS`, then the terminal, else `fallback`)."""
    return max(shutil.get_terminal_size((fallback, 24)).columns, 20)


def _wrap(head: str, parts: list[str], width: int, indent: str = "  ") -> list[str]:
    """`head` followed by `parts` joined by " - ", broken into lines of at most `width`
    columns between parts (continuation lines indented; a part is never split unless it
    alone is wider than a line)."""
    lines, line = [], head
    for part in parts:
        candidate = f"{line}{_SEPARATOR}{part}" if line.strip() else f"{line}{part}"
        if len(candidate) <= width or not line.strip():
            line = candidate
        else:
            lines.append(line)
            line = indent + part
    lines.append(line)
    out = []
    for text in lines:   # a single part wider than the terminal: cut it into pieces
        while len(text) > width:
            out.append(text[:width])
            text = indent + text[width:]
        out.append(text)
    return out


def _bar(done: int, total: int, width: int) -> str:
    inner = width - 2
    filled = inner * done // max(total, 1)
    arrow = ">" if done < total and filled < inner else ""
    return "[" + ("=" * filled + arrow).ljust(inner, ".")[:inner] + "]"


class EpochProgress:
    """Shows one epoch: `verbose` 0 nothing, 1 a bar on a terminal (otherwise one line at the
    end), 2 one line at the end."""

    def __init__(self, epoch: int, epochs: int, steps: int, verbose: int,
                 stream: Optional[IO[str]] = None, width: Optional[int] = None) -> None:
        self.stream = stream or sys.stdout
        self.verbose, self.steps = verbose, steps
        self.title = f"Epoch {epoch + 1}/{epochs}"
        self.start = time.perf_counter()
        self.done = 0
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.live = verbose == 1 and self.terminal
        self.width = width if width is not None else terminal_width()
        self._shown = 0    # the width of the line drawn last (to blank what is left of it)
        if self.live:
            self._draw({})

    # -- one line redrawn while the epoch runs -----------------------------------------
    def _live_line(self, logs: dict) -> str:
        """Title, bar and step count, then as many whole metrics as fit the width."""
        width = self.width - 1   # the last column would wrap on some terminals
        count = f"{self.done}/{self.steps}".rjust(2 * len(str(self.steps)) + 1)
        metrics = _metric_texts(logs)
        fixed = f"{self.title} {count}"
        text_len = len(fixed) + sum(len(_SEPARATOR) + len(m) for m in metrics)
        bar_width = min(MAX_BAR, width - text_len - 1)
        if bar_width >= MIN_BAR:
            line = f"{self.title} {_bar(self.done, self.steps, bar_width)} {count}"
        else:
            line = fixed
        for metric in metrics:
            if len(line) + len(_SEPARATOR) + len(metric) > width:
                break
            line += _SEPARATOR + metric
        return line[:width]

    def _draw(self, logs: dict) -> None:
        line = self._live_line(logs)
        self.stream.write("\r" + line + " " * max(self._shown - len(line), 0))
        self.stream.flush()
        self._shown = len(line)

    def batch_done(self, logs: dict) -> None:
        self.done += 1
        if self.live:
            self._draw(logs)

    # -- the epoch's last line ---------------------------------------------------------
    def epoch_done(self, logs: dict) -> None:
        if not self.verbose:
            return
        seconds = time.perf_counter() - self.start
        parts = [f"{self.steps} steps", f"{seconds:.2f}s", *_metric_texts(logs)]
        if not self.terminal:   # a file or a pipe: one line per epoch
            print(_SEPARATOR.join([self.title, *parts]), file=self.stream)
            return
        width = self.width - 1
        if self.live:
            self.stream.write("\r" + " " * self._shown + "\r")
            head = f"{self.title} {_bar(self.steps, self.steps, MIN_BAR)}"
            if len(head) + len(_SEPARATOR) + len(parts[0]) > width:
                head = self.title
        else:
            head = self.title
        lines = _wrap(head, parts, width)
        if len(lines) > 1:   # the metrics together on a line of their own when they fit
            metrics = "  " + _SEPARATOR.join(parts[2:])
            if len(metrics) <= width:
                lines = [*_wrap(head, parts[:2], width), metrics]
        print("\n".join(lines), file=self.stream)
        self.stream.flush()
