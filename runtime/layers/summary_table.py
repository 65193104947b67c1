"""`Model.summary()`'s text: Keras 3's table, drawn the way Keras's `rich` table draws it.

    Model: "sequential"
    ┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓
    ┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃
    ┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩
    │ dense (Dense)                   │ (None, 10)             │            50 │
    └─────────────────────────────────┴────────────────────────┴───────────────┘
     Total params: 50 (200.00 B)
     Trainable params: 50 (200.00 B)
     Non-trainable params: 0 (0.00 B)

The table is `line_length` columns wide (Keras's default: 88, or 108 with a "Connected to"
column for a functional model that is not a chain, at most the terminal's width less 4),
split at `positions`; a cell's text wraps between words and a word too long ends in "…".
A layer's output shape is that of its call in a functional model, else that of a call on its
first inputs' shape (`?` for a layer not built yet).
"""

from __future__ import annotations

import re
import shutil
import warnings
from math import ceil
from typing import Callable, Optional, Sequence

from .. import context, nest
from .. import dtypes as _dtypes
from ..graph import FuncGraph
from ..shapes import TensorShape
from .base import _placeholders

_UNITS = ("B", "KB", "MB", "GB", "TB", "PB")


def readable_size(size: float) -> str:
    """Bytes as Keras shows them: `104.00 B`, `53.16 KB` (powers of 1024)."""
    for unit in _UNITS:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} {_UNITS[-1]}"


def _weights_size(variables) -> tuple[int, int]:
    """(count, bytes) of distinct variables."""
    unique = {id(v): v for v in variables}.values()
    count = sum(int(v.shape.num_elements() or 0) for v in unique)
    size = sum(int(v.shape.num_elements() or 0) * v.dtype.as_numpy_dtype().itemsize
               for v in unique)
    return count, size


# -- output shapes --------------------------------------------------------------------------

def _shape_text(shape) -> str:
    dims = TensorShape(shape).as_list() if TensorShape(shape).rank is not None else None
    if dims is None:
        return "?"
    return "(" + ", ".join(str(d) for d in dims) + ")"


def _structure_text(value) -> str:
    flat = nest.flatten(value)
    if len(flat) == 1:
        return _shape_text(flat[0].shape)
    return "[" + ", ".join(_shape_text(t.shape) for t in flat) + "]"


def _node_shapes(model) -> dict[int, str]:
    """id(layer) -> its output shape text, from a functional model's recorded calls."""
    shapes: dict[int, str] = {}
    if not hasattr(model, "_nodes"):
        return shapes
    for tensor in model.inputs:
        shapes[id(tensor.node.layer)] = _shape_text(tensor.shape)
    for node in getattr(model, "_nodes", ()):
        shapes.setdefault(id(node.layer), _structure_text(node.outputs))
    return shapes


def _traced_shape(layer) -> str:
    """The output shape of a call of `layer` on placeholders of its first inputs' shape,
    in a throwaway graph (nothing runs); `?` when unknown."""
    shapes = layer.__dict__.get("_build_input_shape")
    if shapes is None or not layer.built:
        return "?"
    graph = FuncGraph(f"{layer.name}_summary")
    dtype = layer.__dict__.get("_build_input_dtype") or _dtypes.as_dtype(layer.dtype)
    try:
        with context.graph_scope(graph), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = layer(_placeholders(graph, shapes, dtype, layer.name))
        return _structure_text(out)
    except Exception:   # a layer whose call needs more than its first inputs
        return "?"


def output_shape_text(layer, known: dict[int, str]) -> str:
    """A layer's Output Shape cell: as Keras 3, the outputs of its first call on Keras
    tensors (in whichever model that was: a layer shared by two models shows its first
    one's, and a Sequential built by a first call shows that call's batch size); else what
    the model's own graph or a call on its first inputs' shapes gives."""
    nodes = layer.__dict__.get("_inbound_nodes")
    if nodes:
        return _structure_text(nodes[0].outputs)
    return known.get(id(layer)) or _traced_shape(layer)


# -- the table ------------------------------------------------------------------------------

def _ratio_reduce(excess: int, widths: list[int]) -> list[int]:
    """Takes `excess` columns off `widths`, evenly (rich's rule for fixed-width columns)."""
    out, left, count = [], excess, len(widths)
    for width in widths:
        taken = min(width, round(left / count))
        out.append(width - taken)
        left -= taken
        count -= 1
    return out


def _ratio_expand(extra: int, widths: list[int]) -> list[int]:
    """Gives `extra` columns to `widths`, in proportion to them."""
    out, left, total = [], extra, sum(widths)
    for width in widths:
        given = ceil(width * left / total) if total > 0 else left
        out.append(width + given)
        left -= given
        total -= width
    return out


def column_widths(line_length: int, positions: Sequence[float]) -> list[int]:
    """The width of each column's text, for a table `line_length` wide."""
    if all(p <= 1 for p in positions):
        positions = [int(line_length * p) for p in positions]
    widths, current = [], 0
    for position in positions:
        width = int(position) - current
        if width < 4:
            raise ValueError("summary: the table does not fit; give a larger `line_length` "
                             "(or `positions` at least 4 columns apart).")
        widths.append(width + 2)   # one space of padding on each side
        current += width
    room = line_length - len(widths) - 1   # the borders
    if sum(widths) > room:
        widths = _ratio_reduce(sum(widths) - room, widths)
    elif sum(widths) < room:
        widths = _ratio_expand(room - sum(widths), widths)
    return [w - 2 for w in widths]


def _wrap_cell(text: str, width: int) -> list[str]:
    """`text` broken between words into lines of `width`; a longer word ends in "…"."""
    lines: list[str] = []
    for word in re.findall(r"\s*\S+", text) or [""]:
        if lines and len(lines[-1]) + len(word) <= width:
            lines[-1] += word
        else:
            lines.append(word if not lines else word.lstrip())
    return [line if len(line) <= width else line[:width - 1] + "…" for line in lines]


def _rule(left: str, fill: str, middle: str, right: str, widths: list[int]) -> str:
    return left + middle.join(fill * (w + 2) for w in widths) + right


def _justify(text: str, width: int, how: str) -> str:
    if how == "right":
        return text.rjust(width)
    if how == "center":
        left = (width - len(text)) // 2
        return " " * left + text + " " * (width - len(text) - left)
    return text.ljust(width)


def _row(cells: Sequence[str], widths: list[int], justify: Sequence[str],
         bar: str) -> list[str]:
    wrapped = [_wrap_cell(cell, w) for cell, w in zip(cells, widths)]
    height = max(len(lines) for lines in wrapped)
    out = []
    for i in range(height):
        texts = [(lines[i] if i < len(lines) else "") for lines in wrapped]
        texts = [_justify(t, w, how) for t, w, how in zip(texts, widths, justify)]
        out.append(bar + bar.join(f" {t} " for t in texts) + bar)
    return out


def draw_table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: list[int],
               justify: Sequence[str]) -> list[str]:
    """The lines of a table with a heavy head and a rule between rows, as Keras prints."""
    lines = [_rule("┏", "━", "┳", "┓", widths), *_row(header, widths, justify, "┃"),
             _rule("┡", "━", "╇", "┩", widths)]
    for index, row in enumerate(rows):
        if index:
            lines.append(_rule("├", "─", "┼", "┤", widths))
        lines.extend(_row(row, widths, justify, "│"))
    lines.append(_rule("└", "─", "┴", "┘", widths))
    return lines


# -- the model's summary --------------------------------------------------------------------

def _chain_like(model) -> bool:
    """Whether a functional model is a chain (each call takes one tensor, each layer called
    once): Keras then leaves out the "Connected to" column."""
    nodes = getattr(model, "_nodes", None)
    if nodes is None:
        return True
    if len(getattr(model, "inputs", ())) > 1:
        return False
    seen: set[int] = set()
    for node in nodes:
        if len(node.inbound_tensors) > 1 or id(node.layer) in seen:
            return False
        seen.add(id(node.layer))
    return True


def _graph_order(model) -> list:
    """A functional model's layers in Keras's order: by depth (the longest path to an output),
    deepest first, then in the order a walk from the outputs through each call's inputs
    meets them."""
    met: dict[int, int] = {}       # id(layer) -> when the walk first met it
    depth: dict[int, int] = {}     # id(node) -> its depth
    nodes: list = []               # nodes, each after the nodes that read it

    def walk(node, seen: set) -> None:
        met.setdefault(id(node.layer), len(met))
        if id(node) in seen:
            return
        seen.add(id(node))
        for tensor in node.inbound_tensors:
            walk(tensor.node, seen)
        nodes.append(node)
    seen: set = set()
    for tensor in model.outputs:
        walk(tensor.node, seen)
    for node in reversed(nodes):   # consumers before producers
        here = depth.setdefault(id(node), 0)
        for tensor in node.inbound_tensors:
            depth[id(tensor.node)] = max(depth.get(id(tensor.node), 0), here + 1)
    layer_depth: dict[int, int] = {}
    for node in nodes:
        layer_depth[id(node.layer)] = max(layer_depth.get(id(node.layer), 0), depth[id(node)])
    layers = list(model.layers)
    return sorted(layers, key=lambda layer: (-layer_depth.get(id(layer), -1),
                                             met.get(id(layer), len(met))))


def _ordered_layers(model) -> list:
    if hasattr(model, "_nodes") and getattr(model, "outputs", None):
        return _graph_order(model)
    return list(model.layers)


def _connections(model, layer) -> str:
    texts = []
    for node in getattr(model, "_nodes", ()):
        if node.layer is layer:
            for tensor in node.inbound_tensors:
                _, index = tensor._keras_history
                texts.append(f"{tensor.node.layer.name}[0][{index}]")
    return ", ".join(texts) or "-"


def _layer_rows(model, layers, chain: bool, expand_nested: bool, show_trainable: bool,
                level: int = 0) -> list[list[str]]:
    known = _node_shapes(model)
    rows = []
    for layer in layers:
        prefix = "   " * level + "└ " if level else ""
        if not layer.built and not layer.weights:
            params = "0 (unbuilt)"
        else:
            params = f"{_weights_size(layer.weights)[0]:,}"
        row = [f"{prefix}{layer.name} ({type(layer).__name__})",
               output_shape_text(layer, known), params]
        if not chain:
            row.append(_connections(model, layer))
        if show_trainable:
            row.append(("Y" if layer.trainable else "N") if layer.weights else "-")
        rows.append(row)
        inner = getattr(layer, "layers", None)
        if expand_nested and inner:
            rows.extend(_layer_rows(layer, inner, True if not hasattr(layer, "_nodes")
                                    else chain, expand_nested, show_trainable, level + 1))
    return rows


def _layer_range(layers: list, layer_range: Optional[Sequence[str]]) -> list:
    if layer_range is None:
        return layers
    if len(layer_range) != 2:
        raise ValueError(f"summary: layer_range must be a list or tuple of two layer names, "
                         f"got {layer_range!r}.")
    starts = [i for i, layer in enumerate(layers) if re.match(layer_range[0], layer.name)]
    ends = [i for i, layer in enumerate(layers) if re.match(layer_range[1], layer.name)]
    if not starts or not ends:
        raise ValueError(f"summary: layer_range {list(layer_range)!r} names no layer of "
                         f"{[layer.name for layer in layers]}.")
    return layers[starts[0]:ends[-1] + 1]


def _optimizer_variables(model) -> list:
    """The variables of a compiled model's optimizer once it has made them (after a step)."""
    variables = getattr(getattr(model, "optimizer", None), "variables", None)
    if callable(variables):
        variables = variables()
    return list(variables or ())


def _footer(model) -> list[str]:
    trainable = _weights_size(model.trainable_variables)
    frozen = _weights_size(model.non_trainable_weights)
    optimizer = _weights_size(_optimizer_variables(model))
    lines = [f" Total params: {trainable[0] + frozen[0] + optimizer[0]:,} "
             f"({readable_size(trainable[1] + frozen[1] + optimizer[1])})",
             f" Trainable params: {trainable[0]:,} ({readable_size(trainable[1])})",
             f" Non-trainable params: {frozen[0]:,} ({readable_size(frozen[1])})"]
    if optimizer[0]:
        lines.append(f" Optimizer params: {optimizer[0]:,} ({readable_size(optimizer[1])})")
    return lines


def summary_parts(model, expand_nested: bool = False, show_trainable: bool = False,
                  layer_range: Optional[Sequence[str]] = None):
    """The summary's title, column headers, rows and footer lines (for text and HTML)."""
    chain = _chain_like(model)
    header = ["Layer (type)", "Output Shape", "Param #"]
    if not chain:
        header.append("Connected to")
    if show_trainable:
        header.append("Trainable")
    rows = _layer_rows(model, _layer_range(_ordered_layers(model), layer_range), chain,
                       expand_nested, show_trainable)
    return f'Model: "{model.name}"', header, rows, _footer(model)


def summary_text(model, line_length: Optional[int] = None,
                 positions: Optional[Sequence[float]] = None, expand_nested: bool = False,
                 show_trainable: bool = False,
                 layer_range: Optional[Sequence[str]] = None) -> str:
    """Keras 3's summary of `model`, as one string ending in a newline."""
    title, header, rows, footer = summary_parts(model, expand_nested, show_trainable,
                                                layer_range)
    chain = "Connected to" not in header
    justify = ["left", "left", "right"] + ([] if chain else ["left"])
    default = 88 if chain else 108
    positions = list(positions or ([0.45, 0.80, 1.0] if chain else [0.3, 0.56, 0.74, 1.0]))
    if show_trainable:
        default += 12
        positions = [p * 0.9 for p in positions] + [1.0]
        justify.append("center")
    line_length = line_length or min(default, shutil.get_terminal_size().columns - 4)
    widths = column_widths(line_length, positions)
    lines = [title, *draw_table(header, rows, widths, justify), *footer]
    return "\n".join(lines) + "\n"


def print_summary(model, print_fn: Optional[Callable] = print, **options) -> Optional[str]:
    """Gives the text to `print_fn` (returns None), or returns it when `print_fn` is None."""
    text = summary_text(model, **options)
    if print_fn is None:
        return text
    if print_fn is print:
        print(text, end="")
    else:
        print_fn(text)
    return None
