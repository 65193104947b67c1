"""Converting a function whose file changed on disk after import is refused, never silent."""

import importlib
import linecache
import logging
import sys
import textwrap

import pytest

import autograph as ag
import runtime as rt
from autograph.pyct.parser import SourceUnavailableError

ORIGINAL = textwrap.dedent("""
    def entry(x):
        return helper(x)

    def helper(x):
        if x > 0:
            return x * 2
        return -x
""")


@pytest.fixture
def module(tmp_path, monkeypatch):
    path = tmp_path / "edited_module.py"
    path.write_text(ORIGINAL)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("edited_module", None)
    mod = importlib.import_module("edited_module")
    yield mod, path
    sys.modules.pop("edited_module", None)
    linecache.checkcache(str(path))


@pytest.mark.parametrize("edit", [
    lambda text: "\n\n" + text,                                          # lines moved down
    lambda text: text.replace("return x * 2", "y = x * 3\n        return y"),  # body grew
    lambda text: text.replace("def helper(x)", "def helper(x, scale=2)"),    # parameters changed
], ids=["shifted", "longer", "new-parameter"])
def test_an_edited_file_is_detected(module, edit, caplog):
    mod, path = module
    path.write_text(edit(ORIGINAL))
    linecache.checkcache(str(path))
    with pytest.raises(SourceUnavailableError, match="(changed after 'helper')|('helper'.*out of date)"):
        ag.to_code(mod.helper)
    with caplog.at_level(logging.WARNING):
        assert int(rt.function(mod.helper)(3)) == 6  # the code imported, unconverted
    assert any("helper" in r.getMessage() and ("changed" in r.getMessage() or "out of date" in
                                                r.getMessage()) for r in caplog.records)


def test_a_stale_callee_runs_unconverted_with_a_warning(module, caplog):
    mod, path = module
    path.write_text(ORIGINAL.replace("return x * 2", "y = x * 3\n        return y"))
    linecache.checkcache(str(path))
    with caplog.at_level(logging.WARNING):
        assert int(rt.function(mod.entry)(3)) == 6  # the code imported, not the new text
    assert any("helper" in r.getMessage() and "changed" in r.getMessage() for r in caplog.records)


def test_an_unchanged_file_converts(module):
    mod, _ = module
    assert int(rt.function(mod.helper)(rt.constant(-3))) == 3


@pytest.mark.parametrize("edit", [
    lambda text: text.replace("return x * 2", "return x * 3"),   # a constant
    lambda text: text.replace("return x * 2", "return x + 2"),   # an operator
    lambda text: text.replace("return -x", "return +x"),         # same line count
    lambda text: text.replace("if x > 0", "if x < 0"),
], ids=["constant", "operator", "unary", "comparison"])
def test_an_edit_that_keeps_the_lines_is_detected(module, edit, caplog):
    mod, path = module
    path.write_text(edit(ORIGINAL))
    linecache.checkcache(str(path))
    with pytest.raises(SourceUnavailableError, match="changed after 'helper'"):
        ag.to_code(mod.helper)
    with caplog.at_level(logging.WARNING):
        assert int(rt.function(mod.helper)(3)) == 6  # the code imported, unconverted


CLOSURES = textwrap.dedent("""
    from __future__ import annotations

    try:
        import math
    except ImportError:
        math = None

    def make(scale):
        offset = 1.5

        def inner(x: float) -> float:
            if x > 0:
                return x * scale + offset + math.floor(0.5)
            return -x
        return inner

    class Model:
        def __init__(self):
            self.__w = 2.0

        def call(self, x):
            if x > 0:
                return super().__hash__() * 0 + x * self.__w
            return x
""")


def test_closures_methods_and_private_names_are_current(tmp_path, monkeypatch):
    path = tmp_path / "closures_module.py"
    path.write_text(CLOSURES)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("closures_module", None)
    try:
        mod = importlib.import_module("closures_module")
        ag.to_code(mod.make(3.0))
        ag.to_code(mod.Model.call)
        assert float(rt.function(mod.make(3.0))(rt.constant(2.0))) == 7.5
        assert float(rt.function(mod.Model().call)(rt.constant(2.0))) == 4.0
        path.write_text(CLOSURES.replace("x * scale + offset", "x * scale - offset"))
        linecache.checkcache(str(path))
        with pytest.raises(SourceUnavailableError, match="changed after 'inner'"):
            ag.to_code(mod.make(3.0))
    finally:
        sys.modules.pop("closures_module", None)
        linecache.checkcache(str(path))


def test_a_lambda_whose_line_now_holds_another_lambda_is_not_converted(tmp_path, monkeypatch):
    path = tmp_path / "edited_lambdas.py"
    path.write_text("import runtime as rt\nFNS = [\n    lambda x: rt.reduce_sum(x),\n"
                    "    lambda x: rt.reduce_max(x),\n]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("edited_lambdas", None)
    mod = importlib.import_module("edited_lambdas")
    try:
        # the two lambdas swap lines: the text at the first one's line is the other one
        path.write_text("import runtime as rt\nFNS = [\n    lambda x: rt.reduce_max(x),\n"
                        "    lambda x: rt.reduce_sum(x),\n]\n")
        linecache.checkcache(str(path))
        with pytest.raises(SourceUnavailableError, match="another lambda"):
            ag.to_code(mod.FNS[0])
        assert float(rt.function(mod.FNS[0])(rt.constant([1.0, 5.0]))) == 6.0   # the code imported
    finally:
        sys.modules.pop("edited_lambdas", None)
        linecache.checkcache(str(path))
