"""The Numba tier's kernels name no local with a trailing digit.

Numba names the temporary of each load of a local `$<name><bytecode offset>.<n>`, so with names
such as `l3` and `l34` a load of `l3` at offset 4648 and one of `l34` at offset 648 share a
temporary: one is lost and type inference fails ("Type of variable '$l34648.2' cannot be
determined"), depending on the Python version's bytecode offsets (seen on Python 3.10 with a
second derivative through a vector loop, a kernel split into parts). Oracle: Python's own
tokenizer reading the generated source, and the compiled values against the NumPy tier.
"""

from __future__ import annotations

import io
import re
import tokenize

import numpy as np
import pytest

import runtime as rt

pytest.importorskip("numba")

_ENDS_IN_DIGIT = re.compile(r"[a-z]+\d+$")


def _local_names_ending_in_a_digit(source: str) -> set[str]:
    """Names in `source` that end in a digit, other than attributes and the parts' names."""
    found, previous = set(), None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if (token.type == tokenize.NAME and _ENDS_IN_DIGIT.match(token.string)
                and previous != "." and not re.fullmatch(r"part\d+", token.string)):
            found.add(token.string)
        if token.type not in (tokenize.NL, tokenize.COMMENT):
            previous = token.string
    return found


def _vector_loop_second_derivative(x):
    def body(i, h):
        s = rt.reduce_sum(h * x)
        return i + 1, rt.tanh(h * x[::-1] + 0.1 * s)

    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.while_loop(lambda i, h: i < 4, body, (0, x))[1] ** 2)
        g = inner.gradient(y, x)
        z = rt.reduce_sum(g * g)
    return g, outer.gradient(z, x)


def _small(x):
    return rt.sqrt(x * 2.0 + 1.0) - rt.reduce_max(x, axis=0, keepdims=True)


@pytest.mark.parametrize("fn, x", [
    (_small, np.linspace(0.0, 1.0, 12).reshape(3, 4)),
    (_vector_loop_second_derivative, np.array([0.3, -0.8, 1.2])),
])
def test_kernels_compile_with_unambiguous_names(fn, x):
    compiled = rt.function(fn, jit_compile=True, autograph=False)
    plain = rt.function(fn, autograph=False)
    got = compiled(rt.constant(x))
    source = compiled.get_concrete_function(rt.constant(x)).generated_source
    assert "@numba.njit" in source
    assert _local_names_ending_in_a_digit(source) == set()
    for a, b in zip(rt.nest.flatten(got), rt.nest.flatten(plain(rt.constant(x)))):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-12, atol=1e-12)


def test_the_vector_loop_kernel_is_split_into_parts():
    """The case that failed was a kernel compiled in parts: its parts' names are renamed too."""
    f = rt.function(_vector_loop_second_derivative, jit_compile=True, autograph=False)
    source = f.get_concrete_function(rt.constant(np.array([0.3, -0.8, 1.2]))).generated_source
    assert "def part0(" in source
    assert _local_names_ending_in_a_digit(source) == set()
