"""Convolutional LSTM layers ConvLSTM1D, ConvLSTM2D and ConvLSTM3D (channels last): an LSTM
whose input and recurrent transforms are convolutions, run over the time axis of
`[batch, time, *spatial, channels]` inputs by `RNN`.

Weights follow Keras's layout: the cell's `kernel` `kernel_size + (channels, 4 * filters)`,
`recurrent_kernel` `kernel_size + (filters, 4 * filters)` and `bias` `(4 * filters,)`, gates
in the order i, f, c, o. The input convolution takes `strides`, `padding` and
`dilation_rate`; the recurrent one runs with stride 1 and 'same' padding, as Keras's.
"""

from __future__ import annotations

from typing import Any, Callable

from ..ops import array_math, math_composed, nn_conv
from ..shapes import TensorShape
from .base import positive_int
from .convolutional import check_data_format, check_padding, depth_windows, normalize_tuple
from .recurrent import RNN, LSTMCell


def conv_output_size(size: int | None, kernel: int, stride: int, padding: str,
                     dilation: int) -> int | None:
    """The length of a convolution's output along one axis ('valid' or 'same')."""
    if size is None:
        return None
    if padding == "same":
        return -(-size // stride)
    span = (kernel - 1) * dilation + 1
    return max((size - span) // stride + 1, 0)


def _convolve(x, kernel, strides: tuple, padding: str, dilation: tuple):
    """`x` (`[batch, *spatial, channels]`) convolved with `kernel`, of 1 to 3 spatial axes."""
    rank = len(strides)
    if rank == 1:
        return nn_conv.conv1d(x, kernel, strides[0], padding.upper(), dilations=dilation[0])
    if rank == 2:
        return nn_conv.conv2d(x, kernel, strides, padding.upper(), dilations=dilation)
    windows = depth_windows(x.shape.as_list()[1], kernel.shape.as_list()[0], strides[0],
                            padding, dilation[0], "ConvLSTM3D")
    return array_math.stack([math_composed.add_n([
        nn_conv.conv2d(x[:, d], kernel[k], strides[1:], padding.upper(),
                       dilations=dilation[1:]) for k, d in window]) for window in windows],
        axis=1)


class _ConvLSTMCell(LSTMCell):
    """One step of a ConvLSTM: LSTMCell's gates with convolutions in place of the products
    (Keras's ConvLSTMCell)."""

    _rank = 2
    _seed_before_initializers = True

    def __init__(self, rank: int, filters: int, kernel_size, strides, padding: str,
                 dilation_rate, layer: str, **kwargs: Any) -> None:
        self._rank = rank
        self.filters = positive_int(filters, "filters", layer)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", layer)
        self.strides = normalize_tuple(strides, rank, "strides", layer)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", layer)
        self.padding = check_padding(padding, layer)
        super().__init__(self.filters, **kwargs)
        self._spatial: list | None = None

    @property
    def state_size(self):
        return [self.filters, self.filters]

    def build(self, input_shape) -> None:
        shape = TensorShape(input_shape)
        if shape.rank != self._rank + 2 or shape[-1] is None:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 2} per step with "
                             f"a known channel dimension, got shape {shape}.")
        n = 4 * self.filters
        self.kernel = self.add_weight(name="kernel",
                                      shape=[*self.kernel_size, shape[-1], n],
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            name="recurrent_kernel", shape=[*self.kernel_size, self.filters, n],
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer, constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=[n],
                                        initializer=self._bias_initializer(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def output_spatial(self, spatial: list) -> list:
        """The states' spatial sizes for a step's input spatial sizes."""
        return [conv_output_size(d, k, s, self.padding, r) for d, k, s, r in
                zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]

    def _set_implementation(self, implementation: int) -> None:
        self.implementation = 1
        self.dropout_mask_count = 4  # as Keras's ConvLSTMCell: a dropout mask per gate

    def _input_product(self, x, kernel):
        return _convolve(x, kernel, self.strides, self.padding, self.dilation_rate)

    def _recurrent_product(self, h, kernel):
        ones = (1,) * self._rank
        return _convolve(h, kernel, ones, "same", ones)


class _ConvLSTM(RNN):
    """An RNN of a `_ConvLSTMCell` over `[batch, time, *spatial, channels]` inputs (Keras's
    constructor; `strides` and `dilation_rate` an int or one per spatial axis)."""

    _rank = 2
    _config_defaults_kept_out = {"time_major": False}

    def __init__(self, filters: int, kernel_size, strides=1, padding: str = "valid",
                 data_format: str | None = None, dilation_rate=1,
                 activation: str | Callable | None = "tanh",
                 recurrent_activation: str | Callable | None = "sigmoid",
                 use_bias: bool = True, kernel_initializer: str | Callable = "glorot_uniform",
                 recurrent_initializer: str | Callable = "orthogonal",
                 bias_initializer: str | Callable = "zeros", unit_forget_bias: bool = True,
                 kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed=None, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        layer = type(self).__name__
        check_data_format(data_format, layer)
        cell = _ConvLSTMCell(
            self._rank, filters, kernel_size, strides, padding, dilation_rate, layer,
            activation=activation, recurrent_activation=recurrent_activation,
            use_bias=use_bias, kernel_initializer=kernel_initializer,
            recurrent_initializer=recurrent_initializer, bias_initializer=bias_initializer,
            unit_forget_bias=unit_forget_bias, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint, dropout=dropout,
            recurrent_dropout=recurrent_dropout, seed=seed, dtype=kwargs.get("dtype"),
            name="conv_lstm_cell")
        super().__init__(cell, return_sequences, return_state, go_backwards, stateful, unroll,
                         False, zero_output_for_mask,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.filters, self.kernel_size = cell.filters, cell.kernel_size
        self.strides, self.dilation_rate = cell.strides, cell.dilation_rate
        self.padding, self.data_format = cell.padding, "channels_last"

    def _step_shape(self, shape: TensorShape) -> TensorShape:
        if shape.rank != self._rank + 3:
            raise ValueError(f"{self.name} needs inputs of rank {self._rank + 3} ([batch, "
                             f"time, *spatial, channels]), got shape {shape}.")
        return TensorShape([shape[0], *shape.as_list()[2:]])

    def _state_shape(self, step_shape) -> list:
        dims = TensorShape(step_shape).as_list()
        return [*self.cell.output_spatial(dims[1:-1]), self.filters]

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        state = TensorShape([dims[0], *self._state_shape(self._step_shape(
            TensorShape(input_shape)))])
        out = TensorShape([dims[0], dims[1], *state.as_list()[1:]]) if self.return_sequences \
            else state
        return (out, state, state) if self.return_state else out


for _name in ("activation", "recurrent_activation", "use_bias", "kernel_initializer",
              "recurrent_initializer", "bias_initializer", "unit_forget_bias",
              "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
              "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout"):
    setattr(_ConvLSTM, _name, property(lambda self, _n=_name: getattr(self.cell, _n),
                                       doc=f"The cell's `{_name}`, as Keras's layer has it."))
del _name

_DOC = """{kind} convolutional LSTM over `[batch, time, {axes}, channels]` inputs: at each
    step `i, f, o = recurrent_activation(conv(x, W) + conv(h, U) + b)` per gate, `c = f * c +
    i * activation(...)`, `h = o * activation(c)`, the input convolution with `strides`,
    `padding` ('valid' or 'same') and `dilation_rate`, the recurrent one with stride 1 and
    'same' padding. Returns the last `h` (`[batch, {out}, filters]`) or every step's
    (`return_sequences`), then `[h, c]` with `return_state`; masks skip steps as in RNN.
    Channels-last data only. `dropout` and `recurrent_dropout` draw a mask per gate for each
    sequence, as Keras's."""


class ConvLSTM1D(_ConvLSTM):
    __doc__ = _DOC.format(kind="A 1-D", axes="steps", out="new_steps")
    _rank = 1


class ConvLSTM2D(_ConvLSTM):
    __doc__ = _DOC.format(kind="A 2-D", axes="rows, cols", out="new_rows, new_cols")
    _rank = 2


class ConvLSTM3D(_ConvLSTM):
    __doc__ = _DOC.format(kind="A 3-D", axes="d1, d2, d3", out="new_d1, new_d2, new_d3")
    _rank = 3
