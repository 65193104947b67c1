"""Functions without source (typed at the prompt, `python -c`, `exec`): `rt.function` traces
them as written with one warning, `ag.to_code` says why it cannot convert them."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

import autograph as ag
import runtime as rt

ROOT = Path(__file__).resolve().parents[2]

_PROGRAM = """
import runtime as rt
def f(x):
    return x * 2 + 1
g = rt.function(f)
print(g(rt.constant(1.0)).numpy(), g(rt.constant(2.0)).numpy(), g(rt.constant([3.0])).numpy())
h = rt.function(lambda x: x - 1)
print(h(rt.constant(1.0)).numpy())
"""


def test_python_c_runs_unconverted_with_one_warning_per_function():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["3.0", "5.0", "[7.]", "0.0"]
    if sys.version_info >= (3, 13):  # Python 3.13 keeps the source of `python -c` code
        assert "Not converting" not in done.stderr
        return
    assert done.stderr.count("Not converting f:") == 1
    assert done.stderr.count("Not converting <lambda>:") == 1
    assert "python -c" in done.stderr


def _exec(source: str, name: str):
    namespace: dict = {"rt": rt}
    exec(compile(source, "<string>", "exec"), namespace)
    return namespace[name]


def test_exec_function_is_traced_as_written(caplog):
    f = _exec("def f(x):\n    return x + 1\n", "f")
    g = rt.function(f)
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert g(rt.constant(1.0)).numpy() == 2.0
        assert g(rt.constant(5.0)).numpy() == 6.0
        assert g(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    warnings = [r for r in caplog.records if "Not converting f" in r.getMessage()]
    assert len(warnings) == 1
    assert "exec" in warnings[0].getMessage()


def test_exec_lambda_is_traced_as_written(caplog):
    f = _exec("f = lambda x: x * 3\n", "f")
    with caplog.at_level(logging.WARNING, logger="autograph"):
        assert rt.function(f)(rt.constant(2.0)).numpy() == 6.0
    assert sum("Not converting <lambda>" in r.getMessage() for r in caplog.records) == 1


def test_to_code_names_the_reason():
    f = _exec("def f(x):\n    if x > 0:\n        return x\n    return -x\n", "f")
    with pytest.raises(Exception, match="not available: it was defined in <string>.*exec"):
        ag.to_code(f)
    with pytest.raises(Exception, match="not available"):
        ag.to_graph(f)


def test_control_flow_without_source_fails_clearly():
    f = _exec("def f(x):\n    if x > 0:\n        return x\n    return -x\n", "f")
    assert rt.function(f)(-2.0) == 2.0      # Python values: plain Python
    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        rt.function(f)(rt.constant(-2.0))
    assert "autograph=True" not in str(info.value)      # autograph is on; f has no source
