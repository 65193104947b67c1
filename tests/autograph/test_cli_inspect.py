"""The command line's inspection options: --trace, --color, --help, and mixed argument order."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autograph import cli

ROOT = Path(__file__).resolve().parents[2]

SOURCE = textwrap.dedent('''
    import runtime as rt
    from pathlib import Path

    Path(__file__).with_suffix(".ran").write_text("imported")


    def double_until(x, n):
        for i in range(n):
            if rt.reduce_sum(x) > 10.0:
                break
            x = x * 2.0
        return x
''')


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    return path


def run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "autograph", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env=env)


def test_trace_prints_the_graph_and_the_generated_code(module):
    result = run(module, "double_until", "--trace", "f32[None,3], i32[]")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "x: float32 Tensor, shape=(None, 3)" in out
    assert "While(" in out and "If(" in out          # the graph, staged
    assert "def double_until(a0, a1):" in out and "while " in out   # the generated code
    assert module.with_suffix(".ran").exists()     # --trace imports the file, as its help says


def test_trace_usage_and_spec_errors(module):
    result = run(module, "--trace", "f32[]")
    assert result.returncode == 2 and "exactly one FUNCTION" in result.stderr
    result = run(module, "double_until", "--trace", "q9[3], i32[]")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "q9" in result.stderr
    result = run(module, "missing", "--trace", "f32[]")
    assert result.returncode == 1 and "missing" in result.stderr


def test_options_may_come_after_function_names(module):
    result = run(module, "--diff", "double_until")
    assert result.returncode == 0
    mixed = run(module, "double_until", "--diff")
    assert mixed.returncode == 0 and mixed.stdout == result.stdout
    assert result.stdout.startswith("---") and "+++" in result.stdout
    assert not module.with_suffix(".ran").exists()


def test_no_colour_into_a_pipe_and_colour_on_request(module):
    plain = run(module, "double_until")
    assert "\x1b[" not in plain.stdout
    pytest.importorskip("pygments")
    coloured = run(module, "double_until", "--color", "always")
    assert coloured.returncode == 0 and "\x1b[" in coloured.stdout


def test_help_shows_examples_and_says_trace_runs_the_file():
    result = run("--help")
    assert result.returncode == 0
    assert "examples:" in result.stdout and "--trace" in result.stdout
    assert "IMPORTS" in result.stdout


def test_trace_in_process(module, capsys):
    assert cli.main([str(module), "double_until", "--trace", "f64[4], i32[]"]) == 0
    assert "f64[4]" in capsys.readouterr().out


def test_trace_checks_specs_before_importing_the_file(module):
    result = run(module, "double_until", "--trace", "f32[3], i32[x]")
    assert result.returncode == 1 and "bad dimension" in result.stderr
    assert not module.with_suffix(".ran").exists()


def test_diff_with_trace_is_a_usage_error(module):
    result = run(module, "double_until", "--trace", "f32[3], i32[]", "--diff")
    assert result.returncode == 2 and "--diff" in result.stderr
    result = run(module, "double_until", "--html", "out.html")
    assert result.returncode == 2 and "--trace" in result.stderr


def test_trace_html_writes_the_report(module, tmp_path):
    out = tmp_path / "report.html"
    result = run(module, "double_until", "--trace", "f32[None,3], i32[]", "--html", out)
    assert result.returncode == 0, result.stderr
    assert str(out) in result.stdout
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "def double_until(x, n):" in page
    assert "ag__.for_stmt" in page and "<details" in page and "def double_until(a0, a1):" in page
