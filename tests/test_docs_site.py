"""The documentation site builds without warnings, and its API reference names every public name."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))
import make_api_reference  # noqa: E402 - the generator lives with the docs

sys.path.pop(0)


def test_the_reference_has_every_public_name():
    text = (ROOT / "docs" / "api.md").read_text()
    missing = []
    for module, name in make_api_reference.public_names():
        prefix = "rt" if module is make_api_reference.rt else "ag"
        if f"### `{prefix}.{name}" not in text and f"### `class {prefix}.{name}" not in text:
            missing.append(f"{prefix}.{name}")
    assert missing == []


def test_public_names_cover_the_namespaces_and_lazy_names():
    names = {f"{'rt' if m is make_api_reference.rt else 'ag'}.{n}"
             for m, n in make_api_reference.public_names()}
    assert {"rt.function", "rt.math.add", "rt.nn.relu",
            "rt.errors.InvalidArgumentError", "rt.layers.Sequential", "rt.nest.flatten",
            "rt.callbacks.EarlyStopping", "rt.GradientTape", "rt.debugging.disable_traceback_filtering",
            "ag.to_code", "ag.experimental.Feature"} <= names


def test_every_entry_is_rendered_by_mkdocstrings_from_where_it_is_defined():
    text = (ROOT / "docs" / "api.md").read_text()
    assert text.count("\n::: ") >= len({id(make_api_reference.resolve(m, n))
                                          for m, n in make_api_reference.public_names()
                                          if callable(make_api_reference.resolve(m, n))})


@pytest.mark.skipif(importlib.util.find_spec("mkdocstrings") is None,
                    reason="mkdocs and mkdocstrings are not installed (pip install -e .[test] "
                           "installs them on Python 3.11+; the site is built there)")
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                             "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "site" / "api" / "index.html").read_text()
    for method in ("experimental_get_tracing_count", "pretty_printed_concrete_signatures",
                   "get_concrete_function"):  # members rendered from the Function class
        assert method in page
