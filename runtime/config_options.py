"""`tf.config`'s settings that have no effect on a NumPy CPU runtime, kept so programs that set
and read them run: the threading pools, the graph optimizer's options and `set_jit`, soft
device placement, synchronous execution, the device policy, op determinism and device
placement logging. Each setter checks its argument as TensorFlow does and records it; each
getter returns what was set (TensorFlow's default before)."""

from __future__ import annotations

import numbers

from .exports import export

_SETTINGS: dict[str, object] = {
    "inter_op": 0, "intra_op": 0, "soft_placement": True, "synchronous": True,
    "device_policy": "silent", "jit": False, "log_placement": False, "deterministic": False,
    "optimizer": {"disable_model_pruning": False, "disable_meta_optimizer": False}}

_POLICIES = ("explicit", "silent", "silent_for_int32", "warn", None)


def _threads(value, fn: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}: `num_threads` must be an int (0 lets the system choose), got "
                        f"{value!r}.")
    return int(value)


@export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads: int) -> None:
    """Records the size of TensorFlow's inter-op thread pool (ops run one at a time here)."""
    _SETTINGS["inter_op"] = _threads(num_threads, "set_inter_op_parallelism_threads")


@export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads() -> int:
    """The inter-op thread pool size set (0: the system chooses)."""
    return int(_SETTINGS["inter_op"])


@export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads: int) -> None:
    """Records the intra-op thread count (NumPy's BLAS threads follow OMP_NUM_THREADS)."""
    _SETTINGS["intra_op"] = _threads(num_threads, "set_intra_op_parallelism_threads")


@export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads() -> int:
    """The intra-op thread count set (0: the system chooses)."""
    return int(_SETTINGS["intra_op"])


@export("config.set_soft_device_placement")
def set_soft_device_placement(enabled: bool) -> None:
    """Records soft device placement (every op runs on the CPU here)."""
    _SETTINGS["soft_placement"] = bool(enabled)


@export("config.get_soft_device_placement")
def get_soft_device_placement() -> bool:
    """Whether soft device placement is on (TensorFlow's default: True)."""
    return bool(_SETTINGS["soft_placement"])


@export("config.experimental.set_synchronous_execution")
def set_synchronous_execution(enable: bool) -> None:
    """Records the eager execution mode (ops always run synchronously here)."""
    _SETTINGS["synchronous"] = bool(enable)


@export("config.experimental.get_synchronous_execution")
def get_synchronous_execution() -> bool:
    """Whether eager ops run synchronously (the value set; True by default)."""
    return bool(_SETTINGS["synchronous"])


@export("config.experimental.set_device_policy")
def set_device_policy(device_policy: str | None) -> None:
    """Records the policy for inputs on other devices (one device here)."""
    if device_policy not in _POLICIES:
        raise ValueError(f"set_device_policy: `device_policy` must be one of {_POLICIES}, got "
                         f"{device_policy!r}.")
    _SETTINGS["device_policy"] = device_policy or "silent"


@export("config.experimental.get_device_policy")
def get_device_policy() -> str:
    """The device policy set ('silent' by default)."""
    return str(_SETTINGS["device_policy"])


@export("config.experimental.enable_op_determinism")
def enable_op_determinism() -> None:
    """Makes ops deterministic: every op here already is (NumPy kernels, seeded random ops)."""
    _SETTINGS["deterministic"] = True


@export("config.optimizer.set_jit")
def set_jit(enabled) -> None:
    """Records TensorFlow's auto-clustering flag (use `rt.function(jit_compile=...)` here)."""
    if enabled not in (True, False, "autoclustering"):
        raise ValueError(f"set_jit: `enabled` must be True, False or 'autoclustering', got "
                         f"{enabled!r}.")
    _SETTINGS["jit"] = enabled


@export("config.optimizer.get_jit")
def get_jit() -> str:
    """'autoclustering' when set_jit enabled it, else ''."""
    return "autoclustering" if _SETTINGS["jit"] else ""


@export("config.optimizer.set_experimental_options")
def set_experimental_options(options: dict) -> None:
    """Records Grappler's options (this runtime's own graph passes always run)."""
    if not isinstance(options, dict):
        raise TypeError(f"set_experimental_options needs a dict, got {type(options).__name__}.")
    _SETTINGS["optimizer"] = {**_SETTINGS["optimizer"], **options}  # type: ignore[dict-item]


@export("config.optimizer.get_experimental_options")
def get_experimental_options() -> dict:
    """The options set with set_experimental_options."""
    return dict(_SETTINGS["optimizer"])  # type: ignore[call-overload]


@export("debugging.set_log_device_placement")
def set_log_device_placement(enabled: bool) -> None:
    """Records whether to log op placement (every op runs on the CPU; nothing is logged)."""
    _SETTINGS["log_placement"] = bool(enabled)


@export("debugging.get_log_device_placement")
def get_log_device_placement() -> bool:
    """Whether set_log_device_placement turned logging on."""
    return bool(_SETTINGS["log_placement"])
