"""The HTML pipeline report: its content, without a browser."""

import re

import numpy as np
import pytest

import runtime as rt

from . import pipeline_example
from .pipeline_example import double, pipeline

SPECS = (rt.TensorSpec([None], rt.float32), rt.TensorSpec([], rt.int32))


@pytest.fixture
def page():
    return rt.function(pipeline).report(*SPECS)


def _line_of(text: str) -> int:
    with open(pipeline_example.__file__, encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if text in line)


def test_page_is_self_contained(page):
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page


def test_page_shows_every_stage(page):
    assert "def pipeline(x, n):" in page              # the original source
    assert "ag__.if_stmt" in page                     # the converted source
    assert "graph <b>pipeline</b>" in page            # the traced graph
    assert "np.add.reduce(a0" in page                 # the generated code


def test_lines_are_cross_linked(page):
    line = _line_of("s = s + scale")
    tagged = re.findall(rf'<[^>]*data-line="{line}"[^>]*>', page)
    kinds = {k for tag in tagged for k in ("source", "converted", "generated", "op")
             if re.search(rf'class="[^"]*\b{k}\b', tag)}
    assert kinds == {"source", "converted", "generated", "op"}


def test_ops_show_types_constants_variables_and_outputs(page):
    assert "f32[?]" in page and "i32[]" in page
    assert '<span class="const">2.0</span>' in page
    assert "variable scale" in page
    assert "output 0" in page
    assert "captured from Python: offset" in page     # an eager tensor, by its Python name
    assert 'class="ref captured"' in page             # %x read inside the branch bodies


def test_dead_ops_are_not_drawn(page):
    assert "Mul(%x, 3.0)" not in page and ">3.0<" not in page


def test_bodies_are_collapsible(page):
    assert page.count("<details") == 2                # the cond and the while_loop


def test_every_trace_is_listed_with_its_reason():
    f = rt.function(pipeline)
    f(np.ones(2, np.float32), rt.constant(1))
    f(np.ones(1, np.float32), rt.constant(1))
    page = f.report()
    assert "first call" in page
    assert "argument &#x27;x&#x27; changed from float32 Tensor, shape=(2,)" in page
    assert page.count('<section id="trace-') == 2


def test_path_writes_the_file(tmp_path):
    out = tmp_path / "report.html"
    page = rt.function(pipeline).report(*SPECS, path=str(out))
    assert out.read_text(encoding="utf-8") == page


def test_plain_function_and_autograph_entry_point(tmp_path):
    import autograph as ag
    page = ag.report(pipeline, *SPECS)
    assert "def pipeline(x, n):" in page and "<details" in page


def test_autograph_false_says_so():
    page = rt.function(double, autograph=False).report(rt.TensorSpec([2], rt.float32))
    assert "autograph=False" in page


def test_methods_and_input_signatures():
    scaler = pipeline_example.Scaler()              # compiled methods hold their object weakly
    page = scaler.apply.report(rt.constant([1.0, 2.0]))
    assert "def apply(self, x):" in page and "variable w" in page
    page = pipeline_example.total.report()     # traced for its input signature
    assert page.count('<section id="trace-') == 1 and "first call" in page
