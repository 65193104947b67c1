"""Dtypes, shapes, specs and tensors (eager and symbolic)."""

import numpy as np
import pytest

import runtime as rt


def test_dtypes_have_names_numpy_types_and_kinds():
    for dtype, np_type in [(rt.float16, np.float16), (rt.float32, np.float32), (rt.float64, np.float64),
                           (rt.int8, np.int8), (rt.int16, np.int16), (rt.int32, np.int32),
                           (rt.int64, np.int64), (rt.uint8, np.uint8), (rt.bool_, np.bool_),
                           (rt.complex64, np.complex64), (rt.complex128, np.complex128)]:
        assert isinstance(dtype, rt.DType)
        assert dtype.as_numpy_dtype is np_type
        assert rt.as_dtype(np_type) is dtype
        assert rt.as_dtype(dtype.name) is dtype
    assert rt.float32.is_floating and not rt.float32.is_integer
    assert rt.int32.is_integer and not rt.int32.is_floating
    assert rt.bool is rt.bool_
    assert rt.float32.name == "float32"


def test_unknown_dtype_is_a_type_error():
    with pytest.raises(TypeError):
        rt.as_dtype("float31")
    with pytest.raises(TypeError):
        rt.constant(1.0, dtype="not-a-dtype")
    with pytest.raises(TypeError):
        rt.zeros([2], dtype=object())


def test_python_and_numpy_values_get_the_documented_dtypes():
    assert rt.constant(1).dtype is rt.int32
    assert rt.constant(1.0).dtype is rt.float32
    assert rt.constant(True).dtype is rt.bool_
    assert rt.constant([1, 2]).dtype is rt.int32
    assert rt.constant([[1.0, 2]]).dtype is rt.float32
    assert rt.constant(np.float64(1.0)).dtype is rt.float64
    assert rt.constant(np.arange(3, dtype=np.int16)).dtype is rt.int16
    assert rt.convert_to_tensor(np.ones(2, np.uint8)).dtype is rt.uint8
    assert rt.constant(2, dtype=rt.float64).dtype is rt.float64
    assert rt.constant(0, shape=[2, 3]).numpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    assert rt.constant([1, 2, 3, 4], shape=[2, 2]).shape.as_list() == [2, 2]


def test_tensor_shape_with_unknown_dims():
    s = rt.TensorShape([None, 3])
    assert s.rank == 2 and s.as_list() == [None, 3] and not s.is_fully_defined()
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert not s.is_compatible_with([5, 3, 1])
    assert rt.TensorShape(None).rank is None
    assert rt.TensorShape(None).is_compatible_with([1, 2, 3])
    assert rt.TensorShape([2, 3]).most_specific_common_supertype([rt.TensorShape([4, 3])]) == \
        rt.TensorShape([None, 3])
    assert rt.TensorShape([2]).most_specific_common_supertype([rt.TensorShape([2, 1])]).rank is None
    assert rt.TensorShape([1, 2]) == [1, 2]


def test_tensor_spec():
    spec = rt.TensorSpec([None, 2], rt.float32, name="x")
    assert spec.shape == rt.TensorShape([None, 2]) and spec.dtype is rt.float32 and spec.name == "x"
    assert spec == rt.TensorSpec([None, 2], rt.float32, "x")
    assert len({spec, rt.TensorSpec([None, 2], rt.float32, "x")}) == 1
    assert spec.is_compatible_with(rt.ones([5, 2]))
    assert not spec.is_compatible_with(rt.ones([5, 3]))
    assert not spec.is_compatible_with(rt.ones([5, 2], rt.int32))
    assert spec.is_compatible_with(rt.TensorSpec([3, 2], rt.float32))
    assert rt.TensorSpec([]).dtype is rt.float32


def test_eager_tensor_behaves_like_its_value():
    t = rt.constant([[1.5, 2.0], [3.0, 4.0]])
    assert str(t) == f"rt.Tensor(\n{t.numpy()}, shape=(2, 2), dtype=float32)"  # TF's form
    assert "shape=(2, 2)" in repr(t) and "float32" in repr(t)
    np.testing.assert_array_equal(np.asarray(t), t.numpy())
    assert len(t) == 2
    assert [row.numpy().tolist() for row in t] == [[1.5, 2.0], [3.0, 4.0]]
    assert t[1, 0].numpy() == 3.0
    assert bool(rt.constant(1)) and not bool(rt.constant(0))
    assert float(rt.constant(2.5)) == 2.5 and int(rt.constant(3)) == 3
    assert list(range(10))[rt.constant(2)] == 2
    with pytest.raises(TypeError):
        hash(t)
    assert (t == t).numpy().all()
    assert t.shape == rt.TensorShape([2, 2]) and t.dtype is rt.float32
    assert rt.is_tensor(t) and not rt.is_tensor(np.ones(2))
    assert str(rt.constant(3)) == "rt.Tensor(3, shape=(), dtype=int32)"
    assert (t != None)  # noqa: E711 - comparing with None is not elementwise


def test_numpy_arrays_on_the_left_defer_to_tensors():
    out = np.ones(2, np.float32) + rt.constant([1.0, 2.0])
    assert isinstance(out, rt.Tensor)
    assert out.numpy().tolist() == [2.0, 3.0]


def test_symbolic_tensor_refuses_python_bool_with_an_explanation():
    @rt.function(autograph=False)
    def f(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(rt.errors.OperatorNotAllowedInGraphError) as info:
        f(rt.constant(1.0))
    assert isinstance(info.value, TypeError)
    assert "autograph" in str(info.value)


def test_symbolic_tensor_properties():
    seen = {}

    @rt.function(autograph=False)
    def f(x):
        y = x * 2
        seen["y"] = y
        with pytest.raises(NotImplementedError):
            y.numpy()
        return y

    f(rt.ones([3]))
    y = seen["y"]
    assert y.shape.as_list() == [3] and y.dtype is rt.float32
    assert y.name == "Mul:0" and y.op.type == "Mul"
    assert "Mul" in repr(y)
    with pytest.raises(TypeError, match="outside"):
        rt.add(y, 1.0)


def test_graph_operations_have_names_types_inputs_outputs_and_devices():
    @rt.function(autograph=False)
    def f(x, y):
        return rt.matmul(x, y) + 1.0

    graph = f.get_concrete_function(rt.ones([2, 3]), rt.ones([3, 4])).graph
    types = [op.type for op in graph.operations]
    assert "MatMul" in types and "Add" in types
    matmul = graph.get_operation_by_name("MatMul")
    assert matmul.inputs[0] is graph.inputs[0]
    assert matmul.outputs[0].shape.as_list() == [2, 4]
    assert matmul.device == ""
    assert len(graph.outputs) == 1
    listing = str(graph)
    assert "MatMul(%x, %y)" in listing and "f32[2,4]" in listing
    dot = graph.to_dot()
    assert dot.startswith("digraph") and '"MatMul"' in dot
