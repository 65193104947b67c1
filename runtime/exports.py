"""The public names of ops, marked where each op function is defined.

`runtime/__init__.py` builds `rt.*` and the `rt.math`, `rt.nn`, ... namespaces from this
table, so a new public op needs no edit there.
"""

from __future__ import annotations

import importlib
import types
from typing import Callable, TypeVar

from . import lazy_ops
from .arguments import add_keyword_hints_to_class, with_keyword_hints

T = TypeVar("T")

NAMESPACES: dict[str, dict[str, object]] = {}  # "" is `rt` itself; "math" is `rt.math`, ...
# names a namespace loads on first use: namespace -> {name: module defining it} (large families,
# such as rt.linalg's LinearOperators and rt.signal's cosine transforms, that `import runtime`
# does not load); the names of the op families runtime.ops loads on first use are added below,
# from runtime/lazy_ops.py
LAZY_NAMES: dict[str, dict[str, str]] = {
    "linalg": {name: "runtime.linear_operator" for name in (
        "LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
        "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant",
        "LinearOperatorCirculant2D", "LinearOperatorCirculant3D", "LinearOperatorComposition",
        "LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorHouseholder",
        "LinearOperatorIdentity", "LinearOperatorInversion", "LinearOperatorKronecker",
        "LinearOperatorLowRankUpdate", "LinearOperatorLowerTriangular",
        "LinearOperatorPermutation", "LinearOperatorScaledIdentity", "LinearOperatorToeplitz",
        "LinearOperatorTridiag", "LinearOperatorZeros", "banded_triangular_solve",
        "tridiagonal_matmul", "tridiagonal_solve")} | {name: "runtime.linalg_extras" for name in (
        "eig", "eigh_tridiagonal", "eigvals", "experimental", "logm", "lu", "lu_matrix_inverse",
        "lu_reconstruct", "lu_solve", "sqrtm")},
    "nn": {name: "runtime.conv_gradients" for name in (
        "depthwise_conv2d_backprop_filter", "depthwise_conv2d_backprop_input")}
    | {name: "runtime.layers.rnn_cell_wrappers" for name in (
        "RNNCellDeviceWrapper", "RNNCellDropoutWrapper", "RNNCellResidualWrapper")},
    "signal": {name: "runtime.signal_extras" for name in (
        "dct", "idct", "inverse_mdct", "inverse_stft", "inverse_stft_window_fn",
        "linear_to_mel_weight_matrix", "mdct", "mfccs_from_log_mel_spectrograms",
        "overlap_and_add")},
    # tf.sets, tf.queue, tf.quantization, tf.autodiff, tf.xla and TensorFlow's other top-level
    # names that few programs use (tf.IndexedSlices, tf.make_tensor_proto, ...)
    "sets": {name: "runtime.tf_sets" for name in ("difference", "intersection", "size", "union")},
    "queue": {name: "runtime.tf_queue" for name in (
        "FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue")},
    "quantization": {name: "runtime.tf_quantization" for name in (
        "dequantize", "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
        "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
        "fake_quant_with_min_max_vars_per_channel",
        "fake_quant_with_min_max_vars_per_channel_gradient", "quantize",
        "quantize_and_dequantize", "quantize_and_dequantize_v2", "quantized_concat")},
    "autodiff": {"ForwardAccumulator": "runtime.tf_misc", "GradientTape": "runtime.gradients"},
    "xla.experimental": {"compile": "runtime.tf_misc", "jit_scope": "runtime.tf_misc"},
    "": {name: "runtime.tf_misc" for name in (
        "CriticalSection", "IndexedSlices", "IndexedSlicesSpec", "NoneTensorSpec",
        "TensorArraySpec", "approx_top_k", "check_pinned", "conv", "make_ndarray",
        "make_tensor_proto", "nondifferentiable_batch_function", "ragged_fill_empty_rows",
        "ragged_fill_empty_rows_grad", "random_index_shuffle",
        "register_tensor_conversion_function", "variable_creator_scope")},
}
for _space, _names in lazy_ops.NAMES.items():
    LAZY_NAMES.setdefault(_space, {}).update(_names)


class _Names(dict):
    """The table of one namespace in NAMESPACES: looking up a name it publishes on first use
    (`table[name]`, `table.get(name)`) loads the module of LAZY_NAMES that defines it, so code
    that finds a public function by name (a saved model's config, the dispatch tables, ...)
    finds it whatever was loaded before. Iterating lists what is loaded."""

    __slots__ = ("space",)

    def __init__(self, space: str) -> None:
        super().__init__()
        self.space = space

    def __missing__(self, name: str) -> object:
        module = LAZY_NAMES[self.space].get(name)
        if module is None:
            raise KeyError(name)
        value = getattr(importlib.import_module(module), name)
        self[name] = value
        return value

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default


NAMESPACES.update({space: _Names(space) for space in LAZY_NAMES})


class Namespace(types.SimpleNamespace):
    """`rt.math`, `rt.linalg`, ...: the exported names, and those of `LAZY_NAMES[space]`
    imported from their module on first use."""

    def __init__(self, space: str, **names):
        super().__init__(**names)
        object.__setattr__(self, "_lazy", LAZY_NAMES.get(space, {}))

    def __getattr__(self, name: str):
        module = self.__dict__.get("_lazy", {}).get(name)
        if module is None:
            raise AttributeError(f"namespace has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(self, name, value)
        return value

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.__dict__.get("_lazy", {})))

    def __repr__(self):
        return "namespace(" + ", ".join(sorted(k for k in self.__dict__ if k != "_lazy")) + ")"


def export(*names: str) -> Callable[[T], T]:
    """Decorator: publishes a function or class as `rt.<name>` for each name given.

    A dotted name puts it in a namespace: `@export("add", "math.add")`. A misspelt keyword
    in a call of what is published raises TypeError with "did you mean" (`runtime.arguments`).
    """
    def mark(obj: T) -> T:
        bare = [name.rpartition(".")[2] for name in names]
        if isinstance(obj, types.FunctionType) and obj.__name__ not in bare:
            obj.__name__ = obj.__qualname__ = bare[0]  # made by a factory: named as published
        if isinstance(obj, type):
            add_keyword_hints_to_class(obj)
        elif isinstance(obj, types.FunctionType):
            obj = with_keyword_hints(obj, obj.__name__)
        for name in names:
            space, _, attr = name.rpartition(".")
            NAMESPACES.setdefault(space, {})[attr] = obj
        return obj
    return mark
