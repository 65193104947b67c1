"""Jupyter's views (`_repr_html_`) of a Variable, a Dataset and a Keras model: what they
show is read back from the HTML and compared with the objects (NumPy values, the element
spec given, the model's summary)."""

from __future__ import annotations

import html
import re

import numpy as np

import runtime as rt


def _cells(text: str) -> list[list[str]]:
    """The table rows of an HTML fragment, each a list of cell texts (tags removed)."""
    rows = re.findall(r"<tr>(.*?)</tr>", text)
    return [[html.unescape(re.sub(r"<[^>]+>", "", cell))
             for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)] for row in rows]


def test_a_variable_shows_its_name_shape_dtype_and_values():
    value = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    variable = rt.Variable(value, name="kernel", trainable=False)
    page = variable._repr_html_()
    assert "<b>rt.Variable</b>" in page and "shape=(2, 3)" in page
    assert "dtype=float32" in page and "trainable=False" in page and "kernel" in page
    shown = np.array([[float(c) for c in row] for row in _cells(page)])
    np.testing.assert_array_equal(shown, value)
    variable.assign(value + 1)     # the view reads the current value
    shown = np.array([[float(c) for c in row] for row in _cells(variable._repr_html_())])
    np.testing.assert_array_equal(shown, value + 1)


def test_a_dataset_shows_its_element_spec_and_size_without_running():
    features = {"a": np.zeros((5, 2)), "b": np.zeros((5,), np.int32)}
    dataset = rt.data.Dataset.from_tensor_slices((features, np.arange(5))).batch(2)
    page = dataset._repr_html_()
    assert "<b>rt.data.Dataset</b>" in page and "3 elements" in page   # ceil(5 / 2) batches
    assert _cells(page) == [["component", "shape", "dtype"],
                            ["[0]['a']", "(None, 2)", "float64"],
                            ["[0]['b']", "(None,)", "int32"],
                            ["[1]", "(None,)", "int64"]]
    assert "infinite" in dataset.repeat()._repr_html_()

    def never():
        raise AssertionError("the view ran the pipeline")
        yield 0
    lazy = rt.data.Dataset.from_generator(
        never, output_signature=rt.TensorSpec((3,), rt.float32))
    assert _cells(lazy._repr_html_())[1:] == [["element", "(3,)", "float32"]]
    assert "unknown" in lazy._repr_html_()


def test_a_model_shows_its_summary_table():
    model = rt.keras.Sequential([rt.keras.Input((4,)), rt.keras.layers.Dense(3, name="hidden"),
                                 rt.keras.layers.Dense(1, name="out")], name="mlp")
    page = model._repr_html_()
    assert 'Model: "mlp"' in html.unescape(page)
    # the rows of summary(): 4*3+3 and 3*1+1 weights
    assert _cells(page) == [["Layer (type)", "Output Shape", "Param #"],
                            ["hidden (Dense)", "(None, 3)", "15"],
                            ["out (Dense)", "(None, 1)", "4"]]
    assert "Total params: 19 (76.00 B)" in page
