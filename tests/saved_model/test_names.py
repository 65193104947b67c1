"""Names that are not valid in the file (`<lambda>`, spaces, '..') are sanitised when written,
so the recipe our own error message suggests, `rt.function(lambda x: model(x), ...)`, saves
a file that `load`, `loads` and `rt.dask.map_blocks` accept. NumPy computes the expected values.
"""

import io
import json
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.saved_model import files
from runtime.saved_model.codec import check_name, safe_name

W = np.arange(6, dtype=np.float32).reshape(3, 2) / 7
X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)


class Linear(rt.Model):
    def __init__(self):
        super().__init__()
        self.w = rt.Variable(W, name="my weights")  # a space: not a valid saved name either

    def call(self, inputs, training=None):
        return rt.matmul(inputs, self.w)


def _lambda_signature():
    model = Linear()
    return model, rt.function(lambda x: model(x), input_signature=[rt.TensorSpec([None, 3])])


def test_the_suggested_recipe_round_trips_through_a_directory(tmp_path):
    model, call = _lambda_signature()
    rt.saved_model.save(model, str(tmp_path / "m"), signatures=call)
    loaded = rt.saved_model.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(X).numpy(), X @ W, rtol=1e-6)
    np.testing.assert_array_equal(loaded.variables[0].numpy(), W)


def test_the_suggested_recipe_round_trips_through_bytes():
    model, call = _lambda_signature()
    data = rt.saved_model.dumps(model, signatures=call)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        text = z.read(files.GRAPH_FILE).decode()
    assert "<lambda>" not in text and "_lambda_" in text
    assert json.loads(text)["variables"][0]["name"].startswith("my_weights")
    loaded = rt.saved_model.loads(data)
    np.testing.assert_allclose(loaded.signatures["serving_default"](X).numpy(), X @ W, rtol=1e-6)


def test_a_lambda_function_runs_under_map_blocks():
    da = pytest.importorskip("dask.array")
    _, call = _lambda_signature()
    result = rt.dask.map_blocks(call, da.from_array(X, chunks=3))
    np.testing.assert_allclose(result.compute(scheduler="sync"), X @ W, rtol=1e-6)


def test_a_function_named_with_odd_characters_round_trips():
    f = rt.function(lambda x: x * 2.0 + 1.0, input_signature=[rt.TensorSpec([3], name="in put")],
                    name="my func/<v..2>")
    loaded = rt.saved_model.loads(rt.saved_model.dumps(f))
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), x * 2 + 1)


@pytest.mark.parametrize("name", ["<lambda>", "a b", "..", "../../etc", "", "x" * 300, "é", "ok/name:0"])
def test_sanitised_names_are_valid(name):
    assert check_name(safe_name(name), "test", False) == safe_name(name)


def test_valid_names_are_kept():
    assert safe_name("dense/kernel:0") == "dense/kernel:0"
