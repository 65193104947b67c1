"""runtime: eager tensors over NumPy, graph tracing, a code-generating executor, compiled functions.

    import runtime as rt

    @rt.function
    def f(x, y):
        return rt.reduce_mean(rt.multiply(x ** 2, 3) + y)
"""


import importlib as _importlib
import sys as _sys
import types as _types
import typing as _typing

if _typing.TYPE_CHECKING:
    # For type checkers: every public name, re-exported explicitly, including those built
    # below at run time (the ops, rt.math, rt.nn, ..., the lazily loaded rt.keras, ...).
    # docs/make_typing_surface.py writes runtime/_api from runtime.exports; first, so that its
    # explicit re-exports win over the plain imports below.
    from ._api import *  # noqa: F403

from . import cluster_def as _cluster_def  # noqa: F401 - marks rt.config's cluster names
from . import config_options as _config_options  # noqa: F401 - marks rt.config.threading, ...
from . import device_config as _device_config  # noqa: F401 - marks rt.config
from . import errors, experimental, version  # rt.experimental.numpy loads on first use
from . import module as _module  # noqa: F401 - marks rt.Module
from . import numpy_api as _numpy_api  # noqa: F401 - installs NumPy's protocols on tensors
from . import ops as _ops  # noqa: F401 - defining the ops marks their public names
from . import tensor_overloads as _tensor_overloads  # noqa: F401 - installs Python operators on tensors
from . import tf_types as _tf_types  # noqa: F401 - marks rt.types.experimental
from .context import device, executing_eagerly, init_scope, name_scope
from .dtypes import (
    DType,
    as_dtype,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from .exports import LAZY_NAMES as _LAZY_NAMES
from .exports import NAMESPACES as _NAMESPACES
from .exports import Namespace as _Namespace
from .function import (
    ConcreteFunction,
    Function,
    add_function_callback,
    clear_function_callbacks,
    defun,
    defun_with_attributes,
    experimental_functions_run_eagerly,
    experimental_run_functions_eagerly,
    function,
    functions_run_eagerly,
    register,
    remove_function_callback,
    run_functions_eagerly,
)
from .function.reporting import set_report_builder as _set_report_builder
from .graph import FuncGraph, Graph, Operation
from .shapes import TensorShape, TensorSpec
from .tensor import EagerTensor, SymbolicTensor, Tensor, is_tensor

bool = bool_  # noqa: A001 - rt.bool aliases rt.bool_, as tf.bool

if not _typing.TYPE_CHECKING:  # type checkers read these names from runtime/_api (see above)
    globals().update(_NAMESPACES[""])  # rt.add, rt.cond, rt.Variable, ...: see runtime.exports

    def _space(name):  # rt.math, rt.strings, ...: a space's names, its lazy ones on first use
        return _Namespace(name, **_NAMESPACES.get(name, {}))

    math = _space("math")
    math.special = _space("math.special")
    linalg = _space("linalg")  # LinearOperators load on first use
    random = _space("random")
    random.experimental = _space("random.experimental")
    nn = _space("nn")  # the convolution gradients load on first use
    nn.experimental = _space("nn.experimental")
    debugging = _space("debugging")
    debugging.experimental = _space("debugging.experimental")
    bitwise = _space("bitwise")
    signal = _space("signal")  # the DCTs ... load on first use
    strings = _space("strings")  # like rt.io, rt.image, ...: an op family loaded on first use
    sparse = _space("sparse")
    ragged = _space("ragged")
    image = _space("image")
    lookup = _space("lookup")
    io = _space("io")
    audio = _space("audio")
    sets = _space("sets")  # tf.sets, tf.queue, ...: runtime.tf_sets, ... load on first use
    queue = _space("queue")
    quantization = _space("quantization")
    autodiff = _space("autodiff")
    xla = _types.SimpleNamespace(experimental=_space("xla.experimental"))
    types = _types.SimpleNamespace(experimental=_types.SimpleNamespace(**_NAMESPACES["types.experimental"]))
    config = _types.SimpleNamespace(**_NAMESPACES["config"], experimental=_types.SimpleNamespace(
        **_NAMESPACES.get("config.experimental", {})), threading=_types.SimpleNamespace(
        **_NAMESPACES["config.threading"]), optimizer=_types.SimpleNamespace(
        **_NAMESPACES["config.optimizer"]))
    for _name, _value in _NAMESPACES["dtypes"].items():  # rt.dtypes.cast, ...: ops' names
        setattr(_sys.modules[f"{__name__}.dtypes"], _name, _value)
newaxis = None  # x[:, rt.newaxis], as tf.newaxis
if not _typing.TYPE_CHECKING:  # rt.experimental.dispatch_for_api replaces names in these
    _ops.dispatch.set_namespaces(_sys.modules[__name__], math, nn, strings, experimental)


def _load_report(fn, *args, **kwargs):
    """`f.report(...)` / `ag.report(...)` before the report tool is loaded: loads it (it then
    registers its own builder in runtime.function.reporting) and builds the page."""
    return _importlib.import_module(".report", __name__).report(fn, *args, **kwargs)


_set_report_builder(_load_report)  # the report layer stays above function/: see reporting.py


_CORE_INITIALIZERS = {"random_normal_initializer": "RandomNormal",
                      "random_uniform_initializer": "RandomUniform",
                      "constant_initializer": "Constant", "zeros_initializer": "Zeros",
                      "ones_initializer": "Ones"}

if not _typing.TYPE_CHECKING:  # the lazy names are declared in runtime/_api for type checkers
    def __getattr__(name):
        module = _LAZY_NAMES.get("", {}).get(name)  # rt.decode_csv, ...: an op family, on first use
        if module is not None:
            value = globals()[name] = getattr(_importlib.import_module(module), name)
            return value
        # layers, callbacks, keras, optimizers, saved_model, data and profiler load on first use
        # to keep `import runtime` fast; gradients are already loaded (function/ imports them to
        # differentiate recorded calls), so only their names are resolved here
        # (importlib, not `from . import x`: that form asks this hook for `x` again and recurses)
        if name in ("GradientTape", "stop_gradient", "custom_gradient", "gradients",
                    "UnconnectedGradients", "hessians", "AggregationMethod", "RegisterGradient",
                    "no_gradient", "grad_pass_through"):
            _g = _importlib.import_module(".gradients", __name__)
            return _g if name == "gradients" and not hasattr(_g, "gradients") else getattr(_g, name)
        if name == "callbacks":
            return _importlib.import_module(".layers.callbacks", __name__)
        if name in ("Model", "layers"):
            _layers = _importlib.import_module(".layers", __name__)
            _importlib.import_module(".saved_model", __name__)  # writes Model.export's files
            return _layers if name == "layers" else _layers.Model
        if name == "keras":
            return _importlib.import_module(".keras", __name__)
        if name in ("metrics", "losses", "initializers"):  # tf.metrics ...: Keras's modules
            return _importlib.import_module(f".keras.{name}", __name__)
        if name in ("random_normal_initializer", "random_uniform_initializer",
                    "constant_initializer", "zeros_initializer", "ones_initializer"):
            # TF 2's core names of the Keras initializers
            _init = _importlib.import_module(".layers.initializers", __name__)
            return getattr(_init, _CORE_INITIALIZERS[name])
        if name == "autograph":    # tf.autograph: the converter package (already loaded with nest)
            return _importlib.import_module("autograph")
        # dask and summary also need optional extras (Dask, tensorboardX): loaded only when asked
        if name in ("saved_model", "dask", "data", "summary", "profiler", "feature_column",
                    "compat", "distribute", "lite"):
            return _importlib.import_module(f".{name}", __name__)
        if name == "test":  # tf.test: TestCase, compute_gradient, ...
            return _importlib.import_module(".tftest", __name__)
        if name in ("eig", "eigvals", "matrix_square_root"):  # tf.eig ...: rt.linalg's
            return getattr(_importlib.import_module(".linalg_extras", __name__), name)
        if name == "OptionalSpec":  # the type spec of rt.experimental.Optional (rt.data's)
            return getattr(_importlib.import_module(".data.experimental_more", __name__), name)
        if name in ("optimizers", "train"):
            _opt = _importlib.import_module(".optimizers", __name__)
            return _opt if name == "optimizers" else _opt.train
        raise AttributeError(f"module 'runtime' has no attribute {name!r}")


    def __dir__():
        return sorted(set(globals()) | set(_LAZY_NAMES.get("", {})))


__version__ = version.VERSION
