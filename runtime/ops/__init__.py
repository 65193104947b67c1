"""Op definitions, grouped by kind; importing this package installs tensor operators."""

from . import (
    array_ops,
    control_flow,
    core,
    debug_ops,
    gradient_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    random_ops,
    reduce_ops,
    tensor_array,
    variable_ops,
)
from .overloads import install as _install

_install()

__all__ = ["array_ops", "control_flow", "core", "debug_ops", "gradient_ops", "linalg_ops",
           "math_ops", "nn_ops", "random_ops", "reduce_ops", "tensor_array", "variable_ops"]
