"""`_repr_html_` of reports, functions and tensors, without a kernel."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.html_repr import ReportPage


def test_symbolic_tensor_html_names_shape_dtype_and_op():
    seen = []

    @rt.function
    def f(x):
        y = x * 2.0
        seen.append(y._repr_html_())
        return y

    f(rt.constant([1.0, 2.0]))
    assert "symbolic" in seen[0] and "(2,)" in seen[0] and "float32" in seen[0]
    assert "<code>Mul</code>" in seen[0] or "Mul" in seen[0]


def test_eager_tensor_html_values_match_numpy():
    value = np.array([[1, -2, 3]], dtype=np.int64)
    html = rt.constant(value)._repr_html_()
    assert "shape=(1, 3)" in html and "int64" in html
    assert [c for c in ("1", "-2", "3") if f">{c}<" in html] == ["1", "-2", "3"]


def test_long_vector_is_truncated_to_ten_columns():
    html = rt.constant(np.arange(1000))._repr_html_()
    assert html.count("<td") == 11 and "&hellip;" in html and ">999<" in html


def test_report_is_a_str_with_an_html_view():
    f = rt.function(lambda x: x + 1.0)
    page = f.report(rt.constant(1.0))
    assert isinstance(page, str) and isinstance(page, ReportPage)
    assert page.startswith("<!DOCTYPE html>")
    assert page._repr_html_().startswith("<iframe srcdoc=")


def test_untraced_function_html_says_so():
    f = rt.function(lambda x: x)
    assert "not traced yet" in f._repr_html_()


def test_function_html_shows_the_options_given_to_rt_function():
    f = rt.function(lambda x: x, jit_compile=True, reduce_retracing=True, autograph=False)
    html = f._repr_html_()
    assert "jit_compile=True" in html and "reduce_retracing=True" in html
    assert "autograph=False" in html
    assert (f.jit_compile, f.reduce_retracing) == (True, True)
    assert "jit_compile=None" in rt.function(lambda x: x)._repr_html_()
