"""Op definitions, grouped by kind; importing this package installs tensor operators.

Each `*_grads` module holds the gradient rules of its op module that use ops of a module above
it (the gradient helpers, reductions), so op modules import only downward; importing it
registers those rules.
"""

from . import (
    array_grads,
    array_ops,
    composed,
    composed_math,
    control_flow,
    conv_ops,
    core,
    dataset_ops,
    debug_checks,
    debug_ops,
    decompositions,
    device_config,
    example_ops,
    functional_ops,
    gradient_ops,
    image_ops,
    io_ops,
    linalg_ops,
    math_grads,
    math_ops,
    misc_ops,
    nn_ops,
    py_function,
    ragged_ops,
    random_generator,
    random_ops,
    reduce_grads,
    reduce_ops,
    scatter_ops,
    signal_ops,
    sort_ops,
    sparse_ops,
    special_ops,
    stateless_random_ops,
    string_ops,
    summary_ops,
    tensor_array,
    tfrecord_ops,
    variable_ops,
)
from .overloads import install as _install

_install()

__all__ = ["array_grads", "array_ops", "composed", "composed_math", "control_flow", "conv_ops",
           "core", "debug_checks", "debug_ops", "decompositions", "device_config",
           "example_ops", "functional_ops", "gradient_ops", "image_ops", "io_ops", "linalg_ops", "math_grads",
           "math_ops", "misc_ops", "nn_ops", "py_function", "ragged_ops", "random_generator",
           "random_ops", "reduce_grads", "reduce_ops", "scatter_ops", "signal_ops", "sort_ops",
           "sparse_ops", "special_ops", "stateless_random_ops", "string_ops", "summary_ops",
           "tensor_array", "tfrecord_ops", "variable_ops"]
