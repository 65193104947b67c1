"""Every ```python block in README.md and docs/*.md runs, so the documentation cannot rot.

The blocks of one file run in order in one namespace (later blocks use earlier names).
"""

import contextlib
import io
import linecache
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def python_blocks(path: pathlib.Path) -> list[str]:
    return BLOCK.findall(path.read_text())


def test_the_docs_have_examples():
    assert sum(len(python_blocks(p)) for p in DOCS) >= 10


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_examples_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": f"docs_{path.stem}"}
    for number, block in enumerate(python_blocks(path), 1):
        source_name = f"<{path.name} block {number}>"
        # like a notebook cell: the converter finds the source of functions through linecache
        linecache.cache[source_name] = (len(block), None, block.splitlines(True), source_name)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(block, source_name, "exec"), namespace)


def test_api_reference_matches_the_docstrings():
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": str(ROOT)}     # this checkout's packages, not an installed copy
    result = subprocess.run([sys.executable, str(ROOT / "docs" / "make_api_reference.py"), "--check"],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
