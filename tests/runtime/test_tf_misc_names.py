"""TensorFlow's less used top-level names: tf.sets, tf.queue, tf.quantization, tf.autodiff,
tf.xla.experimental, tf.conv, tf.IndexedSlices and the specs, make_tensor_proto / make_ndarray,
register_tensor_conversion_function, variable_creator_scope, approx_top_k,
random_index_shuffle, CriticalSection, nondifferentiable_batch_function,
ragged_fill_empty_rows (+ grad) and check_pinned.

Expected values are TensorFlow 2.21's documented results (checked against it), NumPy, or
closed forms.
"""

import subprocess
import sys
import threading

import numpy as np
import pytest

import runtime as rt
from runtime.errors import CancelledError, InvalidArgumentError, OutOfRangeError


def _sparse(sp):
    return (sp.indices.numpy().tolist(), sp.values.numpy().tolist(), sp.dense_shape.numpy().tolist())


# -- import ------------------------------------------------------------------------------------

def test_import_runtime_does_not_load_the_new_modules():
    code = ("import sys, runtime\n"
            "mods = ['runtime.tf_sets', 'runtime.tf_queue', 'runtime.tf_quantization', "
            "'runtime.tf_misc']\n"
            "print([m for m in mods if m in sys.modules])\n"
            "runtime.sets; runtime.queue; runtime.xla.experimental\n"
            "print([m for m in mods if m in sys.modules])\n"
            "runtime.sets.union\n"
            "print([m for m in mods if m in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out[:3] == ["[]", "[]", "['runtime.tf_sets']"]


# -- tf.sets -----------------------------------------------------------------------------------

A = [[1, 2, 3], [4, 5, 5]]
B = [[2, 3, 7], [5, 6, 6]]


def test_set_operations_of_dense_tensors():
    assert _sparse(rt.sets.intersection(A, B)) == ([[0, 0], [0, 1], [1, 0]], [2, 3, 5], [2, 2])
    assert _sparse(rt.sets.union(A, B)) == (
        [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]], [1, 2, 3, 7, 4, 5, 6], [2, 4])
    assert _sparse(rt.sets.difference(A, B)) == ([[0, 0], [1, 0]], [1, 4], [2, 1])
    assert _sparse(rt.sets.difference(A, B, aminusb=False)) == ([[0, 0], [1, 0]], [7, 6], [2, 1])


def test_set_operations_mixing_sparse_and_dense_and_strings():
    sp = rt.sparse.from_dense(rt.constant([[1, 0, 2], [0, 0, 0]]))
    assert _sparse(rt.sets.intersection(sp, [[2, 3, 3], [1, 1, 1]])) == ([[0, 0]], [2], [2, 1])
    assert _sparse(rt.sets.difference([[2, 3, 3], [1, 1, 1]], sp)) == (
        [[0, 0], [1, 0]], [3, 1], [2, 1])
    out = rt.sets.intersection(rt.constant([["a", "b"]]), rt.constant([["b", "a"]]))
    assert _sparse(out) == ([[0, 0], [0, 1]], [b"a", b"b"], [1, 2])
    out = rt.sets.intersection(rt.constant([[[1, 2], [3, 4]]]), rt.constant([[[2, 2], [5, 6]]]))
    assert _sparse(out) == ([[0, 0, 0]], [2], [1, 2, 1])


def test_set_size_and_errors():
    sp = rt.sparse.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 1, 0]], [5, 5, 1], [2, 2, 2])
    size = rt.sets.size(sp)
    assert size.dtype == rt.int32 and size.numpy().tolist() == [[1, 0], [0, 1]]
    with pytest.raises(TypeError, match="Expected `SparseTensor`"):
        rt.sets.size(rt.constant(A))
    with pytest.raises(InvalidArgumentError, match="rank 1 < 2"):
        rt.sets.union([1, 2], [2, 3])
    with pytest.raises(TypeError, match="invalid dtype float32"):
        rt.sets.union([[1.0, 2.0]], [[2.0, 3.0]])
    with pytest.raises(InvalidArgumentError, match="Mismatched shapes"):
        rt.sets.union([[1, 2]], [[2, 3], [4, 5]])
    with pytest.raises(TypeError, match="Types don't match"):
        rt.sets.union([[1, 2]], rt.constant([[2, 3]], rt.int64))
    with pytest.raises(TypeError):
        rt.sets.union(A, B, validate_indice=True)


def test_sets_inside_a_compiled_function():
    f = rt.function(lambda a, b: rt.sparse.to_dense(rt.sets.union(a, b)))
    assert f(rt.constant([[1, 2]]), rt.constant([[3, 3]])).numpy().tolist() == [[1, 2, 3]]


# -- tf.queue ----------------------------------------------------------------------------------

def test_fifo_queue_order_size_and_closed_errors():
    q = rt.queue.FIFOQueue(3, rt.float32, shapes=[[]])
    q.enqueue(1.0)
    q.enqueue_many([[2.0, 3.0]])
    assert int(q.size()) == 3
    assert float(q.dequeue()) == 1.0
    assert q.dequeue_many(2).numpy().tolist() == [2.0, 3.0]
    assert not bool(q.is_closed())
    q.close()
    assert bool(q.is_closed())
    with pytest.raises(OutOfRangeError, match=r"is closed and has insufficient elements "
                                              r"\(requested 1, current size 0\)"):
        q.dequeue()
    with pytest.raises(CancelledError, match="is closed"):
        q.enqueue(1.0)


def test_queue_components_names_and_dequeue_up_to():
    q = rt.queue.FIFOQueue(3, [rt.int32, rt.float32], shapes=[[], [2]], names=["a", "b"])
    q.enqueue({"a": 1, "b": [1.0, 2.0]})
    out = q.dequeue()
    assert int(out["a"]) == 1 and out["b"].numpy().tolist() == [1.0, 2.0]
    assert q.names == ["a", "b"] and q.dtypes == [rt.int32, rt.float32]
    assert [s.as_list() for s in q.shapes] == [[], [2]]
    with pytest.raises(ValueError, match="do not match names"):
        q.enqueue({"a": 1, "c": [1.0, 2.0]})
    q2 = rt.queue.FIFOQueue(5, rt.int32, shapes=[])
    q2.enqueue_many([[1, 2, 3]])
    q2.close()
    assert q2.dequeue_up_to(5).numpy().tolist() == [1, 2, 3]
    with pytest.raises(OutOfRangeError):
        q2.dequeue_up_to(5)
    unknown = rt.queue.FIFOQueue(3, rt.float32)
    unknown.enqueue(1.0)
    with pytest.raises(InvalidArgumentError, match="require the components to have specified"):
        unknown.dequeue_many(1)


def test_priority_padding_and_random_shuffle_queues():
    q = rt.queue.PriorityQueue(5, [rt.string], shapes=[[]])
    q.enqueue_many(([3, 1, 2], ["c", "a", "b"]))
    prio, value = q.dequeue()
    assert (int(prio), value.numpy()) == (1, b"a")
    prios, values = q.dequeue_many(2)
    assert prios.numpy().tolist() == [2, 3] and values.numpy().tolist() == [b"b", b"c"]
    q = rt.queue.PaddingFIFOQueue(5, [rt.int32], shapes=[[None]])
    q.enqueue([[1, 2]])
    q.enqueue([[3]])
    assert q.dequeue_many(2).numpy().tolist() == [[1, 2], [3, 0]]
    q = rt.queue.RandomShuffleQueue(10, 2, rt.int32, shapes=[[]], seed=1)
    q.enqueue_many([[1, 2, 3, 4]])
    first = int(q.dequeue())
    assert int(q.size()) == 3
    q.close()  # closed: min_after_dequeue no longer holds elements back
    rest = q.dequeue_up_to(5).numpy().tolist()
    assert sorted([first, *rest]) == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="QueueBase is the base"):
        rt.queue.QueueBase(3, rt.int32)


def test_queue_blocks_until_another_thread_enqueues():
    q = rt.queue.FIFOQueue(1, rt.int32, shapes=[])
    got = []
    reader = threading.Thread(target=lambda: got.append(int(q.dequeue())))
    reader.start()
    q.enqueue(7)
    reader.join(5)
    assert got == [7]
    q.enqueue(1)  # full now: this enqueue waits until a dequeue makes room
    writer = threading.Thread(target=lambda: q.enqueue(2))
    writer.start()
    assert int(q.dequeue()) == 1
    writer.join(5)
    assert int(q.dequeue()) == 2


def test_queue_operations_inside_a_compiled_function():
    q = rt.queue.FIFOQueue(4, [rt.int32, rt.string], shapes=[[2], []])

    @rt.function
    def push(x, s):
        q.enqueue((x, s))
        q.enqueue_many((rt.stack([x * 10, x * 100]), rt.stack([s, s])))
        return q.size()

    @rt.function
    def pop():
        first, label = q.dequeue()
        rest, _ = q.dequeue_many(2)
        return first, label, rest

    assert int(push(rt.constant([1, 2]), rt.constant("a"))) == 3  # runs at every call
    first, label, rest = pop()
    assert first.numpy().tolist() == [1, 2] and label.numpy() == b"a"
    assert rest.shape.as_list() == [2, 2]
    assert rest.numpy().tolist() == [[10, 20], [100, 200]]
    assert int(q.size()) == 0
    closer = rt.function(lambda: q.close())
    closer()
    assert bool(q.is_closed())
    with pytest.raises(OutOfRangeError):
        pop()


# -- tf.quantization ---------------------------------------------------------------------------

X = np.array([-7.0, -1.3, -0.02, 0.0, 0.5, 2.71, 6.2], np.float32)


def _fake_quant(x, lo, hi, bits, narrow=False):
    """TensorFlow's documented nudging: the range moved so that 0 is exact."""
    qmin, qmax = (1 if narrow else 0), 2 ** bits - 1
    scale = (hi - lo) / (qmax - qmin)
    zero = qmin - lo / scale
    nz = np.clip(np.sign(zero) * np.floor(abs(zero) + 0.5), qmin, qmax)
    nlo, nhi = (qmin - nz) * scale, (qmax - nz) * scale
    return np.floor((np.clip(x, nlo, nhi) - nlo) / scale + 0.5) * scale + nlo, nlo, nhi


def test_fake_quant_args_values_and_gradient():
    out = rt.quantization.fake_quant_with_min_max_args(X, -1.0, 3.0, num_bits=4)
    np.testing.assert_allclose(out.numpy(), _fake_quant(X, -1.0, 3.0, 4)[0], rtol=1e-6)
    np.testing.assert_allclose(out.numpy(), [-1.0666667, -1.0666667, 0, 0, 0.53333336,
                                             2.6666667, 2.9333334], rtol=1e-6)
    narrow = rt.quantization.fake_quant_with_min_max_args(X, -1.0, 3.0, num_bits=4,
                                                          narrow_range=True)
    np.testing.assert_allclose(narrow.numpy(), _fake_quant(X, -1.0, 3.0, 4, True)[0], rtol=1e-6)
    default = rt.quantization.fake_quant_with_min_max_args(X)
    np.testing.assert_allclose(default.numpy(), _fake_quant(X, -6.0, 6.0, 8)[0], rtol=1e-5)
    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.quantization.fake_quant_with_min_max_args(x, -1.0, 3.0, num_bits=4)
    assert tape.gradient(y, x).numpy().tolist() == [0, 0, 1, 1, 1, 1, 0]
    g = rt.quantization.fake_quant_with_min_max_args_gradient(np.ones(7, np.float32), X, -1.0,
                                                              3.0, num_bits=4)
    assert g.numpy().tolist() == [0, 0, 1, 1, 1, 1, 0]
    with pytest.raises(InvalidArgumentError, match="num_bits"):
        rt.quantization.fake_quant_with_min_max_args(X, num_bits=1)
    with pytest.raises(InvalidArgumentError, match="min has to be smaller than max"):
        rt.quantization.fake_quant_with_min_max_args(X, 1.0, 1.0)


def test_fake_quant_ties_as_tensorflow_kernels_round_them():
    # 3 bits over [0, 1]: 0.5 is a tie that TensorFlow's args and per-channel kernels round up
    # (they multiply by 1/scale from double precision) and its vars kernel rounds down
    x = np.array([0.5, 1.5 / 7], np.float32)
    q = rt.quantization
    np.testing.assert_allclose(q.fake_quant_with_min_max_args(x, 0.0, 1.0, num_bits=3).numpy(),
                               [4 / 7, 2 / 7], rtol=1e-6)
    np.testing.assert_allclose(q.fake_quant_with_min_max_vars(x, 0.0, 1.0, num_bits=3).numpy(),
                               [3 / 7, 2 / 7], rtol=1e-6)
    per_channel = q.fake_quant_with_min_max_vars_per_channel(x.reshape(2, 1), [0.0], [1.0],
                                                             num_bits=3)
    np.testing.assert_allclose(per_channel.numpy().ravel(), [4 / 7, 2 / 7], rtol=1e-6)


def test_fake_quant_vars_gradients_reach_min_and_max():
    a, mn, mx = rt.constant([-2.0, 0.4, 5.0]), rt.constant(-1.0), rt.constant(3.0)
    with rt.GradientTape() as tape:
        tape.watch([a, mn, mx])
        y = rt.quantization.fake_quant_with_min_max_vars(a, mn, mx, num_bits=4)
    ga, gmin, gmax = tape.gradient(y, [a, mn, mx])
    assert ga.numpy().tolist() == [0, 1, 0] and float(gmin) == 1.0 and float(gmax) == 1.0
    g = rt.quantization.fake_quant_with_min_max_vars_gradient(np.ones(7, np.float32), X, -1.0,
                                                              3.0, num_bits=4)
    assert g.backprops_wrt_input.numpy().tolist() == [0, 0, 1, 1, 1, 1, 0]
    assert (float(g.backprop_wrt_min), float(g.backprop_wrt_max)) == (2.0, 1.0)
    y2 = np.array([[-1.0, 0.5, 4.0], [0.3, 2.0, -3.0]], np.float32)
    out = rt.quantization.fake_quant_with_min_max_vars_per_channel(y2, [-1.0, 0.0, -2.0],
                                                                   [1.0, 1.0, 2.0], num_bits=3)
    np.testing.assert_allclose(out.numpy(), [[-0.8571429, 0.5714286, 2.2857144],
                                             [0.2857143, 1.0, -1.7142859]], rtol=1e-6)
    g = rt.quantization.fake_quant_with_min_max_vars_per_channel_gradient(
        np.ones((2, 3), np.float32), y2, [-1.0, 0.0, -2.0], [1.0, 1.0, 2.0], num_bits=3)
    assert g.backprops_wrt_input.numpy().tolist() == [[0, 1, 0], [1, 0, 0]]
    assert g.backprop_wrt_min.numpy().tolist() == [1, 0, 1]
    assert g.backprop_wrt_max.numpy().tolist() == [0, 1, 1]


def test_quantize_and_dequantize():
    q = rt.quantization
    out = q.quantize_and_dequantize_v2(X, -1.0, 3.0, num_bits=4, range_given=True)
    # signed 4 bits: the max side decides, scale 7/3; the range becomes [-8*3/7, 3]
    step = 3 / 7
    expected = np.round(np.clip(X, -8 * step, 3.0) / step) * step
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-7)
    computed = q.quantize_and_dequantize_v2(X, -1.0, 3.0, num_bits=4)  # the input's own range
    step = 6.2 / 7
    np.testing.assert_allclose(computed.numpy(), np.round(np.clip(X, -8 * step, 6.2) / step)
                               * step, rtol=1e-6, atol=1e-7)
    unsigned = q.quantize_and_dequantize_v2(X, -1.0, 3.0, num_bits=4, signed_input=False,
                                            range_given=True)
    np.testing.assert_allclose(unsigned.numpy(), [0, 0, 0, 0, 0.4, 2.8, 3.0], rtol=1e-6)
    half_up = q.quantize_and_dequantize_v2(X, -1.0, 3.0, num_bits=4, range_given=True,
                                           narrow_range=True, round_mode="HALF_UP")
    np.testing.assert_allclose(half_up.numpy(), [-3.0, -1.2857143, 0, 0, 0.42857143, 2.5714285,
                                                 3.0], rtol=1e-6, atol=1e-7)
    a = rt.constant([-2.0, 0.4, 5.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(a)
        y2 = q.quantize_and_dequantize_v2(a, -1.0, 3.0, range_given=True)
        y1 = q.quantize_and_dequantize(a, -1.0, 3.0, range_given=True)
    assert tape.gradient(y2, a).numpy().tolist() == [0, 1, 0]
    assert tape.gradient(y1, a).numpy().tolist() == [1, 1, 1]
    with pytest.raises(NotImplementedError, match="axis"):
        q.quantize_and_dequantize_v2(X, -1.0, 3.0, axis=0)


def test_quantize_and_dequantize_to_quantized_dtypes():
    q = rt.quantization
    out, lo, hi = q.quantize(X, -1.0, 3.0, rt.quint8)
    assert out.dtype == rt.quint8
    codes = rt.cast(out, rt.int32).numpy().tolist()
    assert codes == [0, 0, 62, 64, 96, 237, 255] and (float(lo), float(hi)) == (-1.0, 3.0)
    np.testing.assert_allclose(q.dequantize(out, lo, hi).numpy(),
                               np.array(codes) * 4 / 255 - 1, rtol=1e-6, atol=1e-7)
    signed, _, _ = q.quantize(X, -1.0, 3.0, rt.qint8)
    assert rt.cast(signed, rt.int32).numpy().tolist() == [-128, -128, -66, -64, -32, 109, 127]
    scaled, lo, hi = q.quantize(X, -1.0, 3.0, rt.qint8, mode="SCALED")
    assert rt.cast(scaled, rt.int32).numpy().tolist() == [-128, -55, -1, 0, 21, 115, 127]
    np.testing.assert_allclose([float(lo), float(hi)], [-128 * 3 / 127, 3.0], rtol=1e-6)
    np.testing.assert_allclose(q.dequantize(scaled, lo, hi, mode="SCALED").numpy(),
                               np.array([-128, -55, -1, 0, 21, 115, 127]) * 3 / 127, rtol=1e-6)
    with pytest.raises(NotImplementedError, match="MIN_FIRST"):
        q.quantize(X, -1.0, 3.0, rt.qint32, mode="MIN_FIRST")
    with pytest.raises(ValueError, match="only supported for mode 'SCALED'"):
        q.quantize(X, -1.0, 3.0, rt.quint8, round_mode="HALF_TO_EVEN")
    with pytest.raises(TypeError, match="quantized dtype"):
        q.quantize(X, -1.0, 3.0, rt.int8)


@pytest.mark.parametrize("dtype, bits, codes", [
    ("quint8", 8, [0, 0, 62, 64, 96, 237, 255]),
    ("qint8", 8, [-128, -128, -65, -64, -32, 109, 127]),
    ("quint16", 16, [0, 0, 16056, 16384, 24576, 60784, 65535]),
    ("qint16", 16, [-32768, -32768, -16712, -16384, -8192, 28016, 32767]),
])
def test_quantize_min_first(dtype, bits, codes):
    dtype = rt.as_dtype(dtype)
    out, _, _ = rt.quantization.quantize(X, -1.0, 3.0, dtype, mode="MIN_FIRST")
    assert rt.cast(out, rt.int64).numpy().tolist() == codes
    # back: min_range rounded to a whole step, plus the code's offset from the lowest code
    steps = 2 ** bits - 1
    step = 4.0 / steps
    lowest = 0 if dtype.name.startswith("qu") else -(steps + 1) // 2
    expected = np.round(-1.0 / step) * step + (np.array(codes) - lowest) * step
    np.testing.assert_allclose(rt.quantization.dequantize(out, -1.0, 3.0, mode="MIN_FIRST"
                                                          ).numpy(), expected, atol=1e-6)


def test_quantized_concat_requantizes_to_the_common_range():
    q = rt.quantization
    a, _, _ = q.quantize([[-1.0, 0.5, 3.0]], -1.0, 3.0, rt.quint8)
    b, _, _ = q.quantize([[-2.0, 0.0, 1.0]], -2.0, 1.0, rt.quint8)
    assert rt.cast(a, rt.int32).numpy().tolist() == [[0, 96, 255]]
    assert rt.cast(b, rt.int32).numpy().tolist() == [[0, 170, 255]]
    out, lo, hi = q.quantized_concat(0, [a, b], [-1.0, -2.0], [3.0, 1.0])
    # each row read back (MIN_FIRST) and quantized again over [-2, 3]: 51 codes a unit
    assert rt.cast(out, rt.int32).numpy().tolist() == [[51, 128, 255], [0, 102, 153]]
    assert (float(lo), float(hi)) == (-2.0, 3.0)
    same, lo, hi = q.quantized_concat(1, [a, a], [-1.0, -1.0], [3.0, 3.0])
    assert rt.cast(same, rt.int32).numpy().tolist() == [[0, 96, 255, 0, 96, 255]]
    with pytest.raises(TypeError, match="quint8"):
        q.quantized_concat(0, [rt.cast(rt.constant([1], rt.int8), rt.qint8)], [0.0], [1.0])


# -- tf.autodiff, tf.xla -----------------------------------------------------------------------

def test_forward_accumulator_jvp():
    x = rt.constant([1.0, 2.0, 3.0])
    with rt.autodiff.ForwardAccumulator(x, rt.constant([1.0, 0.0, 2.0])) as acc:
        y = x ** 2
        z = rt.reduce_sum(rt.sin(x))
    assert acc.jvp(y).numpy().tolist() == [2.0, 0.0, 12.0]  # 2x * tangent
    np.testing.assert_allclose(float(acc.jvp(z)), np.cos(1.0) + 2 * np.cos(3.0), rtol=1e-6)
    assert acc.jvp(x).numpy().tolist() == [1.0, 0.0, 2.0]
    assert acc.jvp(rt.constant(1.0)) is None
    assert float(acc.jvp(rt.constant(1.0), unconnected_gradients="zero")) == 0.0
    assert rt.autodiff.GradientTape is rt.GradientTape


def test_forward_accumulator_hessian_vector_product():
    v = rt.Variable([1.0, 2.0])
    with rt.autodiff.ForwardAccumulator(v, rt.constant([1.0, 1.0])) as acc:
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(v ** 3)
        grad = tape.gradient(loss, v)
    assert acc.jvp(grad).numpy().tolist() == [6.0, 12.0]  # diag(6v) @ [1, 1]
    with pytest.raises(ValueError, match="Tangent"):
        rt.autodiff.ForwardAccumulator(rt.constant([1.0]), rt.constant([1]))


def test_xla_experimental():
    assert [t.numpy() for t in rt.xla.experimental.compile(lambda x: x + 1, [rt.constant(1.0)])] \
        == [2.0]
    with pytest.raises(RuntimeError, match="not supported when eager execution"):
        with rt.xla.experimental.jit_scope():
            pass

    @rt.function
    def f(x):
        with rt.xla.experimental.jit_scope():
            return x * 2
    assert float(f(rt.constant(3.0))) == 6.0


# -- tf.conv -----------------------------------------------------------------------------------

def test_conv_matches_the_convolution_ops():
    x = rt.reshape(rt.range(16.0), [1, 4, 4, 1])
    w = rt.ones([2, 2, 1, 1])
    np.testing.assert_allclose(rt.conv(x, w, [1, 1, 1, 1], "VALID").numpy(),
                               rt.nn.conv2d(x, w, 1, "VALID").numpy())
    out = rt.conv(x, w, [1, 1, 1, 1], "EXPLICIT", explicit_paddings=[0, 0, 1, 1, 0, 0, 0, 0])
    a = np.pad(np.arange(16.0).reshape(4, 4), [(1, 1), (0, 0)])
    expected = a[:-1, :-1] + a[1:, :-1] + a[:-1, 1:] + a[1:, 1:]
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], expected)
    assert rt.conv(rt.ones([1, 4, 4, 1]), w, [1, 2, 2, 1], "SAME").numpy().ravel().tolist() \
        == [4.0] * 4
    assert rt.conv(rt.ones([2, 3, 4, 4, 1]), w, [1, 1, 1, 1, 1], "VALID",
                   batch_dims=2).shape.as_list() == [2, 3, 3, 3, 1]
    assert rt.conv(rt.ones([1, 4, 4, 4, 1]), rt.ones([2, 2, 2, 1, 1]), [1] * 5,
                   "VALID").numpy().ravel().tolist() == [8.0] * 27
    with pytest.raises(InvalidArgumentError, match="2 or 3 spatial dimensions but got 1"):
        rt.conv(rt.ones([1, 4, 1]), rt.ones([2, 1, 1]), [1, 1, 1], "VALID")
    with pytest.raises(NotImplementedError, match="CHANNELS_FIRST"):
        rt.conv(x, w, [1, 1, 1, 1], "VALID", data_format="CHANNELS_FIRST")
    with pytest.raises(NotImplementedError, match="Grouped"):
        rt.conv(rt.ones([1, 4, 4, 2]), w, [1, 1, 1, 1], "VALID", groups=2)


# -- IndexedSlices and specs -------------------------------------------------------------------

def test_indexed_slices_densify_and_specs():
    s = rt.IndexedSlices(rt.constant([[1.0, 2.0], [3.0, 4.0]]), rt.constant([0, 2]),
                         rt.constant([3, 2]))
    assert s.dtype == rt.float32 and s.shape.as_list() == [3, 2]
    assert rt.convert_to_tensor(s).numpy().tolist() == [[1, 2], [0, 0], [3, 4]]
    assert rt.add(s, 1.0).numpy().tolist() == [[2, 3], [1, 1], [4, 5]]
    assert (-s).values.numpy().tolist() == [[-1, -2], [-3, -4]]
    dup = rt.IndexedSlices(rt.constant([[1.0, 2.0], [3.0, 4.0]]), rt.constant([0, 0]), [3, 2])
    assert rt.convert_to_tensor(dup).numpy().tolist() == [[4, 6], [0, 0], [0, 0]]
    with pytest.raises(ValueError, match="without dense_shape"):
        rt.convert_to_tensor(rt.IndexedSlices(rt.constant([[1.0]]), rt.constant([0])))
    assert repr(rt.IndexedSlicesSpec()) == ("IndexedSlicesSpec(TensorShape(None), rt.float32, "
                                            "rt.int64, None, TensorShape([None]))")
    assert s._type_spec == rt.IndexedSlicesSpec([3, 2], rt.float32, rt.int32, rt.int32, [2])
    assert rt.IndexedSlicesSpec([None, 2], indices_dtype=rt.int32).is_compatible_with(s._type_spec)
    assert not rt.IndexedSlicesSpec([None, 2]).is_compatible_with(s._type_spec)  # int64 indices
    none = rt.NoneTensorSpec()
    assert none == rt.NoneTensorSpec() and none.is_compatible_with(None)
    spec = rt.TensorArraySpec([2], rt.int32)
    assert repr(spec) == "TensorArraySpec(TensorShape([2]), rt.int32, False, True)"
    assert spec.value_type is rt.TensorArray
    assert rt.TensorArraySpec.from_value(rt.TensorArray(rt.float32, size=2)) == \
        rt.TensorArraySpec(None, rt.float32)


# -- make_tensor_proto / make_ndarray ----------------------------------------------------------

def test_make_tensor_proto_and_back():
    p = rt.make_tensor_proto([1.0, 2.0, 3.0])
    assert p.dtype == 1 and [d.size for d in p.tensor_shape.dim] == [3]
    assert p.tensor_content == np.array([1, 2, 3], "<f4").tobytes()
    assert str(p).startswith("dtype: DT_FLOAT\ntensor_shape {\n  dim {\n    size: 3\n  }\n}\n")
    scalar = rt.make_tensor_proto(5)
    assert scalar.int_val == [5] and scalar.dtype == 3 and scalar.tensor_content == b""
    assert rt.make_ndarray(rt.make_tensor_proto(5, shape=[2, 2])).tolist() == [[5, 5], [5, 5]]
    assert rt.make_ndarray(rt.make_tensor_proto([1, 2, 3], shape=[2, 2])).tolist() == \
        [[1, 2], [3, 3]]
    strings = rt.make_tensor_proto(["a", "bc"])
    assert strings.string_val == [b"a", b"bc"]
    assert rt.make_ndarray(strings).tolist() == [b"a", b"bc"]
    ints = rt.make_ndarray(rt.make_tensor_proto([[1, 2], [3, 4]], dtype=rt.int64))
    assert ints.dtype == np.int64 and ints.tolist() == [[1, 2], [3, 4]]
    assert rt.make_ndarray(rt.make_tensor_proto(np.array([1, 2], np.float16))).dtype == np.float16
    assert rt.make_ndarray(rt.make_tensor_proto(rt.constant([True]))).tolist() == [True]
    # the bytes are TensorFlow's: tf.io.parse_tensor reads them
    parsed = rt.io.parse_tensor(rt.make_tensor_proto([[1.0, 2.0]]).SerializeToString(),
                                rt.float32)
    assert parsed.numpy().tolist() == [[1.0, 2.0]]
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2, 2\), but got \(4,\)"):
        rt.make_tensor_proto([1, 2, 3, 4], shape=[2, 2], verify_shape=True)
    with pytest.raises(TypeError):
        rt.make_tensor_proto([1.5], dtype=rt.int32)
    with pytest.raises(AttributeError):
        rt.make_ndarray(rt.constant([1]))


# -- conversion functions, variable creators ---------------------------------------------------

class _Point:
    def __init__(self, value):
        self.value = value


def test_register_tensor_conversion_function():
    rt.register_tensor_conversion_function(
        _Point, lambda v, dtype=None, name=None, as_ref=False: rt.constant(v.value, dtype=dtype))
    assert rt.add(_Point([1.0, 2.0]), 1.0).numpy().tolist() == [2.0, 3.0]
    assert rt.convert_to_tensor(_Point(3), rt.int64).dtype == rt.int64
    with pytest.raises(TypeError, match="Python numeric types"):
        rt.register_tensor_conversion_function(float, lambda v, **k: rt.constant(v))


def test_variable_creator_scope():
    seen = []

    def outer(next_creator, **kwargs):
        seen.append("outer")
        return next_creator(**kwargs)

    def inner(next_creator, **kwargs):
        seen.append("inner")
        kwargs["trainable"] = False
        kwargs["initial_value"] = kwargs["initial_value"] * 2
        return next_creator(**kwargs)

    with rt.variable_creator_scope(outer), rt.variable_creator_scope(inner):
        v = rt.Variable(3.0, name="w")
    assert seen == ["inner", "outer"]
    assert float(v) == 6.0 and not v.trainable and v.name == "w:0"
    assert rt.Variable(1.0).trainable  # outside the scopes: a plain variable


# -- the others --------------------------------------------------------------------------------

def test_approx_top_k_random_index_shuffle_and_check_pinned():
    x = rt.constant([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    values, indices = rt.approx_top_k(x, 2)
    assert values.numpy().tolist() == [[5, 3], [6, 4]]
    assert indices.numpy().tolist() == [[1, 2], [2, 0]]
    values, indices = rt.approx_top_k(x, 2, is_max_k=False)
    assert values.numpy().tolist() == [[1, 3], [2, 4]]
    perm = [int(rt.random_index_shuffle(rt.constant(i, rt.int64), [1, 2, 3],
                                        rt.constant(9, rt.int64))) for i in range(10)]
    assert sorted(perm) == list(range(10))  # a permutation of [0, max_index]
    with pytest.raises(NotImplementedError, match="rounds"):
        rt.random_index_shuffle(0, [1, 2, 3], 9, rounds=3)
    with pytest.raises(InvalidArgumentError, match="not pinned"):
        rt.check_pinned(rt.constant([1.0]))


def test_ragged_fill_empty_rows_and_its_gradient():
    out = rt.ragged_fill_empty_rows(rt.constant([1, 1, 3], rt.int64), rt.constant([1.0, 2.0, 3.0]),
                                    rt.constant(5, rt.int64), rt.constant(9.0))
    assert out.output_value_rowids.numpy().tolist() == [0, 1, 1, 2, 3, 4]
    assert out.output_values.numpy().tolist() == [9, 1, 2, 9, 3, 9]
    assert out.empty_row_indicator.numpy().tolist() == [True, False, True, False, True]
    assert out.reverse_index_map.numpy().tolist() == [1, 2, 4]
    grad = rt.ragged_fill_empty_rows_grad(rt.constant([1, 2, 4], rt.int64),
                                          rt.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]))
    assert grad.d_values.numpy().tolist() == [2, 3, 5]
    assert float(grad.d_default_value) == 1 + 4 + 6


def test_critical_section_and_batch_function():
    cs = rt.CriticalSection()
    five = cs.execute(lambda: 5)
    assert isinstance(five, rt.Tensor) and int(five) == 5
    with pytest.raises(ValueError, match="already running"):
        cs.execute(lambda: cs.execute(lambda: 1))
    counter = rt.Variable(0)
    threads = [threading.Thread(target=lambda: [cs.execute(lambda: counter.assign_add(1))
                                                for _ in range(50)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert int(counter) == 200

    @rt.nondifferentiable_batch_function(1, 2, 10)
    def double(a):
        return a * 2
    x = rt.constant([1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = double(x)
    assert y.numpy().tolist() == [2.0, 4.0]
    assert tape.gradient(y, x) is None
    with pytest.raises(ValueError, match="max_batch_size"):
        rt.nondifferentiable_batch_function(1, -2, 10)
