"""`keras.utils.model_to_dot` / `plot_model`: one box a layer, edges along the model's calls,
the file written in the format its extension names (Keras 3's `plot_model` behaviour), and a
clear ImportError naming the extra when graphviz is missing."""

from __future__ import annotations

import re
import sys
import types

import pytest

import runtime as rt

keras = rt.keras
L = keras.layers


def _two_inputs():
    a, b = keras.Input((4,), name="a"), keras.Input((4,), name="b")
    hidden = L.Dense(4, activation="relu", name="dense")(a)
    return keras.Model([a, b], L.Add(name="add")([b, hidden]), name="two")


def _boxes_and_edges(dot: str) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """Node id -> the layer name its label shows; edges as (name, name)."""
    names = {node: name for node, name in
             re.findall(r'^\s*"(\d+)" \[label=<.*?<b>([^<]+)</b> \(', dot, re.M)}
    edges = {(names[a], names[b]) for a, b in re.findall(r'"(\d+)" -> "(\d+)"', dot)}
    return names, edges


def test_a_functional_model_draws_its_calls():
    dot = keras.utils.model_to_dot(_two_inputs())
    names, edges = _boxes_and_edges(dot)
    assert sorted(names.values()) == ["a", "add", "b", "dense"]
    assert edges == {("a", "dense"), ("b", "add"), ("dense", "add")}
    assert dot.startswith('digraph "two" {') and 'rankdir="TB"' in dot


def test_a_sequential_model_is_a_chain_with_shapes_and_activations():
    model = keras.Sequential([keras.Input((3,)), L.Dense(5, activation="relu", name="h"),
                              L.Dense(2, name="out")], name="seq")
    dot = keras.utils.model_to_dot(model, show_shapes=True, show_layer_activations=True,
                                   show_dtype=True, rankdir="LR")
    names, edges = _boxes_and_edges(dot)
    assert edges == {("h", "out")}
    assert "Input shape: <b>(None, 3)</b>" in dot and "Output shape: <b>(None, 5)</b>" in dot
    assert "Output shape: <b>(None, 2)</b>" in dot and "Activation: <b>relu</b>" in dot
    assert "Output dtype: <b>float32</b>" in dot and 'rankdir="LR"' in dot


def test_expand_nested_draws_the_inner_layers_in_a_cluster():
    x = keras.Input((5,), name="x")
    inner = keras.Sequential([L.Dense(3, name="i1"), L.Dense(3, name="i2")], name="block")
    model = keras.Model(x, L.Dense(1, name="head")(inner(x)), name="nested")
    _, edges = _boxes_and_edges(keras.utils.model_to_dot(model))
    assert edges == {("x", "block"), ("block", "head")}
    dot = keras.utils.model_to_dot(model, expand_nested=True)
    _, edges = _boxes_and_edges(dot)
    assert edges == {("x", "i1"), ("i1", "i2"), ("i2", "head")}
    assert 'subgraph "cluster_' in dot and 'label="block"' in dot


def test_plot_model_writes_a_dot_file_without_graphviz(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)   # not installed
    model = _two_inputs()
    path = tmp_path / "model.dot"
    assert keras.utils.plot_model(model, to_file=str(path)) is None
    # plot_model's default show_layer_names is False (Keras 3): boxes show the class only
    assert path.read_text() == keras.utils.model_to_dot(model, show_layer_names=False)
    assert "<b>Dense</b>" in path.read_text()


def test_plot_model_without_graphviz_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match=r"autograph-rt\[graphviz\]"):
        keras.utils.plot_model(_two_inputs(), to_file=str(tmp_path / "model.png"))
    assert not (tmp_path / "model.png").exists()


def test_plot_model_in_a_notebook_prints_why_it_cannot_draw(tmp_path, monkeypatch, capsys):
    """Keras 3 in an IPython session (its magics module loaded) prints the missing-Graphviz
    message and returns None, so the notebook runs on; outside one it raises ImportError."""
    monkeypatch.setitem(sys.modules, "graphviz", None)
    monkeypatch.setitem(sys.modules, "IPython.core.magics.namespaces", types.ModuleType("ns"))
    path = tmp_path / "model.png"
    assert keras.utils.plot_model(_two_inputs(), to_file=str(path)) is None
    assert "autograph-rt[graphviz]" in capsys.readouterr().out
    assert not path.exists()


def test_plot_model_renders_in_the_format_of_the_extension(tmp_path, monkeypatch):
    calls = []

    class Source:
        def __init__(self, text):
            self.text = text

        def pipe(self, format):
            calls.append((self.text, format))
            return b"rendered " + format.encode()

    fake = types.SimpleNamespace(Source=Source, ExecutableNotFound=RuntimeError)
    monkeypatch.setitem(sys.modules, "graphviz", fake)
    monkeypatch.setitem(sys.modules, "IPython", None)
    model = _two_inputs()
    keras.utils.plot_model(model, to_file=str(tmp_path / "m.svg"), show_shapes=True)
    assert (tmp_path / "m.svg").read_bytes() == b"rendered svg"
    assert calls[-1] == (keras.utils.model_to_dot(model, show_shapes=True,
                                                  show_layer_names=False), "svg")
    keras.utils.plot_model(model, to_file=str(tmp_path / "noext"))   # png, as Keras
    assert (tmp_path / "noext").read_bytes() == b"rendered png"


def test_plot_model_refuses_an_unbuilt_model_and_unknown_keywords(tmp_path):
    with pytest.raises(ValueError, match="not yet been built"):
        keras.utils.plot_model(keras.Sequential([L.Dense(2)]), to_file=str(tmp_path / "a.dot"))
    with pytest.raises(TypeError, match="show_shape"):
        keras.utils.plot_model(_two_inputs(), to_file=str(tmp_path / "a.dot"), show_shape=True)
