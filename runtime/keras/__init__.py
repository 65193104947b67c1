"""`rt.keras`: TensorFlow's `tf.keras` namespace over this runtime's layers and models.

    from runtime import keras

    inputs = keras.Input(shape=(4,))
    outputs = keras.layers.Dense(1)(keras.layers.Dense(8, activation="relu")(inputs))
    model = keras.Model(inputs, outputs)
    model.compile(keras.optimizers.Adam(0.01), keras.losses.MeanSquaredError())
    model.fit(x, y, epochs=5)
    model.save("model.keras")
    same = keras.models.load_model("model.keras")

`keras.layers` is everything `runtime.layers` exports (plus `Input`, `InputLayer`), read when
it is imported; `keras.Model` is `rt.Model` (given inputs and outputs, a functional model).
"""

from types import SimpleNamespace as _Namespace

from ..arguments import add_keyword_hints_to_classes as _add_keyword_hints_to_classes
from ..context import device
from ..layers import Input, InputLayer, InputSpec, Layer, Model, Sequential
from ..layers.base import KerasVariable as Variable
from ..layers.functional import KerasTensor
from ..saved_model import save as _saved_model_save  # noqa: F401 (writes Model.export's files)
from . import (
    activations,
    applications,
    backend,
    callbacks,
    config,
    constraints,
    datasets,
    distillation,
    distribution,
    dtype_policies,
    export,
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    preprocessing,
    quantizers,
    random,
    regularizers,
    saving,
    tree,
    utils,
    visualization,
    wrappers,
)
from .dtype_policies import DTypePolicy, FloatDTypePolicy, mixed_precision
from .initializers import Initializer
from .losses import Loss
from .metrics import Metric
from .optimizers import Optimizer
from .quantizers import Quantizer
from .regularizers import Regularizer
from .scopes import (
    Function,
    Operation,
    RematScope,
    StatelessScope,
    SymbolicScope,
    name_scope,
    remat,
)

# Keras 2's serialization functions, as tf.keras.legacy.saving keeps them
legacy = _Namespace(saving=_Namespace(serialize_keras_object=saving.serialize_keras_object,
                                      deserialize_keras_object=saving.deserialize_keras_object))

__version__ = "3.15.1"  # the Keras 3 release whose API and printed output rt.keras follows


def version() -> str:
    """The Keras 3 release whose API rt.keras follows (`keras.__version__`)."""
    return __version__

__all__ = ["InputSpec", "DTypePolicy", "FloatDTypePolicy", "dtype_policies", "mixed_precision", "version",
           "device", "legacy", "Initializer", "Input", "InputLayer", "KerasTensor", "Layer",
           "Variable",
           "Loss", "Metric", "Model", "Optimizer", "Regularizer", "Sequential", "activations",
           "applications", "backend", "callbacks", "config", "constraints", "datasets",
           "distribution", "export",
           "initializers", "layers", "losses", "metrics", "models", "ops", "optimizers",
           "preprocessing", "random", "regularizers", "saving", "tree", "utils",
           "visualization"]
__all__ += ["Quantizer", "quantizers"]

__all__ += ["Function", "Operation", "RematScope", "StatelessScope", "SymbolicScope",
            "distillation", "name_scope", "remat", "wrappers"]

for _module in (activations, backend, callbacks, constraints, initializers, layers, losses, metrics, models,
                optimizers, regularizers, saving, utils, distribution, export):
    _add_keyword_hints_to_classes(vars(_module), "runtime")  # a misspelt keyword: did you mean
for _module in (quantizers, dtype_policies):
    _add_keyword_hints_to_classes(vars(_module), "runtime")
_add_keyword_hints_to_classes(globals(), "runtime")
