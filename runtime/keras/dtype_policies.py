"""`keras.dtype_policies` and `keras.mixed_precision`: Keras 3's `DTypePolicy` (a layer's
dtype), `get`, `serialize` and `deserialize`, and the global policy. Layers here compute in
the dtype they keep their weights in, so the policies are those of one float dtype; mixed
ones (`"mixed_float16"`, `"mixed_bfloat16"`) raise `NotImplementedError`."""

from __future__ import annotations

import types as _types

from ..layers.dtype_policy import DTypePolicy
from ..layers.dtype_policy import policy_config as _policy_config
from ..optimizers.loss_scale import LossScaleOptimizer as _LossScaleOptimizer
from .config import dtype_policy, set_dtype_policy


class FloatDTypePolicy(DTypePolicy):
    """Keras 3's policy of one float dtype (a DTypePolicy that shows itself as one)."""

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self.name}">'


def get(identifier) -> DTypePolicy:
    """The policy `identifier` names: None (the global policy), a policy, its name or its
    `serialize` config."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    raise ValueError(f"Cannot interpret {identifier!r} as a dtype policy: give a DTypePolicy, "
                     "its name (such as 'float32') or its config.")


def serialize(dtype_policy: DTypePolicy) -> dict:
    """Keras 3's config of a policy: {"module": "keras", "class_name": "DTypePolicy", ...}."""
    if not isinstance(dtype_policy, DTypePolicy):
        raise TypeError(f"serialize takes a DTypePolicy, got {type(dtype_policy).__name__}.")
    return _policy_config(DTypePolicy(dtype_policy.name))


def deserialize(config: dict, custom_objects=None) -> DTypePolicy:
    """The policy of a `serialize` config."""
    if not isinstance(config, dict) or config.get("class_name") not in (
            "DTypePolicy", "FloatDTypePolicy", "Policy"):
        raise ValueError(f"deserialize takes a DTypePolicy's config, got {config!r}.")
    return DTypePolicy.from_config(config.get("config", {}))


def global_policy() -> DTypePolicy:
    """The global policy (float32's)."""
    return dtype_policy()


mixed_precision = _types.SimpleNamespace(
    DTypePolicy=DTypePolicy, Policy=DTypePolicy, dtype_policy=dtype_policy,
    global_policy=global_policy, set_dtype_policy=set_dtype_policy,
    set_global_policy=set_dtype_policy, LossScaleOptimizer=_LossScaleOptimizer)

__all__ = ["DTypePolicy", "FloatDTypePolicy", "deserialize", "get", "serialize"]
