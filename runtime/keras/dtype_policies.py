"""`keras.dtype_policies` and `keras.mixed_precision`: Keras 3's `DTypePolicy` (a layer's
dtype), `get`, `serialize` and `deserialize`, and the global policy. Layers here compute in
the dtype they keep their weights in, so the policies are those of one float dtype; mixed
ones (`"mixed_float16"`, `"mixed_bfloat16"`) raise `NotImplementedError`.

The quantized policies (`QuantizedDTypePolicy`, `QuantizedFloat8DTypePolicy`,
`Int4DTypePolicy`, `GPTQDTypePolicy`, `AWQDTypePolicy`, named `"<mode>_from_<source>"`) and
`DTypePolicyMap` (layer paths, or regular expressions over them, to policies) are made,
checked, compared, printed and serialized as Keras 3's; `get` reads their names
(`"int8_from_float32"`, `"int4/128_from_float32"`, `"gptq/4/128_from_float32"`, ...).
Quantized layers are not implemented: a layer given a quantized policy raises
`NotImplementedError`. Unlike Keras, a policy made without `source_name` is named after the
global policy it takes (Keras names an `Int4DTypePolicy("int4/64")` `"int4/64_from_None"`),
and `DTypePolicyMap.get_config` leaves its policies as they are (Keras blanks their names when
the map has no default policy; the config written is the same).
"""

from __future__ import annotations

import re as _re
import types as _types
from collections.abc import MutableMapping as _MutableMapping

from ..layers.dtype_policy import DTypePolicy
from ..layers.dtype_policy import as_dtype as _as_dtype
from ..layers.dtype_policy import policy_config as _policy_config
from ..optimizers.loss_scale import LossScaleOptimizer as _LossScaleOptimizer
from .config import dtype_policy, set_dtype_policy


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's policy of one float dtype (a DTypePolicy that shows itself as one)."""

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self.name}">'


QUANTIZATION_MODES = ("int8", "float8", "int4", "gptq", "awq")


def _source_dtype(source_name) -> str:
    """The dtype a quantized policy computes in: that of its source policy's name."""
    if not isinstance(source_name, str):
        raise TypeError("'name' must be a string, such as 'mixed_float16'. "
                        f"Received: name={source_name} (of type {type(source_name)})")
    try:
        return _as_dtype(source_name).name
    except (TypeError, ValueError):
        raise ValueError(
            f"Cannot convert '{source_name}' to a mixed precision DTypePolicy. Valid policies "
            "include 'mixed_float16', 'mixed_bfloat16', and the name of any float dtype such "
            "as 'float32'.") from None


class QuantizedDTypePolicy(DTypePolicy):
    """The policy of a layer quantized by `mode` (one of `QUANTIZATION_MODES`) from the float
    policy `source_name` (default: the global policy's): named `"<mode>_from_<source>"`,
    computing in the source's dtype. int8 refuses a float16 source, as in Keras."""

    def __init__(self, mode, source_name=None) -> None:
        if source_name is None:
            source_name = dtype_policy().name
        dtype = _source_dtype(source_name)
        self._check_quantization_mode(mode, dtype)
        self._dtype = dtype
        self._name = f"{mode}_from_{source_name}"
        self._source_name = source_name
        self._quantization_mode = mode

    name = property(lambda self: self._name)
    compute_dtype = property(lambda self: self._dtype)
    variable_dtype = property(lambda self: self._dtype)

    @property
    def quantization_mode(self):
        """The quantization mode (`"int8"`, `"int4"`, `"float8"`, `"gptq"` or `"awq"`)."""
        return self._quantization_mode

    @staticmethod
    def _check_quantization_mode(mode, compute_dtype) -> None:
        if mode not in QUANTIZATION_MODES:
            raise ValueError(f"Invalid quantization mode. Expected one of {QUANTIZATION_MODES}. "
                             f"Received: mode={mode}")
        if compute_dtype == "float16" and mode == "int8":
            raise ValueError(f"Quantization mode='{mode}' doesn't work well with "
                             "compute_dtype='float16'.")

    def get_config(self) -> dict:
        return {"mode": self._quantization_mode, "source_name": self._source_name}

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.get_config() == self.get_config()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self.get_config().items()))))

    def __repr__(self) -> str:
        return f'<{type(self).__name__} "{self._name}">'


class QuantizedFloat8DTypePolicy(QuantizedDTypePolicy):
    """The float8 policy: a quantized policy that also keeps the length of the amax history
    float8 training scales by (`amax_history_length`, an int, 1024 by default)."""

    default_amax_history_length = 1024

    def __init__(self, mode, source_name=None, amax_history_length=1024) -> None:
        super().__init__(mode=mode, source_name=source_name)
        if not isinstance(amax_history_length, int) or isinstance(amax_history_length, bool):
            raise TypeError("`amax_history_length` must be an integer. "
                            f"Received: amax_history_length={amax_history_length}")
        self._amax_history_length = amax_history_length

    @property
    def amax_history_length(self) -> int:
        """The length of the amax history window float8 scales are computed from."""
        return self._amax_history_length

    def get_config(self) -> dict:
        return {**super().get_config(), "amax_history_length": self._amax_history_length}


def _mode_fields(cls_name: str, mode, algorithm: str, fields: tuple[str, ...]) -> list[int]:
    """The integers of a mode `"<algorithm>/<field>/..."`, checked as Keras checks them."""
    expected = "'" + "/".join([algorithm] + [f"<{f}>" for f in fields]) + "'"
    parts = mode.split("/") if isinstance(mode, str) else []
    if len(parts) != len(fields) + 1 or parts[0] != algorithm:
        raise ValueError(f"Invalid mode for {cls_name}. Expected format {expected}, but got "
                         f"'{mode}'.")
    try:
        return [int(part) for part in parts[1:]]
    except ValueError:
        names = " and ".join(f"<{f}>" for f in fields)
        verb = "must be an integer" if len(fields) == 1 else "must be integers"
        raise ValueError(f"Invalid mode for {cls_name}. {names} {verb}. Expected format "
                         f"{expected}, but got '{mode}'.") from None


def _check_group(value: int, mode: str, what: str, whole: str) -> None:
    if value < -1 or value == 0:
        raise ValueError(f"Invalid {what} in mode. Supported values are -1 ({whole}) or a "
                         f"positive integer{' (sub-channel)' if what == 'block_size' else ''}, "
                         f"but got {value} from '{mode}'.")


class Int4DTypePolicy(QuantizedDTypePolicy):
    """The int4 policy of a block size: `mode` is `"int4/<block_size>"` (-1: one scale per
    output channel; a positive size: groups of that many input rows)."""

    def __init__(self, mode, source_name=None) -> None:
        (block_size,) = _mode_fields("Int4DTypePolicy", mode, "int4", ("block_size",))
        _check_group(block_size, mode, "block_size", "per-channel")
        super().__init__(mode="int4", source_name=source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "int4"
        self.block_size = block_size

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": f"int4/{self.block_size}"}


class GPTQDTypePolicy(QuantizedDTypePolicy):
    """The policy of a GPTQ-quantized layer: `mode` is `"gptq/<weight_bits>/<group_size>"`
    (bits 2, 3, 4 or 8; group size -1 for whole rows or a positive integer)."""

    def __init__(self, mode, source_name=None) -> None:
        bits, group = _mode_fields("GPTQDTypePolicy", mode, "gptq",
                                   ("weight_bits", "group_size"))
        if bits not in (2, 3, 4, 8):
            raise ValueError("Invalid weight_bits in mode. Supported values are 2, 3, 4, and 8, "
                             f"but got {bits} from '{mode}'.")
        _check_group(group, mode, "group_size", "whole-tensor")
        super().__init__(mode="gptq", source_name=source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "gptq"
        self.weight_bits = bits
        self.group_size = group

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": f"gptq/{self.weight_bits}/{self.group_size}"}


class AWQDTypePolicy(QuantizedDTypePolicy):
    """The policy of an AWQ-quantized layer: `mode` is `"awq/4/<group_size>"` (AWQ quantizes
    to 4 bits; group size -1 for per-channel or a positive integer)."""

    def __init__(self, mode, source_name=None) -> None:
        bits, group = _mode_fields("AWQDTypePolicy", mode, "awq",
                                   ("weight_bits", "group_size"))
        if bits != 4:
            raise ValueError("Invalid weight_bits in mode. AWQ only supports 4-bit "
                             f"quantization, but got {bits} from '{mode}'.")
        _check_group(group, mode, "group_size", "per-channel")
        super().__init__(mode="awq", source_name=source_name)
        self._name = f"{mode}_from_{self._source_name}"
        self.mode = "awq"
        self.weight_bits = bits
        self.group_size = group

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": f"awq/{self.weight_bits}/{self.group_size}"}


def _quantized_policy(name: str) -> QuantizedDTypePolicy:
    """The quantized policy a name `"<mode>_from_<source>"` gives."""
    parts = name.split("_from_")
    if len(parts) != 2:
        raise ValueError("Cannot convert `policy` into a valid pair (`mode`, `source_name`) to "
                         f"instantiate `QuantizedDTypePolicy`. Received: policy={name}")
    mode, source = parts
    if name.startswith("int4") and "/" in mode:
        return Int4DTypePolicy(mode, source)
    if name.startswith("gptq"):
        return GPTQDTypePolicy(mode, source)
    if name.startswith("awq"):
        return AWQDTypePolicy(mode, source)
    if name.startswith("float8"):
        return QuantizedFloat8DTypePolicy(mode, source)
    return QuantizedDTypePolicy(mode, source)


class DTypePolicyMap(DTypePolicy, _MutableMapping):
    """A dict-like policy: layer paths (`layer.path`) to policies. A key is looked up
    exactly first, then as a regular expression (`re.fullmatch`) over the keys; no match
    gives `default_policy` (default: the global policy), and a path two patterns match is a
    ValueError. Its own dtypes and quantization mode are the default policy's; values may be
    given as anything `get` takes."""

    def __init__(self, default_policy=None, policy_map=None) -> None:
        if isinstance(default_policy, DTypePolicyMap):
            raise ValueError("`default_policy` cannot be a `DTypePolicyMap`.")
        if policy_map is not None and not isinstance(policy_map, dict):
            raise TypeError("If specified, `policy_map` must be a dict. Received: "
                            f"policy_map={policy_map} of type {type(policy_map)}")
        self._default_policy_arg = default_policy
        self._default_policy = get(default_policy)
        self._policy_map = {key: self._as_policy(value)
                            for key, value in (policy_map or {}).items()}

    @staticmethod
    def _as_policy(policy) -> DTypePolicy:
        try:
            return get(policy)
        except Exception:
            raise ValueError("Cannot interpret the assigned value by "
                             f"`keras.dtype_policies.get`. Received: {policy} of type "
                             f"{type(policy)}") from None

    @property
    def name(self) -> str:
        return f"map_{self.default_policy.name}"

    _name = name

    @property
    def default_policy(self) -> DTypePolicy:
        """The policy of a path no key matches."""
        return self._default_policy

    compute_dtype = property(lambda self: self.default_policy.compute_dtype)
    variable_dtype = property(lambda self: self.default_policy.variable_dtype)
    quantization_mode = property(lambda self: getattr(self.default_policy,
                                                      "quantization_mode", None))

    def __getitem__(self, key) -> DTypePolicy:
        if key in self._policy_map:
            return self._policy_map[key]
        matching = [pattern for pattern in self._policy_map if _re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(
                f"Path '{key}' matches multiple dtype policy specification keys: {matching}. "
                "Please make sure each path only matches at most one dtype policy "
                "specification key in the DTypePolicyMap.")
        if matching:
            return self._policy_map[matching[0]]
        return self.default_policy

    def __setitem__(self, key, policy) -> None:
        if key in self._policy_map:
            raise ValueError(f"{key} already exist in the DTypePolicyMap with value "
                             f"{self._policy_map[key]}. Please make sure to not use duplicated "
                             "keys.")
        self._policy_map[key] = self._as_policy(policy)

    def __delitem__(self, key) -> None:
        del self._policy_map[key]

    def __contains__(self, key) -> bool:
        return key in self._policy_map

    def __len__(self) -> int:
        return len(self._policy_map)

    def __iter__(self):
        return iter(self._policy_map)

    def __eq__(self, other) -> bool:
        return isinstance(other, DTypePolicyMap) and \
            other.default_policy == self.default_policy and \
            other._policy_map == self._policy_map

    __hash__ = None  # a mutable mapping

    def get_config(self) -> dict:
        """`{"default_policy": ..., "policy_map": {key: serialized policy}}`; without a
        default policy the entries are written without their source dtype (taken from the
        global policy when read back), as Keras writes them."""
        default = self._default_policy_arg
        entries = {}
        for key, policy in self._policy_map.items():
            entry = serialize(policy)
            if default is None:
                field = "source_name" if isinstance(policy, QuantizedDTypePolicy) else "name"
                entry["config"][field] = None
            entries[key] = entry
        if isinstance(default, DTypePolicy):
            default = serialize(default)
        return {"default_policy": default, "policy_map": entries}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "DTypePolicyMap":
        default = config.get("default_policy")
        if isinstance(default, dict):
            default = deserialize(default)
        entries = {key: deserialize(value) if isinstance(value, dict) else value
                   for key, value in (config.get("policy_map") or {}).items()}
        return cls(default_policy=default, policy_map=entries)

    def __repr__(self) -> str:
        mapping = [(key, policy.name) for key, policy in self._policy_map.items()]
        return (f"<DTypePolicyMap at {hex(id(self))} default_policy="
                f"{self._default_policy.name}, mapping={mapping}>")


_CLASSES = {cls.__name__: cls for cls in (
    QuantizedDTypePolicy, QuantizedFloat8DTypePolicy, Int4DTypePolicy, GPTQDTypePolicy,
    AWQDTypePolicy, DTypePolicyMap)}


def get(identifier) -> DTypePolicy:
    """The policy `identifier` names: None (the global policy), a policy, its name (a
    quantized one's too, such as `"int8_from_float32"`) or its `serialize` config."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.startswith(QUANTIZATION_MODES):
            return _quantized_policy(identifier)
        return DTypePolicy(identifier)
    raise ValueError(f"Cannot interpret {identifier!r} as a dtype policy: give a DTypePolicy, "
                     "its name (such as 'float32') or its config.")


def serialize(dtype_policy: DTypePolicy) -> dict:
    """Keras 3's config of a policy: {"module": "keras", "class_name": "DTypePolicy", ...}
    for a float policy, {"module": "keras.dtype_policies", ...} for the others."""
    if not isinstance(dtype_policy, DTypePolicy):
        raise TypeError(f"serialize takes a DTypePolicy, got {type(dtype_policy).__name__}.")
    cls = type(dtype_policy)
    if _CLASSES.get(cls.__name__) is cls:
        return {"module": "keras.dtype_policies", "class_name": cls.__name__,
                "config": dtype_policy.get_config(), "registered_name": None}
    return _policy_config(DTypePolicy(dtype_policy.name))


def deserialize(config: dict, custom_objects=None) -> DTypePolicy:
    """The policy of a `serialize` config."""
    name = config.get("class_name") if isinstance(config, dict) else None
    if name in _CLASSES:
        cls = _CLASSES[name]
        if cls is DTypePolicyMap:
            return cls.from_config(config.get("config", {}), custom_objects=custom_objects)
        return cls.from_config(config.get("config", {}))
    if name not in ("DTypePolicy", "FloatDTypePolicy", "Policy"):
        raise ValueError(f"deserialize takes a DTypePolicy's config, got {config!r}.")
    return DTypePolicy.from_config(config.get("config", {}))


def global_policy() -> DTypePolicy:
    """The global policy (float32's)."""
    return dtype_policy()


mixed_precision = _types.SimpleNamespace(
    DTypePolicy=DTypePolicy, Policy=DTypePolicy, dtype_policy=dtype_policy,
    global_policy=global_policy, set_dtype_policy=set_dtype_policy,
    set_global_policy=set_dtype_policy, LossScaleOptimizer=_LossScaleOptimizer)

__all__ = ["AWQDTypePolicy", "DTypePolicy", "DTypePolicyMap", "FloatDTypePolicy",
           "GPTQDTypePolicy", "Int4DTypePolicy", "QuantizedDTypePolicy",
           "QuantizedFloat8DTypePolicy", "deserialize", "get", "serialize"]
