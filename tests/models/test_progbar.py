"""`keras.utils.Progbar` for a loop of one's own: the lines Keras 3 prints for the same calls
(TensorFlow 2.21 + Keras 3), timing fields matched by pattern."""

from __future__ import annotations

import io
import re

import pytest

from runtime.keras.utils import Progbar

TIMES = r"\d+s - \d+(s|ms|us)/step"


def _run(capsys, calls, **options) -> list[str]:
    bar = Progbar(**options)
    for method, args, kwargs in calls:
        getattr(bar, method)(*args, **kwargs)
    text = re.sub(r"\x1b\[\d+m", "", capsys.readouterr().out)
    return [segment for segment in re.split(r"[\r\n]", text) if segment.strip()]


def test_verbose_2_averages_stateless_values_and_shows_stateful_ones(capsys):
    # Keras 3: "4/4 - 0s - 5us/step - loss: 0.2500 - acc: 0.8000"
    lines = _run(capsys, [("update", (1, [("loss", 1.0), ("acc", 0.5)]), {}),
                          ("update", (3, [("loss", 0.5), ("acc", 0.75)]), {}),
                          ("update", (4, [("loss", 0.25), ("acc", 0.8)]), {})],
                 target=4, verbose=2, stateful_metrics=["acc"])
    # the last update's own values, names in the order first given (not sorted)
    assert len(lines) == 1
    assert re.fullmatch(rf"4/4 - {TIMES} - loss: 0.2500 - acc: 0.8000", lines[0]), lines


def test_averages_weigh_each_update_by_its_steps(capsys):
    bar = Progbar(10, verbose=1)
    bar.update(1, [("loss", 1.0)])
    bar.update(4, [("loss", 0.5)])      # 3 steps of 0.5 after 1 step of 1.0
    assert bar._logs() == {"loss": pytest.approx((1.0 + 3 * 0.5) / 4)}
    bar.add(2, [("loss", 0.25)])
    assert bar._logs() == {"loss": pytest.approx((1.0 + 1.5 + 0.5) / 6)}
    assert bar.done == 6


def test_finalize_shows_the_given_value(capsys):
    # Keras 3: "4/4 - 0s - 2us/step - loss: 2.0000"
    lines = _run(capsys, [("update", (1, [("loss", 1.0)]), {}),
                          ("update", (3, [("loss", 0.5)]), {}),
                          ("update", (4, [("loss", 0.25)]), {"finalize": False}),
                          ("update", (4, [("loss", 2.0)]), {"finalize": True})],
                 target=4, verbose=2)
    assert len(lines) == 1 and re.fullmatch(rf"4/4 - {TIMES} - loss: 2.0000", lines[0])


def test_unknown_target_counts_up(capsys):
    # Keras 3's last line: "      3/Unknown 0s 17us/step - x: 3.0000"; verbose=2 prints nothing
    calls = [("add", (2, [("x", 1.0)]), {}), ("add", (1, [("x", 4.0)]), {}),
             ("update", (3, [("x", 3.0)]), {"finalize": True})]
    lines = _run(capsys, calls, target=None, verbose=1)
    assert re.fullmatch(r"      3/Unknown \d+s \d+(s|ms|us)/step - x: 3.0000", lines[-1]), lines
    assert _run(capsys, calls, target=None, verbose=2) == []


def test_width_and_unit_name(capsys):
    # Keras 3: "5/5 ━━━━━━━━━━ 0s 1us/sample - x: 3.0000"
    lines = _run(capsys, [("update", (5, [("x", 3.0)]), {})], target=5, verbose=1, width=10,
                 unit_name="sample")
    assert re.fullmatch(r"5/5 ━{10} \d+s \d+(s|ms|us)/sample - x: 3.0000", lines[-1]), lines


def test_stateful_and_stateless_lists_are_exclusive():
    with pytest.raises(ValueError, match="stateful_metrics or stateless_metrics"):
        Progbar(3, stateful_metrics=["a"], stateless_metrics=["b"])


def test_on_a_terminal_each_update_redraws_the_line(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True
    out = Terminal()
    monkeypatch.setattr("sys.stdout", out)
    bar = Progbar(3, verbose=1, interval=0)
    for step in (1, 2, 3):
        bar.update(step, [("loss", float(step))])
    drawn = [s for s in re.sub(r"\x1b\[\d+m", "", out.getvalue()).split("\r") if s.strip()]
    assert [d.split(" ")[0] for d in drawn] == ["1/3", "2/3", "3/3"]
    assert drawn[1].rstrip().endswith("loss: 1.5000")     # the mean of 1 and 2
    assert drawn[-1].rstrip().endswith("loss: 3.0000")   # the last line: the value given
