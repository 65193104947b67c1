"""Keras 3's `DTypePolicy`: the dtype a layer computes in and keeps its weights in.

`layer.dtype_policy` is one, and a layer's config gives its `dtype` as the policy's config,
`{"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
"registered_name": None}`, as Keras 3 writes it; a layer takes `dtype` as a dtype, its name,
a policy or such a config. Mixed precision policies (`"mixed_float16"`) are not offered.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dtypes


class DTypePolicy:
    """The dtype policy of a layer: `name` (a dtype name), `compute_dtype` and
    `variable_dtype` (both that dtype's name)."""

    def __init__(self, name: Any = None) -> None:
        self._name = as_dtype(name).name

    name = property(lambda self: self._name)
    compute_dtype = property(lambda self: self._name)
    variable_dtype = property(lambda self: self._name)
    quantization_mode = None  # Keras's: a float policy quantizes nothing

    def get_config(self) -> dict:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict) -> "DTypePolicy":
        return cls(**config)

    def __eq__(self, other) -> bool:
        return isinstance(other, DTypePolicy) and other._name == self._name

    def __hash__(self) -> int:
        return hash(("DTypePolicy", self._name))

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'


def is_policy_config(value: Any) -> bool:
    """Whether `value` is a serialized DTypePolicy (`{"class_name": "DTypePolicy", ...}`)."""
    return isinstance(value, dict) and value.get("class_name") == "DTypePolicy" and \
        isinstance(value.get("config"), dict)


def policy_config(dtype: _dtypes.DType) -> dict:
    """Keras 3's serialized policy of a layer of weights of `dtype`."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": dtype.name},
            "registered_name": None}


_QUANTIZED_CLASSES = ("QuantizedDTypePolicy", "QuantizedFloat8DTypePolicy", "Int4DTypePolicy",
                      "GPTQDTypePolicy", "AWQDTypePolicy", "DTypePolicyMap")


def as_dtype(value: Any) -> _dtypes.DType:
    """The weights' dtype a layer's `dtype` argument names: None (float32), a dtype or its
    name, a DTypePolicy or a policy config."""
    if value is None:
        return _dtypes.float32
    if getattr(value, "quantization_mode", None) is not None or hasattr(value, "default_policy") \
            or isinstance(value, str) and "_from_" in value \
            or isinstance(value, dict) and value.get("class_name") in _QUANTIZED_CLASSES:
        raise NotImplementedError(
            f"dtype={value!r}: quantized dtype policies and DTypePolicyMap are not offered "
            "(quantized layers are not implemented); give the layer one float dtype.")
    if isinstance(value, DTypePolicy):
        return _dtypes.as_dtype(value.name)
    if is_policy_config(value):
        value = value["config"].get("name", "float32")
    if isinstance(value, str) and value.startswith("mixed_"):
        raise NotImplementedError(
            f"dtype={value!r}: mixed precision policies are not offered; give the layer one "
            "dtype (e.g. 'float16' or 'float32').")
    return _dtypes.as_dtype(value)
