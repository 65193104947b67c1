"""`rt.profiler`: the names TensorFlow's TensorBoard guide calls, as documented no-ops.

There is no profiler trace to record here: `rt.profiler.experimental.start(logdir)` and
`stop()` do nothing (use `f.report()` of an `rt.function` to see where time goes), so
programs written for TensorFlow run unchanged.
"""

from __future__ import annotations

import contextlib
import types as _types
from typing import Any, Iterator


def _start(logdir: str, options: Any = None) -> None:
    """Accepted for compatibility; records nothing."""


def _stop(save: bool = True) -> None:
    """Accepted for compatibility; writes nothing."""


@contextlib.contextmanager
def _profile(logdir: str, options: Any = None) -> Iterator[None]:
    """A context that records nothing (TensorFlow's `profiler.experimental.Profile`)."""
    yield


class _Trace(contextlib.AbstractContextManager):
    """`with rt.profiler.experimental.Trace("step", step_num=i):` records nothing."""

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name = name

    def __exit__(self, *exc: Any) -> None:
        return None


_start.__name__, _stop.__name__, _profile.__name__ = "start", "stop", "Profile"
_Trace.__name__ = "Trace"
experimental = _types.SimpleNamespace(start=_start, stop=_stop, Profile=_profile, Trace=_Trace)

__all__ = ["experimental"]
