"""Every op against NumPy, eagerly and inside a compiled function (with an unknown batch dim)."""

import numpy as np
import pytest

import runtime as rt

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal((3, 4)).astype(np.float32)
POS = (np.abs(A) + 0.5).astype(np.float32)
ROW = rng.standard_normal((4,)).astype(np.float32)
SQ = (rng.standard_normal((3, 3)) + 3 * np.eye(3)).astype(np.float32)
I = np.array([[1, 2, 3], [4, 5, 6]], np.int32)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# (name, rt function, numpy oracle, inputs)
CASES = [
    ("add", rt.add, np.add, (A, B)),
    ("add_broadcast", rt.add, np.add, (A, ROW)),
    ("subtract", rt.subtract, np.subtract, (A, B)),
    ("multiply", rt.multiply, np.multiply, (A, B)),
    ("divide", rt.divide, np.divide, (A, POS)),
    ("floordiv", rt.floordiv, np.floor_divide, (I, np.full_like(I, 4))),
    ("mod", rt.mod, np.mod, (I, np.full_like(I, 4))),
    ("pow", rt.pow, np.power, (POS, B)),
    ("negative", rt.negative, np.negative, (A,)),
    ("abs", rt.abs, np.abs, (A,)),
    ("sign", rt.sign, np.sign, (A,)),
    ("sqrt", rt.sqrt, np.sqrt, (POS,)),
    ("rsqrt", rt.rsqrt, lambda x: 1 / np.sqrt(x), (POS,)),
    ("square", rt.square, np.square, (A,)),
    ("exp", rt.exp, np.exp, (A,)),
    ("log", rt.log, np.log, (POS,)),
    ("log1p", rt.log1p, np.log1p, (POS,)),
    ("sin", rt.sin, np.sin, (A,)),
    ("cos", rt.cos, np.cos, (A,)),
    ("tan", rt.tan, np.tan, (A,)),
    ("tanh", rt.tanh, np.tanh, (A,)),
    ("sigmoid", rt.sigmoid, lambda x: 1 / (1 + np.exp(-x)), (A,)),
    ("maximum", rt.maximum, np.maximum, (A, B)),
    ("minimum", rt.minimum, np.minimum, (A, B)),
    ("floor", rt.floor, np.floor, (A,)),
    ("ceil", rt.ceil, np.ceil, (A,)),
    ("round", rt.round, np.round, (A * 3,)),
    ("clip_by_value", lambda x: rt.clip_by_value(x, -0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5), (A,)),
    ("math.add", rt.math.add, np.add, (A, B)),
    ("reduce_sum", rt.reduce_sum, np.sum, (A,)),
    ("reduce_sum_axis", lambda x: rt.reduce_sum(x, axis=1), lambda x: x.sum(axis=1), (A,)),
    ("reduce_sum_keepdims", lambda x: rt.reduce_sum(x, axis=0, keepdims=True),
     lambda x: x.sum(axis=0, keepdims=True), (A,)),
    ("reduce_sum_int", rt.reduce_sum, lambda x: np.sum(x, dtype=np.int32), (I,)),
    ("reduce_mean", rt.reduce_mean, np.mean, (A,)),
    ("reduce_mean_axis", lambda x: rt.reduce_mean(x, axis=-1), lambda x: x.mean(axis=-1), (A,)),
    ("reduce_mean_int", rt.reduce_mean, lambda x: np.int32(np.sum(x) // x.size), (I,)),
    ("reduce_max", lambda x: rt.reduce_max(x, axis=0), lambda x: x.max(axis=0), (A,)),
    ("reduce_min", rt.reduce_min, np.min, (A,)),
    ("reduce_prod", lambda x: rt.reduce_prod(x, axis=1), lambda x: x.prod(axis=1), (A,)),
    ("reduce_any", lambda x: rt.reduce_any(x > 1.0), lambda x: np.any(x > 1.0), (A,)),
    ("reduce_all", lambda x: rt.reduce_all(x > -5.0, axis=0), lambda x: np.all(x > -5.0, axis=0), (A,)),
    ("argmax", lambda x: rt.argmax(x, axis=1), lambda x: np.argmax(x, axis=1), (A,)),
    ("argmin", lambda x: rt.argmin(x, axis=0), lambda x: np.argmin(x, axis=0), (A,)),
    ("matmul", lambda a, b: rt.matmul(a, b, transpose_b=True), lambda a, b: a @ b.T, (A, B)),
    ("matmul_ta", lambda a, b: rt.matmul(a, b, transpose_a=True), lambda a, b: a.T @ b, (A, B)),
    ("tensordot", lambda a, b: rt.tensordot(a, b, axes=[[1], [1]]),
     lambda a, b: np.tensordot(a, b, [[1], [1]]), (A, B)),
    ("einsum", lambda a, b: rt.einsum("ij,kj->ik", a, b), lambda a, b: np.einsum("ij,kj->ik", a, b), (A, B)),
    ("inv", rt.linalg.inv, np.linalg.inv, (SQ,)),
    ("det", rt.linalg.det, np.linalg.det, (SQ,)),
    ("reshape", lambda x: rt.reshape(x, [4, -1]), lambda x: x.reshape(4, -1), (A,)),
    ("transpose", rt.transpose, np.transpose, (A,)),
    ("transpose_perm", lambda x: rt.transpose(x[None], [2, 0, 1]), lambda x: np.transpose(x[None], [2, 0, 1]), (A,)),
    ("concat", lambda a, b: rt.concat([a, b], axis=1), lambda a, b: np.concatenate([a, b], 1), (A, B)),
    ("stack", lambda a, b: rt.stack([a, b], axis=1), lambda a, b: np.stack([a, b], 1), (A, B)),
    ("unstack", lambda a: rt.unstack(a)[1], lambda a: a[1], (A,)),
    ("split", lambda a: rt.split(a, 2, axis=1)[1], lambda a: np.split(a, 2, axis=1)[1], (A,)),
    ("split_sizes", lambda a: rt.split(a, [1, 3], axis=1)[1], lambda a: a[:, 1:], (A,)),
    ("squeeze", lambda a: rt.squeeze(a[None]), lambda a: a, (A,)),
    ("expand_dims", lambda a: rt.expand_dims(a, 1), lambda a: a[:, None], (A,)),
    ("tile", lambda a: rt.tile(a, [2, 1]), lambda a: np.tile(a, [2, 1]), (A,)),
    ("gather", lambda a: rt.gather(a, [2, 0], axis=1), lambda a: a[:, [2, 0]], (A,)),
    ("gather_nd", lambda a: rt.gather_nd(a, [[0, 1], [2, 3]]), lambda a: a[[0, 2], [1, 3]], (A,)),
    ("where", lambda a, b: rt.where(a > b, a, b), lambda a, b: np.where(a > b, a, b), (A, B)),
    ("zeros_like", rt.zeros_like, np.zeros_like, (A,)),
    ("ones_like", rt.ones_like, np.ones_like, (A,)),
    ("shape", rt.shape, lambda a: np.array(a.shape, np.int32), (A,)),
    ("size", rt.size, lambda a: np.int32(a.size), (A,)),
    ("rank", rt.rank, lambda a: np.int32(a.ndim), (A,)),
    ("cast", lambda a: rt.cast(a, rt.int32), lambda a: a.astype(np.int32), (A * 3,)),
    ("identity", rt.identity, lambda a: a, (A,)),
    ("one_hot", lambda i: rt.one_hot(i, 7), lambda i: np.eye(7, dtype=np.float32)[i], (I,)),
    ("boolean_mask", lambda a: rt.boolean_mask(a, a[:, 0] > 0), lambda a: a[a[:, 0] > 0], (A,)),
    ("reverse", lambda a: rt.reverse(a, [1]), lambda a: a[:, ::-1], (A,)),
    ("cumsum", lambda a: rt.cumsum(a, axis=1), lambda a: np.cumsum(a, axis=1), (A,)),
    ("cumsum_exclusive_reverse", lambda a: rt.cumsum(a, axis=1, exclusive=True, reverse=True),
     lambda a: np.cumsum(a[:, ::-1], axis=1)[:, ::-1] - a, (A,)),
    ("equal", rt.equal, np.equal, (I, np.full_like(I, 3))),
    ("not_equal", rt.not_equal, np.not_equal, (I, np.full_like(I, 3))),
    ("less", rt.less, np.less, (A, B)),
    ("less_equal", rt.less_equal, np.less_equal, (A, B)),
    ("greater", rt.greater, np.greater, (A, B)),
    ("greater_equal", rt.greater_equal, np.greater_equal, (A, B)),
    ("logical_and", lambda a, b: rt.logical_and(a > 0, b > 0), lambda a, b: (a > 0) & (b > 0), (A, B)),
    ("logical_or", lambda a, b: rt.logical_or(a > 0, b > 0), lambda a, b: (a > 0) | (b > 0), (A, B)),
    ("logical_not", lambda a: rt.logical_not(a > 0), lambda a: ~(a > 0), (A,)),
    ("relu", rt.nn.relu, lambda x: np.maximum(x, 0), (A,)),
    ("softmax", rt.nn.softmax, softmax, (A,)),
    ("softmax_axis0", lambda x: rt.nn.softmax(x, axis=0), lambda x: softmax(x, 0), (A,)),
    ("log_softmax", rt.nn.log_softmax, lambda x: np.log(softmax(x)), (A,)),
    ("nn.sigmoid", rt.nn.sigmoid, lambda x: 1 / (1 + np.exp(-x)), (A,)),
    ("softmax_xent", lambda l, x: rt.nn.softmax_cross_entropy_with_logits(rt.nn.softmax(l), x),
     lambda l, x: -(softmax(l) * np.log(softmax(x))).sum(-1), (B, A)),
    ("sigmoid_xent", lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=rt.cast(z > 0, rt.float32), logits=x),
     lambda z, x: np.maximum(x, 0) - x * (z > 0) + np.log1p(np.exp(-np.abs(x))), (B, A)),
    ("getitem", lambda a: a[1:, ::2], lambda a: a[1:, ::2], (A,)),
    ("getitem_int_newaxis", lambda a: a[1, None, ..., -1], lambda a: a[1, None, ..., -1], (A,)),
    ("operators", lambda a, b: (a + b) * 2 - b / (abs(a) + 1) ** 2 @ np.ones([4, 1], np.float32),
     lambda a, b: (a + b) * 2 - b / (np.abs(a) + 1) ** 2 @ np.ones([4, 1], np.float32), (A, B)),
]


@pytest.mark.parametrize("name,fn,oracle,inputs", CASES, ids=[c[0] for c in CASES])
def test_op_matches_numpy_eagerly_and_compiled(name, fn, oracle, inputs):
    expected = np.asarray(oracle(*inputs))
    eager = fn(*[rt.constant(x) for x in inputs])
    np.testing.assert_allclose(np.asarray(eager), expected, rtol=2e-5, atol=1e-5)
    assert np.asarray(eager).dtype == expected.dtype or name in ("one_hot",), (
        np.asarray(eager).dtype, expected.dtype)
    compiled = rt.function(fn, autograph=False)
    out = compiled(*[rt.constant(x) for x in inputs])
    np.testing.assert_allclose(np.asarray(out), expected, rtol=2e-5, atol=1e-5)
    assert out.dtype == eager.dtype
    assert out.shape == eager.shape


def test_creation_ops():
    np.testing.assert_array_equal(rt.zeros([2, 3]).numpy(), np.zeros([2, 3], np.float32))
    np.testing.assert_array_equal(rt.ones([2], rt.int32).numpy(), np.ones([2], np.int32))
    np.testing.assert_array_equal(rt.fill([2, 2], 7).numpy(), np.full([2, 2], 7, np.int32))
    np.testing.assert_array_equal(rt.range(5).numpy(), np.arange(5, dtype=np.int32))
    np.testing.assert_array_equal(rt.range(1, 8, 3).numpy(), [1, 4, 7])
    np.testing.assert_allclose(rt.range(0.0, 1.0, 0.25).numpy(), [0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(rt.eye(3).numpy(), np.eye(3, dtype=np.float32))
    assert rt.eye(2, 3).shape.as_list() == [2, 3]


def test_range_with_tensor_limit_inside_a_function():
    f = rt.function(lambda n: rt.range(n), autograph=False)
    np.testing.assert_array_equal(f(rt.constant(4)).numpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(f(rt.constant(2)).numpy(), [0, 1])
    assert f.experimental_get_tracing_count() == 1


def test_where_with_one_argument_returns_indices():
    out = rt.where(rt.constant([[True, False], [False, True]]))
    assert out.dtype is rt.int64
    np.testing.assert_array_equal(out.numpy(), [[0, 0], [1, 1]])


def test_dynamic_indexing_with_a_tensor():
    f = rt.function(lambda x, i: x[i] + x[i:i + 2][0], autograph=False)
    x = rt.constant([1.0, 2.0, 3.0, 4.0])
    assert f(x, rt.constant(1)).numpy() == 4.0
    assert f(x, rt.constant(2)).numpy() == 6.0
    assert f.experimental_get_tracing_count() == 1


def test_random_ops_draw_fresh_values_and_respect_seeds():
    u = rt.random.uniform([1000], minval=2.0, maxval=3.0)
    assert u.dtype is rt.float32 and 2.0 <= u.numpy().min() and u.numpy().max() < 3.0
    n = rt.random.normal([20000], mean=1.0, stddev=2.0, dtype=rt.float64)
    assert abs(n.numpy().mean() - 1.0) < 0.1 and abs(n.numpy().std() - 2.0) < 0.1
    ints = rt.random.uniform([100], minval=0, maxval=5, dtype=rt.int32)
    assert ints.dtype is rt.int32 and set(ints.numpy().tolist()) <= set(range(5))
    rt.random.set_seed(7)
    a = rt.random.normal([3]).numpy()
    rt.random.set_seed(7)
    b = rt.random.normal([3]).numpy()
    np.testing.assert_array_equal(a, b)
    f = rt.function(lambda: rt.random.uniform([4]), autograph=False)
    assert not np.array_equal(f().numpy(), f().numpy())


def test_dropout_scales_kept_values_and_zeroes_the_rest():
    x = rt.ones([1000])
    y = rt.nn.dropout(x, 0.25).numpy()
    kept = y[y != 0]
    np.testing.assert_allclose(kept, 1 / 0.75, rtol=1e-6)
    assert 0.15 < 1 - len(kept) / 1000 < 0.35
    with pytest.raises(ValueError):
        rt.nn.dropout(x, 1.5)


@pytest.mark.parametrize("fn,shapes", [
    (lambda a, b: rt.matmul(a, b), ([2, 3], [4, 5])),
    (lambda a, b: a + b, ([2, 3], [4, 3])),
    (lambda a, b: rt.reshape(a, [5, 5]) + b, ([2, 3], [1])),
    (lambda a, b: rt.concat([a, b], 0), ([2, 3], [2, 4])),
])
def test_impossible_shapes_raise_value_error_at_trace_time_naming_both(fn, shapes):
    compiled = rt.function(fn, autograph=False)
    specs = [rt.TensorSpec(s, rt.float32) for s in shapes]
    with pytest.raises(ValueError) as info:
        compiled.get_concrete_function(*specs)
    message = str(info.value)
    assert str(tuple(shapes[0])).replace(" ", "") in message.replace(" ", "")


def test_mixed_dtypes_are_refused_with_type_error():
    with pytest.raises(TypeError, match="float32.*int32|int32.*float32"):
        rt.add(rt.constant(1.0), rt.constant(1))


def test_python_scalars_take_the_tensor_dtype():
    x = rt.constant([1.0, 2.0])
    assert (x * 2).dtype is rt.float32
    assert (2 * x).dtype is rt.float32
    assert (rt.constant(3) + 1).dtype is rt.int32
    with pytest.raises(TypeError):
        rt.constant(3) + 1.5
    assert (rt.constant([1.0], dtype=rt.float64) * 0.5).dtype is rt.float64
    assert (np.ones(2, np.float64) + x).dtype is rt.float32


def test_print_writes_to_the_current_stdout_when_the_graph_runs(capsys):
    f = rt.function(lambda x: rt.print("x is", x, sep=": "), autograph=False)
    f(rt.constant([1, 2]))
    assert capsys.readouterr().out == "x is: [1 2]\n"
    f(rt.constant([3, 4]))
    assert capsys.readouterr().out == "x is: [3 4]\n"
    rt.print("eager", rt.constant(1.5), end="!")
    assert capsys.readouterr().out == "eager 1.5!"


def test_staged_assertions_raise_invalid_argument_error_with_the_message():
    @rt.function(autograph=False)
    def f(x):
        rt.debugging.assert_positive(x, message="x must be positive")
        rt.debugging.assert_less(x, 10.0)
        return x * 2

    assert f(rt.constant([1.0])).numpy().tolist() == [2.0]
    with pytest.raises(rt.errors.InvalidArgumentError, match="x must be positive"):
        f(rt.constant([-1.0]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        f(rt.constant([11.0]))
    with pytest.raises(rt.errors.InvalidArgumentError, match="boom"):
        rt.Assert(rt.constant(False), ["boom"])
    rt.debugging.assert_equal(rt.constant(1), 1)
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.debugging.assert_equal(rt.constant([1, 2]), rt.constant([1, 3]))
    with pytest.raises(rt.errors.InvalidArgumentError):
        rt.debugging.assert_greater(rt.constant(1), 2)


def test_device_and_name_scope_are_recorded():
    @rt.function(autograph=False)
    def f(x):
        with rt.device("/cpu:0"):
            y = x + 1
        with rt.name_scope("block"):
            z = y * 2
        return z

    graph = f.get_concrete_function(rt.constant(1.0)).graph
    add = next(op for op in graph.operations if op.type == "Add")
    mul = next(op for op in graph.operations if op.type == "Mul")
    assert add.device == "/cpu:0"
    assert mul.name.startswith("block/")


def test_init_scope_lifts_ops_out_of_the_trace():
    seen = []

    @rt.function(autograph=False)
    def f(x):
        with rt.init_scope():
            seen.append(rt.executing_eagerly())
            c = rt.constant(2.0) * 3
        return x * c

    assert f(rt.constant(1.0)).numpy() == 6.0
    assert seen == [True]


def test_runtime_errors_name_the_op_and_the_line_that_created_it():
    @rt.function(autograph=False)
    def checked(x):
        rt.debugging.assert_positive(x, message="x must be positive")
        return x

    for _ in range(2):  # the slow path and the fast path agree
        with pytest.raises(rt.errors.InvalidArgumentError) as info:
            checked(rt.constant(-1.0))
        message = str(info.value)
        assert "x must be positive" in message and __file__ in message and "checked" in message
