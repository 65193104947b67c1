"""More of `rt.experimental`: `ExtensionTypeSpec` (the base of extension types' `Spec`s),
`ExtensionTypeBatchEncoder`, `dispatch_for_binary_elementwise_assert_apis`, `async_scope`
and `async_clear_error`.

Ops run synchronously here: an `async_scope` runs its ops at once (an error is raised by
the op that fails, not later at the end of the scope), and there is never a pending
asynchronous error for `async_clear_error` to clear.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

from ..exports import export
from ..ops.dispatch import _register_elementwise
from ..ops.extension_type import (
    BatchableExtensionType,
    ExtensionTypeSpec,
    TypeSpec,
    _field_names,
    flatten_components,
    pack_components,
)
from ..shapes import TensorShape, TensorSpec

export("experimental.ExtensionTypeSpec")(ExtensionTypeSpec)

_ASSERT_APIS = ("debugging.assert_equal", "debugging.assert_none_equal",
                "debugging.assert_less", "debugging.assert_less_equal",
                "debugging.assert_greater", "debugging.assert_greater_equal")


@export("experimental.dispatch_for_binary_elementwise_assert_apis")
def dispatch_for_binary_elementwise_assert_apis(x_type: Any, y_type: Any) -> Callable:
    """Decorator: `handler(assert_func, x, y)` runs for every binary elementwise assertion
    (`rt.debugging.assert_equal`, `assert_none_equal`, `assert_less`, `assert_less_equal`,
    `assert_greater`, `assert_greater_equal`) called on values of `x_type` and `y_type`;
    `assert_func` is the assertion with the call's other arguments (message, ...) bound."""
    def decorator(handler: Callable) -> Callable:
        _register_elementwise(_ASSERT_APIS, (x_type, y_type), handler)
        return handler
    return decorator


@export("experimental.async_scope")
@contextlib.contextmanager
def async_scope() -> Iterator[None]:
    """TensorFlow runs the ops of this scope asynchronously and raises their errors at its
    end at the latest. Ops run synchronously here, so each error is raised by its op."""
    yield


@export("experimental.async_clear_error")
def async_clear_error() -> None:
    """Clears pending errors of asynchronous execution: there are none here (ops run
    synchronously)."""


def _batched_spec(spec: Any, change: Callable) -> Any:
    """`spec` (an extension type's Spec) with its TensorSpecs, TensorShape fields and nested
    batchable Specs changed by `change(shape)`."""
    fields = {}
    for name in _field_names(spec.value_type):
        fields[name] = _batched_field(getattr(spec, name), change)
    new = object.__new__(type(spec))
    new.__dict__.update(fields)
    return new


def _batched_field(value: Any, change: Callable) -> Any:
    if isinstance(value, TensorSpec):
        return TensorSpec(change(value.shape), value.dtype, value.name)
    if isinstance(value, TensorShape):
        return change(value)
    if isinstance(value, ExtensionTypeSpec) and issubclass(value.value_type,
                                                           BatchableExtensionType):
        return _batched_spec(value, change)
    if isinstance(value, TypeSpec):
        raise ValueError(f"ExtensionTypeBatchEncoder: the field spec {value!r} cannot be "
                         "batched (it is not the Spec of a BatchableExtensionType).")
    if isinstance(value, tuple):
        return tuple(_batched_field(v, change) for v in value)
    if isinstance(value, dict):
        return type(value)((k, _batched_field(v, change)) for k, v in value.items())
    return value


def _unbatched_shape(shape: TensorShape) -> TensorShape:
    if shape.rank is None:
        return shape
    if shape.rank == 0:
        raise ValueError("ExtensionTypeBatchEncoder.unbatch: a field of rank 0 has no batch "
                         "dimension to remove.")
    return shape[1:]


@export("experimental.ExtensionTypeBatchEncoder")
class ExtensionTypeBatchEncoder:
    """How values of a `BatchableExtensionType` are batched: each tensor field (and each
    `TensorShape` field, the batch shape) gains a leading dimension, and a value is encoded
    as the list of its component tensors. This is the encoding the runtime's batching
    (datasets, `map_fn`) uses; a subclass that changes it cannot be used as an extension
    type's `__batch_encoder__` here (NotImplementedError when the class is defined)."""

    def batch(self, spec: Any, batch_size: Any) -> Any:
        """The Spec of a batch of `batch_size` values (None: unknown) of `spec`."""
        if batch_size is not None and (isinstance(batch_size, bool)
                                       or not isinstance(batch_size, int) or batch_size < 0):
            raise ValueError(f"ExtensionTypeBatchEncoder.batch: batch_size must be an int >= 0 "
                             f"or None, got {batch_size!r}.")
        return _batched_spec(spec, lambda shape: TensorShape([batch_size]).concatenate(shape))

    def unbatch(self, spec: Any) -> Any:
        """The Spec of one value of a batch described by `spec`."""
        return _batched_spec(spec, _unbatched_shape)

    def encode(self, spec: Any, value: Any, minimum_rank: int = 0) -> list:
        """`value`'s component tensors, in the order of `encoding_specs(spec)`."""
        if not spec.is_compatible_with(value):
            raise ValueError(f"ExtensionTypeBatchEncoder.encode: {value!r:.80} is not "
                             f"compatible with {spec!r:.80}.")
        return flatten_components(value)

    def decode(self, spec: Any, encoded_value: Any) -> Any:
        """The value of `spec` whose component tensors are `encoded_value`."""
        return pack_components(spec._to_template(), list(encoded_value))

    def encoding_specs(self, spec: Any) -> list:
        """The TensorSpecs of the encoded tensors."""
        return flatten_components(spec._to_template())

    @property
    def _rt_default_encoding(self) -> bool:
        """True when this encoder batches as the runtime does (no method overridden)."""
        cls = type(self)
        return all(getattr(cls, name) is getattr(ExtensionTypeBatchEncoder, name)
                   for name in ("batch", "unbatch", "encode", "decode", "encoding_specs"))
