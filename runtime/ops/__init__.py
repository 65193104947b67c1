"""Every op, in the module of the TensorFlow namespace a user calls it from (`ops.math_special`
for `tf.math.lgamma`, `ops.linalg` for `tf.linalg.*`, `ops.random` for `tf.random.*`, ...), each
op's gradient rule and backend lowerings beside its definition. `array_math` holds the ops the
others and every gradient build on (elementwise math, reductions, array ops). Importing this
package defines the ops most programs call, which also marks their public names
(runtime/exports.py).

The large families a program rarely calls (`LAZY_FAMILIES`: file formats, strings, lookup
tables, signal processing, images, ...) load on first use, so that `import runtime` stays fast:
a namespace loads one when one of its names is first read (runtime.exports.LAZY_NAMES), the
op registry when one of its ops is looked up by name (`runtime.opdef.lookup`, as the saved-model
loader does) or listed (`runtime.opdef.builtin_ops()`), and `load_all()` loads them all.
runtime/lazy_ops.py, written by docs/make_lazy_ops.py, says which module defines each of their
ops and names.
"""

import importlib

from .. import lazy_ops
from ..context import hooks
from . import (
    array_blocks,
    array_composed,
    array_extras,
    array_math,
    array_scatter,
    array_sort,
    bitwise,
    control_flow,
    control_flow_functional,
    core,
    debugging,
    debugging_checks,
    dispatch,
    extension_type,
    linalg,
    math_composed,
    math_extras,
    math_special,
    nn,
    nn_conv,
    py_function,
    ragged,
    random,
    random_extras,
    random_stateless,
    recompute,
    shape_rules,
    sparse,
    tensor_array,
    variables,
)

#: the op families `import runtime` leaves unloaded, loaded on first use (see above)
LAZY_FAMILIES = (
    "candidate_sampling",
    "collective",
    "ctc",
    "data",
    "farmhash",
    "image",
    "image_boxes",
    "image_crops",
    "image_extras",
    "io",
    "io_audio",
    "io_csv",
    "io_example",
    "io_extras",
    "io_gfile",
    "io_image",
    "io_more",
    "io_tfrecord",
    "linalg_decompositions",
    "lookup",
    "math_sobol",
    "math_special_functions",
    "nn_conv3d",
    "nn_embedding",
    "nn_fractional",
    "nn_more",
    "ragged_cross",
    "ragged_dispatch",
    "ragged_ops",
    "ragged_shape",
    "random_distributions",
    "random_generator",
    "signal",
    "sparse_manip",
    "sparse_more",
    "sparse_ragged_extras",
    "strings",
    "strings_more",
    "strings_script",
    "summary",
)


def load_all() -> None:
    """Loads every op family: afterwards the op registry and the name tables are complete."""
    for family in LAZY_FAMILIES:
        importlib.import_module(f"{__name__}.{family}")


def load_op(op_type: str | None) -> None:
    """Loads the family defining the op named `op_type` (all of them for None); nothing when no
    family defines it."""
    if op_type is None:
        load_all()
    elif op_type in lazy_ops.OPS:
        importlib.import_module(lazy_ops.OPS[op_type])


def _load_composite_handlers() -> None:
    """The handlers of the published APIs for RaggedTensors and SparseTensors, registered on
    the first call that refuses one (runtime.ops.dispatch)."""
    importlib.import_module(f"{__name__}.ragged_dispatch")


def _load_ragged_operations() -> None:
    """The operations on RaggedTensors' rows (indexing, broadcasting, stacking, sparse),
    loaded on the first one a RaggedTensor needs (runtime.ops.ragged.OPS)."""
    importlib.import_module(f"{__name__}.ragged_ops")


hooks.load_op = load_op
dispatch.register_on_first_composite(_load_composite_handlers)
ragged.OPS.loader = _load_ragged_operations

__all__ = [
    "array_blocks",
    "array_composed",
    "array_extras",
    "array_math",
    "array_scatter",
    "array_sort",
    "bitwise",
    "control_flow",
    "control_flow_functional",
    "core",
    "debugging",
    "debugging_checks",
    "dispatch",
    "extension_type",
    "linalg",
    "load_all",
    "load_op",
    "math_composed",
    "math_extras",
    "math_special",
    "nn",
    "nn_conv",
    "py_function",
    "ragged",
    "random",
    "random_extras",
    "random_stateless",
    "recompute",
    "shape_rules",
    "sparse",
    "tensor_array",
    "variables",
]
