"""A user function whose name is also a name of the generated NumPy-tier code (`np`, the
constants `c1`, bound objects `k0`/`v0`, parameters `a0`, temporaries `t3`, builtins) computes
the right values; NumPy evaluating the same expression is the oracle."""

import numpy as np
import pytest

import runtime as rt

NAMES = ["c0", "c1", "v0", "np", "a0", "t3", "k0", "range", "len", "graph_fn", "lambda", "1x"]


def _body(x):
    y = x * 2.0 + rt.constant([1.0, 2.0, 3.0])  # a bound constant
    z = rt.reduce_sum(y) + 3.0
    return rt.nn.relu(y - z / 3.0) + rt.cast(rt.shape(x)[0], rt.float32)


def _expected(x):
    y = x * 2.0 + np.array([1.0, 2.0, 3.0], np.float32)
    z = y.sum() + 3.0
    return np.maximum(y - z / 3.0, 0) + np.float32(len(x))


X = np.array([0.5, -1.0, 4.0], np.float32)


@pytest.mark.parametrize("name", NAMES)
def test_a_function_named_like_a_generated_name_computes_right(name):
    f = rt.function(_body, name=name)
    np.testing.assert_allclose(f(X).numpy(), _expected(X), rtol=1e-6)
    np.testing.assert_allclose(f(X * 3).numpy(), _expected(X * 3), rtol=1e-6)


@pytest.mark.parametrize("name", ["c1", "v0", "np", "a0", "t3"])
def test_a_python_function_with_such_a_name_computes_right(name):
    namespace = {"rt": rt, "_body": _body}
    exec(f"def {name}(x):\n    return _body(x)\n", namespace)
    f = rt.function(namespace[name], autograph=False)
    np.testing.assert_allclose(f(X).numpy(), _expected(X), rtol=1e-6)


def test_an_ordinary_name_is_kept():
    def scale(x):
        return x * 2.0
    concrete = rt.function(scale).get_concrete_function(rt.TensorSpec([3]))
    assert concrete.generated_source.startswith("def scale(a0):")
