"""Faults: an exception or KeyboardInterrupt while tracing, while a staged loop runs, or inside a
gradient leaves no graph, name scope, device or tape behind, and the next call is correct."""

import numpy as np
import pytest

import runtime as rt
from runtime import context


def clean_state():
    state = context.state
    assert state.graphs == [] and state.scopes == [] and state.devices == []
    assert state.tapes == []


FAULTS = pytest.mark.parametrize("error", [ValueError("boom"), KeyboardInterrupt()],
                                 ids=["error", "interrupt"])


class Interrupt:
    """Raises `error` on the first `times` calls, then lets calls through."""

    def __init__(self, error, times=1):
        self.error = error
        self.left = times

    def __call__(self):
        if self.left:
            self.left -= 1
            raise self.error


@FAULTS
def test_a_fault_while_tracing_leaves_nothing_behind(error):
    fault = Interrupt(error)

    @rt.function
    def f(x):
        with rt.name_scope("outer"), rt.device("/cpu:0"):
            y = x * 2
            fault()
            return y + 1
    with pytest.raises(type(error)):
        f(rt.constant(1.0))
    clean_state()
    assert f.experimental_get_tracing_count() == 1
    assert f.list_concrete_functions() == []  # the failed trace is not cached
    assert float(f(rt.constant(1.0))) == 3.0
    assert len(f.list_concrete_functions()) == 1
    clean_state()


@FAULTS
def test_a_fault_while_a_staged_loop_runs(error):
    calls = []

    def host(i):  # runs at each iteration, through rt.print; fails at the third, once
        calls.append(i)
        if len(calls) == 3:
            raise error

    total = rt.Variable(0)

    @rt.function
    def f(n):
        i = rt.constant(0)
        while i < n:
            rt.print(i, output_stream=_Sink(host))
            total.assign_add(1)
            i += 1
        return i
    with pytest.raises(type(error)):
        f(rt.constant(5))
    clean_state()
    partial = int(total.numpy())
    assert partial == 2  # the updates before the fault happened; no later ones
    assert int(f(rt.constant(5))) == 5
    assert int(total.numpy()) == partial + 5
    clean_state()


def _fragile(fault):
    """`x * 3` whose gradient (3) calls `fault` first."""
    @rt.custom_gradient
    def fragile(x):
        def grad(g):
            fault()
            return g * 3
        return x * 3, grad
    return fragile


class _Sink:
    """An output stream for rt.print that calls `fn(value)` for each printed line."""

    def __init__(self, fn):
        self.fn = fn

    def write(self, text):
        if text.strip():
            self.fn(int(text.strip()))

    def flush(self):
        pass


@FAULTS
def test_a_fault_inside_a_gradient_leaves_no_tape(error):
    fragile = _fragile(Interrupt(error))
    x = rt.constant(2.0)
    with pytest.raises(type(error)):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = fragile(x)
        tape.gradient(y, x)
    clean_state()
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fragile(x)
    assert float(tape.gradient(y, x)) == 3.0
    clean_state()


@FAULTS
def test_a_fault_inside_a_staged_gradient(error):
    fragile = _fragile(Interrupt(error))

    @rt.function
    def step(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = fragile(x)
        return tape.gradient(y, x)
    with pytest.raises(type(error)):
        step(rt.constant(2.0))
    clean_state()
    np.testing.assert_allclose(step(rt.constant(2.0)).numpy(), 3.0)
    clean_state()
