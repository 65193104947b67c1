"""Test-wide fixtures: every test starts with compiled functions traced, not run eagerly."""

import pytest

import runtime as rt


@pytest.fixture(autouse=True)
def _reset_runtime_state():
    rt.run_functions_eagerly(False)
    rt.clear_function_callbacks()
    yield
    rt.run_functions_eagerly(False)
    rt.clear_function_callbacks()
