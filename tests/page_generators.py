"""The docs page generators (docs/make_*_page.py) loaded as modules, for the tests that
check their pages are current."""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"


def load_page_generator(script: str) -> ModuleType:
    """docs/<script>.py as a module (its PAGE, render and helpers)."""
    spec = importlib.util.spec_from_file_location(script, DOCS / f"{script}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_page_is_current(script: str) -> ModuleType:
    """Fails when rendering the generator's page again changes it; returns the generator."""
    page = load_page_generator(script)
    text = page.PAGE.read_text()
    assert page.render(text) == text, \
        f"docs/{page.PAGE.name} is stale: run python docs/{script}.py"
    return page
