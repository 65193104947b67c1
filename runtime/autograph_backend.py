"""The runtime as an autograph backend: staged control flow becomes `rt.cond` and
`rt.while_loop`, staged lists become `rt.TensorArray`s, staged prints and assertions become
`rt.print` and `rt.Assert`.

Functions convert here (docs/architecture.md lists every runtime module that imports autograph,
and why). Importing it registers the backend;
`convert` is what `rt.function(autograph=True)` uses to convert the user's function.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional, Sequence

import numpy as np

import autograph as ag
from autograph.core.options import ConversionOptions, Feature
from autograph.impl import errors as ag_errors
from autograph.impl import logs as ag_logs
from autograph.pyct.parser import SourceUnavailableError

from . import context
from .dtypes import bool_, float32, float64, int32, int64
from .function.logs import add_trace_listener
from .graph import constant_value, register_internal_dir
from .ops import array_composed, array_math, debugging
from .ops.control_flow import cond_merging_shapes as _cond
from .ops.control_flow import while_loop as _while_loop
from .ops.core import apply, convert_to_tensor
from .ops.tensor_array import TensorArray
from .ops.variables import Variable
from .shapes import TensorSpec, as_shape
from .tensor import SymbolicTensor, Tensor
from .traceback_utils import is_traceback_filtering_enabled

register_internal_dir(os.path.dirname(ag.__file__))  # op locations skip converter frames
ag_errors.set_filtering_switch(is_traceback_filtering_enabled)  # one switch for both packages
ag_errors.register_internal_dir(os.path.dirname(__file__))  # to_graph's errors hide ours too


class _ListSpec:
    """The spec of a staged list: its element dtype and shape."""

    def __init__(self, dtype, element_shape):
        self.dtype, self.element_shape = dtype, element_shape

    def __eq__(self, other) -> bool:
        return (isinstance(other, _ListSpec) and other.dtype == self.dtype
                and other.element_shape == self.element_shape)

    def __hash__(self) -> int:
        return hash((self.dtype, str(self.element_shape)))

    def __str__(self) -> str:
        return f"list of {self.dtype.name} {self.element_shape}"


class RuntimeBackend(ag.Backend):
    """Stages autograph's operators with the runtime's ops."""

    value_types = (Tensor, TensorArray)

    # -- values ------------------------------------------------------------------------------
    def is_staged(self, value: Any) -> bool:
        if isinstance(value, SymbolicTensor):
            return True
        if isinstance(value, TensorArray):
            return value.handle is not None
        if isinstance(value, Variable):
            return context.current_graph() is not None
        return False

    def is_tracing(self) -> bool:
        return context.current_graph() is not None

    def known_value(self, value: Any) -> Any:
        if not isinstance(value, SymbolicTensor) or value.shape.rank != 0:
            return None
        known = constant_value(value)
        return None if known is None else np.asarray(known).item()

    def is_value(self, value: Any) -> bool:
        return isinstance(value, (Tensor, TensorArray))

    def convert(self, value: Any) -> Any:
        try:
            return convert_to_tensor(value)
        except (TypeError, ValueError) as e:
            raise TypeError(str(e)) from None

    def spec(self, value: Any) -> Any:
        if isinstance(value, TensorArray):
            return _ListSpec(value.dtype, value.element_shape)
        return TensorSpec(value.shape, value.dtype)

    def zeros(self, spec: Any) -> Any:
        if isinstance(spec, _ListSpec):
            return TensorArray(spec.dtype, size=0, dynamic_size=True, element_shape=spec.element_shape)
        dims = spec.shape.as_tuple()
        shape = [] if dims is None else [d if d is not None else 0 for d in dims]
        return array_math.zeros(shape, dtype=spec.dtype)

    # -- control flow -------------------------------------------------------------------------
    def cond(self, pred, true_fn, false_fn, names=()):
        seen: dict[str, tuple] = {}

        def recorded(key: str, fn: Callable[[], tuple]):
            def run():
                out = fn()
                seen[key] = tuple(out)
                return tuple(out)
            return run

        try:
            return tuple(_cond(pred, recorded("true", true_fn), recorded("false", false_fn)))
        except (TypeError, ValueError) as e:
            better = _branch_mismatch(seen, names)
            if better is None:
                raise
            raise type(e)(better) from None

    def while_loop(self, test, body, loop_vars, names, shape_invariants=None,
                   maximum_iterations=None, relax_shapes=False):
        invariants = None
        if shape_invariants is not None and any(s is not None for s in shape_invariants):
            invariants = [_invariant_shape(s) for s in shape_invariants]
        out = _while_loop(test, body, tuple(loop_vars), shape_invariants=invariants,
                          maximum_iterations=maximum_iterations, loop_var_names=list(names),
                          relax_shapes=relax_shapes)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)

    # -- logic --------------------------------------------------------------------------------
    def logical_and(self, a, b):
        return array_math.logical_and(a, b)

    def logical_or(self, a, b):
        return array_math.logical_or(a, b)

    def logical_not(self, a):
        return array_math.logical_not(a)

    def equal(self, a, b):
        return array_math.equal(a, b)

    def not_equal(self, a, b):
        return array_math.not_equal(a, b)

    # -- side effects ---------------------------------------------------------------------------
    def print(self, values, sep, end, file):
        return debugging.print(*values, sep=sep, end=end, output_stream=file)

    def assert_(self, condition, message, data):
        return debugging.Assert(condition, [message, *data])

    def raise_unless(self, condition, exception):
        apply(debugging.RAISE_UNLESS, [convert_to_tensor(condition)], {"exception": exception})

    def guard_defined(self, value, defined, message):
        debugging.Assert(defined, [message])
        return value

    # -- builtins -----------------------------------------------------------------------------
    def len(self, value):
        if isinstance(value, TensorArray):
            return value.size()
        parts = _range_parts(value)
        if parts is not None:  # `for i in rt.range(n)` counts without materialising the range
            return self.range_length(*parts)
        dims = value.shape.as_tuple()
        if dims is None or not dims:
            raise TypeError(f"len() of a tensor of shape {value.shape} (a scalar or of unknown rank)")
        if dims[0] is not None:
            return dims[0]
        return array_math.shape(value)[0]

    def range_length(self, start, stop, step):
        if isinstance(step, int):
            if step == 0:
                raise ValueError("range() arg 3 must not be zero")
            if step == 1:
                n = stop if isinstance(start, int) and start == 0 else stop - start
            elif step > 0:
                n = (stop - start + (step - 1)) // step
            else:
                n = (start - stop + (-step - 1)) // (-step)
        else:
            n = array_math.where(step > 0, (stop - start + step - 1) // step,
                                 (start - stop - step - 1) // (-step))
        return array_math.maximum(n, 0)

    def getitem(self, value, index):
        if isinstance(value, TensorArray):
            return value.read(index)
        parts = _range_parts(value)
        if parts is not None and isinstance(index, Tensor) and index.shape.rank == 0:
            start, _, step = parts
            i = array_math.cast(index, value.dtype)
            if not (isinstance(step, int) and step == 1):
                i = array_math.multiply(i, step)
            return i if isinstance(start, int) and start == 0 else array_math.add(start, i)
        return array_math.gather(value, index)

    def abs(self, value):
        return array_math.abs(value)

    def cast(self, value, kind):
        # 64-bit values stay 64-bit: int() of an int64 or float64 tensor is not cut to int32,
        # nor float() of a float64 or int64 tensor rounded to float32
        wide = value.dtype.name in ("int64", "uint64", "float64", "complex128")
        if kind == "int":
            return array_math.cast(value, int64 if wide else int32)
        if kind == "float":
            return array_math.cast(value, float64 if wide else float32)
        return array_math.not_equal(value, array_math.zeros_like(value)) if value.dtype != bool_ \
            else value

    def reduce(self, kind, values):
        # a staged list (a TensorArray) reduces over its stacked elements, as Python over items
        values = [v.stack() if isinstance(v, TensorArray) else v for v in values]
        if len(values) == 1:
            return _reduce_first_axis(kind, values[0])
        if kind == "sum":
            out = values[0]
            for v in values[1:]:
                out = array_math.add(out, v)
            return out
        out = values[0]
        for v in values[1:]:
            out = _python_extremum(kind, out, v)
        return out

    def stack(self, values):
        return array_math.stack(list(values))

    # -- lists --------------------------------------------------------------------------------
    def new_list(self, items, element_spec=None):
        if isinstance(element_spec, _ListSpec):     # the spec of another staged list
            element_spec = TensorSpec(element_spec.element_shape, element_spec.dtype)
        if element_spec is None:
            first = convert_to_tensor(items[0])
            element_spec = TensorSpec(first.shape, first.dtype)
        ta = TensorArray(element_spec.dtype, size=0, dynamic_size=True,
                         element_shape=element_spec.shape)
        for i, item in enumerate(items):
            ta = ta.write(i, item)
        return ta

    def is_list(self, value):
        return isinstance(value, TensorArray)

    def list_append(self, lst, value):
        return lst.write(lst.size(), value)

    def list_set(self, lst, index, value):
        if isinstance(index, (int, np.integer)) and index < 0:
            index = lst.size() + index
        elif isinstance(index, Tensor):
            index = self.where_negative(index, lst.size())
        return lst.write(index, value)

    def where_negative(self, index, n):
        index = convert_to_tensor(index)
        return array_math.where(index < 0, index + array_math.cast(n, index.dtype), index)

    def list_pop(self, lst):
        n = lst.size() - 1
        last = lst.read(n)
        rest = TensorArray(lst.dtype, size=0, dynamic_size=True, element_shape=lst.element_shape)
        rest = rest.unstack(lst.gather(array_math.maximum(array_math.range(n), 0)))
        return rest, last


def _invariant_shape(invariant: Any):
    """The shape a loop variable may take: from a shape, a TensorSpec, or None (no
    invariant; a staged list keeps its own element shape)."""
    if invariant is None or isinstance(invariant, _ListSpec):
        return None
    return as_shape(invariant.shape if isinstance(invariant, TensorSpec) else invariant)


def _python_extremum(kind: str, current, item) -> Tensor:
    """Python's `max(current, item)` (`min`): `item` only replaces `current` when it is
    greater (less), so a NaN item never replaces a number and a NaN `current` is kept;
    elementwise otherwise, like `maximum`/`minimum`."""
    fold = array_math.maximum if kind == "max" else array_math.minimum
    result = fold(current, item)
    if not result.dtype.is_floating:
        return result
    current = array_math.cast(current, result.dtype)
    item = array_math.cast(item, result.dtype)
    skipped = array_math.logical_and(array_composed.is_nan(item),
                                     array_math.logical_not(array_composed.is_nan(current)))
    return array_math.where(skipped, array_composed.broadcast_to(current, array_math.shape(result)),
                            result)


def _python_extremum_of_items(kind: str, value: Tensor) -> Tensor:
    """Python's `max(t)` (`min`) over a vector's items: a NaN first item is the result
    (nothing compares greater than it); later NaNs never replace a number."""
    fn = array_math.reduce_max if kind == "max" else array_math.reduce_min
    if not value.dtype.is_floating:
        return fn(value)
    bound = float("-inf") if kind == "max" else float("inf")
    numbers = array_math.where(array_composed.is_nan(value), array_math.fill(array_math.shape(value),
                                                                      array_math.cast(bound, value.dtype)), value)
    first = value[0]
    return array_math.where(array_composed.is_nan(first), first, fn(numbers))


def _reduce_first_axis(kind: str, value: Tensor) -> Tensor:
    """Python's `min`/`max`/`sum`/`any`/`all` over a tensor: they iterate its first axis,
    and compare (or test the truth of) its rows, which only works for scalar rows."""
    dims = value.shape.as_tuple()
    if dims is not None and not dims:
        raise TypeError(f"{kind}() of a scalar tensor: iteration over a 0-d tensor")
    if kind == "sum":
        return array_math.reduce_sum(value, axis=0)
    if dims is None or len(dims) > 1:
        raise ValueError(f"{kind}() over a tensor of shape {value.shape} compares its rows, and "
                         "the truth value of a row with more than one element is ambiguous; "
                         f"use rt.reduce_{kind} with an axis.")
    if kind in ("min", "max"):
        return _python_extremum_of_items(kind, value)
    fn = {"any": array_math.reduce_any, "all": array_math.reduce_all}[kind]
    return fn(value)


def _range_parts(value) -> Optional[tuple]:
    """(start, limit, delta) of a staged `rt.range` tensor, constants as Python numbers; None
    for any other value."""
    if type(value) is not SymbolicTensor or value.op.opdef is not array_math.RANGE:
        return None
    return tuple(_python_constant(t) for t in value.op.inputs)


def _python_constant(tensor):
    """The Python number of a scalar integer Const, else the tensor itself."""
    if tensor.op.opdef.is_constant and tensor.shape.rank == 0 and tensor.dtype.is_integer:
        return int(tensor.op.attrs["value"])
    return tensor


def _branch_mismatch(seen: dict, names: Sequence[str]) -> Optional[str]:
    """A message naming the variable whose dtype or shape differs between cond branches."""
    if "true" not in seen or "false" not in seen:
        return None
    for i, (t, f) in enumerate(zip(seen["true"], seen["false"])):
        if not (isinstance(t, Tensor) and isinstance(f, Tensor)):
            continue
        name = names[i] if i < len(names) else f"output {i}"
        if t.dtype != f.dtype:
            return (f"'{name}' has dtype {t.dtype.name} in the if branch but {f.dtype.name} in the "
                    "else branch of an `if` whose condition is a tensor; both branches must give "
                    "it the same dtype (use rt.cast).")
        if not t.shape.is_compatible_with(f.shape) and t.shape.rank != f.shape.rank:
            return (f"'{name}' has shape {t.shape} in the if branch but {f.shape} in the else "
                    "branch of an `if` whose condition is a tensor; both branches must give it "
                    "the same rank.")
    return None


BACKEND = ag.register_backend(RuntimeBackend())


def _log_cache_event(level: int, message: str) -> None:
    """ag.set_verbosity(1, alsologtostdout=True) prints traces and their reasons; 2 also
    graph cache hits (the `runtime.function` logger logs them, once)."""
    ag_logs.echo(level, message)


add_trace_listener(_log_cache_event)


def convert(func: Callable, experimental_autograph_options: Any = None) -> Callable:
    """The autograph-converted `func` for `rt.function(autograph=True)`.

    `experimental_autograph_options`: None, an `ag.experimental.Feature`, a tuple of them, or
    an `ag.ConversionOptions`."""
    if isinstance(experimental_autograph_options, ConversionOptions):
        options = experimental_autograph_options
    else:
        options = ConversionOptions.make(True, experimental_autograph_options)
    try:
        return ag.convert(func, options)
    except SourceUnavailableError as e:  # as for the functions it calls: run it as written
        ag_logs.warning("Not converting %s: %s. It runs unconverted, so control flow on tensors "
                        "inside it is not staged.", getattr(func, "__qualname__", func), e)
        return func


__all__ = ["RuntimeBackend", "BACKEND", "convert", "Feature", "SourceUnavailableError"]
