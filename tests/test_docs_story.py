"""The docs tell one story: no page contradicts another, and Dask examples run as files."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

# Statements that contradict what the project does (it saves models: saved-and-distributed.md;
# NumPy functions work on tensors: numpy.md; reduce_retracing does not stop retracing on
# Python numbers).
CONTRADICTIONS = [
    (r"\bno SavedModel\b", "the project saves models (rt.saved_model.save)"),
    (r"\bSavedModel (is|are) not (supported|implemented|available)", "saving is supported"),
    (r"(cannot|can't|does not|doesn't) save (a )?(model|function)s?\b", "saving is supported"),
    (r"avoid (calling )?NumPy functions", "np.* functions work on tensors"),
    (r"reduce_retracing=True to avoid", "reduce_retracing does not stop retraces on floats"),
]


def _text(path: pathlib.Path) -> str:
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("pattern, why", CONTRADICTIONS)
def test_no_page_contradicts_the_others(pattern, why):
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
            for p in PAGES for n, line in enumerate(_text(p).splitlines(), 1)
            if re.search(pattern, line, re.I)]
    assert hits == [], why


def test_saving_is_documented_where_tensorflow_users_look():
    assert "rt.saved_model.save" in _text(ROOT / "docs" / "tensorflow-users.md")
    assert "rt.saved_model" in _text(ROOT / "docs" / "saved-and-distributed.md")


def test_the_retracing_message_gives_advice_that_works():
    source = _text(ROOT / "runtime" / "function" / "polymorphic.py")
    message = source[source.index("has been traced %d times"):]
    message = message[:message.index(")\n")]
    assert "tensors instead" in message and "input_signature" in message
    assert "reduce_retracing=True to avoid" not in message


def _dask_blocks():
    for page in PAGES:
        blocks = BLOCK.findall(_text(page))
        for i, block in enumerate(blocks):
            if re.search(r"LocalCluster\(|Client\(", block):
                yield page, blocks[:i + 1]


DASK = list(_dask_blocks())


@pytest.mark.parametrize("page, blocks", DASK, ids=[p.name for p, _ in DASK])
def test_dask_examples_guard_the_cluster(page, blocks):
    last = blocks[-1]
    if "processes=False" in last:
        return
    assert 'if __name__ == "__main__":' in last, (
        f"{page.name}: a cluster with worker processes must start under "
        'if __name__ == "__main__": (worker processes import the main module)')


@pytest.mark.parametrize("page, blocks", DASK, ids=[p.name for p, _ in DASK])
def test_dask_examples_run_as_files(page, blocks, tmp_path):
    pytest.importorskip("distributed")
    script = tmp_path / "example.py"
    script.write_text("\n\n".join(blocks), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Nanny failed to start" not in result.stderr
