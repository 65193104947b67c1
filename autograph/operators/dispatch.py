"""The backend protocol: how operators hand staged values to a tensor library.

Operators run plain Python for plain values (and for eager tensors, whose `bool()` works).
When a value is *staged* — a symbolic tensor of a function being traced — the operator asks
the backend registered for that value to stage the construct instead (`cond`,
`while_loop`, a staged `print`, ...). Backends register themselves with
`register_backend`; autograph itself never imports one.

A backend implements the methods of `Backend`. Operators pass it only flat tuples of
backend values; nests, Python values, undefined variables and `break`/`return` bookkeeping
are handled by the operators themselves.
"""

from __future__ import annotations

import abc
import threading
from typing import Any, Callable, Iterable, Optional, Sequence


class Backend(abc.ABC):
    """A tensor library that can stage control flow. Subclass and `register_backend` it."""

    #: Types whose instances may be staged or be backend values; other types never are.
    value_types: tuple[type, ...] = ()

    # -- classifying values ---------------------------------------------------------------
    @abc.abstractmethod
    def is_staged(self, value: Any) -> bool:
        """Whether `value` is symbolic: its truth value is unknown until the graph runs."""

    @abc.abstractmethod
    def is_value(self, value: Any) -> bool:
        """Whether `value` is a backend value that staged control flow can carry
        (an eager or symbolic tensor, a TensorArray, ...)."""

    @abc.abstractmethod
    def convert(self, value: Any) -> Any:
        """A backend value for a Python or NumPy value (`TypeError` if there is none)."""

    @abc.abstractmethod
    def spec(self, value: Any) -> Any:
        """A description of a value's type and shape; `zeros(spec)` makes a value like it.
        `str(spec)` is shown in error messages."""

    @abc.abstractmethod
    def zeros(self, spec: Any) -> Any:
        """A value of the given spec (a stand-in where a variable has no value yet)."""

    def is_tracing(self) -> bool:
        """Whether a function is being traced right now, so that side effects such as
        `print` must be staged to happen when the graph runs."""
        return False

    def known_value(self, value: Any) -> Any:
        """The Python value of a staged scalar that tracing already knows (a constant), or
        None."""
        return None

    # -- control flow ----------------------------------------------------------------------
    @abc.abstractmethod
    def cond(self, pred: Any, true_fn: Callable[[], tuple], false_fn: Callable[[], tuple],
             names: Sequence[str] = ()) -> tuple:
        """Stages `true_fn() if pred else false_fn()`. Both functions take no arguments and
        return tuples of backend values of matching specs; `names` label them in errors."""

    @abc.abstractmethod
    def while_loop(self, test: Callable[..., Any], body: Callable[..., tuple], loop_vars: tuple,
                   names: Sequence[str], shape_invariants: Optional[Sequence[Any]] = None,
                   maximum_iterations: Any = None) -> tuple:
        """Stages `while test(*vars): vars = body(*vars)`. `names[i]` is the user-facing name
        of `loop_vars[i]`; `shape_invariants[i]` (None when not given) relaxes its shape: a
        shape, or a spec (for a variable first assigned in the loop: the spec the body gives).
        A variable whose type or shape changes must raise an error naming it, unless the
        keyword `relax_shapes=True` is passed (a loop over a dataset): a changed shape is
        then carried as the most specific shape both fit."""

    # -- logic -----------------------------------------------------------------------------
    @abc.abstractmethod
    def logical_and(self, a: Any, b: Any) -> Any: ...

    @abc.abstractmethod
    def logical_or(self, a: Any, b: Any) -> Any: ...

    @abc.abstractmethod
    def logical_not(self, a: Any) -> Any: ...

    def equal(self, a: Any, b: Any) -> Any:
        return a == b

    def not_equal(self, a: Any, b: Any) -> Any:
        return a != b

    # -- side effects ------------------------------------------------------------------------
    @abc.abstractmethod
    def print(self, values: Sequence[Any], sep: str, end: str, file: Any) -> Any:
        """Stages printing `values` (Python values and tensors mixed) when the graph runs."""

    @abc.abstractmethod
    def assert_(self, condition: Any, message: str, data: Sequence[Any]) -> Any:
        """Stages an assertion that fails, when the graph runs, with `message` and `data`."""

    def raise_unless(self, condition: Any, exception: BaseException) -> Any:
        """Stages raising `exception` when the graph runs and `condition` (a staged bool) is
        false: a `raise` statement under a staged condition. Backends that can raise the
        user's own exception type override this; by default it is an assertion."""
        return self.assert_(condition, f"{type(exception).__name__}: {exception}", ())

    @abc.abstractmethod
    def guard_defined(self, value: Any, defined: Any, message: str) -> Any:
        """`value`, made to fail with `message` when the graph runs and `defined` (a staged
        bool) is false. Used for variables first assigned in a loop that may run zero times."""

    # -- builtins ----------------------------------------------------------------------------
    @abc.abstractmethod
    def len(self, value: Any) -> Any:
        """The length of a value's first axis (or of a staged list)."""

    @abc.abstractmethod
    def range_length(self, start: Any, stop: Any, step: Any) -> Any:
        """The number of elements of `range(start, stop, step)` as a staged integer."""

    def stack(self, values: Sequence[Any]) -> Any:
        """One value stacking several of the same spec along a new first axis."""
        raise NotImplementedError(f"{type(self).__name__} cannot stack values")

    def getitem(self, value: Any, index: Any) -> Any:
        """`value[index]` for a staged integer index."""
        return value[index]

    def abs(self, value: Any) -> Any:
        return abs(value)

    @abc.abstractmethod
    def cast(self, value: Any, kind: str) -> Any:
        """`int(value)` (kind "int"), `float(value)` ("float") or `bool(value)` ("bool")."""

    @abc.abstractmethod
    def reduce(self, kind: str, values: Sequence[Any]) -> Any:
        """`min`/`max`/`sum` ("min", "max", "sum") of several values, or `any`/`all`/`min`/
        `max`/`sum` of one value's elements when given a single value."""

    # -- lists -------------------------------------------------------------------------------
    @abc.abstractmethod
    def new_list(self, items: Sequence[Any], element_spec: Any = None) -> Any:
        """A staged list (for example a TensorArray) holding `items`; when empty, its
        elements will be like `element_spec`."""

    @abc.abstractmethod
    def is_list(self, value: Any) -> bool:
        """Whether `value` is a staged list made by `new_list`."""

    @abc.abstractmethod
    def list_append(self, lst: Any, value: Any) -> Any:
        """A staged list with `value` appended (the input may be reused)."""

    @abc.abstractmethod
    def list_pop(self, lst: Any) -> tuple[Any, Any]:
        """(the list without its last element, that element)."""

    def list_set(self, lst: Any, index: Any, value: Any) -> Any:
        """A staged list with the item at `index` (negative: from the end) replaced."""
        raise NotImplementedError(f"{type(self).__name__} cannot write a staged list's items")

    def where_negative(self, index: Any, n: Any) -> Any:
        """`index + n` where the staged integer `index` is negative, else `index`."""
        raise NotImplementedError(f"{type(self).__name__} cannot index with staged integers")


_backends: list[Backend] = []
_type_cache: dict[type, Optional[tuple[Backend, ...]]] = {}
_lock = threading.Lock()

_PLAIN = (bool, int, float, complex, str, bytes, type(None), list, tuple, dict, set, range,
          type, type(len), type(lambda: 0))


def register_backend(backend: Backend) -> Backend:
    """Makes `backend` handle its staged values. Registering the same object again is a no-op."""
    with _lock:
        if backend not in _backends:
            _backends.append(backend)
        _type_cache.clear()
    return backend


def unregister_backend(backend: Backend) -> None:
    """Removes a registered backend."""
    with _lock:
        if backend in _backends:
            _backends.remove(backend)
        _type_cache.clear()


def backends() -> tuple[Backend, ...]:
    """The registered backends."""
    return tuple(_backends)


def _candidates(tp: type) -> Optional[tuple[Backend, ...]]:
    try:
        return _type_cache[tp]
    except KeyError:
        pass
    found = tuple(b for b in _backends if b.value_types and issubclass(tp, b.value_types))
    result = found or None
    _type_cache[tp] = result
    return result


def _first_backend(value: Any, test: str) -> Optional[Backend]:
    """The first backend registered for `value`'s type whose method `test` accepts it."""
    tp = type(value)
    if tp in _PLAIN:
        return None
    cands = _candidates(tp)
    if cands is None:
        return None
    for b in cands:
        if getattr(b, test)(value):
            return b
    return None


def backend_of(value: Any) -> Optional[Backend]:
    """The backend whose value `value` is (eager or staged), or None for Python values."""
    return _first_backend(value, "is_value")


def staged_backend(value: Any) -> Optional[Backend]:
    """The backend that stages `value`, or None when `value` is not staged."""
    return _first_backend(value, "is_staged")


def tracing_backend() -> Optional[Backend]:
    """The backend that is tracing a function right now, if any."""
    for b in _backends:
        if b.is_tracing():
            return b
    return None


def first_staged(values: Iterable[Any]) -> Optional[Backend]:
    """The backend of the first staged value among `values`."""
    for v in values:
        b = staged_backend(v)
        if b is not None:
            return b
    return None
