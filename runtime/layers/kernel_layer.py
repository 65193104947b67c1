"""The base of the layers `activation(transform(inputs, kernel) + bias)`: Dense, Conv1D, Conv2D."""

from __future__ import annotations

from typing import Callable

from ..ops import array_math
from ..ops import sparse as _sparse
from ..ops.core import convert_to_tensor
from . import activations
from . import constraints as _constraints
from . import regularizers as _regularizers
from .base import Layer


def as_layer_dtype(layer: Layer, inputs):
    """`inputs` as a tensor of the layer's dtype (a SparseTensor stays sparse when the layer
    takes sparse inputs, `_takes_sparse`, and is made dense otherwise)."""
    if isinstance(inputs, _sparse.SparseTensor):
        if not getattr(layer, "_takes_sparse", False):
            return as_layer_dtype(layer, _sparse.to_dense(inputs))
        if inputs.dtype is layer.dtype:
            return inputs
        return _sparse.SparseTensor(inputs.indices, array_math.cast(inputs.values, layer.dtype),
                                    inputs.dense_shape)
    x = convert_to_tensor(inputs)
    if x.dtype is not layer.dtype:
        x = array_math.cast(x, layer.dtype)
    return x


def refuse_quantization(layer: str, lora_rank, quantization_config) -> None:
    """Keras 3's LoRA adapters and quantization are not implemented: None only."""
    if lora_rank is not None:
        raise NotImplementedError(f"{layer}(lora_rank=...) is not implemented: LoRA adapters "
                                  "are not supported.")
    if quantization_config is not None:
        raise NotImplementedError(f"{layer}(quantization_config=...) is not implemented: "
                                  "quantized layers are not supported.")


class KernelLayer(Layer):
    """A layer with a `kernel`, an optional `bias` and an `activation`; subclasses define
    `_transform(x, kernel)`."""

    def _init_kernel_arguments(self, activation: str | Callable | None, use_bias: bool,
                               kernel_initializer: str | Callable,
                               bias_initializer: str | Callable, kernel_regularizer=None,
                               bias_regularizer=None, kernel_constraint=None,
                               bias_constraint=None) -> None:
        self.activation = activations.get(activation)
        self.kernel_constraint = _constraints.get(kernel_constraint, "kernel_constraint")
        self.bias_constraint = _constraints.get(bias_constraint, "bias_constraint")
        self.kernel_regularizer = _regularizers.get(kernel_regularizer, "kernel_regularizer")
        self.bias_regularizer = _regularizers.get(bias_regularizer, "bias_regularizer")
        self.use_bias = bool(use_bias)
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel = None
        self.bias = None

    def _build_kernel(self, kernel_shape: list, outputs: int) -> None:
        """Adds the kernel and, with `use_bias`, a bias of `outputs` values."""
        self.kernel = self.add_weight(name="kernel", shape=kernel_shape,
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=[outputs],
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def _transform(self, x):
        raise NotImplementedError

    def call(self, inputs):
        y = self._transform(as_layer_dtype(self, inputs))
        if self.use_bias:
            y = array_math.add(y, self.bias)
        return self.activation(y)
