"""The per-epoch progress display of `Model.fit`: a tqdm bar on a terminal, else one line."""

from __future__ import annotations

import sys
import time


def _format(logs: dict) -> str:
    return " - ".join(f"{k}: {v:.4f}" for k, v in logs.items())


def _tqdm():
    """tqdm's bar class, or None without the optional extra `progress` (loaded on first use)."""
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class EpochProgress:
    """Shows one epoch: `verbose` 0 nothing, 1 a bar (tqdm on a terminal; otherwise one line
    at the end), 2 one line at the end."""

    def __init__(self, epoch: int, epochs: int, steps: int, verbose: int, stream=None):
        self.stream = stream or sys.stdout
        self.verbose, self.steps = verbose, steps
        self.title = f"Epoch {epoch + 1}/{epochs}"
        self.start = time.perf_counter()
        self.bar = None
        bar = _tqdm() if verbose == 1 and getattr(self.stream, "isatty", lambda: False)() else None
        if bar is not None:
            self.bar = bar(total=steps, desc=self.title, unit="step", file=self.stream,
                            leave=True, dynamic_ncols=True)

    def batch_done(self, logs: dict) -> None:
        if self.bar is not None:
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in logs.items()}, refresh=False)
            self.bar.update(1)

    def epoch_done(self, logs: dict) -> None:
        if self.bar is not None:
            self.bar.set_postfix({k: f"{v:.4f}" for k, v in logs.items()})
            self.bar.close()
        elif self.verbose:
            seconds = time.perf_counter() - self.start
            print(f"{self.title} - {self.steps} steps - {seconds:.2f}s - {_format(logs)}",
                  file=self.stream)
