"""Division writes into a dying temporary like the other elementwise ops, also as the last op."""

import numpy as np

import runtime as rt


def test_a_final_division_reuses_the_dying_buffer_and_matches_numpy():
    @rt.function
    def chain(x):
        return rt.sqrt(rt.abs(x * 2.0 - 1.0)) / 2.0

    x = np.linspace(-3, 3, 4096, dtype=np.float32)
    np.testing.assert_array_equal(chain(x).numpy(), np.sqrt(np.abs(x * np.float32(2) - 1)) / 2)
    source = chain.get_concrete_function(x).generated_source
    assert "np.true_divide(" in source and "out=" in source.splitlines()[-3]


def test_small_integer_division_keeps_float32_and_allocates():
    @rt.function
    def halve(x):
        return (x + x) / x

    x = np.arange(1, 4097, dtype=np.int16)
    result = halve(x).numpy()
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, np.full(4096, 2.0, np.float32))
