"""Python code inside compiled functions: `py_function` and `numpy_function`.

Each is one op (`EagerPyFunc`, `PyFunc`) whose kernel calls the Python function. The ops have
an IO effect, so the graph passes never fold, merge or drop them: the function runs at every
call of the compiled function, in program order. Their outputs have the declared dtypes and
an unknown shape unless `Tout` gives `TensorSpec`s (or the caller uses `set_shape`); the Numba
tier (`jit_compile=True`) needs a known rank, and runs the op's NumPy kernel in object mode.

`py_function` passes eager tensors and is differentiable: eagerly the function simply runs,
so an outer tape records the ops inside it; staged, the gradient is another `EagerPyFunc` op
that reruns the function under a `GradientTape` and asks it for the input gradients.
`numpy_function` passes NumPy arrays and has no gradient.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import context, nest
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import Effect, define
from ..shapes import TensorShape, TensorSpec
from ..tensor import EagerTensor, Tensor
from . import array_math
from .core import apply, convert_to_tensor


class _Output:
    """What the op declares for one output: dtype and (possibly unknown) shape."""

    __slots__ = ("dtype", "shape")

    def __init__(self, dtype: _dtypes.DType, shape: TensorShape):
        self.dtype = dtype
        self.shape = shape

    def __repr__(self) -> str:
        return f"{self.dtype.name}{self.shape}"


def _outputs(Tout, what: str) -> tuple[tuple[_Output, ...], bool]:  # noqa: N803
    """The declared outputs, and whether `Tout` was a single dtype (a single tensor back)."""
    if Tout is None:
        return (), False
    single = not isinstance(Tout, (list, tuple))
    leaves = [Tout] if single else list(Tout)
    out = []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, TensorSpec):
            out.append(_Output(leaf.dtype, leaf.shape))
            continue
        try:
            out.append(_Output(_dtypes.as_dtype(leaf), TensorShape(None)))
        except (TypeError, ValueError):
            raise TypeError(f"{what}: Tout must be a dtype, a TensorSpec or a list of them; "
                            f"entry {i} is {leaf!r}.") from None
    return tuple(out), single


def _results(result, outs: tuple[_Output, ...], name: str) -> list[np.ndarray]:
    """The function's result as arrays of the declared dtypes, checked against `Tout`."""
    if not outs:
        return []
    if isinstance(result, (list, tuple)):
        flat = list(result)
    else:
        flat = [result]
    if len(flat) != len(outs):
        raise InvalidArgumentError(f"{name}: the function returned {len(flat)} values but Tout "
                                   f"declares {len(outs)}.")
    arrays = []
    for i, (value, spec) in enumerate(zip(flat, outs)):
        if value is None:
            raise InvalidArgumentError(f"{name}: output {i} of the function is None.")
        array = np.asarray(value._value if isinstance(value, EagerTensor) else value)
        want = spec.dtype._np
        if array.dtype != want:
            if isinstance(value, Tensor) or not np.can_cast(array.dtype, want, "same_kind"):
                raise InvalidArgumentError(
                    f"{name}: output {i} of the function has dtype {array.dtype}, but Tout "
                    f"declares {spec.dtype.name}.")
            array = array.astype(want)
        if not spec.shape.is_compatible_with(TensorShape(array.shape)):
            raise InvalidArgumentError(f"{name}: output {i} of the function has shape "
                                       f"{list(array.shape)}, but Tout declares {spec.shape}.")
        arrays.append(array)
    return arrays


def _call(func, args, outs, name):
    saved = context.state.tapes
    context.state.tapes = []  # an outer tape does not see the ops inside (gradients: below)
    try:
        with context.graph_scope(None):
            result = func(*args)
    finally:
        context.state.tapes = saved
    return tuple(_results(result, outs, name))


def _eager_kernel(*values, func, Tout):  # noqa: N803
    return _call(func, [EagerTensor(np.asarray(v)) for v in values], Tout, "py_function")


def _numpy_kernel(*values, func, Tout, stateful):  # noqa: N803
    return _call(func, [np.asarray(v) for v in values], Tout, "numpy_function")


def _infer(*inputs, Tout, **_attrs):  # noqa: N803
    return [(spec.shape, spec.dtype) for spec in Tout]


def _emit(em, op) -> None:
    """`k(x, func=..., Tout=...)`, unpacked: the kernel returns a tuple even for one output."""
    args = em.ins(op) + [f"{k}={em.literal(v)}" for k, v in op.attrs.items()]
    call = f"{em.bind(op.opdef.kernel)}({', '.join(args)})"
    outs = em.outs(op)
    em.line(f"{', '.join(outs)}, = {call}" if outs else call)


# both hold the Python function they call: never saved
EAGER_PY_FUNC = define("EagerPyFunc", _infer, _eager_kernel, emit=_emit, effects=Effect.IO,
                       num_outputs=None, savable=False)
PY_FUNC = define("PyFunc", _infer, _numpy_kernel, emit=_emit, effects=Effect.IO,
                 num_outputs=None, differentiable=False, savable=False)


def _gradient_tape():
    """GradientTape, which runtime.gradients registers in `context.hooks` (it sits above ops)."""
    tape = context.hooks.gradient_tape
    if tape is None:  # pragma: no cover - runtime/__init__.py loads gradients with the runtime
        raise RuntimeError("py_function's gradient needs runtime.gradients, which is not "
                           "loaded: import runtime before taking gradients.")
    return tape


@EAGER_PY_FUNC.def_grad
def _py_function_grad(op, *grads):
    func = op.attrs["func"]
    inputs = op.inputs
    wanted = [i for i, t in enumerate(inputs) if t.dtype.is_floating or t.dtype.is_complex]
    if not wanted:
        return [None] * len(inputs)
    n_in = len(inputs)

    def gradient_of(*args):
        xs = list(args[:n_in])
        seeds = list(args[n_in:])
        with _gradient_tape()() as tape:
            for i in wanted:
                tape.watch(xs[i])
            result = func(*xs)
        flat = [convert_to_tensor(r) for r in nest.flatten(result)]
        pairs = [(y, g) for y, g in zip(flat, seeds) if y.dtype.is_floating or y.dtype.is_complex]
        return tape.gradient([y for y, _ in pairs], [xs[i] for i in wanted],
                             output_gradients=[g for _, g in pairs],
                             unconnected_gradients="zero")

    seeds = []
    for t, g in zip(op.outputs, grads):
        seeds.append(array_math.zeros_like(t) if g is None else g)
    outs = tuple(_Output(inputs[i].dtype, inputs[i].shape) for i in wanted)
    results = apply(EAGER_PY_FUNC, list(inputs) + seeds, {"func": gradient_of, "Tout": outs},
                    name="EagerPyFuncGrad")
    found = dict(zip(wanted, results))
    return [found.get(i) for i in range(n_in)]


def _inputs(inp, what: str) -> list:
    if inp is None:
        return []
    if not isinstance(inp, (list, tuple)):
        inp = [inp]
    out = []
    for i, value in enumerate(inp):
        try:
            out.append(convert_to_tensor(value))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{what}: inp[{i}] cannot be converted to a tensor: {exc}") from None
    return out


def _finish(tensors: list, single: bool):
    if single:
        return tensors[0]
    return list(tensors)


def _decorator(wrap: Callable, func, inp, what: str, **options):
    """`@py_function(Tout=...)` without `func` and `inp`: a decorator whose function calls
    `wrap(func, args, ...)` with the arguments it is called with, as in TensorFlow."""
    if inp is not None:
        raise TypeError(f"{what}: func is missing (inp given without a function).")

    def decorate(fn: Callable) -> Callable:
        def call(*args):
            return wrap(fn, list(args), **options)
        call.__name__ = getattr(fn, "__name__", what)
        call.__doc__ = getattr(fn, "__doc__", None)
        call.__wrapped__ = fn
        return call
    return decorate if func is None else decorate(func)


@export("py_function")
def py_function(func: Callable | None = None, inp=None, Tout=None,  # noqa: N803
                name: str | None = None) -> Any:
    """Calls the Python function `func(*inp)` on eager tensors, at every call of a compiled
    function (staged, it is one `EagerPyFunc` op). `Tout` is a dtype (one tensor back), a list
    of dtypes (a list back) or `TensorSpec`s giving shapes too. Gradients flow through the
    ops `func` runs, eagerly and staged. Without `func` and `inp` (`@rt.py_function(Tout=...)`)
    it is a decorator."""
    if inp is None:
        return _decorator(py_function, func, inp, "py_function", Tout=Tout, name=name)
    if not callable(func):
        raise TypeError(f"py_function: func must be callable, got {type(func).__name__}.")
    outs, single = _outputs(Tout, "py_function")
    tensors = _inputs(inp, "py_function")
    if context.current_graph() is None:
        result = func(*tensors)
        arrays = _results(result, outs, "py_function")  # checks count, dtypes and shapes
        flat = result if isinstance(result, (list, tuple)) else [result]
        out = [v if isinstance(v, EagerTensor) else EagerTensor(a) for v, a in zip(flat, arrays)]
        return _finish(out, single) if outs else None
    result = apply(EAGER_PY_FUNC, tensors, {"func": func, "Tout": outs}, name=name)
    return _finish(result, single) if outs else None


@export("numpy_function")
def numpy_function(func: Callable | None = None, inp=None, Tout=None,  # noqa: N803
                   stateful: bool = True, name: str | None = None) -> Any:
    """Calls `func(*arrays)` on NumPy arrays, at every call of a compiled function (one
    `PyFunc` op). `Tout` as for `py_function`. No gradient flows through it. Without `func`
    and `inp` it is a decorator, like `py_function`."""
    if inp is None:
        return _decorator(numpy_function, func, inp, "numpy_function", Tout=Tout,
                          stateful=stateful, name=name)
    if not callable(func):
        raise TypeError(f"numpy_function: func must be callable, got {type(func).__name__}.")
    outs, single = _outputs(Tout, "numpy_function")
    tensors = _inputs(inp, "numpy_function")
    result = apply(PY_FUNC, tensors, {"func": func, "Tout": outs, "stateful": bool(stateful)},
                   name=name)
    return _finish(result, single) if outs else None
