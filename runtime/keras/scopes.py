"""Keras 3's top-level scopes and graph objects: `keras.StatelessScope`, `SymbolicScope`,
`RematScope`, `remat`, `name_scope`, `Operation` and `Function`.

    state = [(layer.kernel, np.zeros(layer.kernel.shape, "float32"))]
    with keras.StatelessScope(state) as scope:
        outputs = layer(x)                  # reads the kernel as zeros
        layer.kernel.assign_add(ones)       # collected, not applied
    new_kernel = scope.get_current_value(layer.kernel)   # zeros + ones; the kernel is unchanged
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from .. import context as _context
from .. import nest
from ..layers.base import Layer, _unique_name
from ..layers.functional import Functional, KerasTensor
from ..ops.core import convert_to_tensor
from ..ops.recompute import recompute_grad
from ..ops.variables import Variable
from ..tensor import Tensor

_state = threading.local()  # this thread's stacks of open scopes


def _stack(kind: str) -> list:
    stack = getattr(_state, kind, None)
    if stack is None:
        stack = []
        setattr(_state, kind, stack)
    return stack


# -- StatelessScope ----------------------------------------------------------------------------
_patch_lock = threading.Lock()
_patch_users = 0
_original_write = Variable._write
_original_add_loss = Layer.add_loss


def _stateless_write(variable, value, mode, what, read_value):
    """`Variable._write` while a StatelessScope is open: an eager write of this thread is
    recorded in the innermost scope (and seen by later reads in it) instead of applied."""
    scope = get_stateless_scope()
    if scope is None or _context.current_graph() is not None:
        return _original_write(variable, value, mode, what, read_value)
    checked = np.asarray(variable._check(value, what).numpy())
    current = np.asarray(variable._value)
    new = {"assign": checked, "add": current + checked, "sub": current - checked}[mode]
    scope.add_update((variable, new.astype(variable.dtype.as_numpy_dtype)))
    return variable if read_value else None


def _collecting_add_loss(layer, loss) -> None:
    _original_add_loss(layer, loss)
    scope = get_stateless_scope()
    if scope is not None and scope.collect_losses:
        for value in nest.flatten(loss):
            scope.add_loss(convert_to_tensor(value))


def _install() -> None:
    global _patch_users
    with _patch_lock:
        _patch_users += 1
        if _patch_users == 1:
            Variable._write = _stateless_write
            Layer.add_loss = _collecting_add_loss


def _uninstall() -> None:
    global _patch_users
    with _patch_lock:
        _patch_users -= 1
        if _patch_users == 0:
            Variable._write = _original_write
            Layer.add_loss = _original_add_loss


def _keras_value(variable: Variable, value) -> np.ndarray:
    """`value` cast to `variable`'s dtype, as a NumPy array."""
    if isinstance(value, Variable):
        value = value.numpy()
    elif isinstance(value, Tensor):
        value = value.numpy()
    return np.array(value, dtype=variable.dtype.as_numpy_dtype)


class StatelessScope:
    """Keras's scope in which variables are not updated in place.

    `state_mapping` is a list of `(variable, value)` pairs: inside the scope, reading such a
    variable gives `value` (cast to its dtype; the shapes must match, else `ValueError`).
    `assign`, `assign_add` and `assign_sub` made in the scope (eagerly, by this thread) are
    collected instead of applied: later reads in the scope see them, and
    `scope.get_current_value(variable)` returns the value a variable would have (None for one
    neither mapped nor assigned). On exit every variable holds its value from before the
    scope. With `collect_losses=True`, the losses layers add in the scope are also in
    `scope.losses`.

    Differences: the values are swapped into the variables for the duration of the scope
    (another thread reading them meanwhile sees the scope's values), and a compiled
    `rt.function` called in the scope reads the mapped values but applies its own
    assignments in place. Variables are always initialised when made here, so
    `initialize_variables=False` (Keras's deferred initialisation) raises
    `NotImplementedError`.
    """

    def __init__(self, state_mapping=None, collect_losses: bool = False,
                 initialize_variables: bool = True) -> None:
        if not initialize_variables:
            raise NotImplementedError(
                "StatelessScope(initialize_variables=False) defers the initialisation of "
                "variables made in the scope; variables here are initialised when made. Use "
                "initialize_variables=True.")
        self.collect_losses = bool(collect_losses)
        self.initialize_variables = True
        self.losses: list = []
        self.state_mapping: dict[int, Any] = {}
        self._variables: dict[int, Variable] = {}
        self._saved: dict[int, tuple[Variable, Any]] = {}
        for key, value in state_mapping or ():
            if not isinstance(key, Variable):
                raise ValueError("Invalid reference variable in StatelessScope: all keys in "
                                 "argument `mapping` must be Variable instances. Received "
                                 f"instead: {key}")
            array = _keras_value(key, value)
            if not key.shape.is_fully_defined() or tuple(key.shape.as_list()) != array.shape:
                raise ValueError("Invalid variable value in StatelessScope: all values in "
                                 "argument `mapping` must be tensors with a shape that matches "
                                 f"the corresponding variable shape. For variable {key}, "
                                 f"received invalid value {value} with shape {array.shape}.")
            self.state_mapping[id(key)] = convert_to_tensor(array)
            self._variables[id(key)] = key

    def __enter__(self) -> "StatelessScope":
        _install()
        _stack("stateless").append(self)
        for key, variable in self._variables.items():
            self._swap_in(variable, np.asarray(self.state_mapping[key].numpy()))
        return self

    def _swap_in(self, variable: Variable, value: np.ndarray) -> None:
        if id(variable) not in self._saved:
            self._saved[id(variable)] = (variable, variable._host)
        variable._host = np.array(value)

    def add_loss(self, loss) -> None:
        self.losses.append(loss)

    def add_update(self, update) -> None:
        """Records `(variable, value)` as the variable's value in the scope."""
        variable, value = update
        array = _keras_value(variable, value)
        self.state_mapping[id(variable)] = convert_to_tensor(array)
        self._variables[id(variable)] = variable
        if _stack("stateless") and _stack("stateless")[-1] is self:
            self._swap_in(variable, array)

    def get_current_value(self, variable):
        """The variable's value in the scope (a tensor), or None if it was neither mapped
        nor assigned."""
        return self.state_mapping.get(id(variable))

    def __exit__(self, *exc_info) -> bool:
        for variable, host in self._saved.values():
            variable._host = host
        self._saved.clear()
        stack = _stack("stateless")
        if stack and stack[-1] is self:
            stack.pop()
        _uninstall()
        return False


def in_stateless_scope() -> bool:
    return bool(_stack("stateless"))


def get_stateless_scope() -> StatelessScope | None:
    stack = _stack("stateless")
    return stack[-1] if stack else None


# -- SymbolicScope -----------------------------------------------------------------------------
class SymbolicScope:
    """Keras's marker of the symbolic stage (shape inference); `in_symbolic_scope()` says
    whether one is open in this thread."""

    def __enter__(self) -> "SymbolicScope":
        _stack("symbolic").append(self)
        return self

    def __exit__(self, *exc_info) -> bool:
        stack = _stack("symbolic")
        if stack and stack[-1] is self:
            stack.pop()
        return False


def in_symbolic_scope() -> bool:
    return bool(_stack("symbolic"))


def get_symbolic_scope() -> SymbolicScope | None:
    stack = _stack("symbolic")
    return stack[-1] if stack else None


# -- rematerialisation ------------------------------------------------------------------------
_REMAT_MODES = ("full", "activations", "larger_than", "list_of_layers", None)


class RematScope:
    """Keras's rematerialisation scope: `mode` is "full", "activations", "larger_than"
    (with `output_size_threshold`), "list_of_layers" (with `layer_names`) or None; any other
    is a `ValueError`. Rematerialisation trades compute for memory and never changes values
    or gradients; this runtime keeps activations, so the scope records the mode
    (`get_current_remat_mode()`) and the results are the same as without it."""

    def __init__(self, mode="full", output_size_threshold: int = 1024, layer_names=None) -> None:
        if mode not in _REMAT_MODES:
            raise ValueError(f"Invalid mode '{mode}'. Supported modes are: 'full', "
                             "'activations', 'larger_than', 'list_of_layers', or  None.")
        self.mode = mode
        self.output_size_threshold = output_size_threshold
        self.layer_names = list(layer_names) if layer_names else []
        self._pop_on_exit = False

    def __enter__(self) -> "RematScope":
        _stack("remat").append(self)
        self._pop_on_exit = True
        return self

    def __exit__(self, *exc_info) -> bool:
        if self._pop_on_exit:
            _stack("remat").pop()
            self._pop_on_exit = False
        return False


def get_current_remat_mode():
    """`(mode, output_size_threshold, layer_names)` of the innermost RematScope, or None."""
    stack = _stack("remat")
    if not stack:
        return None
    scope = stack[-1]
    return RematMode(scope.mode, scope.output_size_threshold, scope.layer_names)


class RematMode(tuple):
    """Keras's `RematMode(mode, output_size_threshold, layer_names)` named tuple."""

    __slots__ = ()
    _fields = ("mode", "output_size_threshold", "layer_names")

    def __new__(cls, mode, output_size_threshold, layer_names):
        return super().__new__(cls, (mode, output_size_threshold, layer_names))

    mode = property(lambda self: self[0])
    output_size_threshold = property(lambda self: self[1])
    layer_names = property(lambda self: self[2])

    def __repr__(self) -> str:
        return (f"RematMode(mode={self[0]!r}, output_size_threshold={self[1]!r}, "
                f"layer_names={self[2]!r})")


def remat(f: Callable) -> Callable:
    """`keras.remat(f)`: `f` with the same values and gradients, as `tf.recompute_grad` (the
    TensorFlow backend's remat). Here activations are kept, so no memory is saved."""
    return recompute_grad(f)


# -- name_scope --------------------------------------------------------------------------------
class name_scope:  # noqa: N801 - Keras's name
    """Keras's `name_scope(name, caller=None, deduplicate=True, override_parent=None)`: names
    the ops made inside `name/...` (as `rt.name_scope`). With `deduplicate`, re-entering the
    scope of the same `caller` and name does not nest it again. `override_parent` (an
    absolute path) is not implemented and raises `NotImplementedError`. Keras variables made
    inside keep their own `path` (Keras prefixes it with the scope)."""

    def __init__(self, name, caller=None, deduplicate: bool = True, override_parent=None) -> None:
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name}")
        if override_parent is not None:
            raise NotImplementedError("keras.name_scope(override_parent=...) is not "
                                      "implemented here.")
        self.name, self.caller = name, caller
        self.deduplicate, self.override_parent = bool(deduplicate), None
        self._scope = None

    def __enter__(self) -> "name_scope":
        stack = _stack("name")
        if (self.deduplicate and stack and self.caller is not None
                and stack[-1].caller is self.caller and stack[-1].name == self.name):
            return self
        stack.append(self)
        self._scope = _context.name_scope(self.name)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc_info) -> bool:
        if self._scope is not None:
            scope, self._scope = self._scope, None
            _stack("name").pop()
            scope.__exit__(*exc_info)
        return False


def current_path() -> str:
    """The names of the open Keras name scopes, joined by "/"."""
    return "/".join(scope.name for scope in _stack("name"))


# -- Operation and Function --------------------------------------------------------------------
class _OperationMeta(type):
    def __instancecheck__(cls, instance) -> bool:  # a Keras layer is an Operation too
        if cls is Operation and isinstance(instance, Layer):
            return True
        return super().__instancecheck__(instance)


def _operation_name(cls: type) -> str:
    return _unique_name("".join("_" + c.lower() if c.isupper() else c
                                for c in cls.__name__).lstrip("_"))


class _OperationLayer(Layer):
    """The layer that records an Operation's call on Keras tensors in a functional graph."""

    _convert_input_args = False

    def __init__(self, operation: "Operation") -> None:
        super().__init__(name=operation.name)
        self._operation = [operation]  # in a list: not tracked as a sublayer

    def call(self, *args, **kwargs):
        return self._operation[0].call(*args, **kwargs)


class Operation(metaclass=_OperationMeta):
    """Keras's base of every computation: subclass it and define `call(*args, **kwargs)`.
    Called on values it runs `call`; called on Keras tensors (`keras.Input`) it records the
    call so that a `keras.Function` or a functional `keras.Model` can replay it (shapes are
    inferred by tracing `call`, so `compute_output_spec` need not be defined). Every Keras
    layer is an Operation (`isinstance(layer, keras.Operation)` is True)."""

    def __init__(self, name: str | None = None) -> None:
        if name is not None and (not isinstance(name, str) or "/" in name):
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name} (of type {type(name)})")
        self.name = name if name is not None else _operation_name(type(self))
        self._layer: _OperationLayer | None = None

    def __call__(self, *args, **kwargs):
        if any(isinstance(x, KerasTensor) for x in nest.flatten((args, kwargs))):
            return self.symbolic_call(*args, **kwargs)
        return self.call(*args, **kwargs)

    def symbolic_call(self, *args, **kwargs):
        """The Keras tensors of this call on Keras tensors, recorded for replaying."""
        if getattr(self, "_layer", None) is None:  # a subclass may skip __init__
            if not hasattr(self, "name"):
                self.name = _operation_name(type(self))
            self._layer = _OperationLayer(self)
        return self._layer(*args, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define call().")

    def compute_output_spec(self, *args, **kwargs):
        """The Keras tensors `call` would return for these Keras-tensor arguments."""
        return self.symbolic_call(*args, **kwargs)

    def get_config(self) -> dict:
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict) -> "Operation":
        return cls(**config)

    def __repr__(self) -> str:
        return f"<Operation name={self.name}>"


class Function(Operation):
    """Keras's `Function(inputs, outputs, name=None)`: the computation from `inputs` to
    `outputs` (Keras tensors, in any nest), callable on values; `operations` lists the
    layers and operations it runs, the input layers first."""

    def __init__(self, inputs, outputs, name: str | None = None) -> None:
        super().__init__(name=name)
        self._inputs_struct, self._outputs_struct = inputs, outputs
        self._graph = Functional(inputs, outputs, name=f"{self.name}_graph")

    @property
    def operations(self) -> list:
        return self._graph.layers

    @property
    def inputs(self) -> list:
        return nest.flatten(self._inputs_struct)

    @property
    def outputs(self) -> list:
        return nest.flatten(self._outputs_struct)

    def call(self, inputs):
        return self._graph(inputs)

    def compute_output_spec(self, inputs):
        return self._graph(inputs)

    def __repr__(self) -> str:
        return f"<Function name={self.name}>"


__all__ = ["Function", "Operation", "RematScope", "StatelessScope", "SymbolicScope",
           "name_scope", "remat"]
