"""rt.cond, rt.while_loop and rt.TensorArray: eager, staged, nested, and their errors."""

import collections

import numpy as np
import pytest

import runtime as rt


def staged(fn):
    return rt.function(fn, autograph=False)


# -- cond ------------------------------------------------------------------------------------

def test_cond_eager_calls_only_the_chosen_branch():
    calls = []
    out = rt.cond(rt.constant(True), lambda: calls.append("t") or 1, lambda: calls.append("f") or 2)
    assert out == 1 and calls == ["t"]


def test_cond_staged_serves_both_values_from_one_trace():
    f = staged(lambda x: rt.cond(x > 0, lambda: x * 2.0, lambda: x - 1.0))
    assert f(rt.constant(3.0)).numpy() == 6.0
    assert f(rt.constant(-3.0)).numpy() == -4.0
    assert f.experimental_get_tracing_count() == 1
    graph = f.get_concrete_function(rt.constant(1.0)).graph
    assert [op.type for op in graph.operations].count("If") == 1


def test_nested_cond_branch_may_return_an_outer_tensor_unchanged():
    def f(x):
        doubled = x + x  # read only by the innermost branch, which returns it as it is
        return rt.cond(x < 0, lambda: x, lambda: rt.cond(x < 1, lambda: x, lambda: doubled))

    def python(x):
        return x if x < 0 else (x if x < 1 else x + x)

    for value in (-2, 0, 3):
        assert staged(f)(rt.constant(value)).numpy() == python(value)


def test_cond_side_effects_run_only_in_the_taken_branch(capsys):
    v = rt.Variable(0.0)

    def true_fn():
        rt.print("true branch")
        v.assign_add(1.0)
        return rt.constant(1)

    def false_fn():
        rt.print("false branch")
        rt.debugging.assert_equal(1, 2)  # would fail if it ran
        return rt.constant(0)

    f = staged(lambda p: rt.cond(p, true_fn, false_fn))
    assert f(rt.constant(True)).numpy() == 1
    assert capsys.readouterr().out == "true branch\n"
    assert v.numpy() == 1.0
    with pytest.raises(rt.errors.InvalidArgumentError):
        f(rt.constant(False))
    assert capsys.readouterr().out == "false branch\n"
    assert v.numpy() == 1.0


def test_cond_returns_nests():
    Pair = collections.namedtuple("Pair", "a b")
    f = staged(lambda x: rt.cond(x > 0, lambda: Pair(x, [x + 1]), lambda: Pair(-x, [x - 1])))
    out = f(rt.constant(2.0))
    assert isinstance(out, Pair) and out.a.numpy() == 2.0 and out.b[0].numpy() == 3.0


def test_cond_branch_disagreements_name_the_output_and_both_sides():
    with pytest.raises(TypeError, match="structure"):
        staged(lambda x: rt.cond(x > 0, lambda: (x, x), lambda: x))(rt.constant(1.0))
    with pytest.raises(TypeError, match="output 0.*float32.*int32"):
        staged(lambda x: rt.cond(x > 0, lambda: x, lambda: rt.constant(1)))(rt.constant(1.0))
    with pytest.raises(ValueError, match=r"output 0.*\(2,\).*\(3,\)"):
        staged(lambda x: rt.cond(x[0] > 0, lambda: x[:2], lambda: x))(rt.constant([1.0, 2.0, 3.0]))


def test_cond_outputs_with_compatible_shapes_get_the_common_shape():
    f = staged(lambda x, n: rt.cond(n > 0, lambda: x[:n], lambda: x))
    concrete = f.get_concrete_function(rt.TensorSpec([4], rt.float32), rt.TensorSpec([], rt.int32))
    assert concrete.graph.outputs[0].shape.as_list() == [None]
    assert f(rt.constant([1.0, 2.0, 3.0, 4.0]), rt.constant(2)).numpy().tolist() == [1.0, 2.0]


# -- while_loop ---------------------------------------------------------------------------------

def loop_sum(n):
    return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))


def test_while_loop_eager_and_staged_agree_with_python():
    assert [int(v) for v in loop_sum(rt.constant(5))] == [5, 10]
    f = staged(loop_sum)
    for n in (0, 1, 7, 100):
        i, s = f(rt.constant(n))
        assert (int(i), int(s)) == (n, sum(range(n)))
    assert f.experimental_get_tracing_count() == 1


def test_while_loop_graph_does_not_grow_with_the_trip_count():
    f = staged(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * 0.5 + rt.cast(i, rt.float32)),
                                       (0, 0.0)))
    i, _ = f(rt.constant(100000))
    assert int(i) == 100000
    graph = f.get_concrete_function(rt.constant(1)).graph
    assert len(list(graph.all_operations())) < 40


def test_while_loop_zero_trips_returns_the_initial_values():
    f = staged(lambda x: rt.while_loop(lambda v: v < 0, lambda v: v + 1, [x]))
    assert f(rt.constant(5)).__class__ in (list, tuple)
    assert int(f(rt.constant(5))[0]) == 5


def test_while_loop_nests_as_loop_variables():
    State = collections.namedtuple("State", "step total")

    def body(state, extra):
        return State(state.step + 1, state.total + extra["w"]), {"w": extra["w"] * 2}

    f = staged(lambda: rt.while_loop(lambda s, e: s.step < 4, body,
                                     (State(rt.constant(0), rt.constant(0.0)), {"w": rt.constant(1.0)})))
    state, extra = f()
    assert isinstance(state, State)
    assert int(state.step) == 4 and float(state.total) == 15.0 and float(extra["w"]) == 16.0


def test_while_loop_shape_change_is_an_error_naming_the_variable_and_shapes():
    def grow(x):
        return rt.while_loop(lambda v: rt.size(v) < 10, lambda v: rt.concat([v, v], 0), [x],
                             loop_var_names=["v"])

    with pytest.raises(ValueError) as info:
        staged(grow)(rt.constant([1.0]))
    message = str(info.value)
    assert "'v'" in message and "(1,)" in message and "(2,)" in message and "shape_invariants" in message


def test_while_loop_shape_invariants_allow_growth():
    def grow(x):
        return rt.while_loop(lambda v: rt.size(v) < 10, lambda v: rt.concat([v, v], 0), [x],
                             shape_invariants=[rt.TensorShape([None])])

    out = staged(grow)(rt.constant([1.0]))[0]
    assert out.numpy().tolist() == [1.0] * 16
    assert int(rt.size(grow(rt.constant([1.0]))[0])) == 16


def test_while_loop_dtype_change_is_a_type_error():
    with pytest.raises(TypeError, match="dtype"):
        staged(lambda: rt.while_loop(lambda v: v < 3, lambda v: rt.cast(v, rt.float32), [rt.constant(0)]))()


def test_while_loop_maximum_iterations_caps_the_trip_count():
    f = staged(lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 1, [0], maximum_iterations=5))
    assert int(f(rt.constant(100))[0]) == 5
    assert int(f(rt.constant(3))[0]) == 3
    assert int(rt.while_loop(lambda i: i < 100, lambda i: i + 1, [0], maximum_iterations=7)[0]) == 7


def test_captures_from_outer_scopes_and_deep_nesting():
    def f(x, n):
        def outer_body(i, acc):
            def inner_body(j, a):
                return j + 1, rt.cond(j % 2 == 0, lambda: a + x, lambda: a - 1.0)
            _, acc = rt.while_loop(lambda j, a: j < i, inner_body, (0, acc))
            return i + 1, acc
        return rt.while_loop(lambda i, acc: i < n, outer_body, (0, rt.constant(0.0)))[1]

    def python(x, n):
        acc = 0.0
        for i in range(n):
            for j in range(i):
                acc = acc + x if j % 2 == 0 else acc - 1.0
        return acc

    g = staged(f)
    for x, n in ((1.5, 0), (1.5, 4), (-2.0, 6)):
        assert np.isclose(float(g(rt.constant(x), rt.constant(n))), python(x, n))
        assert np.isclose(float(f(rt.constant(x), rt.constant(n))), python(x, n))
    assert g.experimental_get_tracing_count() == 1


def test_loops_inside_conds_inside_loops():
    def f(n):
        def body(i, total):
            inner = rt.cond(i > 2,
                            lambda: rt.while_loop(lambda k, t: k < i, lambda k, t: (k + 1, t + k), (0, 0))[1],
                            lambda: rt.constant(-1))
            return i + 1, total + inner
        return rt.while_loop(lambda i, t: i < n, body, (0, 0))[1]

    expected = sum(sum(range(i)) if i > 2 else -1 for i in range(7))
    assert int(staged(f)(rt.constant(7))) == expected
    assert int(f(rt.constant(7))) == expected


# -- TensorArray ----------------------------------------------------------------------------------

def squares(n):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)

    def body(i, ta):
        return i + 1, ta.write(i, rt.cast(i * i, rt.float32))
    _, ta = rt.while_loop(lambda i, ta: i < n, body, (0, ta))
    return ta.stack()


def test_tensor_array_in_loops_eager_and_staged():
    np.testing.assert_array_equal(squares(rt.constant(4)).numpy(), [0, 1, 4, 9])
    f = staged(squares)
    np.testing.assert_array_equal(f(rt.constant(4)).numpy(), [0, 1, 4, 9])
    np.testing.assert_array_equal(f(rt.constant(6)).numpy(), [0, 1, 4, 9, 16, 25])
    assert f.experimental_get_tracing_count() == 1


def test_tensor_array_operations():
    for run in (lambda fn: fn(), lambda fn: staged(fn)()):
        def fn():
            ta = rt.TensorArray(rt.int32, size=3)
            ta = ta.write(0, [1, 2]).write(1, [3, 4]).write(2, [5, 6])
            return ta.read(1), ta.stack(), ta.gather([2, 0]), ta.concat(), ta.size()
        read, stacked, gathered, concat, size = run(fn)
        assert read.numpy().tolist() == [3, 4]
        assert stacked.numpy().tolist() == [[1, 2], [3, 4], [5, 6]]
        assert gathered.numpy().tolist() == [[5, 6], [1, 2]]
        assert concat.numpy().tolist() == [1, 2, 3, 4, 5, 6]
        assert int(size) == 3


def test_tensor_array_unstack_and_read_in_a_loop():
    def fn(x):
        ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True).unstack(x)
        return rt.while_loop(lambda i, s: i < rt.size(x), lambda i, s: (i + 1, s + ta.read(i)), (0, 0.0))[1]

    x = rt.constant([1.0, 2.0, 3.5])
    assert float(fn(x)) == 6.5
    assert float(staged(fn)(x)) == 6.5


def test_tensor_array_errors():
    ta = rt.TensorArray(rt.float32, size=2)
    ta = ta.write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match="shape"):
        ta.write(1, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="dtype"):
        ta.write(1, rt.constant([1, 2]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        ta.read(1)
    with pytest.raises(rt.errors.InvalidArgumentError):
        ta.write(5, [1.0, 1.0])

    @rt.function(autograph=False)
    def unwritten():
        t = rt.TensorArray(rt.float32, size=3)
        t = t.write(0, 1.0)
        return t.read(2)

    with pytest.raises(rt.errors.InvalidArgumentError, match="not been written"):
        unwritten()


def test_executor_lowers_control_flow_to_python_if_and_while():
    source = staged(lambda x: rt.cond(x > 0, lambda: x, lambda: -x)).get_concrete_function(
        rt.constant(1.0)).generated_source
    assert "\n    if " in source and "else:" in source
    source = staged(loop_sum).get_concrete_function(rt.constant(1)).generated_source
    assert "while " in source


def test_dot_draws_branch_and_loop_bodies_as_clusters():
    f = staged(lambda x, n: rt.cond(x > 0, lambda: loop_sum(n)[1], lambda: n))
    dot = f.get_concrete_function(rt.constant(1.0), rt.constant(3)).graph.to_dot()
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert dot.count("subgraph cluster_") == 4     # two branches, and the loop's cond and body
    assert "cond_true" in dot and "while_body" in dot
