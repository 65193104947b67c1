"""tf.io.decode_compressed, matching_files, decode_json_example, serialize_sparse,
serialize_many_sparse and deserialize_many_sparse (runtime/ops/io_more.py).

Oracles: Python's zlib and gzip, glob over files made here, bytes recorded from TensorFlow 2.21
(`.numpy().tolist()`), the parse of a decoded Example by rt.io.parse_single_example, and
round trips.
"""

import gzip
import zlib

import numpy as np
import pytest

import runtime as rt

# recorded from TensorFlow 2.21: serialize_sparse(SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4]))
TF_SERIALIZED = [
    b'\x08\t\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02" \x00\x00\x00\x00\x00\x00\x00\x00\x01\x00'
    b'\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00',
    b'\x08\x01\x12\x04\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00 @',
    b'\x08\t\x12\x04\x12\x02\x08\x02"\x10\x03\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00'
    b'\x00\x00']
# ... and of SparseTensor([[0]], ["ab"], [2]): strings in tensor_content
TF_SERIALIZED_STRINGS = [
    b'\x08\t\x12\x08\x12\x02\x08\x01\x12\x02\x08\x01"\x08\x00\x00\x00\x00\x00\x00\x00\x00',
    b'\x08\x07\x12\x04\x12\x02\x08\x01"\x03\x02ab',
    b'\x08\t\x12\x04\x12\x02\x08\x01"\x08\x02\x00\x00\x00\x00\x00\x00\x00']
# ... and serialize_many_sparse of the first: row 1 has no entries
TF_MANY = [
    [b'\x08\t\x12\x08\x12\x02\x08\x01\x12\x02\x08\x01"\x08\x01\x00\x00\x00\x00\x00\x00\x00',
     b'\x08\x01\x12\x04\x12\x02\x08\x01"\x04\x00\x00\xc0?',
     b'\x08\t\x12\x04\x12\x02\x08\x01"\x08\x04\x00\x00\x00\x00\x00\x00\x00'],
    [b'\x08\t\x12\x06\x12\x00\x12\x02\x08\x01', b'\x08\x01\x12\x02\x12\x00',
     b'\x08\t\x12\x04\x12\x02\x08\x01"\x08\x04\x00\x00\x00\x00\x00\x00\x00'],
    [b'\x08\t\x12\x08\x12\x02\x08\x01\x12\x02\x08\x01"\x08\x00\x00\x00\x00\x00\x00\x00\x00',
     b'\x08\x01\x12\x04\x12\x02\x08\x01"\x04\x00\x00 @',
     b'\x08\t\x12\x04\x12\x02\x08\x01"\x08\x04\x00\x00\x00\x00\x00\x00\x00']]


def _sparse():
    return rt.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4])


def test_serialized_sparse_tensors_are_tensorflows_bytes():
    assert rt.io.serialize_sparse(_sparse()).numpy().tolist() == TF_SERIALIZED
    strings = rt.sparse.SparseTensor([[0]], ["ab"], [2])
    assert rt.io.serialize_sparse(strings).numpy().tolist() == TF_SERIALIZED_STRINGS
    many = rt.io.serialize_many_sparse(_sparse())
    assert many.shape == (3, 3) and many.numpy().tolist() == TF_MANY
    staged = rt.function(lambda i, v: rt.io.serialize_sparse(rt.sparse.SparseTensor(i, v, [3, 4])))
    assert staged(np.array([[0, 1], [2, 0]], np.int64), np.array([1.5, 2.5], np.float32)) \
        .numpy().tolist() == TF_SERIALIZED
    with pytest.raises(NotImplementedError, match="out_type"):
        rt.io.serialize_sparse(_sparse(), out_type=rt.variant)


def test_deserialize_many_sparse_batches_entries():
    back = rt.io.deserialize_many_sparse(rt.io.serialize_many_sparse(_sparse()), rt.float32)
    np.testing.assert_array_equal(back.indices.numpy(), [[0, 1], [2, 0]])
    np.testing.assert_array_equal(back.values.numpy(), [1.5, 2.5])
    np.testing.assert_array_equal(back.dense_shape.numpy(), [3, 4])
    # TensorFlow 2.21: the batch is entry after entry, the shape the largest of each axis
    first = rt.io.serialize_many_sparse(rt.sparse.SparseTensor([[0, 3], [1, 0]], [1, 2], [2, 5]))
    second = rt.io.serialize_many_sparse(rt.sparse.SparseTensor([[0, 0], [1, 1]], [3, 4], [2, 2]))
    both = rt.io.deserialize_many_sparse(rt.concat([first, second], 0), rt.int32)
    np.testing.assert_array_equal(both.indices.numpy(), [[0, 3], [1, 0], [2, 0], [3, 1]])
    np.testing.assert_array_equal(both.values.numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(both.dense_shape.numpy(), [4, 5])
    strings = rt.io.deserialize_many_sparse(
        rt.io.serialize_many_sparse(rt.sparse.SparseTensor([[0, 1], [1, 0]], ["ab", "c"], [2, 2])),
        rt.string)
    assert strings.values.numpy().tolist() == [b"ab", b"c"]
    with pytest.raises(rt.errors.InvalidArgumentError, match="dtype"):
        rt.io.deserialize_many_sparse(rt.io.serialize_many_sparse(_sparse()), rt.int32)


def test_decode_compressed():
    got = rt.io.decode_compressed([zlib.compress(b"hello"), zlib.compress(b"")], "ZLIB")
    assert got.numpy().tolist() == [b"hello", b""]
    assert rt.io.decode_compressed(gzip.compress(b"hi" * 100), "GZIP").numpy() == b"hi" * 100
    assert rt.io.decode_compressed(b"raw").numpy() == b"raw"
    staged = rt.function(lambda s: rt.io.decode_compressed(s, "ZLIB"))
    assert staged(rt.constant([zlib.compress(b"x")])).numpy().tolist() == [b"x"]
    with pytest.raises(rt.errors.DataLossError):
        rt.io.decode_compressed(b"raw", "ZLIB")
    with pytest.raises(rt.errors.InvalidArgumentError, match="compression_type"):
        rt.io.decode_compressed(b"raw", "BZ2")


def test_matching_files(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_text("x")
    base = str(tmp_path)
    got = rt.io.matching_files(f"{base}/*.txt").numpy().tolist()
    assert got == [f"{base}/a.txt".encode(), f"{base}/b.txt".encode()]
    # several patterns: their matches together, sorted (TensorFlow 2.21)
    got = rt.io.matching_files([f"{base}/*.csv", f"{base}/a*"]).numpy().tolist()
    assert got == [f"{base}/a.txt".encode(), f"{base}/c.csv".encode()]
    assert rt.io.matching_files(f"{base}/none*").shape == (0,)


def test_decode_json_example_gives_tensorflows_bytes_and_parses():
    text = ('{"features": {"feature": {"x": {"floatList": {"value": [1.5, 2]}}, '
            '"s": {"bytesList": {"value": ["YWI="]}}, "i": {"int64List": {"value": ["3", 4]}}}}}')
    got = rt.io.decode_json_example(text).numpy()
    # recorded from TensorFlow 2.21
    assert got == (b'\n-\n\x11\n\x01x\x12\x0c\x12\n\r\x00\x00\xc0?\r\x00\x00\x00@\n\x0b\n\x01s'
                   b'\x12\x06\n\x04\n\x02ab\n\x0b\n\x01i\x12\x06\x1a\x04\x08\x03\x08\x04')
    parsed = rt.io.parse_single_example(got, {
        "x": rt.io.FixedLenFeature([2], rt.float32), "s": rt.io.FixedLenFeature([], rt.string),
        "i": rt.io.FixedLenFeature([2], rt.int64)})
    np.testing.assert_array_equal(parsed["x"].numpy(), [1.5, 2.0])
    assert parsed["s"].numpy() == b"ab"
    np.testing.assert_array_equal(parsed["i"].numpy(), [3, 4])
    with pytest.raises(rt.errors.InvalidArgumentError, match="JSON"):
        rt.io.decode_json_example("{not json")


# recorded from TensorFlow 2.21: Examples with int64 features "ix", "iy" and float feature "val"
# (ix=[3, 1], iy=[0, 2], val=[0.5, 1.5]; all empty; ix=[0], iy=[1], val=[2.0])
RECORDS = [b'\n1\n\x13\n\x03val\x12\x0c\x12\n\n\x08\x00\x00\x00?\x00\x00\xc0?\n\x0c\n\x02iy\x12'
           b'\x06\x1a\x04\n\x02\x00\x02\n\x0c\n\x02ix\x12\x06\x1a\x04\n\x02\x03\x01',
           b'\n\x1f\n\t\n\x03val\x12\x02\x12\x00\n\x08\n\x02iy\x12\x02\x1a\x00\n\x08\n\x02ix\x12'
           b'\x02\x1a\x00',
           b'\n+\n\x0f\n\x03val\x12\x08\x12\x06\n\x04\x00\x00\x00@\n\x0b\n\x02iy\x12\x05\x1a\x03'
           b'\n\x01\x01\n\x0b\n\x02ix\x12\x05\x1a\x03\n\x01\x00']


def _check_sparse(sp, indices, values, shape):
    np.testing.assert_array_equal(sp.indices.numpy(), indices)
    np.testing.assert_array_equal(sp.values.numpy(), values)
    np.testing.assert_array_equal(sp.dense_shape.numpy(), shape)


def test_sparse_feature_as_tensorflow():
    # TensorFlow 2.21's results
    got = rt.io.parse_example(RECORDS, {"sp": rt.io.SparseFeature("ix", "val", rt.float32, 5),
                                        "ix": rt.io.VarLenFeature(rt.int64)})
    assert set(got) == {"sp", "ix"}
    _check_sparse(got["sp"], [[0, 1], [0, 3], [2, 0]], [1.5, 0.5, 2.0], [3, 5])
    _check_sparse(got["ix"], [[0, 0], [0, 1], [2, 0]], [3, 1, 0], [3, 2])
    got = rt.io.parse_example(RECORDS, {"sp": rt.io.SparseFeature(["ix", "iy"], "val",
                                                                  rt.float32, [5, 3])})
    assert set(got) == {"sp"}
    _check_sparse(got["sp"], [[0, 1, 2], [0, 3, 0], [2, 0, 1]], [1.5, 0.5, 2.0], [3, 5, 3])
    got = rt.io.parse_single_example(RECORDS[0], {"sp": rt.io.SparseFeature(
        "ix", "val", rt.float32, 5, already_sorted=True)})
    _check_sparse(got["sp"], [[3], [1]], [0.5, 1.5], [5])
    got = rt.io.parse_single_example(RECORDS[0], {"sp": rt.io.SparseFeature("ix", "val",
                                                                            rt.float32, 5)})
    _check_sparse(got["sp"], [[1], [3]], [1.5, 0.5], [5])
    with pytest.raises(ValueError, match="one size per index key"):
        rt.io.SparseFeature(["ix", "iy"], "val", rt.float32, 5)
