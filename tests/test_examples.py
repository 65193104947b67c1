"""The scripts in examples/ run to completion (the README's demo command runs one of them)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # the scripts import this tree's packages


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_runs(script, tmp_path):
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env=ENV)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip()


def test_quickstart_shows_every_stage():
    script = next(p for p in EXAMPLES if p.name == "quickstart.py")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, env=ENV).stdout
    assert "Collatz steps for 27: 111" in out
    assert "ag__.while_stmt" in out and "graph collatz_steps" in out and "def collatz_steps(a0)" in out
    losses = [float(line.rsplit("loss: ", 1)[1]) for line in out.splitlines()
              if "/step - " in line and "loss: " in line]  # Keras's line under each "Epoch k/n"
    assert len(losses) == 5 and losses[-1] < losses[0] / 5     # fit, and its loss falls
