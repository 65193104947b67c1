"""The command line tool: `python -m autograph PATH [FUNCTION ...] [--diff]`."""

from __future__ import annotations

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

    Path(__file__).with_suffix(".ran").write_text("the module was executed")


    def absolute(x):
        if x < 0:
            x = -x
        return x


    def total(xs):
        s = 0
        for x in xs:
            s += absolute(x)
        return s


    class Shape:
        def area(self, w, h):
            while w > h:
                w -= 1
            return w * h
''')


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "user_module.py"
    path.write_text(SOURCE)
    return path


def _run(*args):
    return subprocess.run([sys.executable, "-m", "autograph", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def test_all_top_level_functions_by_default(module):
    result = _run(module)
    assert result.returncode == 0, result.stderr
    assert "def absolute(x):" in result.stdout and "def total(xs):" in result.stdout
    assert "ag__.if_stmt(x < 0, if_body_1, None, ('x',))" in result.stdout
    assert "ag__.converted_call(absolute, x)" in result.stdout
    assert "def area" not in result.stdout
    compile(result.stdout, "<out>", "exec")


def test_named_functions_and_methods(module):
    result = _run(module, "total", "Shape.area")
    assert result.returncode == 0, result.stderr
    assert "def total(xs):" in result.stdout and "def area(self, w, h):" in result.stdout
    assert "def absolute" not in result.stdout
    assert "ag__.while_stmt(lambda: w > h, loop_body_1, ('w',))" in result.stdout


def test_diff(module):
    result = _run(module, "absolute", "--diff")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"--- {module}:absolute\n+++ {module}:absolute (converted)\n")
    assert "-    if x < 0:" in result.stdout
    assert "+    ag__.if_stmt(x < 0, if_body_1, None, ('x',))" in result.stdout


def test_the_file_is_never_executed(module):
    assert _run(module).returncode == 0
    assert _run(module, "--diff").returncode == 0
    assert not module.with_suffix(".ran").exists()


def test_missing_file_exits_1_with_one_line(tmp_path):
    result = _run(tmp_path / "absent.py")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "no such file" in result.stderr
    assert "Traceback" not in result.stderr


def test_syntax_error_exits_1_with_one_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f(:\n    pass\n")
    result = _run(path)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "syntax error" in result.stderr
    assert f"{path}:1" in result.stderr


def test_unknown_function_exits_1(module):
    result = _run(module, "nope")
    assert result.returncode == 1
    assert "nope" in result.stderr and result.stderr.count("\n") == 1
    result = _run(module, "Shape.nope")
    assert result.returncode == 1 and "Shape.nope" in result.stderr


def test_directory_exits_1(tmp_path):
    result = _run(tmp_path)
    assert result.returncode == 1 and "directory" in result.stderr


def test_usage_errors_exit_2():
    assert _run().returncode == 2
    assert _run("--bogus", "x.py").returncode == 2


def test_named_generator_exits_1(tmp_path):
    path = tmp_path / "gen.py"
    path.write_text("def g(n):\n    for i in range(n):\n        yield i\n")
    result = _run(path, "g")
    assert result.returncode == 1 and "generator" in result.stderr


def test_whole_file_lists_what_it_cannot_convert(tmp_path):
    path = tmp_path / "mixed.py"
    path.write_text("def g(n):\n    yield n\n\n\nasync def a():\n    return 1\n\n\n"
                    "def f(x):\n    if x > 0:\n        x = -x\n    return x\n")
    result = _run(path)
    assert result.returncode == 0, result.stderr
    assert f"# not converted: {path}:1: g is a generator function" in result.stdout
    assert f"# not converted: {path}:5: a is a coroutine function" in result.stdout
    assert "ag__.if_stmt(x > 0" in result.stdout
    compile(result.stdout, "<out>", "exec")


def test_diff_of_an_unchanged_function_says_so(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("def f(x):\n    return x + 1\n")
    result = _run(path, "--diff")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"# {path}:f: unchanged by conversion\n"


def test_version():
    import autograph
    result = _run("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"autograph {autograph.__version__}"
    assert autograph.__version__ == "0.1.0"


def test_usage_shows_function_as_optional():
    result = _run("--help")
    assert "autograph [options] PATH [FUNCTION ...]" in result.stdout


def test_no_color_environment_variable(tmp_path, monkeypatch):
    pytest.importorskip("pygments")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert "\x1b[" in cli._highlight("x = 1\n", False, "auto")
    monkeypatch.setenv("NO_COLOR", "1")
    assert cli._highlight("x = 1\n", False, "auto") == "x = 1\n"
    assert "\x1b[" in cli._highlight("x = 1\n", False, "always")


def test_main_in_process(module, capsys):
    assert cli.main([str(module), "absolute"]) == 0
    assert "def absolute(x):" in capsys.readouterr().out
    assert cli.main([str(module) + ".missing"]) == 1
    with pytest.raises(SystemExit) as info:
        cli.main([])
    assert info.value.code == 2


def test_console_script_entry_point_is_declared():
    setup_cfg = (ROOT / "setup.cfg").read_text()
    assert "autograph = autograph.cli:main" in setup_cfg
