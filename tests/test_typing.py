"""The public modules type-check with mypy (configured in setup.cfg)."""

import importlib.util
import pathlib
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PUBLIC = ["runtime/__init__.py", "autograph/__init__.py", "runtime/function/api.py",
          "runtime/function/polymorphic.py", "runtime/function/logs.py",
          "runtime/traceback_utils.py", "runtime/graph_printer.py", "runtime/errors.py",
          "autograph/impl/api.py", "autograph/impl/logs.py", "autograph/impl/errors.py",
          # the runtime's core: the graph IR, the passes and the NumPy backend
          "runtime/opdef.py", "runtime/graph.py", "runtime/tensor.py", "runtime/passes/",
          "runtime/backends/base.py", "runtime/backends/__init__.py",
          "runtime/backends/numpy_source.py"]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e .[test])")
def test_public_modules_type_check():
    cache = pathlib.Path(tempfile.gettempdir()) / "autograph-rt-mypy-cache"  # reruns are fast
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), *PUBLIC],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
