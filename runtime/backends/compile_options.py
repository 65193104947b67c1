"""`rt.config.experimental.set_jit_wait_for_compile`: whether compiler tiers make calls wait.

The Numba tier runs a `jit_compile=True` function on the NumPy tier while its kernel compiles
in the background, then switches to the kernel (docs/jit.md, "Tiered execution"). With
waiting on, the first call compiles the kernel and every call runs it: what benchmarks and
tests of the compiled code need. `rt.function(..., experimental_wait_for_compile=True)` asks
the same of one function; None (its default) follows this setting.
"""

from __future__ import annotations

from ..exports import export

_wait = {"enabled": False}


@export("config.experimental.set_jit_wait_for_compile")
def set_jit_wait_for_compile(enabled: bool) -> None:
    """Makes the first call of a `jit_compile=True` function wait for its kernel (True), or
    run on the NumPy tier while the kernel compiles in the background (False, the default).

    Raises:
        TypeError: `enabled` is not a bool.
    """
    if not isinstance(enabled, bool):
        raise TypeError(f"set_jit_wait_for_compile: enabled must be a bool, got {enabled!r}.")
    _wait["enabled"] = enabled


@export("config.experimental.get_jit_wait_for_compile")
def get_jit_wait_for_compile() -> bool:
    """Whether the first call of a `jit_compile=True` function waits for its kernel."""
    return _wait["enabled"]


def wait_for_compile(option: bool | None) -> bool:
    """A function's `experimental_wait_for_compile`, or the global setting when it is None."""
    return _wait["enabled"] if option is None else option
