"""The progress display of `fit`, `evaluate` and `predict`, in Keras 3's format.

    Epoch 1/5
    8/8 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step - accuracy: 0.9100 - loss: 0.2700

`verbose=1` on a terminal redraws the line after each step (the bar's done part green, the
time left while running, the total time at the end); while running, metrics that do not fit
the terminal's width are left out of the redrawn line. The last line is one line with every
metric, however wide, as Keras 3 writes it. Into a file, a pipe or a notebook it writes the
epoch's last line only. `verbose=2` writes Keras's one line a epoch,
`8/8 - 0s - 3ms/step - accuracy: 0.9100 - loss: 0.2700`. Metrics show in the order they were
first logged (the logs come in Keras's order: sorted by name), with 4 decimals
(`1.2340e-04` below 0.001); the logs given are the running means of the epoch so far.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import IO, Optional

import numpy as np

from .global_settings import output_stream

BAR_WIDTH = 20
_BAR = "━"
_SEPARATOR = " - "
_INTERVAL = 0.05    # seconds between two redraws of the live line


def metric_text(value) -> str:
    """A logged value as Keras prints it: 4 decimals, or `%.4e` at most 0.001 in size (an
    array of values, e.g. one F1 score per class, by its mean, as Keras shows it)."""
    value = float(np.mean(value))
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


def metric_texts(logs: dict, order: Optional[list] = None) -> list[str]:
    """`name: value` for each log, in `order` (the names first logged first, as Keras's
    progress bar shows them: names not in it are added to it), else in the logs' order."""
    if order is None:
        order = []
    order.extend(k for k in logs if k not in order)
    return [f"{k}: {metric_text(logs[k])}" for k in order if k in logs]


def terminal_width(fallback: int = 80) -> int:
    """The terminal's width in columns (`COLUMNS`, then the terminal, else `fallback`)."""
    return max(shutil.get_terminal_size((fallback, 24)).columns, 20)


def eta_text(seconds: float) -> str:
    """Time left as Keras shows it: `7s`, `1:05`, `2:01:05`."""
    if seconds > 3600:
        return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)
    if seconds > 60:
        return "%d:%02d" % (seconds // 60, seconds % 60)
    return "%ds" % seconds


def step_time_text(seconds: float, unit: str = "step") -> str:
    """Time per step as Keras shows it: `2s/step`, `3ms/step`, `250us/step`."""
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f}ms/{unit}"
    return f"{seconds * 1e6:.0f}us/{unit}"


def _bold(text: str) -> str:
    return f"\x1b[1m{text}\x1b[0m"


class StepProgress:
    """Keras's progress bar over `steps` steps (`None` when unknown): `verbose` 0 shows
    nothing, 1 a bar (redrawn on a terminal, the last line elsewhere), 2 one line at the end."""

    def __init__(self, steps: Optional[int], verbose: int, stream: Optional[IO[str]] = None,
                 width: Optional[int] = None) -> None:
        self.stream = stream or output_stream(sys.stdout)
        self.verbose, self.steps = int(verbose), steps
        self.start = time.perf_counter()
        self._after_first: Optional[float] = None
        self._last_draw = 0.0
        self.done = 0
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.live = self.verbose == 1 and self.terminal
        self.width = width if width is not None else terminal_width()
        self._shown = 0    # the width of the line drawn last (to blank what is left of it)
        self.bar_width, self.interval, self.unit = BAR_WIDTH, _INTERVAL, "step"
        self.order: list = []   # metric names in the order first logged
        self.count_unknown = True   # fit's last line gives the steps counted as the total

    # -- times -------------------------------------------------------------------------
    def _step_seconds(self, now: float) -> float:
        """Keras's estimate: after the first step, the mean of the later steps."""
        if not self.done:
            return 0.0
        if self._after_first is not None and self.done > 1:
            return (now - self._after_first) / (self.done - 1)
        return (now - self.start) / self.done

    # -- the line ----------------------------------------------------------------------
    def _count(self) -> str:
        if not self.steps:
            return "%7d/Unknown" % self.done
        return f"{self.done:>{len(str(self.steps))}}/{self.steps}"

    def _bar(self, styled: bool) -> str:
        if not self.steps:
            return ""
        filled = int(self.bar_width * min(self.done, self.steps) / self.steps)
        done, left = _BAR * filled, _BAR * (self.bar_width - filled)
        if not styled:
            return " " + done + left
        return " " + (f"\x1b[32m{done}\x1b[0m" if filled else "") + f"\x1b[37m{left}\x1b[0m"

    def _head(self, now: float, final: bool, styled: bool) -> tuple[str, int]:
        """The count, bar, time and time per step; and the text's width on screen."""
        seconds = self._step_seconds(now)
        if final or not self.steps:
            clock = f"{now - self.start:.0f}s"
        else:
            clock = eta_text(seconds * (self.steps - self.done))
        count, bar = self._count(), self._bar(styled)
        per_step = step_time_text(seconds, self.unit)
        plain = f"{count}{self._bar(False)} {clock} {per_step}"
        if styled:
            return f"{_bold(count)}{bar} {_bold(clock)} {per_step}", len(plain)
        return plain, len(plain)

    def _live_line(self, logs: dict, now: float) -> tuple[str, int]:
        """The redrawn line: the head, then as many whole metrics as fit the width."""
        line, shown = self._head(now, False, True)
        for metric in metric_texts(logs, self.order):
            if shown + len(_SEPARATOR) + len(metric) > self.width - 1:
                break
            line += _SEPARATOR + metric
            shown += len(_SEPARATOR) + len(metric)
        return line, shown

    def _draw(self, line: str, shown: int) -> None:
        self.stream.write("\r" + line + " " * max(self._shown - shown, 0))
        self.stream.flush()
        self._shown = shown

    # -- events ------------------------------------------------------------------------
    def update(self, logs: dict, draw: bool = True) -> None:
        """One more step done; `logs` are the running values so far."""
        self.done += 1
        if len(logs) != len(self.order):
            self.order.extend(k for k in logs if k not in self.order)
        now = time.perf_counter()
        if self.done == 1:
            self._after_first = now
        if draw and self.live and now - self._last_draw >= self.interval:
            self._draw(*self._live_line(logs, now))
            self._last_draw = now

    def finish(self, logs: dict) -> None:
        """The last line, with the total time and the final logs."""
        if not self.verbose:
            return
        now = time.perf_counter()
        if not self.steps and self.count_unknown:
            self.steps = self.done
        if self.steps:
            self.done = self.steps   # as Keras's last update: the count at its target
        metrics = metric_texts(logs, self.order)
        if self.verbose == 2:
            seconds = self._step_seconds(now)
            line = _SEPARATOR.join([self._count(), f"{now - self.start:.0f}s",
                                    step_time_text(seconds, self.unit), *metrics])
        else:
            head, _ = self._head(now, True, self.live)  # redrawn in colour over the live one
            line = _SEPARATOR.join([head, *metrics])
            if self.live:
                self.stream.write("\r" + " " * self._shown + "\r")
        print(line, file=self.stream)
        self.stream.flush()


class EpochProgress(StepProgress):
    """One epoch of `fit`: Keras's `Epoch 3/5` line (none when fit runs one epoch), then the
    epoch's progress bar."""

    def __init__(self, epoch: int, epochs: int, steps: Optional[int], verbose: int,
                 stream: Optional[IO[str]] = None, width: Optional[int] = None) -> None:
        super().__init__(steps, verbose, stream, width)
        self.title = f"Epoch {epoch + 1}/{epochs}"
        if self.verbose and epochs > 1:  # a single epoch has no header line in Keras 3
            print(self.title, file=self.stream)
            self.stream.flush()

    def batch_done(self, logs: dict) -> None:
        self.update(logs)

    def epoch_done(self, logs: dict) -> None:
        self.finish(logs)


class Progbar(StepProgress):
    """`keras.utils.Progbar`: a progress bar for a loop of your own.

        bar = Progbar(target=len(batches))
        for step, batch in enumerate(batches, 1):
            bar.update(step, values=[("loss", loss)])

    A value is shown averaged over the steps since the start (weighted by the steps each
    `update` covers), unless its name is in `stateful_metrics` (shown as given) or, when
    `stateless_metrics` is given, not in it; the last update (`current >= target`, or
    `finalize=True`) writes the final line with the values it is given, as Keras does."""

    def __init__(self, target: Optional[int], width: int = 20, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics=None, stateless_metrics=None,
                 unit_name: str = "step") -> None:
        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Progbar: give stateful_metrics or stateless_metrics, not both.")
        super().__init__(target, verbose)
        self.bar_width, self.interval, self.unit = int(width), float(interval), unit_name
        self.target = target
        self.count_unknown = False
        self._stateful = set(stateful_metrics or ())
        self._stateless = None if stateless_metrics is None else set(stateless_metrics)
        self._sums: dict[str, list[float]] = {}

    def _averaged(self, name: str) -> bool:
        if self._stateless is not None:
            return name in self._stateless
        return name not in self._stateful

    def _logs(self) -> dict:
        return {k: total / max(count, 1) for k, (total, count) in self._sums.items()}

    def update(self, current: int, values=None, finalize: Optional[bool] = None) -> None:
        """Step `current` reached; `values` are `(name, value)` pairs for it."""
        if finalize is None:
            finalize = self.steps is not None and current >= self.steps
        steps = max(current - self.done, 1)
        for name, value in values or ():
            value = float(np.mean(value))
            if self._averaged(name) and not finalize:
                total, count = self._sums.get(name, [0.0, 0])
                self._sums[name] = [total + value * steps, count + steps]
            else:   # as given (Keras also shows the last update's own value)
                self._sums[name] = [value, 1]
        self.done = current - 1
        super().update(self._logs(), draw=not finalize)
        if finalize and (self.target is not None or self.verbose == 1):
            self.finish(self._logs())

    def add(self, n: int, values=None) -> None:
        """`n` more steps done."""
        self.update(self.done + n, values)
