"""Variables: mutable state that graphs read and write when they run.

A variable created while a function traces is created once (at trace time) and kept by
that concrete function, so every later call reuses it: the seed's lifting semantics.
"""

from __future__ import annotations

import contextlib
import itertools
import threading

import numpy as np

from .. import context, distribute_context, html_repr
from .. import dtypes as _dtypes
from ..arguments import strict_keywords
from ..attr_kinds import MODE, VARIABLE
from ..errors import InvalidArgumentError
from ..exports import export
from ..opdef import define
from ..shapes import TensorShape, as_shape
from ..tensor import EAGER_CPU, DeviceValue, EagerTensor, SymbolicTensor, Tensor, numpy_text, to_numpy_value
from .array_math import cast
from .core import apply, convert_to_tensor

_ids = itertools.count()


def _read_infer(var):
    return var.shape, var.dtype


def _read_kernel(var):
    value = var._value
    if value is None:
        raise InvalidArgumentError(f"Variable {var.name} is read before it is initialised.")
    return value


READ = define("ReadVariableOp", lambda var: _read_infer(var), _read_kernel,
              emit=lambda em, op: em.line(f"{em.outs(op)[0]} = {em.bind(op.attrs['var'], 'v')}._value"),
              stateful=True, variable=True, attrs={"var": VARIABLE})


@READ.def_grad
def _read_grad(op, g):
    return [g]  # a read's one gradient input is the variable itself (see gradients.node)


def _assign_infer(value, var, mode):
    return var.shape, var.dtype


def _assign_kernel(value, var, mode):
    check_assigned_shape(var, value, mode)  # graphs run op by op reach here with any shape
    with var._lock:  # a read-modify-write is atomic: no update is lost between threads
        if mode == "assign":
            new = value
        elif mode == "add":
            new = var._value + value
        else:
            new = var._value - value
        new = np.asarray(new, dtype=var._np_dtype) if np.ndim(new) else var._np_dtype.type(new)
        var._value = new
    return new


def check_assigned_shape(var, value, mode: str):
    """Raises InvalidArgumentError when a value computed at run time does not fit `var`."""
    if not var._shape.is_compatible_with(np.shape(value)):
        what = {"assign": "assign", "add": "add", "sub": "subtract"}[mode]
        raise InvalidArgumentError(f"Cannot {what} a value of shape {np.shape(value)} to variable "
                                   f"{var.name} of shape {var.shape}.")


def _emit_assign(em, op):
    var = op.attrs["var"]
    v = em.bind(var, "v")
    x = em.ins(op)[0]
    out = em.outs(op)[0]
    mode = op.attrs["mode"]
    static = op.inputs[0].shape
    if not (static.is_fully_defined() and var.shape.is_compatible_with(static)):
        em.line(f"{em.bind(check_assigned_shape)}({v}, {x}, {mode!r})")
    if mode == "assign":
        if op.inputs[0].shape.rank != 0 and em.may_alias(op.inputs[0]):
            x = f"{x}.copy()"  # the variable must not keep the caller's array (or a constant)
        em.line(f"{out} = {v}._value = {x}")
        return
    expr = f"{v}._value {'+' if mode == 'add' else '-'} {x}"
    target = em.reuse_target(op)  # a dying temporary the new value may be written into
    if target is not None:
        expr = f"np.{'add' if mode == 'add' else 'subtract'}({v}._value, {x}, out={target})"
    em.line(f"with {v}._lock:")
    with em.indented():
        em.line(f"{out} = {v}._value = {expr}")


ASSIGN = define("AssignVariableOp", _assign_infer, _assign_kernel, emit=_emit_assign, stateful=True,
                differentiable=False, in_place=lambda op: op.attrs["mode"] in ("add", "sub"), variable=True,
                attrs={"var": VARIABLE, "mode": MODE})


def _emit_init(em, op):
    v = em.bind(op.attrs["var"], "v")
    em.line(f"if {v}._host is None:")
    with em.indented():
        em.line(f"{v}._value = {em.ins(op)[0]}")


INIT = define("VarInitIfNeeded", lambda value, var: [], lambda value, var: None, emit=_emit_init,
              stateful=True, num_outputs=0, differentiable=False, variable=True,
              attrs={"var": VARIABLE})


_UNIMPLEMENTED = {
    "variable_def": "there are no VariableDef protocol buffers to restore from",
    "import_scope": "there are no VariableDef protocol buffers to restore from",
    "experimental_enable_variable_lifting": "variables created while a function traces are "
                                            "always lifted",
}


def _refuse_unimplemented(**options) -> None:
    """Raises NotImplementedError for a TensorFlow Variable keyword given a value (not None)
    that this runtime cannot honour."""
    for key, value in options.items():
        if value is not None:
            raise NotImplementedError(f"rt.Variable({key}=...) is not implemented: "
                                      f"{_UNIMPLEMENTED[key]}. Leave {key} out.")


_creators = threading.local()  # rt.variable_creator_scope: .stack (innermost last), .made
_CREATOR_KEYWORDS = {"initial_value": None, "trainable": True, "name": None, "dtype": None,
                     "shape": None, "validate_shape": True, "caching_device": None,
                     "variable_def": None, "import_scope": None, "constraint": None,
                     "synchronization": None, "aggregation": None,
                     "experimental_enable_variable_lifting": True}


@contextlib.contextmanager
def creator_scope(creator):
    """`rt.variable_creator_scope`: `Variable(...)` inside calls
    `creator(next_creator, **keywords)`."""
    stack = getattr(_creators, "stack", None) or []
    _creators.stack = [*stack, creator]
    try:
        yield
    finally:
        _creators.stack = stack


def _created_by_scopes(args, kwargs):
    """The variable the creators of the enclosing scopes make (innermost first); the last
    `next_creator` makes a plain Variable."""
    if len(args) > 5:
        raise TypeError("rt.Variable takes at most 5 positional arguments (initial_value, "
                        "trainable, name, dtype, shape).")
    keywords = dict(_CREATOR_KEYWORDS)
    keywords.update(zip(("initial_value", "trainable", "name", "dtype", "shape"), args))
    unknown = set(kwargs) - set(_CREATOR_KEYWORDS)
    if unknown:
        raise TypeError(f"rt.Variable got unexpected keyword argument(s): {sorted(unknown)}.")
    keywords.update(kwargs)
    stack = _creators.stack

    def creator_at(i):
        def next_creator(**kw):
            if i < 0:
                _creators.stack = []
                try:
                    return Variable(**kw)
                finally:
                    _creators.stack = stack
            return stack[i](creator_at(i - 1), **kw)
        return next_creator
    return creator_at(len(stack) - 1)(**keywords)


@export("Variable")
class Variable(Tensor):
    """A mutable tensor: `assign`, `assign_add`, `assign_sub`, `read_value`.

    Besides `initial_value, trainable, name, dtype, shape`, TensorFlow's other keywords are
    accepted: `validate_shape=False` gives the variable an unknown shape (unless `shape` is
    given), so values of any shape can be assigned; `caching_device` has no effect (there is
    one device). `aggregation` (rt.VariableAggregation) and `synchronization` are kept: under
    a distribution strategy (`rt.distribute`) the aggregation combines the replicas' updates.
    `constraint` (a callable `value -> value`) is kept as `variable.constraint`; optimizers
    assign its result after each update. `variable_def`, `import_scope` and
    `experimental_enable_variable_lifting=False` are not implemented and raise
    `NotImplementedError`. Any other keyword raises `TypeError`.
    """

    # `_host` holds the value: a NumPy array (or scalar), None before it is initialised, or
    # a DeviceValue a compiler tier stored (read as NumPy through `_value` when asked)
    __slots__ = ("_host", "_np_dtype", "_dtype", "_shape", "_name", "trainable", "_id", "_lock",
                 "_aggregation", "_synchronization", "_constraint", "_path")

    def __new__(cls, *args, **kwargs):
        if cls is Variable and getattr(_creators, "stack", None):  # rt.variable_creator_scope
            made = _created_by_scopes(args, kwargs)
            _creators.made = made  # __init__ leaves it as the creators made it
            return made
        if cls is Variable:  # inside a strategy's scope, the strategy makes the variable
            creator = distribute_context.variable_creator()
            if creator is not None:
                return creator(*args, **kwargs)
        return super().__new__(cls)

    @property
    def _value(self):
        value = self._host
        if type(value) is DeviceValue:
            return value.host()
        return value

    @_value.setter
    def _value(self, value):
        self._host = value

    @strict_keywords("rt.Variable")
    def __init__(self, initial_value=None, trainable: bool = True, name: str | None = None,
                 dtype=None, shape=None, *, validate_shape: bool = True, caching_device=None,
                 variable_def=None, import_scope=None, constraint=None, synchronization=None,
                 aggregation=None, experimental_enable_variable_lifting: bool = True):
        if getattr(_creators, "made", None) is self:  # made inside variable_creator_scope
            _creators.made = None
            return
        _refuse_unimplemented(variable_def=variable_def, import_scope=import_scope,
                              experimental_enable_variable_lifting=(
                                  None if experimental_enable_variable_lifting else False))
        if initial_value is None:
            raise ValueError("Variable needs an initial_value.")
        self._aggregation = distribute_context.as_aggregation(aggregation)
        self._synchronization = distribute_context.as_synchronization(synchronization)
        if constraint is not None and not callable(constraint):
            raise ValueError(f"rt.Variable(constraint=...) must be a callable value -> value, "
                             f"got {constraint!r:.100}.")
        self._constraint = constraint
        if not validate_shape and shape is None:
            shape = TensorShape(None)
        if callable(initial_value) and not isinstance(initial_value, Tensor):
            with context.init_scope():
                initial_value = initial_value()
        dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
        self._id = next(_ids)
        self._lock = threading.Lock()
        self._name = (name or "Variable") + ":0"
        self.trainable = bool(trainable)
        if isinstance(initial_value, Variable):
            initial_value = initial_value._as_tensor()
        symbolic = isinstance(initial_value, SymbolicTensor)
        if symbolic:
            if dtype is not None and initial_value.dtype is not dtype:
                initial_value = cast(initial_value, dtype)
            self._dtype = initial_value.dtype
            self._shape = initial_value.shape if shape is None else as_shape(shape)
            self._value = None
        else:
            if isinstance(initial_value, EagerTensor):
                value = initial_value._value
                if dtype is not None and dtype is not initial_value.dtype:
                    value = np.asarray(value).astype(dtype.as_numpy_dtype)
                value = np.array(value)
            else:
                value = to_numpy_value(initial_value, dtype)
            self._value = value
            self._dtype = _dtypes.from_numpy(value.dtype)
            self._shape = TensorShape(value.shape) if shape is None else as_shape(shape)
            if not self._shape.is_compatible_with(value.shape):
                raise ValueError(f"Variable {self._name}: initial value of shape {value.shape} "
                                 f"does not match shape {self._shape}.")
        self._np_dtype = self._dtype._np
        graph = context.current_graph()
        if graph is not None:
            graph.root().variables.append(self)
            if symbolic:
                apply(INIT, [initial_value], {"var": self})

    # -- properties ------------------------------------------------------------------
    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def name(self) -> str:
        """TensorFlow's `"name:0"`; a Keras weight's (`Layer.add_weight`, `keras.Variable`)
        is Keras 3's short name, such as `"kernel"`."""
        return self._name

    @property
    def path(self) -> str:
        """Keras 3's path of a weight: the names of the layers that made it and its own
        (`"sequential/dense/kernel"`); the name without `:0` for another variable."""
        path = getattr(self, "_path", None)
        if path is not None:
            return path
        return self._name[:-2] if self._name.endswith(":0") else self._name

    @property
    def device(self) -> str:
        return EAGER_CPU

    @property
    def aggregation(self) -> "distribute_context.VariableAggregation":
        return self._aggregation

    @property
    def synchronization(self) -> "distribute_context.VariableSynchronization":
        return self._synchronization

    @property
    def constraint(self):
        """The callable the optimizers apply to this variable after each update, or None."""
        return getattr(self, "_constraint", None)

    def ref(self):
        """A hashable reference to this variable (variables themselves are unhashable)."""
        return _VariableRef(self)

    experimental_ref = ref

    # -- reading ------------------------------------------------------------------------
    def _as_tensor(self) -> Tensor:
        return apply(READ, [], {"var": self})

    def read_value(self) -> Tensor:
        return self._as_tensor()

    value = read_value

    def numpy(self):
        if context.current_graph() is not None:
            raise NotImplementedError(f"numpy() of variable {self.name} is not available while "
                                      "tracing; use the variable as a tensor instead.")
        value = _read_kernel(self)
        return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value.copy()

    def __array__(self, dtype=None, copy=None):
        value = np.asarray(_read_kernel(self))
        return value if dtype is None else value.astype(dtype)

    def __bool__(self):
        return bool(self._as_tensor())

    def __int__(self):
        return int(self._as_tensor())

    def __float__(self):
        return float(self._as_tensor())

    def __index__(self):
        return self._as_tensor().__index__()

    def __len__(self):
        return len(self._as_tensor())

    def __iter__(self):
        return iter(self._as_tensor())

    def __repr__(self) -> str:
        if getattr(self, "_path", None) is not None:  # a Keras weight: Keras 3's form
            value = "" if context.current_graph() is not None or self._value is None else \
                f", value={np.asarray(self._value)}"
            return f"<Variable path={self._path}, shape={tuple(self.shape.as_list())}, " \
                   f"dtype={self.dtype.name}{value}>"
        if context.current_graph() is None and self._value is not None:
            return (f"<rt.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}, "
                    f"numpy={numpy_text(self._value)}>")
        return f"<rt.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self) -> str:
        return repr(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: name, shape, dtype, trainable and a table of the value."""
        return html_repr.variable_html(self)

    # -- writing -------------------------------------------------------------------------
    def _check(self, value, what: str):
        if numpy_write_hook is not None:  # rt.experimental.numpy's "all" and "safe" modes
            value = numpy_write_hook(self.dtype, value, _WRITE_METHODS[what])
        if isinstance(value, Tensor):
            value = convert_to_tensor(value)
            if value.dtype is not self.dtype:
                raise ValueError(f"Cannot {what} a {value.dtype.name} value to variable "
                                 f"{self.name} of dtype {self.dtype.name}; cast it with rt.cast.")
        else:
            try:
                value = convert_to_tensor(value, dtype=self.dtype)
            except TypeError as exc:  # TypeError, as TensorFlow raises for the conversion
                raise TypeError(f"Cannot {what} {value!r} to variable {self.name} of dtype "
                                f"{self.dtype.name}: {exc}") from None
        if not value.shape.is_compatible_with(self.shape):
            raise ValueError(f"Cannot {what} a value of shape {value.shape} to variable "
                             f"{self.name} of shape {self.shape}.")
        return value

    def _write(self, value, mode, what, read_value):
        apply(ASSIGN, [self._check(value, what)], {"var": self, "mode": mode})
        return self if read_value else None

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._write(value, "assign", "assign", read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._write(delta, "add", "add", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._write(delta, "sub", "subtract", read_value)


# fn(dtype, value, method) -> the value to write, set by rt.experimental.numpy's promotion
# modes (a value that would change the variable's dtype raises TypeError there)
numpy_write_hook = None
_WRITE_METHODS = {"assign": "assign", "add": "assign_add", "subtract": "assign_sub"}


class _VariableRef:
    __slots__ = ("_var",)

    def __init__(self, var):
        self._var = var

    def deref(self):
        return self._var

    def __hash__(self):
        return self._var._id

    def __eq__(self, other):
        return isinstance(other, _VariableRef) and other._var is self._var



class VariableArgument(Variable):
    """Stands, in a traced graph, for a variable passed as an argument.

    A Function traces a variable argument by its dtype and shape, like a tensor: the graph
    reads and writes this stand-in, and each call binds it (on the calling thread) to the
    variable that call passed, so one graph serves every variable of that dtype and shape.
    """

    __slots__ = ("_first", "_local")

    def __init__(self, var: Variable):  # no super().__init__(): it would make a new variable
        self._first = var
        self._local = threading.local()
        self._id = next(_ids)
        self._name = var._name
        self._dtype = var._dtype
        self._np_dtype = var._np_dtype
        self._shape = var._shape
        self.trainable = var.trainable
        self._aggregation = var._aggregation
        self._synchronization = var._synchronization

    def bind(self, var: Variable) -> None:
        """Makes this thread's runs of the graph read and write `var`."""
        self._local.var = var

    @property
    def bound(self) -> Variable:
        """The variable the graph reads and writes on this thread."""
        var = getattr(self._local, "var", None)
        return self._first if var is None else var

    @property
    def _value(self):  # type: ignore[override]
        return self.bound._value

    @_value.setter
    def _value(self, value):
        self.bound._value = value

    @property
    def _host(self):  # type: ignore[override]
        return self.bound._host

    @_host.setter
    def _host(self, value):
        self.bound._host = value

    @property
    def _lock(self):  # type: ignore[override]
        return self.bound._lock

    def fits(self, value) -> bool:
        """True when `value` is a variable this stand-in can be bound to."""
        return (isinstance(value, Variable) and value._dtype is self._dtype
                and value._shape.is_subtype_of(self._shape))


def bound_variable(var):
    """The variable a (possibly stand-in) variable reads and writes now."""
    return var.bound if type(var) is VariableArgument else var
