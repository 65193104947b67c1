"""Keras-style layers and models.

    class MLP(rt.Model):
        def __init__(self):
            super().__init__()
            self.hidden = rt.layers.Dense(128, activation="relu")
            self.out = rt.layers.Dense(10)

        def call(self, inputs, training=None):
            return self.out(self.hidden(inputs))

Weights are created on the first call (eagerly, even inside a compiled function);
`model.trainable_variables` lists them for a `GradientTape` and an optimizer.
"""

from . import activations, callbacks, initializers, losses, metrics
from .base import Layer
from .core import Activation, Dense, Dropout, Flatten
from .functional import Input, InputLayer
from .model import Model, Sequential

__all__ = ["Activation", "Dense", "Dropout", "Flatten", "Input", "InputLayer", "Layer", "Model",
           "Sequential", "activations", "callbacks", "initializers", "losses", "metrics"]
