"""Test-wide fixtures: every test starts with compiled functions traced, not run eagerly.

The Numba tier compiles hundreds of kernels in a run; on a fresh machine (an empty kernel
cache) LLVM's optimisation passes are most of the suite's time. The tests check values, not
speed, so they compile at NUMBA_OPT=0 unless it is set (kernels of another level are cached
under another key: a test run never leaves unoptimised kernels for real programs). At that
level Numba cannot cache kernels that read some globals and says so for each: those warnings
are not shown (tests/summary checks the caching at Numba's own level, in a process of its own).
"""

import os

os.environ.setdefault("NUMBA_OPT", "0")  # before the Numba tier imports numba

import pytest  # noqa: E402

import runtime as rt  # noqa: E402


def pytest_configure(config):
    if os.environ["NUMBA_OPT"] == "0":
        config.addinivalue_line("filterwarnings", "ignore:Cannot cache compiled function")


@pytest.fixture(autouse=True)
def _reset_runtime_state():
    rt.run_functions_eagerly(False)
    rt.clear_function_callbacks()
    yield
    rt.run_functions_eagerly(False)
    rt.clear_function_callbacks()
