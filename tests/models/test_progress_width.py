"""`fit`'s progress display is Keras 3's (`Epoch 1/2`, then
`4/4 ━━━━━━━━━━━━━━━━━━━━ 0s 3ms/step - accuracy: 0.9100 - loss: 0.2700`): the live line
fits the terminal, the last line holds every metric on one line, as Keras 3 writes it.

The expected texts are Keras 3's output for the same program (TensorFlow 2.21 + Keras 3), with
the timing fields matched by pattern."""

from __future__ import annotations

import io
import os
import re
import shutil

import numpy as np
import pytest

import runtime as rt
from runtime.layers import progress as progress_module
from runtime.layers.progress import EpochProgress, StepProgress, metric_text

TIME = r"\d+s"
PER_STEP = r"\d+(s|ms|us)/step"
VALUE = r"\d\.\d{4}"
BAR = "━" * 20


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _screen_lines(text: str) -> list[str]:
    """What a terminal shows: each `\\r` returns to the start of the line; colours take no
    room."""
    text = re.sub(r"\x1b\[\d+m", "", text)
    return [segment for line in text.split("\n") for segment in line.split("\r")]


@pytest.fixture
def columns(monkeypatch):
    def make(count: int, terminal: bool) -> io.StringIO:
        monkeypatch.setattr(shutil, "get_terminal_size",
                            lambda fallback=(80, 24): os.terminal_size((count, 24)))
        out = Terminal() if terminal else io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        return out
    return make


def _fit(epochs: int = 2, verbose: int = 1):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.float32)[:, None]
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="binary_crossentropy",
                  metrics=["accuracy"])
    return model.fit(x, y, epochs=epochs, batch_size=16, validation_data=(x, y),
                     verbose=verbose)


METRICS = ("accuracy", "loss", "val_accuracy", "val_loss")   # Keras's (sorted) order


def _metrics_pattern(history, epoch: int) -> str:
    return " - ".join(f"{name}: {history.history[name][epoch]:.4f}" for name in METRICS)


def test_verbose_2_writes_keras_one_line_a_epoch(columns):
    # Keras 3: "Epoch 1/2\n4/4 - 3s - 688ms/step - accuracy: 0.7031 - loss: 0.5740 -
    #           val_accuracy: 0.7500 - val_loss: 0.5401"
    out = columns(200, terminal=False)
    history = _fit(verbose=2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    for epoch, line in enumerate(lines[1::2]):
        assert re.fullmatch(rf"4/4 - {TIME} - {PER_STEP} - " + re.escape(
            _metrics_pattern(history, epoch)), line), line


def test_verbose_1_without_a_terminal_writes_the_epochs_last_line(columns):
    # Keras 3's last line: "4/4 ━━━━━━━━━━━━━━━━━━━━ 2s 194ms/step - accuracy: 0.7500 -
    #                       loss: 0.5345 - val_accuracy: 0.7656 - val_loss: 0.5095"
    out = columns(200, terminal=False)
    history = _fit(verbose=1)
    text = out.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    assert lines[0::2] == ["Epoch 1/2", "Epoch 2/2"]
    for epoch, line in enumerate(lines[1::2]):
        assert re.fullmatch(rf"4/4 {BAR} {TIME} {PER_STEP} - " + re.escape(
            _metrics_pattern(history, epoch)), line), line


def test_the_last_line_is_one_line_however_narrow_the_output(columns):
    # Keras 3 writes the final line whole (it never breaks it between metrics)
    out = columns(40, terminal=False)
    history = _fit(verbose=1)
    lines = out.getvalue().splitlines()
    assert lines[0::2] == ["Epoch 1/2", "Epoch 2/2"]
    last = lines[lines.index("Epoch 2/2") + 1]
    assert len(last) > 40
    assert re.fullmatch(rf"4/4 {BAR} {TIME} {PER_STEP} - " + re.escape(
        _metrics_pattern(history, 1)), last), last


@pytest.mark.parametrize("width", [80, 40])
def test_at_a_terminal_the_live_line_fits_and_the_last_shows_every_metric(columns, width):
    out = columns(width, terminal=True)
    history = _fit()
    text = re.sub(r"\x1b\[\d+m", "", out.getvalue())
    lines = text.split("\n")
    live = [segment for line in lines for segment in line.split("\r")[:-1]]  # redrawn
    assert live and max(len(line) for line in live) <= width
    last = lines[-2].split("\r")[-1]
    assert re.fullmatch(rf"4/4 {BAR} {TIME} {PER_STEP} - " + re.escape(
        _metrics_pattern(history, 1)), last), last


def test_on_a_terminal_the_line_is_redrawn_in_keras_colours(columns):
    out = columns(200, terminal=True)
    _fit(epochs=1)
    text = out.getvalue()
    final = text.split("\r")[-1]
    # Keras 3: bold count and time, the done part of the bar green, the rest grey
    assert re.match(r"\x1b\[1m4/4\x1b\[0m \x1b\[32m" + BAR + r"\x1b\[0m\x1b\[37m\x1b\[0m "
                    rf"\x1b\[1m{TIME}\x1b\[0m {PER_STEP} - accuracy: {VALUE}", final), final


def test_live_line_shows_time_left_and_keras_step_time(monkeypatch):
    """Keras's estimate: after the first step, the mean time of the later steps; the time
    left is that times the steps to go."""
    clock = iter([0.0, 5.0, 7.0, 9.0, 11.0, 100.0])
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: next(clock))
    out = Terminal()
    progress = StepProgress(10, verbose=1, stream=out, width=120)
    progress.update({"loss": 0.5})      # t=5: 5s a step so far, 9 to go
    progress.update({"loss": 0.25})     # t=7: (7 - 5) / 1 = 2s a step, 8 to go
    shown = _screen_lines(out.getvalue())
    assert shown[1].startswith(f" 1/10 {'━' * 2}{'━' * 18} 45s 5s/step - loss: 0.5000")
    assert shown[2].startswith(f" 2/10 {'━' * 4}{'━' * 16} 16s 2s/step - loss: 0.2500")
    progress.update({"loss": 0.25})     # t=9
    progress.update({"loss": 0.25})     # t=11: 6s / 3 steps
    assert _screen_lines(out.getvalue())[-1].startswith(" 4/10 " + "━" * 20 + " 12s 2s/step")
    progress.steps = 4
    progress.finish({"loss": 0.125})    # t=100: 100s in all, (100 - 5) / 3 per step
    assert _screen_lines(out.getvalue())[-2] == "4/4 " + "━" * 20 + " 100s 32s/step - loss: 0.1250"


def test_long_times_left_read_as_minutes_and_hours():
    assert progress_module.eta_text(59) == "59s"
    assert progress_module.eta_text(65) == "1:05"
    assert progress_module.eta_text(7265) == "2:01:05"
    assert progress_module.step_time_text(0.0003) == "300us/step"
    assert progress_module.step_time_text(0.25) == "250ms/step"


def test_metrics_show_in_the_order_first_logged_with_keras_number_format():
    # Keras's Progbar: names in the order first seen (the logs it gets are sorted by name)
    out = io.StringIO()
    progress = EpochProgress(0, 3, 2, verbose=2, stream=out, width=200)
    progress.batch_done({"zz": 0.5, "loss": 1.0})
    progress.batch_done({"zz": 0.5, "loss": 1.0})
    progress.epoch_done({"mae": 0.0001, "accuracy": 0.75, "val_b": 2.0, "loss": -0.25,
                         "zz": 0.5})
    lines = out.getvalue().splitlines()
    assert lines[0] == "Epoch 1/3"
    assert re.fullmatch(rf"2/2 - {TIME} - {PER_STEP} - zz: 0.5000 - loss: -0.2500 - "
                        r"mae: 1.0000e-04 - accuracy: 0.7500 - val_b: 2.0000", lines[1]), lines[1]
    assert metric_text(np.array([0.5, 0.25])) == "0.3750"   # Keras shows an array's mean


def test_unknown_steps_count_up_then_show_the_total():
    out = Terminal()
    progress = StepProgress(None, verbose=1, stream=out, width=120)
    progress.update({"loss": 1.0})
    progress.finish({"loss": 1.0})
    shown = _screen_lines(out.getvalue())
    assert shown[1].startswith("      1/Unknown ")
    assert re.fullmatch(rf"1/1 {BAR} {TIME} {PER_STEP} - loss: 1.0000", shown[-2]), shown


def test_verbose_0_writes_nothing():
    silent = io.StringIO()
    progress = EpochProgress(0, 3, 4, verbose=0, stream=silent)
    progress.batch_done({"loss": 0.5})
    progress.epoch_done({"loss": 0.5})
    assert silent.getvalue() == ""
