"""Warnings of the runtime and autograph point at the user's file and line."""

from __future__ import annotations

import sys
import warnings

import pytest

import runtime as rt
from autograph import logging_util
from autograph.logging_util import LibraryWarning


@pytest.fixture(autouse=True)
def _logging_not_configured(monkeypatch):
    """Pytest's log capture counts as configured logging (pytest 9 also attaches its handlers
    to loggers that do not propagate); these tests are about the warnings issued when
    logging is not configured, so they say so."""
    monkeypatch.setattr(logging_util, "_configured", lambda logger: False)


def _library_warnings(caught):
    return [w for w in caught if issubclass(w.category, LibraryWarning)]


def test_retracing_warning_points_at_the_calling_line():
    @rt.function
    def scale(x, factor):
        return x * factor

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(6):
            line = sys._getframe().f_lineno + 1
            scale(rt.constant(1.0), float(i))
    found = [w for w in _library_warnings(caught) if "traced 5 times" in str(w.message)]
    assert found, [str(w.message) for w in caught]
    assert found[0].filename == __file__
    assert found[0].lineno == line


def test_retracing_advice_does_not_recommend_reduce_retracing_for_floats():
    @rt.function
    def shift(x, by):
        return x + by

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(5):
            shift(rt.constant(1.0), float(i))
    message = str(_library_warnings(caught)[0].message)
    assert "input_signature" in message and "tensors instead of Python numbers" in message
    assert "reduce_retracing=True to avoid" not in message


def test_compiled_anew_warning_points_at_the_calling_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(5):
            line = sys._getframe().f_lineno + 1
            rt.function(lambda x: x * 2)(rt.constant(1.0))
    found = [w for w in _library_warnings(caught) if "compiled anew" in str(w.message)]
    assert found and found[0].filename == __file__ and found[0].lineno == line


def test_source_unavailable_warning_points_at_the_calling_line():
    namespace: dict = {}
    exec("def no_source(x):\n    return x + 1\n", namespace)   # no file, no linecache entry

    @rt.function
    def outer(x):
        return namespace["no_source"](x)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        outer(rt.constant(1.0))
    found = [w for w in _library_warnings(caught) if "Not converting" in str(w.message)]
    assert found, [str(w.message) for w in caught]
    assert found[0].filename == __file__
    assert found[0].lineno in (line, outer.python_function.__code__.co_firstlineno + 2)


def test_unconvertible_function_compiled_directly_points_at_the_call():
    namespace: dict = {}
    exec("def direct(x):\n    return x * 3\n", namespace)
    f = rt.function(namespace["direct"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        f(rt.constant(1.0))
    found = [w for w in _library_warnings(caught) if "Not converting" in str(w.message)]
    assert found, [str(w.message) for w in caught]
    assert found[0].filename == __file__ and found[0].lineno == line


def test_early_stopping_warning_points_at_fit():
    model = rt.keras.Sequential([rt.keras.layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
    x = rt.constant([[1.0], [2.0]])
    stop = rt.keras.callbacks.EarlyStopping(monitor="val_nothing")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        model.fit(x, x, epochs=1, verbose=0, callbacks=[stop])
    found = [w for w in caught if "EarlyStopping" in str(w.message)]
    assert found and found[0].filename == __file__ and found[0].lineno == line


def test_a_warning_before_logging_is_imported_still_reaches_the_user():
    """While nothing imported `logging` (so nothing configured it) the warning is issued through
    `warnings` alone, at the user's line, and `logging` stays unimported."""
    import subprocess
    # the lambda is made by exec so that its source is unavailable on every Python version
    # (3.13 keeps the source of `python -c` itself where inspect finds it)
    program = ("import sys, warnings\n"
               "import numpy as np, runtime as rt\n"
               "made = {}\n"
               "exec('g = lambda x: x * 2 + 1', made)\n"
               "f = rt.function(made['g'])\n"
               "with warnings.catch_warnings(record=True) as caught:\n"
               "    warnings.simplefilter('always')\n"
               "    f(np.ones(3, np.float32))\n"
               "assert 'logging' not in sys.modules\n"
               "found = [w for w in caught if 'Not converting' in str(w.message)]\n"
               "assert len(found) == 1 and found[0].category.__name__ == 'LibraryWarning', caught\n"
               "assert (found[0].filename, found[0].lineno) == ('<string>', 8), found[0]\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
