"""`Model`: a layer that is a whole network; `Sequential`: a model that is a list of layers."""

from __future__ import annotations

from typing import Any, Iterable

from .. import context
from ..graph import FuncGraph
from ..shapes import TensorShape
from .base import Layer
from .training import Training


class Model(Training, Layer):
    """A network: subclass, assign layers in `__init__`, and write `call(inputs, training=None)`.

    `call` may be compiled with `rt.function` / `rt.defun`; each distinct Python `training`
    value then gives its own graph. `compile` / `fit` / `evaluate` / `predict` train it the
    Keras way (see `runtime.layers.training`).

    A model takes Keras's model keywords `trainable`, `name`, `dtype`, `dynamic` and
    `autocast` (see `Layer`); any other keyword raises `TypeError`.
    """

    _keras_keywords = frozenset({"autocast", "inputs", "outputs"})

    def summary(self, print_fn=print) -> str | None:
        """Prints the layer table through `print_fn` (returns None), or returns it if None.

        The table lists the sublayers, their variable shapes and parameter counts."""
        rows = [(f"{layer.name} ({type(layer).__name__})",
                 ", ".join(str(v.shape) for v in layer.variables) or "-",
                 str(layer.count_params()))
                for layer in self.layers]
        header = ("Layer (type)", "Variables", "Params")
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]

        def fmt(row):
            return "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
        rule = "-" * len(fmt(tuple("-" * w for w in widths)))
        trainable = sum(int(v.shape.num_elements() or 0) for v in self.trainable_variables)
        lines = [f'Model: "{self.name}"', rule, fmt(header), rule, *map(fmt, rows), rule,
                 f"Total params: {self.count_params()}", f"Trainable params: {trainable}",
                 f"Non-trainable params: {self.count_params() - trainable}"]
        text = "\n".join(lines)
        if print_fn is None:
            return text
        print_fn(text)
        return None


class Sequential(Model):
    """Calls its layers one after the other; `training` reaches those that take it.

    When the first layer was given an `input_shape` (or `input_dim`, `batch_input_shape`),
    the model is built as layers are added, as in Keras: their weights exist before the
    first call, and a layer that does not fit the shape is refused by `add`.
    """

    def __init__(self, layers: Iterable[Layer] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._stack: list[Layer] = []
        for layer in layers or ():
            self.add(layer)

    def add(self, layer: Layer) -> None:
        """Appends a layer."""
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add needs a Layer, got {layer!r}.")
        self._stack.append(layer)
        first = self._stack[0]
        shape = getattr(first, "_batch_input_shape", None)
        if shape is not None:
            try:
                _build_symbolically(self, shape, first.dtype)
            except Exception:
                self._stack.pop()
                raise

    def call(self, inputs, training=None):
        x = inputs
        for layer in self._stack:
            x = layer(x, training=training)
        return x


def _build_symbolically(model: Layer, batch_input_shape: tuple, dtype) -> None:
    """Calls `model` on a placeholder of `batch_input_shape` in a throwaway graph, so that
    its layers create their weights (eagerly, as on a first call) without running."""
    graph = FuncGraph(f"{model.name}_build")
    with context.graph_scope(graph):
        model(graph.placeholder(TensorShape(batch_input_shape), dtype, name="inputs"))
