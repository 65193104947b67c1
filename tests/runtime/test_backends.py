"""The one compile pipeline: passes once, then a backend chosen by `jit_compile`."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime import backends
from runtime.passes import run_passes


def _traced(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs).graph


@pytest.mark.parametrize("value, name", [(None, "numpy"), (False, "numpy"), (True, "numba"),
                                         ("numba", "numba"), ("numpy", "numpy")])
def test_jit_compile_values_choose_a_backend(value, name):
    assert backends.resolve(value).name == name
    f = rt.function(lambda x: x * 2.0 + 1.0, jit_compile=value)
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(f(x).numpy(), x * 2 + 1)
    concrete = f.get_concrete_function(x)
    assert concrete.backend.name == name
    assert concrete.uses_compiler is (name != "numpy")
    assert not hasattr(concrete, "jit_compile")  # as TensorFlow's ConcreteFunction


@pytest.mark.parametrize("value", ["numbaa", "jax", 1, "True", 0.5])
def test_an_unknown_jit_compile_value_is_a_value_error_naming_the_choices(value):
    with pytest.raises(ValueError, match=r"jit_compile=.*choose one of False, True, 'numpy', 'numba'"):
        rt.function(lambda x: x, jit_compile=value)


def test_the_passes_run_once_for_every_backend():
    def f(x):
        big = rt.ones([3000]) * 2.0 + 1.0       # a constant expression: folded by the passes
        return x * big + x * big                 # a repeated subexpression: merged by CSE
    graph = _traced(f, rt.TensorSpec([3000], rt.float32))
    program = run_passes(graph)
    types = [op.type for op in program.live]
    assert types.count("Mul") == 1 and "Fill" not in types and "Ones" not in types
    x = np.linspace(0, 1, 3000, dtype=np.float32)
    expected = 2 * (x * 3.0)
    for backend in (backends.NUMPY, backends.NUMBA):
        compiled = backends.compile(graph, backend, "f")
        np.testing.assert_allclose(compiled.fn(x), expected, rtol=1e-6)
    # the traced graph is not changed by either rendering
    assert [op.type for op in graph.operations] == [op.type for op in _traced(
        f, rt.TensorSpec([3000], rt.float32)).operations]


def test_a_gradient_under_a_tape_renders_on_the_functions_backend():
    from runtime.function.recorded_call import gradient_of

    f = rt.function(lambda x: rt.reduce_sum(x * x), jit_compile=True)
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])
    grad = gradient_of(f.get_concrete_function(x))
    assert type(grad.forward_compiled).__name__ == "JitCompiled"
    assert type(grad.backward_compiled).__name__ == "JitCompiled"
