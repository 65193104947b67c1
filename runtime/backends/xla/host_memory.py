"""Large host buffers reused between calls: glibc's allocator tuned for XLA's CPU buffers.

XLA allocates every result buffer afresh. With glibc's defaults a buffer of more than 32 MiB
(and, after some frees, smaller ones) is a new `mmap` each call, and its first write faults
in every 4 KiB page: on a (4096, 1024) float32 result that costs more than computing it.
NumPy avoids much of this with huge pages; XLA's allocator does not. Raising glibc's
mmap and trim thresholds makes freed large blocks stay in the heap for the next call.

Done once, when the first XLA function is compiled; the trade-off is that up to
`RETAINED` bytes freed at the top of the heap stay with the process instead of going back
to the system. Set RT_XLA_HOST_ALLOCATOR=system before the first compile to keep glibc's
defaults. Other C libraries (musl, macOS) are left alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import threading

RETAINED = 1 << 30  # bytes: blocks up to this size come from (and return to) the heap
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_GLIBC_MAX_MMAP = 32 << 20
_lock = threading.Lock()
_state: dict[str, bool] = {}


def tune() -> bool:
    """Raises glibc's mmap and trim thresholds once per process; whether they are raised."""
    with _lock:
        if "tuned" not in _state:
            _state["tuned"] = _apply()
        return _state["tuned"]


def _apply() -> bool:
    if os.environ.get("RT_XLA_HOST_ALLOCATOR", "").lower() == "system":
        return False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # older glibc caps the mmap threshold at 32 MiB (its documented maximum on 64-bit)
    raised = any(mallopt(_M_MMAP_THRESHOLD, size) for size in (RETAINED, _GLIBC_MAX_MMAP))
    return raised and bool(mallopt(_M_TRIM_THRESHOLD, RETAINED))


__all__ = ["RETAINED", "tune"]
