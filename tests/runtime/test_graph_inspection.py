"""Graph inspection (as_graph_def, get_operations, get_operation_by_name, inference_fn) and the
small TensorFlow names (newaxis, control_dependencies, ensure_shape, identity_n, group, tuple,
get_static_value, rt.config devices)."""

import numpy as np
import pytest

import runtime as rt

X = np.arange(6, dtype=np.float32).reshape(2, 3)


@rt.function
def _f(x, y):
    z = rt.matmul(x, y, transpose_b=True)
    return {"z": z, "s": rt.reduce_sum(z, axis=1)}


def _cf():
    return _f.get_concrete_function(rt.TensorSpec([2, 3]), rt.TensorSpec([2, 3]))


def test_as_graph_def_nodes():
    cf = _cf()
    gd = cf.graph.as_graph_def()
    ops = [n.op for n in gd.node]
    assert ops[:2] == ["Placeholder", "Placeholder"]
    assert len(gd.node) == len(cf.graph.get_operations()) + 2 == len(gd)
    by_name = {n.name: n for n in gd.node}
    mm = next(n for n in gd.node if n.op == "MatMul")
    assert mm.input == [gd.node[0].name, gd.node[1].name]
    assert mm.attr["transpose_b"] is True and mm.attr["_output_shapes"] == [[2, 2]]
    s = next(n for n in gd.node if n.op == "Sum")
    assert s.input == [mm.name] and by_name[mm.name] is mm
    text = str(gd)
    assert 'op: "MatMul"' in text and f'input: "{mm.name}"' in text
    assert str(cf.function_def) == text


def test_multi_output_inputs_are_named_with_an_index():
    @rt.function
    def f(x):
        a, b = rt.split(x, 2, axis=1) if False else rt.unstack(x)
        return b - a
    gd = f.get_concrete_function(rt.constant(X)).graph.as_graph_def()
    sub = next(n for n in gd.node if n.op == "Sub")
    assert sub.input[0].endswith(":1") and ":" not in sub.input[1]


def test_nested_bodies_in_the_library():
    @rt.function
    def f(x):
        return rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
    gd = f.get_concrete_function(rt.constant(X)).graph.as_graph_def()
    node = next(n for n in gd.node if n.op == "If")
    assert all(name in gd.library for name in node.attr["branches"])
    assert any(n.op == "Neg" for body in gd.library.values() for n in body.node)


def test_operations():
    cf = _cf()
    ops = cf.graph.get_operations()
    assert [op.type for op in ops][:1] == ["MatMul"]
    mm = cf.graph.get_operation_by_name(ops[0].name)
    assert mm is ops[0] and mm.inputs == list(cf.graph.inputs) and mm.outputs[0].shape == [2, 2]
    assert cf.graph.get_tensor_by_name(mm.name + ":0") is mm.outputs[0]
    with pytest.raises(KeyError):
        cf.graph.get_operation_by_name("nope")


def test_inference_fn_and_signatures():
    cf = _cf()
    flat = cf.inference_fn(rt.constant(X), rt.constant(X))
    np.testing.assert_allclose(flat[0].numpy(), (X @ X.T).sum(1))  # dict keys sorted: s, z
    np.testing.assert_allclose(flat[1].numpy(), X @ X.T)
    args, kwargs = cf.structured_input_signature
    assert [a.shape.as_list() for a in args] == [[2, 3], [2, 3]] and kwargs == {}
    assert set(cf.structured_outputs) == {"z", "s"}
    with pytest.raises(TypeError, match="flat"):
        cf.inference_fn(rt.constant(X))


def test_config_devices():
    cpus = rt.config.list_physical_devices()
    assert len(cpus) == 1 and cpus[0].name == "/physical_device:CPU:0"
    assert cpus[0].device_type == "CPU" and rt.config.list_physical_devices("CPU") == cpus
    assert rt.config.list_physical_devices("GPU") == []
    assert rt.config.list_logical_devices("GPU") == []
    assert rt.config.list_logical_devices()[0].device_type == "CPU"
    rt.config.experimental.set_memory_growth(cpus[0], True)
    assert rt.config.experimental.get_memory_growth(cpus[0]) is True
    with pytest.raises(ValueError, match="device"):
        rt.config.experimental.set_memory_growth("gpu", True)
    assert rt.config.functions_run_eagerly() is False
    rt.config.run_functions_eagerly(True)
    try:
        assert rt.config.functions_run_eagerly() is True and rt.functions_run_eagerly() is True
    finally:
        rt.config.run_functions_eagerly(False)


def test_small_names():
    assert rt.newaxis is None
    assert rt.constant(X)[:, rt.newaxis].shape == [2, 1, 3]
    assert rt.executing_eagerly()
    a, b = rt.identity_n([rt.constant(1.0), rt.constant(2)])
    assert float(a) == 1.0 and int(b) == 2
    assert rt.group(a, b) is None and rt.no_op() is None
    assert [float(t) for t in rt.tuple([a, a])] == [1.0, 1.0]
    np.testing.assert_array_equal(rt.get_static_value(rt.constant(X)), X)
    with pytest.raises(TypeError):
        rt.identity_n(rt.constant(1.0))


def test_get_static_value_staged():
    seen = {}

    @rt.function(input_signature=[rt.TensorSpec([None, 3])])
    def f(x):
        seen["const"] = rt.get_static_value(rt.constant([1, 2]))
        seen["x"] = rt.get_static_value(x)
        seen["shape"] = rt.get_static_value(rt.shape(rt.zeros([4, 5])))
        return x
    f(rt.constant(X))
    np.testing.assert_array_equal(seen["const"], [1, 2])
    assert seen["x"] is None
    np.testing.assert_array_equal(seen["shape"], [4, 5])


def test_control_dependencies_orders_effects(capsys):
    @rt.function
    def f(x):
        with rt.control_dependencies([rt.print("first")]):
            rt.print("second")
            return rt.identity(x)
    f(rt.constant(1.0))
    assert capsys.readouterr().out == "first\nsecond\n"
    with rt.control_dependencies(None):
        assert float(rt.constant(1.0)) == 1.0
    with pytest.raises(TypeError, match="control_inputs"):
        with rt.control_dependencies(3):
            pass


@pytest.mark.parametrize("jit", [False, True])
def test_ensure_shape(jit):
    f = rt.function(lambda x: rt.ensure_shape(x, [2, None]) * 2.0, jit_compile=jit,
                    input_signature=[rt.TensorSpec([None, 3])])
    assert f.get_concrete_function().structured_outputs.shape == [2, 3]
    np.testing.assert_allclose(f(rt.constant(X)).numpy(), 2 * X)
    with pytest.raises(rt.errors.InvalidArgumentError, match="expected shape"):
        f(rt.constant(np.ones((4, 3), np.float32)))
    with pytest.raises(ValueError, match="not compatible"):
        rt.function(lambda x: rt.ensure_shape(x, [2, 4]))(rt.constant(X))
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.ensure_shape(rt.constant(X), [3, None])
    assert rt.ensure_shape(rt.constant(X), [None, 3]).shape == [2, 3]


def test_inference_fn_of_one_output_returns_the_tensor():
    double = rt.function(lambda s: s + s).get_concrete_function(rt.constant("a"))
    out = double.inference_fn(rt.constant("a"))
    assert isinstance(out, rt.Tensor) and out.numpy() == b"aa"
