"""`rt.types.experimental`: the type names TensorFlow's guides use.

`TraceType` is the base class of the custom-type protocol of `rt.function`: an argument
whose class defines `__tf_tracing_type__(self, context)` is keyed in the trace cache by the
TraceType that method returns, so arguments with equal TraceTypes share one trace (the
trace runs on the first such argument). `GenericFunction` and `ConcreteFunction` are this
runtime's `rt.function` result and its traced graphs; `TensorLike` is a typing alias for
what converts to a tensor.
"""

from __future__ import annotations

import abc
import inspect
import types
from typing import Any, Optional, Sequence, Union

import numpy as np

from .exports import export
from .function import ConcreteFunction as _ConcreteFunction
from .function import Function as _Function
from .ops.variables import Variable
from .tensor import Tensor


@export("types.experimental.TraceType")
class TraceType(abc.ABC):
    """The type of a value as `rt.function` sees it when choosing a trace.

    Subclasses define `is_subtype_of`, `most_specific_common_supertype`, `__eq__` and
    `__hash__` (equal types share a trace), and may define `placeholder_value`.
    """

    @abc.abstractmethod
    def is_subtype_of(self, other: TraceType) -> bool:
        """Whether every value of this type is also a value of `other`."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others: Sequence[TraceType]) -> Optional[TraceType]:
        """The narrowest type that this type and all of `others` are subtypes of, or None."""

    def placeholder_value(self, placeholder_context=None) -> Any:
        """A value of this type to trace with."""
        raise NotImplementedError(f"{type(self).__name__} defines no placeholder_value.")

    @abc.abstractmethod
    def __eq__(self, other: object) -> bool:
        ...

    @abc.abstractmethod
    def __hash__(self) -> int:
        ...


@export("types.experimental.SupportsTracingProtocol")
class SupportsTracingProtocol(abc.ABC):
    """A class whose instances give their own TraceType (see the module doc)."""

    @abc.abstractmethod
    def __tf_tracing_type__(self, context) -> TraceType:
        ...


TensorLike = Union[Tensor, Variable, np.ndarray, np.generic, int, float, bool, complex, str,
                   bytes, list, tuple]
export("types.experimental.TensorLike")(TensorLike)
export("types.experimental.GenericFunction", "types.experimental.PolymorphicFunction")(_Function)
export("types.experimental.ConcreteFunction")(_ConcreteFunction)
export("types.experimental.Callable")(_Function)


class _Distributed(abc.ABC):
    """Base of the distributed value types."""

    @property
    @abc.abstractmethod
    def values(self) -> tuple:
        """The value of each replica."""


class PerReplica(_Distributed):
    """The type of values that differ per replica (what `strategy.run` returns, a distributed
    dataset's batches): `isinstance(v, rt.types.experimental.distributed.PerReplica)`."""


class Mirrored(_Distributed):
    """The type of values the same on every replica (an all-reduced result, a mirrored
    variable)."""


distributed = export("types.experimental.distributed")(
    types.SimpleNamespace(PerReplica=PerReplica, Mirrored=Mirrored))


@export("types.experimental.FunctionType")
class FunctionType(inspect.Signature, metaclass=abc.ABCMeta):
    """The type of a callable: its parameters (and their kinds, defaults and annotations) and
    its return annotation, as an `inspect.Signature`. `FunctionType.from_callable(fn)`
    describes a Python function."""

    @classmethod
    def from_callable(cls, obj, *, follow_wrapped: bool = True) -> "FunctionType":
        """The FunctionType of the callable `obj`."""
        return super().from_callable(obj, follow_wrapped=follow_wrapped)


@export("types.experimental.AtomicFunction")
class AtomicFunction(abc.ABC):
    """Base of single graph functions that are called with their captured tensors given
    explicitly: subclasses define `function_type` and `call_with_captures(args, kwargs,
    captures)`; calling one with no captures needed is `call_with_captures(args, kwargs,
    ())`. (This runtime's ConcreteFunction reads its captures itself and is not one.)"""

    @property
    @abc.abstractmethod
    def function_type(self) -> FunctionType:
        """The FunctionType of the function."""

    @abc.abstractmethod
    def call_with_captures(self, args, kwargs, captures) -> Any:
        """Calls the function on `args` and `kwargs` with `captures` (a tuple of tensors) as
        the values of its captured tensors."""

    def __call__(self, *args, **kwargs) -> Any:
        return self.call_with_captures(args, kwargs, ())
