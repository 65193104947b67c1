"""The code base is ruff clean (the rules in .ruff.toml), so CI catches what a reviewer would."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("ruff")

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_ruff_reports_nothing():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr
