"""Each row of docs/limitations.md, run: it fails the way the page says."""

import logging
import pathlib
import re

import numpy as np
import pytest

import runtime as rt

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "limitations.md"


def staged(fn, *args):
    return rt.function(fn)(*args)


def not_converted(x):
    if x > 0:
        return x
    return -x


def one_branch(x):
    if x > 0:
        y = x
    return y  # noqa: F821 - the limitation under test


def dtype_changes(x):
    i = rt.constant(0)
    while i < 3:
        i = rt.cast(i, rt.float32) + 0.5
    return i


def shape_changes(x):
    i = 0
    while x[0] < 3.0:
        x = rt.concat([x, x], 0)
        i += 1
    return x


def zero_trip(n):
    i = 0
    while i < n:
        late = i * 2
        i += 1
    return late  # noqa: F821


def structure_differs(x):
    if x > 0:
        y = None
    else:
        y = x
    return y


def read_before_assigned(n):
    i = 0
    while i < n:
        a = a + 1  # noqa: F821, F841 - the limitation under test
        i += 1
    return i


COUNTER = 0


def assigns_global(x):
    global COUNTER
    if x > 0:
        COUNTER = x
    return x


def staged_raise(x):
    if x < 0:
        raise ValueError("negative input")
    return x


def caught_staged_raise(x):
    try:
        if x < 0:
            raise KeyError("negative")
        y = x
    except KeyError:
        y = -x
    return y


def sorts(x):
    return sorted(x)


def generator(x):
    yield x


def second_derivative(x):
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, rt.sin(y) * x), [0, x])[1]
        g = inner.gradient(y, x)
    return outer.gradient(g, x)


def third_derivative(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        d2 = second_derivative(x)
    return tape.gradient(d2, x)


def prints(x):
    rt.print(x)
    return x + 1


def to_half(x):
    return rt.cast(x * 2.0, rt.float16)  # the Numba tier holds no float16 values


def return_in_finally(x):
    try:
        assert x > 0
    finally:
        return 1  # noqa: B012 - the limitation under test


def append_then_return(items, x):
    for i in range(3):
        if x > i:
            return rt.stack(items) if items else x
        items.append(x)
    return rt.stack(items)


def complex_gradient():
    v = rt.Variable(1.0)
    with rt.GradientTape() as tape:
        c = rt.cast(v, rt.complex64) * rt.constant(1 + 2j, dtype=rt.complex64)
        y = rt.reduce_sum(rt.cast(c, rt.float32))
    return tape.gradient(y, v)


def gathers_past_the_end(x):
    return rt.gather(x, rt.constant([5]))


def condition_becomes_a_true_tensor():
    c = True
    while c:
        c = rt.constant(True)
    return c


def unbalanced_ternary(x):
    parts = rt.unstack(x) if rt.size(x) > 0 else []
    return len(parts)


def unavailable_source():
    namespace = {"rt": rt}
    exec("def hidden(x):\n    return x * 2\n", namespace)  # no linecache entry: no source
    return rt.function(namespace["hidden"])


CASES = [  # (row keyword, callable, expected exception or "warning", text the error names)
    ("bool(t)", lambda: rt.function(not_converted, autograph=False)(rt.constant(1.0)),
     rt.errors.OperatorNotAllowedInGraphError, "autograph"),
    ("only one branch", lambda: staged(one_branch, rt.constant(1.0)), Exception, "'y'"),
    ("structure differs", lambda: staged(structure_differs, rt.constant(1.0)), ValueError, "'y'"),
    ("read in a staged loop before", lambda: staged(read_before_assigned, rt.constant(2)),
     UnboundLocalError, "'a'"),
    ("`global` variable", lambda: staged(assigns_global, rt.constant(1.0)), ValueError,
     "COUNTER"),
    ("`raise` under a staged `if`", lambda: staged(staged_raise, rt.constant(-1.0)), ValueError,
     "negative input"),
    ("`except` clause", lambda: staged(caught_staged_raise, rt.constant(1.0)), ValueError,
     "except"),
    ("`sorted(t)`", lambda: staged(sorts, rt.constant([2.0, 1.0])),
     rt.errors.OperatorNotAllowedInGraphError, "sorted"),
    ("dtype changes", lambda: staged(dtype_changes, rt.constant(1.0)), TypeError, "'i'"),
    ("shape changes", lambda: staged(shape_changes, rt.constant([1.0])), ValueError,
     "shape_invariants"),
    ("ran zero times", lambda: staged(zero_trip, rt.constant(0)), rt.errors.InvalidArgumentError,
     "late"),
    ("generator functions", lambda: staged(generator, rt.constant(1.0)), TypeError, "generator"),
    ("source cannot be found", lambda: unavailable_source()(rt.constant(1.0)), "warning",
     "hidden"),
    ("edited after", None, "warning", None),  # tests/reliability/test_stale_source.py
    ("unhashable", lambda: rt.function(lambda x, s: x)(rt.constant(1.0), {1}), TypeError, "'s'"),
    ("jit_compile", lambda: rt.function(to_half, jit_compile=True)(rt.constant(1.0)),
     NotImplementedError, "float16"),
    ("out-of-range index", lambda: rt.function(gathers_past_the_end, jit_compile="xla")(
        rt.constant([1.0, 2.0, 3.0])), rt.errors.InvalidArgumentError, "indices[0] = 5"),
    ("`rt.print`", lambda: rt.function(prints, jit_compile="xla")(rt.constant(1.0)),
     NotImplementedError, "PrintV2"),
    ("always `True`", lambda: staged(condition_becomes_a_true_tensor), NotImplementedError,
     "never end"),
    ("conditional expression", lambda: staged(unbalanced_ternary, rt.constant([1.0])),
     ValueError, "same nested structure"),
    ("`rt.cast` of NaN", None, None, None),  # tests/reliability/test_invalid_values.py
    ("third derivative", lambda: rt.function(third_derivative, jit_compile=True)(
        rt.constant(0.5)), NotImplementedError, "three times"),
    ("complex values", complex_gradient, NotImplementedError, "complex64"),
    ("bool tensors", lambda: rt.constant([True]) + 1, TypeError, "bool"),
    ("`finally:` clause", lambda: staged(return_in_finally, rt.constant(-1)),
     rt.errors.InvalidArgumentError, "assertion failed"),
    ("returns or breaks early", lambda: staged(append_then_return, [], rt.constant(1.0)),
     ValueError, "the return value"),
]


def test_every_row_of_the_page_is_covered():
    rows = [line for line in PAGE.read_text().splitlines()
            if line.startswith("| ") and not line.startswith("| situation")]
    assert len(rows) == len(CASES)
    for row, (keyword, *_rest) in zip(rows, CASES):
        assert keyword in row, (keyword, row)


@pytest.mark.parametrize("keyword,run,expected,names", [c for c in CASES if c[1] is not None],
                         ids=[c[0] for c in CASES if c[1] is not None])
def test_the_limitation_fails_as_documented(keyword, run, expected, names, caplog):
    if expected == "warning":
        with caplog.at_level(logging.WARNING):
            run()
        assert any(names in r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
        return
    with pytest.raises(expected) as info:
        run()
    assert re.search(re.escape(names), str(info.value)), str(info.value)


def test_first_derivatives_through_staged_loops_work():
    x = rt.constant(0.5)

    @rt.function
    def first(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])[1]
        return tape.gradient(y, x)
    np.testing.assert_allclose(float(first(x)), 4 * 0.5 ** 3, rtol=1e-6)


@pytest.mark.parametrize("jit_compile", [False, True, "xla"])
def test_second_derivatives_through_staged_loops_work_on_every_tier(jit_compile):
    """d2/dx2 of y with y <- sin(y) * x three times, against central differences of the
    eager first derivative (loops run as Python)."""
    pytest.importorskip({True: "numba", "xla": "jax"}.get(jit_compile, "numpy"))

    def first(v):
        x = rt.constant(v, rt.float64)
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(3):
                y = rt.sin(y) * x
        return float(tape.gradient(y, x))

    got = rt.function(second_derivative, jit_compile=jit_compile)(rt.constant(0.5, rt.float64))
    eps = 1e-6
    np.testing.assert_allclose(float(got), (first(0.5 + eps) - first(0.5 - eps)) / (2 * eps),
                               rtol=1e-6)
