"""Compiled functions: the cache key, signatures, methods, nests, threads, attributes."""

import collections
import gc
import logging
import pathlib
import subprocess
import sys
import threading
import weakref

import numpy as np
import pytest

import runtime as rt

Point = collections.namedtuple("Point", "x y")


def counted(fn, **kwargs):
    return rt.function(fn, autograph=False, **kwargs)


def test_tensors_key_by_shape_and_dtype():
    f = counted(lambda x: x * 2)
    f(rt.constant([1.0, 2.0]))
    f(rt.constant([3.0, 4.0]))
    assert f.experimental_get_tracing_count() == 1
    f(rt.constant([1, 2]))
    assert f.experimental_get_tracing_count() == 2
    f(rt.constant([[1.0, 2.0]]))
    assert f.experimental_get_tracing_count() == 3


def test_python_values_key_by_value_and_type():
    f = counted(lambda x, n: x * n)
    x = rt.constant(2.0)
    assert f(x, 3).numpy() == 6.0
    assert f(x, 3).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 1
    assert f(x, 4).numpy() == 8.0
    assert f.experimental_get_tracing_count() == 2
    f(x, 4.0)  # a float is a different key from an int
    assert f.experimental_get_tracing_count() == 3


def test_objects_key_by_identity():
    class Scale:
        def __init__(self, k):
            self.k = k

    f = counted(lambda x, s: x * s.k)
    a, b = Scale(2.0), Scale(2.0)
    f(rt.constant(1.0), a)
    f(rt.constant(1.0), a)
    f(rt.constant(1.0), b)
    assert f.experimental_get_tracing_count() == 2


def test_unhashable_argument_is_a_type_error_naming_it():
    f = counted(lambda x, opts: x)
    with pytest.raises(TypeError, match="opts"):
        f(rt.constant(1.0), {1, 2} if False else bytearray(b"ab"))


def test_nests_in_and_out():
    @rt.function(autograph=False)
    def f(pair, d, p):
        a, b = pair
        return {"sum": a + b + d["k"], "point": Point(p.x * 2, p.y), "list": [a, 3]}

    out = f((rt.constant(1.0), rt.constant(2.0)), {"k": rt.constant(3.0)},
            Point(rt.constant(1.0), rt.constant(5.0)))
    assert out["sum"].numpy() == 6.0
    assert isinstance(out["point"], Point)
    assert out["point"].x.numpy() == 2.0
    assert out["list"][1] == 3
    assert out["list"][0].numpy() == 1.0


def test_defaults_and_keyword_arguments_share_a_trace():
    @rt.function(autograph=False)
    def f(x, scale=2.0):
        return x * scale

    x = rt.constant(3.0)
    assert f(x).numpy() == 6.0
    assert f(x, 2.0).numpy() == 6.0
    assert f(x, scale=2.0).numpy() == 6.0
    assert f(x=x).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 1
    assert f(x, scale=3.0).numpy() == 9.0
    assert f.experimental_get_tracing_count() == 2


def test_tensor_keyword_arguments_work_on_the_fast_path():
    f = counted(lambda x, y: x - y)
    a, b = rt.constant(5.0), rt.constant(3.0)
    for _ in range(3):
        assert f(a, y=b).numpy() == 2.0
        assert f(y=a, x=b).numpy() == -2.0
    assert f.experimental_get_tracing_count() == 1


def test_input_signature_errors_name_argument_expected_and_received():
    @rt.function(input_signature=[rt.TensorSpec([None], rt.float32)])
    def f(x):
        return x + 1

    assert f(rt.constant([1.0])).numpy().tolist() == [2.0]
    assert f(np.array([1.0, 2.0], np.float32)).numpy().tolist() == [2.0, 3.0]
    with pytest.raises(ValueError, match=r"'x'.*float32.*int32|'x'.*int32"):
        f(rt.constant([1, 2]))
    with pytest.raises(ValueError, match=r"'x'"):
        f(rt.constant([[1.0]]))
    with pytest.raises(TypeError):
        f(rt.constant([1.0]), rt.constant([1.0]))
    assert f.experimental_get_tracing_count() == 1
    assert f.input_signature == (rt.TensorSpec([None], rt.float32),)


def test_input_signature_refuses_var_keyword():
    with pytest.raises((TypeError, ValueError), match="kwargs"):
        rt.function(lambda x, **kwargs: x, input_signature=[rt.TensorSpec([], rt.float32)])


def test_input_signature_converts_python_numbers():
    f = rt.function(lambda x: x * 2, input_signature=[rt.TensorSpec([], rt.float32)])
    assert f(3).numpy() == 6.0
    assert f(1.5).numpy() == 3.0
    assert f.experimental_get_tracing_count() == 1


def test_reduce_retracing_traces_at_most_twice_for_new_shapes():
    f = rt.function(lambda x: rt.reduce_sum(x), reduce_retracing=True, autograph=False)
    for n in range(2, 9):
        assert f(rt.ones([n])).numpy() == n
    assert f.experimental_get_tracing_count() <= 2
    general = f.get_concrete_function(rt.ones([3]))
    assert general.graph.inputs[0].shape.as_list() == [None]


def test_reduce_retracing_serves_later_2d_shapes_with_one_relaxed_graph():
    f = rt.function(lambda x: rt.reduce_sum(x), reduce_retracing=True, autograph=False)
    for shape in ([2, 3], [3, 3], [3, 4], [5, 6], [7, 2]):
        assert f(rt.ones(shape)).numpy() == np.prod(shape)
    assert f.experimental_get_tracing_count() <= 2
    assert f.get_concrete_function(rt.ones([4, 9])).graph.inputs[0].shape.as_list() == [None, None]


def test_reduce_retracing_keeps_the_shapes_that_do_not_change():
    f = rt.function(lambda x, w: rt.reduce_sum(x) + rt.reduce_sum(w), reduce_retracing=True,
                    autograph=False)
    w = rt.ones([4, 4])
    for n in (2, 3, 5):
        assert f(rt.ones([n, 3]), w).numpy() == 3 * n + 16
    assert f.experimental_get_tracing_count() == 2
    relaxed = f.list_concrete_functions()[-1].graph.inputs
    assert [t.shape.as_list() for t in relaxed] == [[None, None], [4, 4]]


def test_get_concrete_function_from_specs_serves_matching_calls():
    f = counted(lambda x: x * 2)
    concrete = f.get_concrete_function(rt.TensorSpec([None, 2], rt.float32))
    assert concrete.graph.inputs[0].shape.as_list() == [None, 2]
    np.testing.assert_allclose(concrete(rt.ones([3, 2])).numpy(), 2 * np.ones([3, 2]))
    f(rt.ones([5, 2]))
    assert f.experimental_get_tracing_count() == 1


def test_concrete_function_refuses_the_wrong_structure():
    f = counted(lambda pair: pair[0] + pair[1])
    concrete = f.get_concrete_function((rt.constant(1.0), rt.constant(2.0)))
    assert concrete((rt.constant(1.0), rt.constant(5.0))).numpy() == 6.0
    with pytest.raises(TypeError):
        concrete([rt.constant(1.0), rt.constant(2.0), rt.constant(3.0)])
    with pytest.raises(TypeError):
        concrete(rt.constant(1.0))


def test_concrete_function_describes_itself():
    @rt.function(autograph=False)
    def f(x, n):
        return x * n

    concrete = f.get_concrete_function(rt.constant([1.0, 2.0]), 3)
    text = concrete.pretty_printed_signature()
    assert "f(x, n)" in text and "float32" in text and "(2,)" in text and "3" in text
    assert isinstance(concrete.structured_input_signature[0][0], rt.TensorSpec)
    assert concrete.structured_outputs == rt.TensorSpec([2], rt.float32)
    assert "f(x, n)" in f.pretty_printed_concrete_signatures()
    assert f.python_function.__name__ == "f"


def test_methods_have_per_instance_caches_and_do_not_keep_instances_alive():
    class Scaler:
        def __init__(self, k):
            self.k = k

        @rt.function(autograph=False)
        def scale(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    x = rt.constant(1.0)
    assert a.scale(x).numpy() == 2.0
    assert b.scale(x).numpy() == 3.0
    assert a.scale(x).numpy() == 2.0
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is None


def test_concurrent_first_calls_trace_once():
    traces = []
    barrier = threading.Barrier(4)

    @rt.function(autograph=False)
    def f(x):
        traces.append(1)
        return x + 1

    results = []

    def worker():
        barrier.wait()
        results.append(f(rt.constant([1.0, 2.0])).numpy().tolist())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(traces) == 1
    assert results == [[2.0, 3.0]] * 4


def test_retracing_many_times_in_a_row_logs_a_warning(caplog):
    f = counted(lambda x, n: x * n)
    with caplog.at_level(logging.WARNING, logger="runtime"):
        for n in range(6):
            f(rt.constant(1.0), n)
    assert any("traced" in r.getMessage() for r in caplog.records)


def test_defun_with_attributes_allowlist():
    @rt.defun_with_attributes(attributes={"func_name": "my_func", "noinline": True,
                                          "implements": "scale"})
    def f(x):
        return x * 2

    concrete = f.get_concrete_function(rt.constant(1.0))
    assert concrete.name == "my_func"
    assert concrete.attributes == {"func_name": "my_func", "noinline": True, "implements": "scale"}
    with pytest.raises(ValueError, match="colour"):
        rt.defun_with_attributes(lambda x: x, attributes={"colour": "red"})
    with pytest.raises(ValueError):
        rt.defun_with_attributes(lambda x: x, attributes={"implements": ["a"]})


def test_jit_compile_false_runs_the_numpy_executor():
    f = rt.function(lambda x: x + 1, jit_compile=False)
    assert f(rt.constant(1)).numpy() == 2
    assert "numba" not in f.get_concrete_function(rt.constant(1)).generated_source


def test_decorator_forms():
    @rt.function
    def a(x):
        return x + 1

    @rt.function()
    def b(x):
        return x + 1

    @rt.defun
    def c(x):
        return x + 1

    for fn in (a, b, c):
        assert isinstance(fn, rt.Function)
        assert fn(rt.constant(1)).numpy() == 2


def test_compiled_functions_call_each_other():
    inner = counted(lambda x: x * 3)

    @rt.function(autograph=False)
    def outer(x):
        return inner(x) + 1

    assert outer(rt.constant(2.0)).numpy() == 7.0


def test_returned_variable_comes_back_as_a_tensor():
    v = rt.Variable([1.0, 2.0])
    f = counted(lambda: v)
    out = f()
    assert isinstance(out, rt.Tensor) and not isinstance(out, rt.Variable)
    v.assign([3.0, 4.0])
    assert f().numpy().tolist() == [3.0, 4.0]


def test_python_values_returned_pass_through():
    f = counted(lambda x: (x + 1, None, "tag", 3))
    out = f(rt.constant(1.0))
    assert out[0].numpy() == 2.0 and out[1:] == (None, "tag", 3)


def test_runtime_errors_in_graphs_are_invalid_argument_errors():
    f = counted(lambda m: rt.linalg.inv(m))
    with pytest.raises(rt.errors.InvalidArgumentError):
        f(np.zeros([2, 2], np.float32))


def test_generated_source_is_inspectable():
    f = counted(lambda x, y: rt.reduce_mean(rt.multiply(x ** 2, 3) + y))
    concrete = f.get_concrete_function(rt.ones([1, 2]), rt.ones([1, 2]))
    source = concrete.generated_source
    compile(source, "<generated>", "exec")
    assert "**" in source and "np." in source
    listing = str(concrete.graph)
    for op_type in ("Pow", "Mul", "Add", "Mean"):
        assert op_type in listing
    assert "f32[1,2]" in listing


def test_arrays_and_tensors_of_one_spec_share_a_trace_in_any_order():
    f = counted(lambda x: x + 1)
    a = np.ones([3], np.float32)
    for value in (a, rt.constant(a), a, rt.constant(a), np.float32(2.0) * a):
        np.testing.assert_allclose(np.asarray(f(value)), np.asarray(value) + 1)
    assert f.experimental_get_tracing_count() == 1


def test_the_log_says_why_a_function_retraced(caplog):
    f = counted(lambda x, n: x * n)
    with caplog.at_level(logging.INFO, logger="runtime"):
        f(rt.constant(1.0), 2)
        f(rt.constant(1.0), 3)
        f(rt.constant([1.0]), 3)
    messages = [r.getMessage() for r in caplog.records if "Tracing" in r.getMessage()]
    assert "first call" in messages[0]
    assert "'n' changed from 2 to 3" in messages[1]
    assert "'x' changed" in messages[2] and "(1,)" in messages[2]


def test_generated_function_is_named_after_the_python_function():
    f = counted(lambda x, n: x * n)
    concrete = rt.function(lambda x, n: x * n, name="scale", autograph=False).get_concrete_function(
        rt.constant(1.0), rt.constant(2.0))
    assert concrete.generated_source.startswith("def scale(a0, a1):")
    assert f(rt.constant(2.0), rt.constant(3.0)).numpy() == 6.0


def test_small_constant_expressions_are_folded_while_tracing():
    f = counted(lambda x: x * (rt.constant(2.0) * 3.0 + 1.0))
    concrete = f.get_concrete_function(rt.constant([1.0, 2.0]))
    assert [op.type for op in concrete.graph.operations if op.type != "Const"] == ["Mul"]
    assert f(rt.constant([1.0, 2.0])).numpy().tolist() == [7.0, 14.0]
    g = counted(lambda: rt.random.uniform([2]) * (rt.constant(1.0) + 1.0))
    assert "RandomUniform" in [op.type for op in g.get_concrete_function().graph.operations]


def test_argument_specs_from_text():
    from runtime.inspect_tools import parse_specs
    assert parse_specs("f32[None,3], i32[]") == [rt.TensorSpec([None, 3], rt.float32),
                                                  rt.TensorSpec([], rt.int32)]
    assert parse_specs("float64[?, 2]") == [rt.TensorSpec([None, 2], rt.float64)]
    for bad in ("f32", "f32[a]", "nope[1]"):
        with pytest.raises(ValueError):
            parse_specs(bad)


def test_the_converter_is_loaded_by_the_first_conversion_not_by_import():
    # `runtime.nest` is `autograph.nest`, a leaf module; the converter (`autograph.impl`)
    # loads only when a function is first converted.
    code = ("import sys, runtime as rt\n"
            "assert 'autograph.impl' not in sys.modules\n"
            "rt.function(autograph=False)(lambda x: x + 1)(rt.constant(1.0))\n"
            "assert 'autograph.impl' not in sys.modules\n")
    root = pathlib.Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
