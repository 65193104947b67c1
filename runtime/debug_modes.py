"""Process-wide debugging modes: `rt.experimental.enable_strict_mode` (deprecated APIs raise
instead of warning) and `rt.debugging.experimental.enable_dump_debug_info` /
`disable_dump_debug_info` (TensorFlow's Debugger V2 dumps, which this runtime does not
write: enabling raises NotImplementedError naming it).

Deprecated APIs of the runtime warn through `warn_deprecated`, so strict mode covers them all.
"""

from __future__ import annotations

import warnings
from typing import NoReturn

from .exports import export

_STRICT = [False]


@export("experimental.enable_strict_mode")
def enable_strict_mode() -> None:
    """From now on, calling a deprecated API of the runtime raises RuntimeError instead of
    warning with DeprecationWarning (as TensorFlow's strict mode). It cannot be turned off."""
    _STRICT[0] = True


def strict_mode() -> bool:
    """Whether `enable_strict_mode` was called."""
    return _STRICT[0]


def warn_deprecated(message: str, stacklevel: int) -> None:
    """A deprecated API was called: DeprecationWarning, or RuntimeError in strict mode."""
    if _STRICT[0]:
        raise RuntimeError(f"{message} (strict mode, rt.experimental.enable_strict_mode, "
                           "makes calls of deprecated APIs errors)")
    warnings.warn(message, DeprecationWarning, stacklevel=stacklevel + 1)


_TENSOR_DEBUG_MODES = ("NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH", "SHAPE",
                       "FULL_TENSOR")


def enable_dump_debug_info(dump_root, tensor_debug_mode: str = "NO_TENSOR",
                           circular_buffer_size: int = 1000, op_regex=None,
                           tensor_dtypes=None) -> NoReturn:
    """TensorFlow writes Debugger V2 dumps (DebugEvent files of every op and graph run) to
    `dump_root`. This runtime does not write them: the arguments are checked as TensorFlow
    checks them, then NotImplementedError is raised. To look at values, stage
    `rt.debugging.check_numerics` / `rt.print`, or read a graph with
    `f.get_concrete_function(...).graph` and its generated source with `f.report(...)`."""
    if not isinstance(dump_root, str) or not dump_root:
        raise ValueError(f"enable_dump_debug_info: dump_root must be a non-empty str, got "
                         f"{dump_root!r}.")
    if tensor_debug_mode not in _TENSOR_DEBUG_MODES:
        raise ValueError(f"Invalid value in tensor_debug_mode ('{tensor_debug_mode}'). Valid "
                         f"options are: {', '.join(_TENSOR_DEBUG_MODES)}")
    if isinstance(circular_buffer_size, bool) or not isinstance(circular_buffer_size, int):
        raise TypeError(f"enable_dump_debug_info: circular_buffer_size must be an int, got "
                        f"{circular_buffer_size!r}.")
    if op_regex is not None and not isinstance(op_regex, str):
        raise TypeError(f"enable_dump_debug_info: op_regex must be a str, got {op_regex!r}.")
    raise NotImplementedError(
        "rt.debugging.experimental.enable_dump_debug_info: Debugger V2 dumps (tfdbg2 "
        f"DebugEvent files under {dump_root!r}) are not written by this runtime. Stage "
        "rt.debugging.check_numerics or rt.print on the tensors to watch, or look at a "
        "function's graph and generated code with f.report(...).")


def disable_dump_debug_info() -> None:
    """Stops Debugger V2 dumps: nothing to stop here (they are never enabled)."""


export("debugging.experimental.enable_dump_debug_info")(enable_dump_debug_info)
export("debugging.experimental.disable_dump_debug_info")(disable_dump_debug_info)
