"""`rt.experimental.extension_type` (TensorFlow's `tf.experimental.extension_type`): `as_dict`."""

from __future__ import annotations

from ..ops.extension_type import ExtensionType, _field_names

__all__ = ["as_dict"]


def as_dict(value: ExtensionType) -> dict:
    """{field name: value} of an extension type value, in the order its fields are declared
    (the values themselves, not copies)."""
    if not isinstance(value, ExtensionType):
        raise TypeError(f"as_dict takes an rt.experimental.ExtensionType value, got "
                        f"{type(value).__name__}.")
    return {name: getattr(value, name) for name in _field_names(type(value))}
