"""`--color always` without pygments says so instead of silently printing plain text."""

from __future__ import annotations

import sys

from autograph import cli


def _without_pygments(monkeypatch):
    for name in ("pygments", "pygments.formatters", "pygments.lexers"):
        monkeypatch.setitem(sys.modules, name, None)   # `import` raises ImportError


def test_color_always_without_pygments_says_so(monkeypatch, capsys):
    _without_pygments(monkeypatch)
    assert cli._highlight("x = 1\n", False, "always") == "x = 1\n"
    err = capsys.readouterr().err
    assert "--color always needs pygments" in err and "pip install pygments" in err


def test_color_auto_without_pygments_is_quiet(monkeypatch, capsys):
    _without_pygments(monkeypatch)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert cli._highlight("x = 1\n", False, "auto") == "x = 1\n"
    assert capsys.readouterr().err == ""
