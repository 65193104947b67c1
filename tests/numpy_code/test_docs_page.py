"""docs/numpy.md lists exactly the NumPy calls the registry supports."""

import importlib.util
import pathlib

PAGE_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "make_numpy_page.py"


def _page_module():
    spec = importlib.util.spec_from_file_location("make_numpy_page", PAGE_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_numpy_page_matches_the_registry():
    page = _page_module()
    text = page.PAGE.read_text()
    assert page.render(text) == text, "docs/numpy.md is stale: run python docs/make_numpy_page.py"


def test_the_page_lists_the_calls_the_task_needs():
    text = _page_module().PAGE.read_text()
    for name in ("sum", "mean", "std", "var", "argmax", "cumsum", "dot", "matmul", "einsum",
                 "concatenate", "where", "clip", "exp", "allclose", "full_like", "take",
                 "linalg.norm"):
        assert f"| `np.{name}` |" in text, name
