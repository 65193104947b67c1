"""A real Jupyter kernel shows reports, compiled functions and tensors as HTML."""

from __future__ import annotations

import os
import sys

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _kernel_name() -> str:
    """A kernel that runs this interpreter: the native `python3` spec when it is this one."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        pytest.skip("no python3 Jupyter kernel")
    if spec.argv and spec.argv[0] not in ("python", sys.executable):
        pytest.skip(f"the python3 kernel runs {spec.argv[0]}, not {sys.executable}")
    return "python3"


CELLS = [
    "import runtime as rt\n"
    "@rt.function\n"
    "def scaled_sum(x):\n"
    "    return rt.reduce_sum(x * 2.0)\n"
    "scaled_sum(rt.constant([1.0, 2.0, 3.0]))",
    "scaled_sum",
    "scaled_sum.report()",
    "scaled_sum.list_concrete_functions()[0]",
    "rt.constant([[1.5, 2.5], [3.5, 4.5]])",
    "import numpy as np\nrt.constant(np.arange(400.0).reshape(20, 20))",
]


@pytest.fixture(scope="module")
def outputs():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    client = nbclient.NotebookClient(notebook, kernel_name=_kernel_name(), timeout=120,
                                     resources={"metadata": {"path": REPO}})
    client.execute()
    result = []
    for cell in notebook.cells:
        data = {}
        for output in cell.outputs:
            assert output.output_type != "error", "".join(output.get("traceback", []))
            data.update(output.get("data", {}))
        result.append(data)
    return result


def test_a_tensor_result_is_an_html_table(outputs):
    html = outputs[0]["text/html"]
    assert "<table" in html and "shape=()" in html and "12." in html
    small = outputs[4]["text/html"]
    assert "shape=(2, 2)" in small and "float32" in small
    for value in ("1.5", "2.5", "3.5", "4.5"):
        assert f">{value}<" in small


def test_a_large_tensor_is_truncated(outputs):
    html = outputs[5]["text/html"]
    assert "shape=(20, 20)" in html and "some shown" in html
    assert ">0.<" in html and ">399.<" in html       # the corners are shown
    assert ">200.<" not in html                       # the middle is not
    assert html.count("<tr>") <= 11


def test_a_function_shows_its_signature_and_traces(outputs):
    html = outputs[1]["text/html"]
    assert "rt.Function" in html and "scaled_sum(x)" in html
    assert "1 trace(s)" in html and "float32" in html and "why traced" in html
    assert "href=" not in html


def test_the_report_renders_inline(outputs):
    data = outputs[2]
    html = data["text/html"]
    assert html.startswith("<iframe srcdoc=")
    assert "scaled_sum: pipeline report" in html and "generated NumPy code" in html
    assert "text/plain" in data            # the str is still there for plain frontends


def test_a_concrete_function_shows_its_graph_summary(outputs):
    html = outputs[3]["text/html"]
    assert "ConcreteFunction" in html and "ops:" in html and "why traced" in html
