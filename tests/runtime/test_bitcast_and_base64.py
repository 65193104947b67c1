"""tf.bitcast and tf.io.encode_base64 / decode_base64.

Oracles: results recorded from TensorFlow 2.21 (the calls shown, run eagerly), NumPy's views of
the same bytes, and Python's base64 module."""

import base64

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError


def test_bitcast_matches_tensorflow():
    # TensorFlow 2.21: tf.bitcast(tf.constant([1.0, -2.0]), tf.int32) and so on
    np.testing.assert_array_equal(rt.bitcast(rt.constant([1.0, -2.0]), rt.int32).numpy(),
                                  [1065353216, -1073741824])
    np.testing.assert_array_equal(rt.bitcast(rt.constant([1.0, -2.0]), rt.uint8).numpy(),
                                  [[0, 0, 128, 63], [0, 0, 0, 192]])
    got = rt.bitcast(rt.constant([[0, 0, 128, 63]], rt.uint8), rt.float32)
    assert got.shape == [1] and got.numpy().tolist() == [1.0]
    np.testing.assert_array_equal(rt.bitcast(rt.constant([1 + 2j], rt.complex64), rt.float32),
                                  [[1.0, 2.0]])
    np.testing.assert_array_equal(rt.bitcast(rt.constant(1.0, rt.float64), rt.int32).numpy(),
                                  [0, 1072693248])


@pytest.mark.parametrize("source,target", [("float32", "int32"), ("float64", "uint16"),
                                           ("int8", "int64"), ("complex128", "float32"),
                                           ("float16", "uint16"), ("int64", "float64")])
def test_bitcast_is_numpys_view_of_the_bytes(source, target):
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 256, size=(3, 16), dtype=np.uint8)
    x = raw.view(source)  # (3, 16 / itemsize)
    want = x.view(target)
    size_in, size_out = np.dtype(source).itemsize, np.dtype(target).itemsize
    if size_in < size_out:  # TensorFlow wants the last axis to be exactly one `target`
        x = x.reshape(-1, size_out // size_in)
        want = x.view(target).reshape(-1)
    elif size_in > size_out:
        want = want.reshape(x.shape + (size_in // size_out,))
    for fn in (rt.bitcast, rt.function(rt.bitcast)):
        got = fn(rt.constant(x), getattr(rt, target)).numpy()
        assert got.dtype == np.dtype(target)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_bitcast_errors_and_gradient():
    with pytest.raises(InvalidArgumentError, match="4 elements"):
        rt.bitcast(rt.constant([0, 0, 128], rt.uint8), rt.float32)
    with pytest.raises(TypeError, match="bool"):
        rt.bitcast(rt.constant([True]), rt.int8)
    with pytest.raises(TypeError, match="bool"):
        rt.bitcast(rt.constant([1], rt.int8), rt.bool)
    x = rt.constant([1.0])
    with rt.GradientTape() as tape:  # TensorFlow: LookupError, no gradient for Bitcast
        tape.watch(x)
        y = rt.bitcast(x, rt.float32) * 2.0
    with pytest.raises(LookupError, match="Bitcast"):
        tape.gradient(y, x)
    spec = rt.function(lambda v: rt.bitcast(v, rt.uint8)).get_concrete_function(
        rt.TensorSpec([None, 3], rt.float32))
    assert spec.outputs[0].shape.as_list() == [None, 3, 4]


def test_base64_matches_tensorflow():
    # TensorFlow 2.21: tf.io.encode_base64([b"hello", b"", b"\xff\xfe?>", b"ab"]) etc.
    encoded = rt.io.encode_base64([b"hello", b"", b"\xff\xfe?>", b"ab"])
    assert encoded.numpy().tolist() == [b"aGVsbG8", b"", b"__4_Pg", b"YWI"]
    assert rt.io.encode_base64([b"hello", b"ab"], pad=True).numpy().tolist() == \
        [b"aGVsbG8=", b"YWI="]
    decoded = rt.io.decode_base64([b"aGVsbG8", b"aGVsbG8=", b"__4_Pg", b""])
    assert decoded.numpy().tolist() == [b"hello", b"hello", b"\xff\xfe?>", b""]
    for bad in (b"//4/Pg", b"a", b"ab$c", b"aGVs bG8"):  # InvalidArgumentError in TensorFlow
        with pytest.raises(InvalidArgumentError):
            rt.io.decode_base64([bad])
    with pytest.raises(TypeError, match="string"):
        rt.io.encode_base64(rt.constant([1]))


def test_base64_round_trip_against_python():
    rng = np.random.default_rng(5)
    values = [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in range(0, 40, 3)]
    array = np.array(values, dtype=object).reshape(-1, 1)
    for pad in (False, True):
        got = rt.function(lambda s, pad=pad: rt.io.encode_base64(s, pad=pad))(array).numpy()
        want = [base64.urlsafe_b64encode(v) if pad else base64.urlsafe_b64encode(v).rstrip(b"=")
                for v in values]
        assert got.reshape(-1).tolist() == want
        assert rt.io.decode_base64(got).numpy().reshape(-1).tolist() == values
