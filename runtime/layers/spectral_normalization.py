"""`keras.layers.SpectralNormalization`: a wrapper that divides the wrapped layer's kernel
(or embeddings) by its largest singular value, estimated by power iteration, at each
training call."""

from __future__ import annotations

from typing import Any

from ..ops import array_math
from ..ops.control_flow import cond
from ..ops.core import convert_to_tensor
from ..ops.linalg import matmul
from .initializers import TruncatedNormal
from .input_spec import InputSpec
from .wrappers import Wrapper

_EPSILON = 1e-7  # keras.config.epsilon(), the floor of the norms


def _normalize(x):
    """x divided by its Euclidean norm over every element (at least epsilon)."""
    norm = array_math.sqrt(array_math.reduce_sum(array_math.square(x)))
    return array_math.truediv(x, array_math.maximum(norm, _EPSILON))


class SpectralNormalization(Wrapper):
    """Wraps a layer with a `kernel` (Dense, Conv*) or `embeddings` (Embedding). At each call
    with `training=True`, `power_iterations` steps of power iteration on the kernel reshaped
    to (-1, last axis) update the non-trainable `vector_u` (u: v = u W^T / |.|, u = v W /
    |.|), and the kernel is replaced by kernel / sigma, sigma = v W u^T (an all-zero kernel
    is left as it is). Outputs are cast to the inputs' dtype."""

    def __init__(self, layer, power_iterations: int = 1, **kwargs: Any) -> None:
        super().__init__(layer, **kwargs)
        if power_iterations <= 0:
            raise ValueError("`power_iterations` should be greater than zero. Received: "
                             f"`power_iterations={power_iterations}`")
        self.power_iterations = power_iterations

    def build(self, input_shape=None) -> None:
        super().build(input_shape)
        dims = list(input_shape.as_list() if hasattr(input_shape, "as_list") else input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: dims[-1]})
        if hasattr(self.layer, "kernel"):
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError(f"{type(self.layer).__name__} object has no attribute 'kernel' "
                             "nor 'embeddings'")
        self.kernel_shape = tuple(self.kernel.shape.as_list())
        self.vector_u = self.add_weight(shape=(1, self.kernel_shape[-1]),
                                        initializer=TruncatedNormal(stddev=0.02),
                                        trainable=False, name="vector_u",
                                        dtype=self.kernel.dtype)

    def normalized_weights(self):
        """(u, kernel / sigma) after `power_iterations` steps from the stored u."""
        weights = array_math.reshape(self.kernel, [-1, self.kernel_shape[-1]])
        u = self.vector_u.value()
        for _ in range(self.power_iterations):
            v = _normalize(matmul(u, weights, transpose_b=True))
            u = _normalize(matmul(v, weights))
        sigma = matmul(matmul(v, weights), u, transpose_b=True)
        kernel = array_math.reshape(array_math.truediv(self.kernel, sigma), self.kernel_shape)
        return (array_math.cast(u, self.vector_u.dtype),
                array_math.cast(kernel, self.kernel.dtype))

    def _update(self):
        kernel = self.kernel.value()
        zero = array_math.reduce_all(array_math.equal(kernel, 0))
        u, new_kernel = cond(zero, lambda: (self.vector_u.value(), kernel),
                             self.normalized_weights)
        self.vector_u.assign(u)
        self.kernel.assign(new_kernel)

    def call(self, inputs, training=False):
        if training is True:
            self._update()
        elif training is not None and training is not False:
            cond(training, lambda: (self._update(), array_math.constant(True))[1],
                 lambda: array_math.constant(False))
        inputs = convert_to_tensor(inputs)
        return array_math.cast(self.layer(inputs), inputs.dtype)

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "power_iterations": self.power_iterations}
