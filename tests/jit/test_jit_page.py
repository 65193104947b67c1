"""docs/jit.md says how the Numba tier runs every op of the registry, and refuses only those."""

import importlib.util
import pathlib

from .test_every_op import REFUSED

PAGE_SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "make_jit_page.py"


def _page_module():
    spec = importlib.util.spec_from_file_location("make_jit_page", PAGE_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_jit_page_matches_the_registry_and_the_rules():
    page = _page_module()
    text = page.PAGE.read_text()
    assert page.render(text) == text, "docs/jit.md is stale: run python docs/make_jit_page.py"


def test_the_ops_the_page_refuses_are_the_ones_the_tests_find_refused():
    from runtime.opdef import builtin_ops
    page = _page_module()
    refused = {name for name, opdef in builtin_ops().items() if "refused" in page.how(name, opdef)}
    assert refused == REFUSED
