"""The report page in a real headless browser (Chromium through Playwright).

Skipped, with the reason shown, when Playwright or a Chromium binary is missing. The page's
screenshot and load time are written under tests/report/artifacts/ (not versioned).
"""

import os
import shutil
import time
from pathlib import Path

import pytest

import runtime as rt

from .pipeline_example import pipeline

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright "
                               "(pip install 'autograph-rt[test]')")

ARTIFACTS = Path(__file__).parent / "artifacts"
SPECS = (rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.int32))


def _chromium() -> str:
    for candidate in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser",
                      "google-chrome"):
        found = candidate and shutil.which(candidate)
        if found:
            return found
    pytest.skip("no Chromium binary found (apt-get install chromium, or set CHROMIUM)")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=_chromium())
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "pipeline.html"
    rt.function(pipeline).report(*SPECS, path=str(path))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: errors.append(f"network request: {r.url}")
            if not r.url.startswith("file:") else None)
    start = time.perf_counter()
    page.goto(path.as_uri(), wait_until="load")
    page.load_seconds = time.perf_counter() - start
    page.errors = errors
    yield page
    page.close()


def _highlighted(page) -> list:
    return page.eval_on_selector_all(".hl", "els => els.map(e => e.className)")


def test_page_loads_without_errors_and_is_saved(page):
    shot = ARTIFACTS / "pipeline.png"
    page.screenshot(path=str(shot), full_page=True)
    (ARTIFACTS / "load_time.txt").write_text(f"{page.load_seconds * 1e3:.0f} ms\n")
    print(f"\nreport loaded in {page.load_seconds * 1e3:.0f} ms; screenshot: {shot}")
    assert page.errors == []
    assert shot.stat().st_size > 10_000
    assert page.title() == "pipeline: pipeline report"


def test_clicking_a_source_line_highlights_its_code_and_ops(page):
    assert _highlighted(page) == []
    page.click(".ln.source:has-text('s = s + scale')")
    classes = " ".join(_highlighted(page))
    assert "source" in classes and "converted" in classes
    assert "generated" in classes and "op" in classes
    assert page.errors == []


def test_clicking_an_op_highlights_its_source_line_and_moves(page):
    page.click("#t1-graph .op[data-op='t1:Sum']")
    first = page.eval_on_selector(".ln.source.hl", "e => e.textContent")
    assert "rt.reduce_sum(x)" in first
    assert page.eval_on_selector(".sel", "e => e.getAttribute('data-op')") == "t1:Sum"
    page.click(".ln.generated:has-text('w1 + ')")      # `i += 1` in the loop
    moved = page.eval_on_selector(".ln.source.hl", "e => e.textContent")
    assert "i += 1" in moved


def test_bodies_fold_and_unfold(page):
    body = page.locator("#t1-graph details").first
    inner = body.locator(".body")
    assert inner.is_visible()
    body.locator("summary .fold").click()
    assert not inner.is_visible()
    body.locator("summary .fold").click()
    assert inner.is_visible()
    # clicking the op itself highlights it and leaves the body open
    body.locator("summary").click(position={"x": 60, "y": 5})
    assert inner.is_visible() and _highlighted(page)
