"""Staged behaviour through `rt.function`: what becomes cond/while ops, and the corners."""

from __future__ import annotations

import importlib.util
import signal

import pytest

import autograph as ag
import runtime as rt


def op_types(fn, *specs):
    graph = rt.function(fn).get_concrete_function(*specs).graph
    types = []

    def walk(g):
        for op in g.operations:
            types.append(op.type)
            for sub in getattr(op, "subgraphs", None) or ():
                walk(sub)
    walk(graph)
    return types


INT = rt.TensorSpec([], rt.int32)


def test_tensor_loops_are_staged_not_unrolled():
    def f(n):
        s = 0
        for i in range(n):
            if i % 2 == 0:
                s += i
        return s

    types = op_types(f, INT)
    assert types.count("While") == 1 and types.count("If") == 1


def test_python_control_flow_is_baked_in():
    def f(x, mode):
        if mode == "double":
            x = x * 2
        for _ in range(3):
            x = x + 1
        return x

    types = op_types(f, INT, "double")
    assert "If" not in types and "While" not in types
    assert rt.function(f)(rt.constant(1), "double").numpy() == 5


def test_list_built_in_staged_loop_is_a_tensor_array():
    def f(n):
        values = []
        i = 0
        while i < n:
            values.append(i * 2)
            i += 1
        return rt.stack(values), len(values)

    g = rt.function(f)
    stacked, size = g(rt.constant(4))
    assert stacked.numpy().tolist() == [0, 2, 4, 6] and size.numpy() == 4
    stacked, size = g(rt.constant(2))
    assert stacked.numpy().tolist() == [0, 2] and g.experimental_get_tracing_count() == 1


def test_list_with_initial_elements_and_pop():
    def f(n):
        values = [rt.constant(10)]
        for i in range(n):
            values.append(i)
        last = values.pop()
        return rt.stack(values), last

    stacked, last = rt.function(f)(rt.constant(3))
    assert stacked.numpy().tolist() == [10, 0, 1] and last.numpy() == 2


def test_maximum_iterations():
    def f(n):
        i = 0
        while i < n:
            ag.experimental.set_loop_options(maximum_iterations=3)
            i += 1
        return i

    assert rt.function(f)(rt.constant(10)).numpy() == 3


def test_nested_loops_with_return_two_levels_deep():
    def f(m):
        for i in range(m):
            for j in range(m):
                if i * j == 6:
                    return i * 10 + j
        return -1

    g = rt.function(f)
    assert g(rt.constant(5)).numpy() == 23
    assert g(rt.constant(2)).numpy() == -1
    assert g.experimental_get_tracing_count() == 1


def test_while_else_and_for_else_with_staged_break():
    def f(xs, t):
        for x in xs:
            if x == t:
                result = x * 100
                break
        else:
            result = -1
        i = 0
        while i < 10:
            if i == t:
                break
            i += 1
        else:
            i = 99
        return result, i

    g = rt.function(f)
    for t in (2, 7, 12):
        assert [v.numpy() for v in g(rt.constant([1, 2, 3]), rt.constant(t))] == list(f([1, 2, 3], t))
    assert g.experimental_get_tracing_count() == 1


def test_staged_and_or_are_lazy():
    def f(x, i):
        return x > 0 and rt.gather(rt.constant([1, 2, 3]), i) > 1

    g = rt.function(f)
    assert bool(g(rt.constant(1), rt.constant(2)).numpy())
    assert not bool(g(rt.constant(-1), rt.constant(2)).numpy())


def test_composite_names_as_loop_variables():
    class State:
        def __init__(self):
            self.total = rt.constant(0)

    def f(n):
        s = State()
        d = {"count": 0}
        for i in range(n):
            s.total = s.total + i
            d["count"] += 1
        return s.total, d["count"]

    total, count = rt.function(f)(rt.constant(4))
    assert total.numpy() == 6 and count.numpy() == 4


def test_zip_and_enumerate_of_tensors():
    def f(xs, ys):
        s = 0.0
        for i, (x, y) in enumerate(zip(xs, ys)):
            s += rt.cast(i, rt.float32) * x * y
        return s

    out = rt.function(f)(rt.constant([1.0, 2.0, 3.0]), rt.constant([1.0, 1.0, 2.0]))
    assert out.numpy() == pytest.approx(0 + 2 + 12)


def test_conditional_expression_and_chained_comparison_staged():
    def f(x):
        a = 1 if 0 < x < 10 else 2
        return a

    types = op_types(f, INT)
    assert "If" in types
    g = rt.function(f)
    assert g(rt.constant(5)).numpy() == 1 and g(rt.constant(50)).numpy() == 2


def test_print_inside_staged_loop_prints_every_run_with_staged_print(capsys):
    def f(n):
        for i in range(n):
            print("i =", i)
        return n

    g = rt.function(f, experimental_autograph_options=ag.experimental.Feature.STAGED_PRINT)
    g(rt.constant(2))
    g(rt.constant(3))
    assert capsys.readouterr().out == "i = 0\ni = 1\ni = 0\ni = 1\ni = 2\n"


def test_print_runs_once_per_trace_and_rt_print_at_every_call(capsys):
    def f(x, n):
        print("traced with", x)
        rt.print("running with", x)
        for i in range(n):
            print("step", i)
        return x + 1

    g = rt.function(f)
    g(rt.constant(2), rt.constant(2))
    g(rt.constant(3), rt.constant(2))   # same signature: no trace, so no Python print
    out = capsys.readouterr().out.splitlines()
    traced = [line for line in out if line.startswith("traced with")]
    steps = [line for line in out if line.startswith("step")]
    assert len(traced) == 1 and traced[0].startswith("traced with Tensor(\"x:0\"")  # symbolic (TF's text)
    assert len(steps) == 1                  # the staged loop's body is traced once
    assert [line for line in out if line.startswith("running with")] == [
        "running with 2", "running with 3"]
    g(rt.constant([1, 2]), rt.constant(2))  # a new signature: a new trace prints again
    assert sum(line.startswith("traced with") for line in capsys.readouterr().out.splitlines()) == 1


def test_print_in_a_python_loop_prints_at_trace_time_per_iteration(capsys):
    def f(x):
        for i in range(2):
            print("unrolled", i)
        return x

    g = rt.function(f)
    g(rt.constant(1.0))
    g(rt.constant(2.0))
    assert capsys.readouterr().out == "unrolled 0\nunrolled 1\n"


def test_feature_all_leaves_print_as_python(capsys):
    def f(x):
        print("traced")
        return x

    g = rt.function(f, experimental_autograph_options=ag.experimental.Feature.ALL)
    g(rt.constant(1.0))
    g(rt.constant(2.0))
    assert capsys.readouterr().out == "traced\n"


def test_methods_under_rt_function():
    class Model:
        def __init__(self):
            self.scale = 3

        @rt.function
        def apply(self, x):
            if x > 0:
                return x * self.scale
            return -x

    m = Model()
    assert m.apply(rt.constant(2)).numpy() == 6 and m.apply(rt.constant(-2)).numpy() == 2


def test_eager_tensors_through_to_graph():
    def f(x):
        while x < 10:
            x = x * 2
        return x

    assert ag.to_graph(f)(rt.constant(3)).numpy() == 12


# -- loops whose condition or variables turn from Python values into tensors -------------------

def _run_with_alarm(fn, *args):
    """Calls `fn`, failing (instead of hanging) after 20 seconds where SIGALRM exists."""
    if not hasattr(signal, "SIGALRM"):
        return fn(*args)

    def stop(*_):
        raise TimeoutError("the staged loop did not finish")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(20)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_while_condition_from_python_true_to_tensor_terminates_like_python():
    def f(n):
        c = True
        i = 0
        while c:
            i = i + 1
            c = i < n
        return i, c

    def g(x):
        c = True
        while c:
            x = x * 2
            c = rt.reduce_sum(x) < 100
        return x

    for n in (0, 1, 3):
        i, c = _run_with_alarm(rt.function(f), rt.constant(n))
        assert (i.numpy(), bool(c.numpy())) == (f(n)[0], f(n)[1])
    out = _run_with_alarm(rt.function(g), rt.constant([1.0, 2.0]))
    assert out.numpy().tolist() == g(rt.constant([1.0, 2.0])).numpy().tolist() == [64.0, 128.0]


@pytest.mark.parametrize("before, message", [
    ("x = 0", "'x'"),                 # a Python int, then float tensors of growing shape
    ("x = 1.0", "'x'"),               # a Python float, then tensors of growing shape
    ("x = rt.constant([1.0])", "'x'"),
])
def test_loop_variable_python_before_and_varying_tensor_inside_is_an_error_naming_it(
        tmp_path, before, message):
    path = tmp_path / "loop_var_mod.py"
    path.write_text(
        "import runtime as rt\n\n"
        "def f(n):\n"
        f"    {before}\n"
        "    for i in rt.range(n):\n"
        "        x = rt.ones([i + 1])\n"
        "    return x\n")
    spec = importlib.util.spec_from_file_location("loop_var_mod", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises((TypeError, ValueError)) as info:
        _run_with_alarm(rt.function(module.f), rt.constant(3))
    assert message in str(info.value) and "loop variable" in str(info.value)


def test_imbalanced_conditional_expression_under_staged_condition_is_a_value_error():
    def f(x, t):
        y = x if t > 0 else None
        return y

    with pytest.raises(ValueError, match="None"):
        rt.function(f)(rt.constant(1.0), rt.constant(1.0))
