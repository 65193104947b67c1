"""`fit`'s progress display follows the terminal width and keeps every metric visible."""

from __future__ import annotations

import io
import os
import re
import shutil

import numpy as np
import pytest

import runtime as rt
from runtime.layers.progress import EpochProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _screen_lines(text: str) -> list[str]:
    """What a terminal shows: each `\\r` returns to the start of the line."""
    return [segment for line in text.split("\n") for segment in line.split("\r")]


@pytest.fixture
def terminal(monkeypatch):
    def make(columns: int) -> Terminal:
        monkeypatch.setattr(shutil, "get_terminal_size",
                            lambda fallback=(80, 24): os.terminal_size((columns, 24)))
        out = Terminal()
        monkeypatch.setattr("sys.stdout", out)
        return out
    return make


def _fit(epochs: int = 2) -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)[:, None]
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="binary_crossentropy",
                  metrics=["accuracy"])
    model.fit(x, y, epochs=epochs, batch_size=16, validation_data=(x, y), verbose=1)


METRICS = ("loss", "accuracy", "val_loss", "val_accuracy")


@pytest.mark.parametrize("columns", [80, 40])
def test_fit_at_a_terminal_width_keeps_every_metric(terminal, columns):
    out = terminal(columns)
    _fit()
    text = out.getvalue()
    lines = _screen_lines(text)
    assert max(len(line) for line in lines) <= columns
    last_epoch = text[text.rindex("Epoch 2/2"):]
    for name in METRICS:
        assert re.search(rf"(^|[ -]){name}: \d\.\d{{4}}", last_epoch), (name, last_epoch)


def test_at_80_columns_the_last_epoch_is_one_line_with_a_bar(terminal):
    out = terminal(80)
    _fit()
    final = [line for line in out.getvalue().split("\n") if "Epoch 2/2" in line][-1]
    final = final.split("\r")[-1]
    assert "[" in final and "]" in final
    lines_after = out.getvalue()[out.getvalue().rindex("Epoch 2/2"):].strip().split("\n")
    assert all(len(line) <= 80 for line in lines_after)
    assert all(f"{name}: " in "\n".join(lines_after) for name in METRICS)


def test_a_narrow_terminal_drops_the_bar_and_wraps_between_metrics(terminal):
    out = terminal(40)
    _fit()
    lines_after = out.getvalue()[out.getvalue().rindex("Epoch 2/2"):].strip().split("\n")
    assert len(lines_after) > 1
    for line in lines_after:   # a metric is never cut in two
        for piece in line.strip().split(" - "):
            assert re.fullmatch(r"Epoch 2/2( \[=+\])?|\d+ steps|\d+\.\d\ds|\w+: \d\.\d{4}",
                                piece), piece


def test_live_line_redraws_within_the_width():
    out = Terminal()
    progress = EpochProgress(0, 1, 4, verbose=1, stream=out, width=40)
    logs = {"loss": 0.5, "accuracy": 0.25}
    for _ in range(4):
        progress.batch_done(logs)
    drawn = out.getvalue().split("\r")
    assert all(len(line) <= 39 for line in drawn)
    assert "4/4" in drawn[-1]


def test_live_line_has_a_bar_when_there_is_room():
    out = Terminal()
    progress = EpochProgress(0, 1, 4, verbose=1, stream=out, width=100)
    progress.batch_done({"loss": 0.5})
    progress.batch_done({"loss": 0.5})
    line = out.getvalue().split("\r")[-1]
    assert re.search(r"\[=+>?\.*\]", line) and "2/4" in line and "loss: 0.5000" in line


def test_non_terminal_output_is_one_line_per_epoch(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr(shutil, "get_terminal_size",
                        lambda fallback=(80, 24): os.terminal_size((40, 24)))
    _fit(epochs=3)
    lines = out.getvalue().splitlines()
    assert [line.split(" - ")[0] for line in lines] == ["Epoch 1/3", "Epoch 2/3", "Epoch 3/3"]
    assert "\r" not in out.getvalue()
    assert all(f"{name}: " in lines[-1] for name in METRICS)
