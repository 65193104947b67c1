"""Recurrent layers: the cells SimpleRNNCell, LSTMCell and GRUCell, the `RNN` layer that runs
a cell over time, SimpleRNN, LSTM and GRU, and Bidirectional.

Weights follow Keras's layout, so weights trained there load with `set_weights`: `kernel`
`[features, gates * units]`, `recurrent_kernel` `[units, gates * units]` and `bias`, gates in
the order i, f, c, o for LSTM and z, r, h for GRU (`reset_after=True`: `bias` has two rows,
for the input and the recurrent part).

The time loop is a Python loop over the steps when the number of steps is known while
tracing (the graph then holds every step), else a `while_loop` over TensorArrays.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import context
from ..ops import array_math, control_flow, linalg
from ..ops.core import constant, convert_to_tensor
from ..ops.tensor_array import TensorArray
from ..ops.variables import Variable
from ..shapes import TensorShape
from ..tensor import is_tensor
from . import activations
from . import constraints as _constraints
from . import initializers as _initializers
from . import regularizers as _regularizers
from . import serialization as _serialization
from .base import Layer, positive_int
from .core import seeded_dropout
from .kernel_layer import as_layer_dtype
from .seed_generator import SeedGenerator

# the initializer LSTM, GRU and SimpleRNN give their recurrent kernels by default
Orthogonal = _initializers.Orthogonal


def _rate(layer: str, name: str, value) -> float:
    """A dropout rate clipped to [0, 1], as Keras's cells take it."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{layer}: `{name}` must be a float between 0 and 1, got "
                        f"{name}={value!r}.")
    return min(1.0, max(0.0, float(value)))


def _implementation(layer: str, value) -> int:
    if value not in (1, 2) or isinstance(value, bool):
        raise ValueError(f"{layer}: `implementation` must be 1 or 2, got "
                         f"implementation={value!r}.")
    return int(value)


def _apply_mask(x, mask, training):
    """`x * mask` when training (a Python bool or a boolean tensor), else `x`."""
    if mask is None or training is None or training is False:
        return x
    if is_tensor(training):
        return control_flow.cond(training, lambda: array_math.multiply(x, mask),
                                 lambda: array_math.identity(x))
    return array_math.multiply(x, mask) if training else x


def _masked(x, masks, training):
    """`x` under each of `masks` (a list: one `x` per gate) or under the single mask."""
    if isinstance(masks, list):
        return [_apply_mask(x, m, training) for m in masks]
    return _apply_mask(x, masks, training)


def _is_training(training) -> bool:
    """Whether dropout may act: training True or a (staged) boolean tensor."""
    return training is not None and training is not False and (
        is_tensor(training) or bool(training))


class DropoutRNNCell:
    """Keras's dropout of a recurrent cell's inputs (`dropout`) and states
    (`recurrent_dropout`): one mask (or one per gate, `dropout_mask_count`) drawn from the
    cell's `seed_generator` for a whole sequence, kept until the `RNN` running the cell resets
    it after the sequence (`reset_dropout_mask`, `reset_recurrent_dropout_mask`)."""

    dropout: float = 0.0
    recurrent_dropout: float = 0.0
    dropout_mask_count: int | None = None
    seed_generator: SeedGenerator

    def _create_dropout_mask(self, step_input, rate: float):
        ones = array_math.ones_like(step_input)
        count = self.dropout_mask_count

        def one():
            if rate >= 1.0:  # as Keras: all dropped, no draw
                return array_math.zeros_like(ones)
            return seeded_dropout(ones, rate, None, self.seed_generator)
        return one() if count is None else [one() for _ in range(count)]

    def _cached(self, key: str, step_input, rate: float):
        held = self.__dict__.get(key)
        graph = context.current_graph()
        if held is not None and _usable_in(held[0], graph):
            return held[1]
        if rate <= 0:
            return None
        mask = self._create_dropout_mask(step_input, rate)
        object.__setattr__(self, key, (graph, mask))
        return mask

    def get_dropout_mask(self, step_input):
        """The inputs' mask(s) of this sequence (drawn on first use; None without dropout)."""
        return self._cached("_dropout_mask", step_input, self.dropout)

    def get_recurrent_dropout_mask(self, step_input):
        """The states' mask(s) of this sequence (None without recurrent_dropout)."""
        return self._cached("_recurrent_dropout_mask", step_input, self.recurrent_dropout)

    def reset_dropout_mask(self) -> None:
        object.__setattr__(self, "_dropout_mask", None)

    def reset_recurrent_dropout_mask(self) -> None:
        object.__setattr__(self, "_recurrent_dropout_mask", None)

    def _skip_dropout_draws(self) -> None:
        """Moves the seed generator on as drawing this sequence's masks would (Keras draws
        them at every call of the RNN, training or not)."""
        count = self.dropout_mask_count or 1
        for rate in (self.dropout, self.recurrent_dropout):
            if 0 < rate < 1:
                for _ in range(count):
                    self.seed_generator.next()


def _usable_in(mask_graph, graph) -> bool:
    """Whether a mask made in `mask_graph` (None: eagerly) can be used in `graph`: the same
    graph or one it is nested in."""
    while graph is not None:
        if graph is mask_graph:
            return True
        graph = getattr(graph, "outer_graph", None)
    return mask_graph is None and context.current_graph() is None


class _Cell(DropoutRNNCell, Layer):
    _gates = 1
    # where Keras's cell makes its SeedGenerator, which takes a seed from Python's `random`
    # when not given one: before its initializers (SimpleRNNCell, ConvLSTMCell) or after
    _seed_before_initializers = False

    def __init__(self, units: int, activation, use_bias: bool, kernel_initializer,
                 recurrent_initializer, bias_initializer, dropout, recurrent_dropout,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 seed=None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.units = positive_int(units, "units", type(self).__name__)
        self.kernel_constraint = _constraints.get(kernel_constraint, "kernel_constraint")
        self.recurrent_constraint = _constraints.get(recurrent_constraint,
                                                     "recurrent_constraint")
        self.bias_constraint = _constraints.get(bias_constraint, "bias_constraint")
        self.seed = seed
        if self._seed_before_initializers:
            self.seed_generator = SeedGenerator(seed)
        name = type(self).__name__
        self.dropout = _rate(name, "dropout", dropout)
        self.recurrent_dropout = _rate(name, "recurrent_dropout", recurrent_dropout)
        self.kernel_regularizer = _regularizers.get(kernel_regularizer, "kernel_regularizer")
        self.recurrent_regularizer = _regularizers.get(recurrent_regularizer,
                                                       "recurrent_regularizer")
        self.bias_regularizer = _regularizers.get(bias_regularizer, "bias_regularizer")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = kernel_initializer
        self.recurrent_initializer = recurrent_initializer
        self.bias_initializer = bias_initializer
        if not self._seed_before_initializers:
            self.seed_generator = SeedGenerator(seed)
        self.kernel = self.recurrent_kernel = self.bias = None

    @property
    def state_size(self):
        return self.units

    def _set_implementation(self, implementation: int) -> None:
        """Keras's `implementation`: 1 (forced by recurrent_dropout) draws a dropout mask per
        gate, 2 one mask for all gates."""
        self.implementation = 1 if self.recurrent_dropout != 0 else implementation
        if self.implementation == 1:
            self.dropout_mask_count = self._gates

    def _bias_shape(self):
        return [self._gates * self.units]

    def _bias_initializer(self):
        return self.bias_initializer

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank is None or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs with a known last dimension, got "
                             f"shape {shape}.")
        n = self._gates * self.units
        self.kernel = self.add_weight(name="kernel", shape=[shape[-1], n],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel", shape=[self.units, n],
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=self._bias_shape(),
                                        initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    # Keras's SimpleRNNCell applies a mask whenever it has one (dropout=1 zeroes the
    # inputs); its LSTM and GRU cells only for rates strictly between 0 and 1
    _drops_at_full_rate = False

    def _dropout_masks(self, inputs, h, training) -> tuple:
        """This sequence's (input masks, state masks) when they act at this call, else None
        for either: a mask, or a list of one per gate (`dropout_mask_count`)."""
        if not _is_training(training):
            return None, None
        masks = self.get_dropout_mask(inputs) if self._acts(self.dropout) else None
        recurrent = self.get_recurrent_dropout_mask(h) if self._acts(self.recurrent_dropout) \
            else None
        return masks, recurrent

    def _acts(self, rate: float) -> bool:
        return 0 < rate < 1 or (self._drops_at_full_rate and rate > 0)

    def _input_product(self, x, kernel):
        return linalg.matmul(x, kernel)

    def _recurrent_product(self, h, kernel):
        return linalg.matmul(h, kernel)

    def _preactivation(self, inputs, h, training=None):
        """`inputs @ kernel + h @ recurrent_kernel (+ bias)`: every gate's input of a step,
        the inputs and `h` under this sequence's dropout masks when training (with a mask
        per gate, each gate's columns from its own masked copy)."""
        inputs = as_layer_dtype(self, inputs)
        masks, recurrent = self._dropout_masks(inputs, h, training)
        if not isinstance(masks, list) and not isinstance(recurrent, list):
            z = array_math.add(
                self._input_product(_masked(inputs, masks, training), self.kernel),
                self._recurrent_product(_masked(h, recurrent, training),
                                        self.recurrent_kernel))
            return array_math.add(z, self.bias) if self.use_bias else z
        xs = _per_gate(_masked(inputs, masks, training), self._gates)
        hs = _per_gate(_masked(h, recurrent, training), self._gates)
        kernels = _split(self.kernel, self._gates)
        recurrent_kernels = _split(self.recurrent_kernel, self._gates)
        z = array_math.concat([
            array_math.add(self._input_product(x, k), self._recurrent_product(hg, r))
            for x, hg, k, r in zip(xs, hs, kernels, recurrent_kernels)], -1)
        return array_math.add(z, self.bias) if self.use_bias else z

    def get_initial_state(self, batch_size, dtype):
        """Zero states for `batch_size` examples (an int or a scalar tensor)."""
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else \
            [self.state_size]
        return [array_math.zeros([batch_size, s], dtype) for s in sizes]


def _split(value, parts: int):
    return array_math.split(value, parts, axis=-1)


def _per_gate(value, gates: int) -> list:
    """One input per gate: `value` itself when it is already a list (masked per gate)."""
    return value if isinstance(value, list) else [value] * gates


class SimpleRNNCell(_Cell):
    """`h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)`; output and state h."""

    def __init__(self, units: int, activation: str | Callable | None = "tanh",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, seed=None, **kwargs: Any) -> None:
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, dropout, recurrent_dropout,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, seed=seed, **kwargs)

    _drops_at_full_rate = True
    _seed_before_initializers = True

    def call(self, inputs, states, training=None):
        h = states[0] if isinstance(states, (list, tuple)) else states
        out = self.activation(self._preactivation(inputs, h, training))
        return out, [out]


class LSTMCell(_Cell):
    """Long short-term memory: gates i, f, o (`recurrent_activation`) and the candidate c
    (`activation`) from `x @ kernel + h @ recurrent_kernel + bias`;
    `c = f * c_prev + i * candidate`, `h = o * activation(c)`. States [h, c].

    `unit_forget_bias=True` starts the forget gate's bias at 1.
    """

    _gates = 4

    def __init__(self, units: int, activation: str | Callable | None = "tanh",
                 recurrent_activation: str | Callable | None = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros", unit_forget_bias: bool = True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, seed=None, **kwargs: Any) -> None:
        implementation = _implementation(type(self).__name__, kwargs.pop("implementation", 2))
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, dropout, recurrent_dropout,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, seed=seed, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)
        self._set_implementation(implementation)

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base = _initializers.get(self.bias_initializer)
        units = self.units

        def init(shape, dtype):
            value = np.array(convert_to_tensor(base(shape, dtype)).numpy())
            value[units:2 * units] = 1
            return constant(value)
        return init

    def call(self, inputs, states, training=None):
        h, c = states
        zi, zf, zc, zo = _split(self._preactivation(inputs, h, training), 4)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        o = self.recurrent_activation(zo)
        c = array_math.add(array_math.multiply(f, c), array_math.multiply(i, self.activation(zc)))
        h = array_math.multiply(o, self.activation(c))
        return h, [h, c]


class GRUCell(_Cell):
    """Gated recurrent unit, gates z (update) and r (reset) and the candidate h:
    `h = z * h_prev + (1 - z) * candidate`.

    `reset_after=True` (Keras's default, the cuDNN form) applies the reset gate after the
    recurrent matmul: `candidate = activation(x W_h + b_h + r * (h_prev U_h + b'_h))`, with a
    `bias` of two rows; `reset_after=False` applies it before:
    `activation(x W_h + (r * h_prev) U_h + b_h)`.
    """

    _gates = 3

    def __init__(self, units: int, activation: str | Callable | None = "tanh",
                 recurrent_activation: str | Callable | None = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0, seed=None, reset_after: bool = True,
                 **kwargs: Any) -> None:
        implementation = _implementation(type(self).__name__, kwargs.pop("implementation", 2))
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, dropout, recurrent_dropout,
                         kernel_regularizer=kernel_regularizer,
                         recurrent_regularizer=recurrent_regularizer,
                         bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                         recurrent_constraint=recurrent_constraint,
                         bias_constraint=bias_constraint, seed=seed, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)
        self._set_implementation(implementation)

    def _bias_shape(self):
        n = 3 * self.units
        return [2, n] if self.reset_after else [n]

    def call(self, inputs, states, training=None):
        h = states[0] if isinstance(states, (list, tuple)) else states
        inputs = as_layer_dtype(self, inputs)
        masks, recurrent = self._dropout_masks(inputs, h, training)
        if isinstance(masks, list):  # a mask per gate (implementation=1)
            x = array_math.concat([linalg.matmul(xg, k) for xg, k in zip(
                _masked(inputs, masks, training), _split(self.kernel, 3))], -1)
        else:
            x = linalg.matmul(_masked(inputs, masks, training), self.kernel)
        if self.use_bias:
            x = array_math.add(x, self.bias[0] if self.reset_after else self.bias)
        xz, xr, xh = _split(x, 3)
        hz, hr, hh = _per_gate(_masked(h, recurrent, training), 3)
        if self.reset_after:
            if hz is hh:
                rec = linalg.matmul(hz, self.recurrent_kernel)
            else:
                rec = array_math.concat([linalg.matmul(hg, u) for hg, u in zip(
                    (hz, hr, hh), _split(self.recurrent_kernel, 3))], -1)
            if self.use_bias:
                rec = array_math.add(rec, self.bias[1])
            rz, rr, rh = _split(rec, 3)
            z = self.recurrent_activation(array_math.add(xz, rz))
            r = self.recurrent_activation(array_math.add(xr, rr))
            candidate = self.activation(array_math.add(xh, array_math.multiply(r, rh)))
        else:
            uz, ur, uh = _split(self.recurrent_kernel, 3)
            z = self.recurrent_activation(array_math.add(xz, linalg.matmul(hz, uz)))
            r = self.recurrent_activation(array_math.add(xr, linalg.matmul(hr, ur)))
            candidate = self.activation(
                array_math.add(xh, linalg.matmul(array_math.multiply(r, hh), uh)))
        h = array_math.add(array_math.multiply(z, h),
                           array_math.multiply(array_math.subtract(1.0, z), candidate))
        return h, [h]


class _StateHolder:
    """Holds a stateful RNN's state variables out of the layer's tracked weights."""

    def __init__(self) -> None:
        self.values: list | None = None


class RNN(Layer):
    """Runs `cell` over the steps of `[batch, steps, features]` inputs (`time_major=True`:
    `[steps, batch, features]`).

    Returns the last output, or every step's (`return_sequences=True`), followed by the
    final states when `return_state=True`. `go_backwards=True` reads the steps last to first
    (the returned sequence is then in that order too). `call(inputs, initial_state=None,
    mask=None)`.

    A mask (`[batch, steps]`, True where a step counts: from `Embedding(mask_zero=True)`,
    `Masking`, or passed as `mask=`) skips steps as Keras does: at a masked step the states
    carry over unchanged and the output repeats the previous step's (zeros before the first
    kept step), or is zero with `zero_output_for_mask=True`. With `return_sequences`, the
    output keeps the mask.
    """

    _passes_masks = True
    # a keyword Keras 3's RNN does not have, left out of the config at its default
    _config_defaults_kept_out = {"time_major": False}

    def __init__(self, cell: Layer, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, unroll: bool = False, time_major: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)  # as Keras: a list of cells runs as one stack
        if not hasattr(cell, "state_size") or not callable(cell):
            raise TypeError(f"RNN needs a cell with `state_size` and `call(inputs, states)`, "
                            f"got {cell!r}.")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self._state_holder = _StateHolder()  # stateful: the states kept between calls
        self.unroll = bool(unroll)
        self.time_major = bool(time_major)

    def _step_shape(self, shape: TensorShape) -> TensorShape:
        """The shape of one step's inputs, `[batch, features]`."""
        if shape.rank != 3:
            raise ValueError(f"{self.name} needs inputs of rank 3 ([batch, steps, features]), "
                             f"got shape {shape}.")
        return TensorShape([shape[1 if self.time_major else 0], shape[2]])

    def _state_shape(self, step_shape) -> list | None:
        """A state's shape without the batch for a step's input shape (None: the cell's
        `state_size` gives each)."""
        return None

    def _zero_states(self, batch, step_shape, dtype) -> list:
        """Zero initial states for `batch` examples (an int or a scalar tensor)."""
        shape = self._state_shape(step_shape)
        if shape is None:
            return [array_math.zeros([batch, s], dtype) for s in _flat_sizes(self.cell)]
        if None in shape:
            raise ValueError(f"{self.name} needs the inputs' spatial sizes known when tracing, "
                             f"got a step of shape {step_shape}.")
        return [array_math.zeros([batch, *shape], dtype)
                for _ in range(len(self.cell.state_size))]

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        step = self._step_shape(shape)
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell._build_once(step)
        if self.stateful and self._state_holder.values is None:
            batch = step[0]
            if batch is None:
                raise ValueError(f"{self.name}: with stateful=True the batch size must be "
                                 f"static; found a dynamic batch size in shape {shape}. Give "
                                 "the Input a batch_shape, or call the layer on arrays.")
            zeros = (self.cell.get_initial_state(batch, self.dtype)
                     if self._state_shape(step) is None else
                     self._zero_states(batch, step, self.dtype))
            self._state_holder.values = [Variable(state, trainable=False, name="rnn_state")
                                         for state in zeros]
        self.built = True

    def compute_output_shape(self, input_shape):
        """As Keras: the output's shape (`[batch, steps, units]` with `return_sequences`,
        else `[batch, units]`), then each state's with `return_state`."""
        shapes = _with_steps(super().compute_output_shape(input_shape), input_shape, self)
        return tuple(shapes) if isinstance(shapes, list) else shapes

    @property
    def states(self) -> list | None:
        """stateful=True: the variables holding the last states (None before the first
        call); they are not among the layer's weights, as in Keras."""
        return self._state_holder.values

    def reset_state(self) -> None:
        """Sets the kept states (stateful=True) back to zeros."""
        for variable in self._state_holder.values or []:
            variable.assign(array_math.zeros_like(variable))

    def reset_states(self) -> None:
        """Keras's older name of `reset_state`."""
        self.reset_state()

    def _initial_state(self, x, initial_state):
        sizes = _flat_sizes(self.cell)
        if initial_state is not None:
            states = _flatten(initial_state)
            if len(states) != len(sizes):
                raise ValueError(f"{self.name}: `initial_state` needs {len(sizes)} tensors, got "
                                 f"{len(states)}.")
            return [convert_to_tensor(s, dtype=x.dtype) for s in states]
        if self.stateful and self._state_holder.values is not None:
            kept = self._state_holder.values
            expected, batch = kept[0].shape.as_list()[0], x.shape.as_list()[1]
            if batch is not None and batch != expected:
                raise ValueError(f"{self.name}: with stateful=True the batch size of the "
                                 f"inputs must stay {expected} (the states'); got {batch}.")
            return [convert_to_tensor(v, dtype=x.dtype) for v in kept]
        batch = x.shape.as_list()[1]
        if batch is None:
            batch = array_math.shape(x)[1]
        return self._zero_states(batch, x.shape[1:], x.dtype)

    def compute_mask(self, inputs, mask=None):
        """The input's mask with `return_sequences` (else None), and None for each state."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            sizes = self.cell.state_size
            return [output_mask] + [None] * (len(sizes) if isinstance(sizes, (list, tuple)) else 1)
        return output_mask

    def _step_mask(self, mask):
        """`mask` as `[steps, batch]` booleans in the order the steps run, or None."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        if mask is None:
            return None
        mask = array_math.cast(mask, "bool")
        if mask.shape.rank != 2:
            raise ValueError(f"{self.name}: the mask must be [batch, steps], got shape "
                             f"{mask.shape}.")
        if not self.time_major:
            mask = array_math.transpose(mask, [1, 0])
        if self.go_backwards:
            mask = array_math.reverse(mask, [0])
        return mask

    def call(self, inputs, initial_state=None, training=None, mask=None):
        x = as_layer_dtype(self, inputs)
        self._step_shape(x.shape)  # the rank's check
        swap = [1, 0, *range(2, x.shape.rank)]  # batch and time axes exchanged
        if not self.time_major:
            x = array_math.transpose(x, swap)  # [steps, batch, features]
        if self.go_backwards:
            x = array_math.reverse(x, [0])
        states = self._initial_state(x, initial_state)
        # the dropout masks of this sequence, drawn before the steps as Keras draws them
        # (training or not, so the seed generators move on alike)
        _config_dropout_masks(self.cell, x[0], states, training)
        try:
            return self._run(x, states, swap, mask)
        finally:
            _reset_dropout_masks(self.cell)

    def _run(self, x, states, swap, mask):
        steps = x.shape.as_list()[0]
        step_mask = self._step_mask(mask)
        # eagerly the steps run as Python; traced, they are one staged loop (Keras's
        # unroll=False), so the graph, its gradient and its compilation do not grow with
        # the number of steps; unroll=True writes every step into the graph
        if steps is not None and (self.unroll or context.current_graph() is None):
            outputs = []
            for t in range(steps):
                out, new = self.cell(x[t], states)
                new = list(new) if isinstance(new, (list, tuple)) else [new]
                if step_mask is not None:
                    keep = _per_example(step_mask[t], out)
                    previous = outputs[-1] if outputs else array_math.zeros_like(out)
                    out = array_math.where(keep, out, previous)
                    new = [array_math.where(keep, n, s) for n, s in zip(new, states)]
                states = new
                outputs.append(out)
            if not outputs:
                raise ValueError(f"{self.name} needs at least one step, got shape {x.shape}.")
            last = outputs[-1]
            sequence = array_math.stack(outputs, 0) if self.return_sequences else None
        else:
            last, sequence, states = self._while_loop(x, states, step_mask)
        if step_mask is not None and self.zero_output_for_mask:
            last = array_math.where(_per_example(step_mask[-1], last), last,
                                    array_math.zeros_like(last))
            if sequence is not None:
                sequence = array_math.where(_per_example(step_mask, sequence, 2), sequence,
                                            array_math.zeros_like(sequence))
        if self.stateful and self._state_holder.values is not None:
            for variable, state in zip(self._state_holder.values, states):
                variable.assign(state)
        if self.return_sequences:
            result = sequence if self.time_major else array_math.transpose(sequence, swap)
        else:
            result = last
        if self.return_state:
            nest_states = getattr(self.cell, "nest_states", None)
            return [result, *(nest_states(states) if nest_states else states)]
        return result

    def _while_loop(self, x, states, step_mask=None):
        steps = array_math.shape(x)[0]
        first, _ = self.cell(x[0], states)  # the output's shape, traced once
        outputs = TensorArray(x.dtype, size=steps)
        # the output before the first step: zeros of the output's shape (a static shape
        # leaves the traced step unused, so it never runs)
        zeros = array_math.zeros(first.shape.as_list(), first.dtype) \
            if first.shape.is_fully_defined() else array_math.zeros_like(first)

        def body(t, outputs, last, *states):
            out, new = self.cell(array_math.gather(x, t), list(states))
            new = list(new) if isinstance(new, (list, tuple)) else [new]
            if step_mask is not None:
                keep = _per_example(array_math.gather(step_mask, t), last)
                out = array_math.where(keep, out, last)
                new = [array_math.where(keep, n, s) for n, s in zip(new, states)]
            return (t + 1, outputs.write(t, out), out, *new)

        result = control_flow.while_loop(
            lambda t, *_: t < steps, body,
            (constant(0), outputs, zeros, *states))
        _, outputs, last, *states = result
        sequence = None
        if self.return_sequences:
            sequence = outputs.stack()
            if x.shape[0] is not None:  # the number of steps known while tracing
                sequence.set_shape([x.shape[0], *sequence.shape.as_list()[1:]])
        return last, sequence, list(states)


def _config_dropout_masks(cell, step_input, states: list, training) -> None:
    """Draws the dropout masks of `cell` (of each cell of a stack, each on the shape of its
    own inputs) for a sequence, in Keras's order; when not training, only moves the seed
    generators on."""
    if isinstance(cell, DropoutRNNCell):
        if _is_training(training):
            cell.get_dropout_mask(step_input)
            cell.get_recurrent_dropout_mask(states[0])
        else:
            cell._skip_dropout_draws()
    elif isinstance(cell, StackedRNNCells):
        for inner, own in zip(cell.cells, cell.nest_states(_flatten(states))):
            _config_dropout_masks(inner, step_input, own, training)
            if isinstance(inner, _Cell):
                step_input = own[0]  # the shape of this cell's output, the next one's input
            else:
                step_input = _flatten(inner(step_input, own)[0])[0]


def _reset_dropout_masks(cell) -> None:
    if isinstance(cell, DropoutRNNCell):
        cell.reset_dropout_mask()
        cell.reset_recurrent_dropout_mask()
    elif isinstance(cell, StackedRNNCells):
        for inner in cell.cells:
            _reset_dropout_masks(inner)


def _flatten(value) -> list:
    """Nested lists of states (or sizes) as one flat list."""
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flatten(part)]
    return [value]


def _flat_sizes(cell) -> list:
    return _flatten(cell.state_size)


class StackedRNNCells(Layer):
    """Cells run one after the other at each step, each on the previous one's output, as one
    cell for `RNN` (which also makes one of a list of cells). `state_size` lists each cell's
    (so `RNN(..., return_state=True)` returns the states grouped by cell, as Keras's); the
    output is the last cell's."""

    def __init__(self, cells, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        cells = list(cells)
        for cell in cells:
            if not hasattr(cell, "state_size") or not callable(cell):
                raise ValueError("All cells must have a `state_size` attribute and be "
                                 f"callable; received cell={cell!r:.80}.")
        if not cells:
            raise ValueError("StackedRNNCells needs at least one cell.")
        self.cells = cells

    @property
    def state_size(self) -> list:
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self) -> int:
        last = self.cells[-1]
        found = getattr(last, "output_size", None)
        return found if found is not None else _flatten(last.state_size)[0]

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell._build_once(shape)
            size = getattr(cell, "output_size", None) or _flatten(cell.state_size)[0]
            shape = TensorShape([shape[0], size])
        self.built = True

    def nest_states(self, states: list) -> list:
        """The flat `states` grouped by cell: a list per cell (as Keras returns them)."""
        grouped, at = [], 0
        for cell in self.cells:
            count = len(_flatten(cell.state_size))
            grouped.append(list(states[at:at + count]))
            at += count
        return grouped

    def get_initial_state(self, batch_size, dtype):
        return [array_math.zeros([batch_size, s], dtype) for s in _flat_sizes(self)]

    def call(self, inputs, states):
        flat, new_states = _flatten(states), []
        for cell, own in zip(self.cells, self.nest_states(flat)):
            inputs, new = cell(inputs, own)
            new_states += _flatten(new)
        return inputs, new_states

    def get_config(self) -> dict:
        config = super().get_config()
        config["cells"] = [_serialization.serialize_layer(cell) for cell in self.cells]
        return config

    @classmethod
    def from_config(cls, config: dict) -> "StackedRNNCells":
        config = dict(config)
        cells = [_serialization.deserialize_layer(cell) for cell in config.pop("cells")]
        return super().from_config({**config, "cells": cells})


def _per_example(mask, like, leading: int = 1):
    """`mask` (its `leading` axes those of `like`) with axes of 1 for the rest of `like`'s,
    so that it selects whole steps of `like`."""
    for _ in range(like.shape.rank - leading):
        mask = array_math.expand_dims(mask, -1)
    return mask


class _CellRNN(RNN):
    """An RNN of its own cell class: `units` is the cell's (named as Keras names it)."""

    _cell_name = "cell"

    def __init__(self, cell: Layer, *rnn_args: Any, **kwargs: Any) -> None:
        super().__init__(cell, *rnn_args, **kwargs)
        self.units = cell.units


def _from_cell(name: str) -> property:
    return property(lambda self: getattr(self.cell, name),
                    doc=f"The cell's `{name}` (as Keras's recurrent layers expose it).")


for _name in ("activation", "use_bias", "kernel_initializer", "recurrent_initializer",
              "bias_initializer", "kernel_regularizer", "recurrent_regularizer",
              "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint",
              "dropout", "recurrent_dropout"):
    setattr(_CellRNN, _name, _from_cell(_name))
del _name


class SimpleRNN(_CellRNN):
    """A fully connected recurrent layer (an RNN of a SimpleRNNCell)."""

    _cell_name = "simple_rnn_cell"
    _config_defaults_kept_out = {"seed": None}  # Keras 3's SimpleRNN config has no seed

    def __init__(self, units: int, activation: str | Callable | None = "tanh",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed=None, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, time_major: bool = False, **kwargs: Any) -> None:
        cell = SimpleRNNCell(units, activation, use_bias, kernel_initializer,
                             recurrent_initializer, bias_initializer, dropout=dropout,
                             recurrent_dropout=recurrent_dropout, kernel_regularizer=kernel_regularizer,
                        recurrent_regularizer=recurrent_regularizer,
                        bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                        recurrent_constraint=recurrent_constraint,
                        bias_constraint=bias_constraint, seed=seed, dtype=kwargs.get("dtype"),
                        name=self._cell_name)
        super().__init__(cell, return_sequences, return_state, go_backwards, stateful, unroll,
                         time_major, zero_output_for_mask,
                         activity_regularizer=activity_regularizer, **kwargs)


class LSTM(_CellRNN):
    """Long short-term memory layer (an RNN of an LSTMCell); states [h, c]."""

    _cell_name = "lstm_cell"

    def __init__(self, units: int, activation: str | Callable | None = "tanh",
                 recurrent_activation: str | Callable | None = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros", unit_forget_bias: bool = True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed=None, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, time_major: bool = False, **kwargs: Any) -> None:
        cell = LSTMCell(units, activation, recurrent_activation, use_bias, kernel_initializer,
                        recurrent_initializer, bias_initializer, unit_forget_bias,
                        dropout=dropout, recurrent_dropout=recurrent_dropout,
                        kernel_regularizer=kernel_regularizer,
                        recurrent_regularizer=recurrent_regularizer,
                        bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                        recurrent_constraint=recurrent_constraint,
                        bias_constraint=bias_constraint, seed=seed, dtype=kwargs.get("dtype"),
                        name=self._cell_name,
                        implementation=kwargs.pop("implementation", 2))
        super().__init__(cell, return_sequences, return_state, go_backwards, stateful, unroll,
                         time_major, zero_output_for_mask,
                         activity_regularizer=activity_regularizer, **kwargs)


class GRU(_CellRNN):
    """Gated recurrent unit layer (an RNN of a GRUCell; `reset_after=True` by default)."""

    _cell_name = "gru_cell"

    def __init__(self, units: int, activation: str | Callable | None = "tanh",
                 recurrent_activation: str | Callable | None = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros",
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed=None, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, time_major: bool = False,
                 reset_after: bool = True, **kwargs: Any) -> None:
        cell = GRUCell(units, activation, recurrent_activation, use_bias, kernel_initializer,
                       recurrent_initializer, bias_initializer, dropout=dropout,
                       recurrent_dropout=recurrent_dropout, reset_after=reset_after,
                       kernel_regularizer=kernel_regularizer,
                        recurrent_regularizer=recurrent_regularizer,
                        bias_regularizer=bias_regularizer, kernel_constraint=kernel_constraint,
                        recurrent_constraint=recurrent_constraint,
                        bias_constraint=bias_constraint, seed=seed, dtype=kwargs.get("dtype"),
                        name=self._cell_name,
                        implementation=kwargs.pop("implementation", 2))
        super().__init__(cell, return_sequences, return_state, go_backwards, stateful, unroll,
                         time_major, zero_output_for_mask,
                         activity_regularizer=activity_regularizer, **kwargs)


LSTM.recurrent_activation = GRU.recurrent_activation = _from_cell("recurrent_activation")
LSTM.unit_forget_bias = _from_cell("unit_forget_bias")
GRU.reset_after = _from_cell("reset_after")


def _with_steps(shapes, input_shape, layer):
    """`shapes` (an RNN's output shape, or a list starting with it) with the number of steps
    of `input_shape` in the output's time axis, which the staged loop leaves unknown."""
    if not getattr(layer, "return_sequences", False):
        return shapes
    dims = list(input_shape)
    time_axis = 0 if getattr(layer, "time_major", False) else 1
    first = shapes[0] if isinstance(shapes, list) else shapes
    if first is None or len(dims) < 2:
        return shapes
    first = first[:time_axis] + (dims[time_axis],) + first[time_axis + 1:]
    return [first, *shapes[1:]] if isinstance(shapes, list) else first


class Bidirectional(Layer):
    """Runs a recurrent `layer` forwards and a copy of it backwards over the steps and merges
    their outputs: `merge_mode` 'concat' (default), 'sum', 'mul', 'ave' or None (a list).

    The backward copy is `backward_layer` when given, else a new layer of the same class and
    constructor arguments with `go_backwards` flipped. With `return_sequences`, the backward
    outputs are reversed back into step order before merging.
    """

    def __init__(self, layer: RNN, merge_mode: str | None = "concat", weights=None,
                 backward_layer: RNN | None = None, **kwargs: Any) -> None:
        super().__init__(weights=weights, **kwargs)
        if not isinstance(layer, RNN):
            raise TypeError(f"Bidirectional needs a recurrent layer, got {layer!r}.")
        if merge_mode not in ("concat", "sum", "mul", "ave", None):
            raise ValueError("Bidirectional: `merge_mode` must be 'concat', 'sum', 'mul', "
                             f"'ave' or None, got {merge_mode!r}.")
        if layer.return_state:
            raise NotImplementedError("Bidirectional over a layer with return_state=True is "
                                      "not implemented.")
        # both directions are new layers made from the layer's config, named as Keras names
        # them (forward_<name>, backward_<name>), so they share no state with `layer`
        self.forward_layer = _copy(layer, "forward", go_backwards=layer.go_backwards)
        self.backward_layer = backward_layer if backward_layer is not None else \
            _copy(layer, "backward", go_backwards=not layer.go_backwards)
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        for direction in (self.forward_layer, self.backward_layer):  # as Keras does
            direction.zero_output_for_mask = direction.return_sequences

    _passes_masks = True

    def compute_mask(self, inputs, mask=None):
        """The input's mask with `return_sequences` (one per output for merge_mode=None),
        else None."""
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        if not self.return_sequences:
            return None if self.merge_mode else [None, None]
        return mask if self.merge_mode else [mask, mask]

    def compute_output_shape(self, input_shape):
        """As Keras: the merged output's shape (the steps kept with `return_sequences`)."""
        return _with_steps(super().compute_output_shape(input_shape), input_shape,
                           self.forward_layer)

    def call(self, inputs, initial_state=None, mask=None):
        forward = self.forward_layer(inputs, mask=mask)
        backward = self.backward_layer(inputs, mask=mask)
        if self.return_sequences:
            backward = array_math.reverse(backward, [0 if self.forward_layer.time_major else 1])
        if self.merge_mode == "concat":
            return array_math.concat([forward, backward], -1)
        if self.merge_mode == "sum":
            return array_math.add(forward, backward)
        if self.merge_mode == "mul":
            return array_math.multiply(forward, backward)
        if self.merge_mode == "ave":
            return array_math.multiply(array_math.add(forward, backward), 0.5)
        return [forward, backward]


    def get_config(self) -> dict:
        """Keras 3's: `layer` is the forward layer's config, `backward_layer` the backward's."""
        config = super().get_config()
        config.update(layer=_serialization.serialize_layer(self.forward_layer),
                      backward_layer=_serialization.serialize_layer(self.backward_layer))
        return config

def _copy(layer: RNN, direction: str, go_backwards: bool) -> RNN:
    """A new layer of `layer`'s class and config, named `<direction>_<name>`."""
    name = layer.name
    if name.startswith(direction + "_"):
        name = name[len(direction) + 1:]
    config = {**layer.get_config(), "name": f"{direction}_{name}",
              "go_backwards": go_backwards}
    try:
        return type(layer).from_config(config)
    except (TypeError, ValueError, NotImplementedError) as exc:
        raise NotImplementedError(f"Bidirectional cannot copy {layer.name} from its config "
                                  f"({exc}); make its cell serializable or pass "
                                  "`backward_layer`.") from None

