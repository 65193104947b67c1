"""rt.io: read_file / write_file eagerly and staged, serialize_tensor / parse_tensor."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError, NotFoundError

DATA = bytes(range(256)) + "héllo\n".encode()


def test_write_then_read_eagerly(tmp_path):
    path = tmp_path / "blob.bin"
    assert rt.io.write_file(str(path), rt.constant(DATA)) is None
    assert path.read_bytes() == DATA
    got = rt.io.read_file(str(path))
    assert got.dtype == rt.string and got.shape.as_tuple() == ()
    assert got.numpy() == DATA
    assert rt.io.read_file(rt.constant(str(path))).numpy() == DATA
    rt.io.write_file(path, "text")   # a str is encoded as UTF-8; a PathLike is a path
    assert path.read_bytes() == b"text"


def test_staged(tmp_path):
    src, dst = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_bytes(b"abc")

    @rt.function
    def copy(a, b):
        rt.io.write_file(b, rt.io.read_file(a))
        return rt.io.read_file(a)

    assert copy(rt.constant(str(src)), rt.constant(str(dst))).numpy() == b"abc"
    assert dst.read_bytes() == b"abc"
    src.write_bytes(b"changed")   # read when the graph runs, not when it was traced
    assert copy(rt.constant(str(src)), rt.constant(str(dst))).numpy() == b"changed"
    assert dst.read_bytes() == b"changed"


def test_errors(tmp_path):
    with pytest.raises(NotFoundError):
        rt.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(FileNotFoundError):   # NotFoundError is also a FileNotFoundError
        rt.io.read_file(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="filename"):
        rt.io.read_file(3)
    with pytest.raises(TypeError, match="contents"):
        rt.io.write_file(str(tmp_path / "x"), rt.constant([b"a", b"b"]))
    with pytest.raises(NotFoundError):
        rt.io.write_file(str(tmp_path / "no" / "dir" / "x"), b"a")
    with pytest.raises(TypeError):
        rt.io.read_file(str(tmp_path / "x"), nme="typo")


@pytest.mark.parametrize("value", [np.arange(6, dtype=np.float32).reshape(2, 3),
                                   np.array(7, np.int64), np.array([True, False]),
                                   np.zeros((0, 2), np.float64)])
def test_serialize_round_trip(value):
    blob = rt.io.serialize_tensor(value)
    assert blob.dtype == rt.string and blob.shape.as_tuple() == ()
    back = rt.io.parse_tensor(blob, rt.as_dtype(value.dtype))
    assert back.dtype == rt.as_dtype(value.dtype)
    np.testing.assert_array_equal(back.numpy(), value)


def test_parse_errors():
    blob = rt.io.serialize_tensor(np.ones(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="out_type"):
        rt.io.parse_tensor(blob, rt.int32)
    with pytest.raises(InvalidArgumentError, match="serialized"):
        rt.io.parse_tensor(rt.constant(b"not a tensor"), rt.float32)


def test_strings_serialize_as_tensorflow_does():
    # TensorFlow 2.21: tf.io.serialize_tensor(tf.constant([b"ab", b""])).numpy()
    blob = rt.io.serialize_tensor(rt.constant([b"ab", b""]))
    assert blob.numpy() == b"\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x00"
    np.testing.assert_array_equal(rt.io.parse_tensor(blob, rt.string).numpy(), [b"ab", b""])


@pytest.mark.parametrize("staged", [False, True])
def test_decode_raw_reads_bytes_as_numbers(staged):
    decode = rt.function(rt.io.decode_raw) if staged else rt.io.decode_raw
    np.testing.assert_array_equal(decode(rt.constant("Duck"), rt.uint8).numpy(),
                                  np.frombuffer(b"Duck", np.uint8))
    pair = decode(rt.constant([b"\x01\x00\x02\x00", b"\xff\xff\x00\x01"]), rt.int16).numpy()
    np.testing.assert_array_equal(pair, np.frombuffer(b"\x01\x00\x02\x00\xff\xff\x00\x01",
                                                      "<i2").reshape(2, 2))
    big = decode(rt.constant(b"\x00\x01"), rt.uint16, little_endian=False).numpy()
    assert big.tolist() == [1]
    padded = decode(rt.constant(["ab", "c"]), rt.uint8, fixed_length=3).numpy()
    assert padded.tolist() == [[97, 98, 0], [99, 0, 0]]
    with pytest.raises(rt.errors.InvalidArgumentError, match="same length"):
        decode(rt.constant(["ab", "c"]), rt.uint8)
    with pytest.raises(rt.errors.InvalidArgumentError, match="whole number"):
        decode(rt.constant("abc"), rt.int16)
