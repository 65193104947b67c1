"""The helpers the Numba kernels link in are cached on disk only at Numba's default level.

Numba keys a function's on-disk cache by its source and signature, not by NUMBA_OPT: a helper
cached by a process at level 0 (this suite's level, tests/conftest.py) was linked unoptimised
into the kernels of later processes at the default level, and their steps took twice as long
(a CNN train step: 47 ms instead of 22 ms). Oracle: Numba's own cache objects, in this process
(level 0) and in a fresh one at the default level.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from runtime.backends.numba import helpers  # noqa: E402

_PROBE = ("from runtime.backends.numba import helpers; "
          "print(type(helpers.total._cache).__name__)")


def test_helpers_are_not_cached_at_another_level():
    import numba

    expected = "FunctionCache" if int(numba.config.OPT) == 3 else "NullCache"
    assert type(helpers.total._cache).__name__ == expected


def test_helpers_are_cached_at_the_default_level():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                         text=True, check=True, cwd=os.path.dirname(os.path.dirname(
                             os.path.dirname(os.path.abspath(__file__)))))
    assert out.stdout.strip() == "FunctionCache"
