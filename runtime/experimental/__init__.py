"""rt.experimental: TensorFlow's tf.experimental names (ExtensionType, dispatch_for_api, ...)
and, loaded on first use, `rt.experimental.numpy` (TensorFlow's `tf.experimental.numpy`).

A package rather than a namespace object so that `import runtime.experimental.numpy as tnp`
works as `import tensorflow.experimental.numpy as tnp` does.
"""

import importlib as _importlib

from .. import debug_modes as _debug_modes  # noqa: F401 - marks enable_strict_mode
from .. import ops as _ops  # noqa: F401 - defining the ops marks their public names
from ..exports import LAZY_NAMES as _LAZY_NAMES
from ..exports import NAMESPACES as _NAMESPACES
from . import extension_type  # rt.experimental.extension_type.as_dict
from . import more as _more  # noqa: F401 - marks ExtensionTypeSpec, async_scope, ...

function_executor_type = None
globals().update(_NAMESPACES.get("experimental", {}))
__all__ = sorted({*_NAMESPACES.get("experimental", {}), *_LAZY_NAMES.get("experimental", {}),
                  "extension_type", "function_executor_type", "numpy"})


def __getattr__(name):
    module = _LAZY_NAMES.get("experimental", {}).get(name)  # an op family's, on first use
    if module is not None:
        value = globals()[name] = getattr(_importlib.import_module(module), name)
        return value
    if name == "numpy":  # loaded on first use: `import runtime` stays fast
        return _importlib.import_module("runtime.experimental.numpy")
    if name == "Optional":  # tf.experimental.Optional is tf.data's: loads rt.data
        return _importlib.import_module("runtime.data.experimental_more").Optional
    raise AttributeError(f"module 'runtime.experimental' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMES.get("experimental", {})))
