"""`tf.nn.RNNCellDeviceWrapper`, `RNNCellDropoutWrapper` and `RNNCellResidualWrapper`: a
recurrent cell (SimpleRNNCell, LSTMCell, GRUCell, a StackedRNNCells or any layer with
`state_size` and `call(inputs, states)`) wrapped to run on a device, with dropout on its
inputs, outputs and states, or with its inputs added to its outputs. A wrapper is itself a
cell: `RNN(wrapper)` runs it over time.

As TensorFlow's wrappers (from its legacy Keras), the dropout wrapper drops at every call,
training or not, with a fresh mask at each step; `variational_recurrent=True` (one mask per
sequence) is not offered here.
"""

from __future__ import annotations

import numbers
from typing import Any, Callable

from .. import context
from ..exports import export
from ..ops import array_math
from ..ops import nn as _nn
from ..shapes import TensorShape
from ..tensor import is_tensor
from . import serialization as _serialization
from .base import Layer


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flatten(part)]
    return [value]


def _map(fn: Callable, value):
    """`fn` applied to each tensor of a nest of lists and tuples, keeping the structure."""
    if isinstance(value, (list, tuple)):
        return type(value)(_map(fn, v) for v in value)
    return fn(value)


class _RNNCellWrapper(Layer):
    """What the three wrappers share: the wrapped `cell`, its sizes, initial states, build
    and config."""

    def __init__(self, cell, **kwargs: Any) -> None:
        if not hasattr(cell, "state_size") or not callable(cell):
            raise ValueError("The wrapped cell must have a `state_size` attribute and be "
                             f"callable; received cell={cell!r:.80}.")
        super().__init__(**kwargs)
        self.cell = cell

    @property
    def state_size(self):
        return self.cell.state_size

    @property
    def output_size(self):
        found = getattr(self.cell, "output_size", None)
        return found if found is not None else _flatten(self.cell.state_size)[0]

    def build(self, input_shape) -> None:
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell._build_once(TensorShape(input_shape))
        self.built = True

    def get_initial_state(self, batch_size, dtype):
        """The wrapped cell's initial states."""
        if hasattr(self.cell, "get_initial_state"):
            return self.cell.get_initial_state(batch_size, dtype)
        return [array_math.zeros([batch_size, s], dtype) for s in _flatten(self.state_size)]

    def zero_state(self, batch_size, dtype):
        """Zero states for `batch_size` examples (TensorFlow 1's name)."""
        return self.get_initial_state(batch_size, dtype)

    def _wrapped_call(self, inputs, states, kwargs):
        return self.cell(inputs, states, **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["cell"] = _serialization.serialize_layer(self.cell)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        cell = _serialization.deserialize_layer(config.pop("cell"), custom_objects)
        return cls(cell, **config)


@export("nn.RNNCellDeviceWrapper")
class RNNCellDeviceWrapper(_RNNCellWrapper):
    """Runs the wrapped cell's step under `rt.device(device)`: its ops record that device."""

    def __init__(self, cell, device, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self.device = device

    def get_initial_state(self, batch_size, dtype):
        with context.device(self.device):
            return super().get_initial_state(batch_size, dtype)

    def call(self, inputs, states, **kwargs):
        with context.device(self.device):
            return self._wrapped_call(inputs, states, kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), "device": self.device}


def _keep_prob(value, what: str):
    if isinstance(value, numbers.Real):
        if not 0 < float(value) <= 1:
            raise ValueError(f"Parameter {what} must be between 0 and 1: {value}")
        return float(value)
    if is_tensor(value):
        return value
    raise TypeError(f"Parameter {what} must be a float or a scalar tensor, got "
                    f"{type(value).__name__}.")


@export("nn.RNNCellDropoutWrapper")
class RNNCellDropoutWrapper(_RNNCellWrapper):
    """Dropout on the wrapped cell's inputs, outputs and new states: each kept with the
    given probability (1: no dropout) and scaled by its inverse, at every call. With
    `dropout_state_filter_visitor` (a function of a state tensor returning a bool) only the
    states it accepts are dropped. `seed` seeds the draws."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None,
                 dropout_state_filter_visitor=None, **kwargs: Any) -> None:
        if variational_recurrent:
            raise NotImplementedError("RNNCellDropoutWrapper(variational_recurrent=True) is "
                                      "not implemented here; Keras cells' `dropout` and "
                                      "`recurrent_dropout` keep one mask per sequence.")
        if input_size is not None:
            raise ValueError("RNNCellDropoutWrapper: `input_size` is only used with "
                             "variational_recurrent=True.")
        if dropout_state_filter_visitor is not None and not callable(dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable. Received: "
                            f"{dropout_state_filter_visitor!r}")
        super().__init__(cell, dtype=dtype, **kwargs)
        self.input_keep_prob = _keep_prob(input_keep_prob, "input_keep_prob")
        self.output_keep_prob = _keep_prob(output_keep_prob, "output_keep_prob")
        self.state_keep_prob = _keep_prob(state_keep_prob, "state_keep_prob")
        self.seed = seed
        self._state_filter = dropout_state_filter_visitor

    def _dropout(self, values, keep_prob, keep: Callable | None = None):
        if isinstance(keep_prob, float) and keep_prob == 1.0:
            return values

        def drop(x):
            if keep is not None and not keep(x):
                return x
            return _nn.dropout(x, rate=1 - keep_prob, seed=self.seed)
        return _map(drop, values)

    def call(self, inputs, states, **kwargs):
        inputs = self._dropout(inputs, self.input_keep_prob)
        output, new_states = self._wrapped_call(inputs, states, kwargs)
        new_states = self._dropout(new_states, self.state_keep_prob, self._state_filter)
        return self._dropout(output, self.output_keep_prob), new_states

    def get_config(self) -> dict:
        if self._state_filter is not None:
            raise NotImplementedError("RNNCellDropoutWrapper.get_config: a "
                                      "dropout_state_filter_visitor cannot be serialized.")
        config = super().get_config()
        for key in ("input_keep_prob", "output_keep_prob", "state_keep_prob"):
            value = getattr(self, key)
            if not isinstance(value, float):
                raise NotImplementedError(f"RNNCellDropoutWrapper.get_config: {key} is a "
                                          "tensor, which cannot be serialized.")
            config[key] = value
        config["seed"] = self.seed
        return config


@export("nn.RNNCellResidualWrapper")
class RNNCellResidualWrapper(_RNNCellWrapper):
    """The wrapped cell's output plus its inputs (`residual_fn(inputs, outputs)` when
    given); the states are the cell's."""

    def __init__(self, cell, residual_fn=None, **kwargs: Any) -> None:
        if residual_fn is not None and not callable(residual_fn):
            raise TypeError(f"residual_fn must be callable, got {type(residual_fn).__name__}.")
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def call(self, inputs, states, **kwargs):
        output, new_states = self._wrapped_call(inputs, states, kwargs)
        if self._residual_fn is not None:
            return self._residual_fn(inputs, output), new_states

        def add(x, y):
            if (x.shape.rank is not None and y.shape.rank is not None
                    and not x.shape.is_compatible_with(y.shape)):
                raise ValueError(f"RNNCellResidualWrapper: the inputs' shape {x.shape} and "
                                 f"the cell's output shape {y.shape} must match.")
            return array_math.add(x, y)
        flat_in, flat_out = _flatten(inputs), _flatten(output)
        if len(flat_in) != len(flat_out):
            raise ValueError("RNNCellResidualWrapper: the inputs and the cell's output must "
                             "have the same structure.")
        summed = [add(x, y) for x, y in zip(flat_in, flat_out)]
        return (summed[0] if not isinstance(output, (list, tuple)) else type(output)(summed),
                new_states)

    def get_config(self) -> dict:
        if self._residual_fn is not None:
            raise NotImplementedError("RNNCellResidualWrapper.get_config: a residual_fn "
                                      "cannot be serialized.")
        return super().get_config()
