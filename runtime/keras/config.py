"""`keras.config`: Keras 3's global settings as this runtime keeps them (the backend is
"tensorflow", weights are float32 and images channels-last)."""

from __future__ import annotations

from ..layers.dtype_policy import DTypePolicy as _DTypePolicy
from ..layers.function_source import enable_unsafe_deserialization  # noqa: F401 - re-exported
from ..layers.global_settings import (  # noqa: F401 - re-exported
    disable_flash_attention,
    disable_interactive_logging,
    enable_flash_attention,
    enable_interactive_logging,
    is_flash_attention_enabled,
    is_interactive_logging_enabled,
    max_epochs,
    max_steps_per_epoch,
    set_max_epochs,
    set_max_steps_per_epoch,
)
from ..traceback_utils import (  # noqa: F401 - re-exported under Keras's names
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)
from .backend import (  # noqa: F401 - re-exported
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)

__all__ = ["backend", "disable_flash_attention", "disable_interactive_logging",
           "disable_traceback_filtering", "dtype_policy", "enable_flash_attention",
           "enable_interactive_logging", "enable_traceback_filtering",
           "enable_unsafe_deserialization", "epsilon", "floatx", "image_data_format",
           "is_flash_attention_enabled", "is_interactive_logging_enabled", "is_nnx_enabled",
           "is_traceback_filtering_enabled", "max_epochs", "max_steps_per_epoch", "set_backend",
           "set_dtype_policy", "set_epsilon", "set_floatx", "set_image_data_format",
           "set_max_epochs", "set_max_steps_per_epoch"]


def backend() -> str:
    """The backend Keras runs on: "tensorflow" (this runtime stands in for it)."""
    return "tensorflow"


def is_nnx_enabled() -> bool:
    """False: Flax NNX belongs to Keras's JAX backend."""
    return False


def set_backend(backend: str) -> None:
    """Keras's backend switch: "tensorflow" (this runtime) is the only backend here; another
    name raises (Keras reloads itself on JAX or PyTorch)."""
    if backend != "tensorflow":
        raise NotImplementedError(f"set_backend({backend!r}): this runtime is Keras's "
                                  "'tensorflow' backend only; run the program under Keras "
                                  "itself for another backend.")


def dtype_policy() -> _DTypePolicy:
    """The global dtype policy new layers take: float32's."""
    return _DTypePolicy("float32")


def set_dtype_policy(policy) -> None:
    """Sets the global dtype policy: "float32" (or its DTypePolicy) only, as `set_floatx`;
    another (mixed_float16, bfloat16, ...) raises NotImplementedError."""
    name = policy.name if isinstance(policy, _DTypePolicy) else policy
    if not isinstance(name, str):
        raise ValueError(f"set_dtype_policy: the policy must be a DTypePolicy or its name, "
                         f"got {policy!r}.")
    if name != "float32":
        raise NotImplementedError(f"set_dtype_policy({name!r}): layers here compute and keep "
                                  "their weights in float32 by default; give a layer its own "
                                  "dtype= instead.")
