"""`keras.utils.model_to_dot` and `plot_model`: a model's layers as a Graphviz drawing.

`model_to_dot` returns the DOT text (it needs nothing); `plot_model` renders it into
`to_file` in the format its extension names (`.png` by default) with the optional
`graphviz` package and program (`pip install 'autograph-rt[graphviz]'`); a `.dot` or `.gv`
file is written as text without them (in a notebook, as Keras 3 there, a missing Graphviz is
printed and the call returns None instead of raising). Each layer is one box, as Keras draws it: the class
(with the name when `show_layer_names`), then input and output shapes, dtype, activation and
whether it trains, as asked; the edges follow the model's calls (a functional model's graph,
a Sequential's chain).
"""

from __future__ import annotations

import html
import os
import sys
from typing import Any, Optional

from ..arguments import strict_keywords
from . import summary_table as _summary

_EXTRA = "pip install 'autograph-rt[graphviz]'"
_TEXT_FORMATS = ("dot", "gv")


def _cell(text: str, colour: str = "white", font: str = "black") -> str:
    return (f'<td bgcolor="{colour}"><font point-size="14" color="{font}">{text}'
            f"</font></td>")


def _activation_name(layer) -> Optional[str]:
    activation = getattr(layer, "activation", None)
    if activation is None:
        return None
    return getattr(activation, "__name__", None) or str(activation)


def _input_shape_text(layer) -> str:
    shape = layer.__dict__.get("_build_input_shape")
    if shape is None:
        return "?"
    try:
        return _summary._shape_text(shape)
    except (TypeError, ValueError):   # several inputs
        return ", ".join(_summary._shape_text(s) for s in shape)


def _label(layer, known: dict, options: dict) -> str:
    """Keras's HTML-like label of one layer's box."""
    kind = html.escape(type(layer).__name__)
    title = f"<b>{html.escape(layer.name)}</b> ({kind})" if options["show_layer_names"] \
        else f"<b>{kind}</b>"
    cells = []
    if options["show_shapes"]:
        if kind != "InputLayer":
            cells.append(_cell(f"Input shape: <b>{_input_shape_text(layer)}</b>"))
        shape = _summary.output_shape_text(layer, known)
        cells.append(_cell(f"Output shape: <b>{html.escape(shape)}</b>"))
    if options["show_dtype"]:
        cells.append(_cell(f"Output dtype: <b>{layer.dtype}</b>"))
    if options["show_trainable"] and layer.weights:
        cells.append(_cell("<b>Trainable</b>", "forestgreen", "white") if layer.trainable
                     else _cell("<b>Non-trainable</b>", "firebrick", "white"))
    span = max(1, len(cells))
    rows = [f'<tr><td colspan="{span}" bgcolor="black"><font point-size="16" '
            f'color="white">{title}</font></td></tr>']
    activation = _activation_name(layer) if options["show_layer_activations"] else None
    if activation:
        rows.append(f'<tr><td bgcolor="white" colspan="{span}"><font point-size="14">'
                    f"Activation: <b>{html.escape(activation)}</b></font></td></tr>")
    if cells:
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return ('<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
            + "".join(rows) + "</table>>")


def _edges(model) -> list[tuple[Any, Any]]:
    """(from layer, to layer) for each call of the model's graph (a chain otherwise)."""
    nodes = getattr(model, "_nodes", None)
    if nodes is None:
        layers = list(model.layers)
        return list(zip(layers, layers[1:])) if type(model).__name__ == "Sequential" else []
    return [(tensor.node.layer, node.layer) for node in nodes for tensor in node.inbound_tensors]


def _statements(model, options: dict, prefix: str = "") -> list[str]:
    known = _summary._node_shapes(model)
    lines = []
    for layer in model.layers:
        inner = getattr(layer, "layers", None)
        if options["expand_nested"] and inner:
            lines.append(f'subgraph "cluster_{id(layer)}" {{')
            lines.append(f'label="{html.escape(layer.name)}"; style="dashed";')
            lines.extend(_statements(layer, options, prefix + "  "))
            lines.append("}")
            continue
        lines.append(f'"{id(layer)}" [label={_label(layer, known, options)}, '
                     'fontname="Helvetica", margin="0"];')
    for source, target in _edges(model):
        lines.append(f'"{_anchor(source, options, last=True)}" -> '
                     f'"{_anchor(target, options, last=False)}" [penwidth="2"];')
    return [prefix + line for line in lines]


def _anchor(layer, options: dict, last: bool):
    """The box an edge meets: a nested model's first or last layer when it is expanded."""
    inner = getattr(layer, "layers", None)
    if options["expand_nested"] and inner:
        return _anchor(inner[-1] if last else inner[0], options, last)
    return id(layer)


@strict_keywords()
def model_to_dot(model, show_shapes: bool = False, show_dtype: bool = False,
                 show_layer_names: bool = True, rankdir: str = "TB",
                 expand_nested: bool = False, dpi: int = 200, subgraph: bool = False,
                 show_layer_activations: bool = False, show_trainable: bool = False,
                 splines: str = "ortho") -> str:
    """The model's drawing as Graphviz DOT text (Keras returns a `pydot.Dot` of it)."""
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"model_to_dot: rankdir must be 'TB' or 'LR', got {rankdir!r}.")
    options = {"show_shapes": show_shapes, "show_dtype": show_dtype,
               "show_layer_names": show_layer_names, "expand_nested": expand_nested,
               "show_layer_activations": show_layer_activations,
               "show_trainable": show_trainable}
    body = _statements(model, options, "  ")
    head = "subgraph" if subgraph else "digraph"
    return "\n".join([f'{head} "{html.escape(model.name)}" {{',
                      f'  graph [rankdir="{rankdir}", concentrate="True", dpi="{dpi}", '
                      f'splines="{splines}"];', '  node [shape="plaintext"];', *body, "}"]) + "\n"


def _render(dot: str, path: str, extension: str) -> None:
    try:
        import graphviz
    except ImportError:
        raise ImportError(f"plot_model needs the optional graphviz package and program to "
                          f"write a .{extension} file: {_EXTRA} (and Graphviz's `dot`, "
                          f"https://graphviz.org/download/); a .dot file needs neither, and "
                          "keras.utils.model_to_dot(model) gives the DOT text.") from None
    try:
        data = graphviz.Source(dot).pipe(format=extension)
    except graphviz.ExecutableNotFound:
        raise ImportError("plot_model needs Graphviz's `dot` program "
                          "(https://graphviz.org/download/); the graphviz Python package "
                          "alone does not draw.") from None
    with open(path, "wb") as handle:
        handle.write(data)


def _in_ipython() -> bool:
    """Whether this runs in an IPython session (a notebook or the IPython shell): the test
    Keras makes, its magics module being loaded."""
    return "IPython.core.magics.namespaces" in sys.modules


@strict_keywords()
def plot_model(model, to_file: str = "model.png", show_shapes: bool = False,
               show_dtype: bool = False, show_layer_names: bool = False, rankdir: str = "TB",
               expand_nested: bool = False, dpi: int = 200,
               show_layer_activations: bool = False, show_trainable: bool = False,
               splines: str = "ortho"):
    """Draws the model into `to_file` (its extension is the format; png when it has none);
    returns an `IPython.display.Image` of it when IPython is installed (not for pdf/dot)."""
    if not model.built:
        raise ValueError("plot_model: this model has not yet been built. Build the model "
                         "first by calling `build()` or by calling the model on a batch of "
                         "data.")
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines)
    path = os.fspath(to_file)
    extension = os.path.splitext(path)[1][1:] or "png"
    if extension in _TEXT_FORMATS:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(dot)
        return None
    try:
        _render(dot, path, extension)
    except ImportError as exc:
        if not _in_ipython():
            raise
        # Keras 3 in a notebook prints why it cannot draw and returns None, so that a
        # notebook runs on without Graphviz
        print(exc)
        return None
    if extension == "pdf":
        return None
    try:
        from IPython import display
    except ImportError:
        return None
    return display.Image(filename=path)
