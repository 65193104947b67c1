"""rt.train.Example messages and rt.io.parse_* on records TensorFlow wrote (fixtures written by
tests/data/fixtures/make_tfrecord_fixtures.py; the expected values are the ones it wrote, and
the results' layouts are TensorFlow 2.21's)."""

import os

import numpy as np
import pytest

import runtime as rt

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _records(name):
    return [r.numpy() for r in rt.data.TFRecordDataset(os.path.join(FIXTURES, name))]


@pytest.fixture(scope="module")
def records():
    return _records("examples.tfrecord")


def _written(i):
    """The values make_tfrecord_fixtures.py put in record i."""
    return {"f": np.array([i + 0.5, -1.25, 3e10], np.float32),
            "i": np.array([i, -i - 1, 2**40], np.int64),
            "s": [b"row%d" % i, b"\xff\x00"], "v": list(range(i))}


def test_example_messages_decode_and_reencode_tensorflows_bytes(records):
    for i, data in enumerate(records):
        example = rt.train.Example.FromString(data)
        feature = example.features.feature
        np.testing.assert_array_equal(feature["f"].float_list.value, _written(i)["f"])
        assert feature["i"].int64_list.value == _written(i)["i"].tolist()
        assert feature["s"].bytes_list.value == _written(i)["s"]
        assert feature["v"].WhichOneof("kind") == "int64_list"
        assert feature["e"].WhichOneof("kind") == "float_list"
        assert feature["e"].float_list.value == []
        assert example.SerializeToString() == data
        other = rt.train.Example()
        assert other.ParseFromString(data) == len(data) and other == example


def test_building_an_example_as_tensorflow_users_do():
    example = rt.train.Example()
    example.features.feature["x"].float_list.value.extend([1.0, 2.5])
    example.features.feature["n"].int64_list.value.append(-3)
    back = rt.train.Example.FromString(example.SerializeToString())
    assert back.features.feature["x"].float_list.value == [1.0, 2.5]
    assert back.features.feature["n"].int64_list.value == [-3]
    assert back.features.feature["n"].HasField("int64_list")
    with pytest.raises(ValueError, match="only one"):
        rt.train.Feature(float_list=rt.train.FloatList(value=[1]),
                         int64_list=rt.train.Int64List(value=[1]))


def test_parse_example_gives_tensorflows_layouts(records):
    out = rt.io.parse_example(records, {
        "f": rt.io.FixedLenFeature([3], rt.float32),
        "i": rt.io.FixedLenFeature((3,), rt.int64),
        "s": rt.io.VarLenFeature(rt.string),
        "v": rt.io.RaggedFeature(rt.int64),
        "e": rt.io.VarLenFeature(rt.float32),
        "missing": rt.io.FixedLenFeature([2], rt.int64, default_value=[7, 8]),
    })
    np.testing.assert_array_equal(out["f"].numpy(), [_written(i)["f"] for i in range(4)])
    np.testing.assert_array_equal(out["i"].numpy(), [_written(i)["i"] for i in range(4)])
    assert out["f"].dtype == rt.float32 and out["i"].dtype == rt.int64
    sparse = out["s"]
    assert isinstance(sparse, rt.sparse.SparseTensor)
    np.testing.assert_array_equal(sparse.indices.numpy(), [[r, c] for r in range(4) for c in range(2)])
    assert sparse.values.numpy().tolist() == [v for i in range(4) for v in _written(i)["s"]]
    np.testing.assert_array_equal(sparse.dense_shape.numpy(), [4, 2])
    assert out["v"].to_list() == [_written(i)["v"] for i in range(4)]
    np.testing.assert_array_equal(out["e"].dense_shape.numpy(), [4, 0])
    np.testing.assert_array_equal(out["missing"].numpy(), [[7, 8]] * 4)
    # FixedLenSequenceFeature(allow_missing=True) pads with its default (TensorFlow 2.21)
    padded = rt.io.parse_example(records, {"v": rt.io.FixedLenSequenceFeature(
        [], rt.int64, allow_missing=True, default_value=-1)})["v"]
    np.testing.assert_array_equal(padded.numpy(), [[-1, -1, -1], [0, -1, -1], [0, 1, -1], [0, 1, 2]])


def test_parse_single_example(records):
    out = rt.io.parse_single_example(records[3], {
        "i": rt.io.FixedLenFeature([3], rt.int64), "s": rt.io.VarLenFeature(rt.string),
        "v": rt.io.RaggedFeature(rt.int64)})
    np.testing.assert_array_equal(out["i"].numpy(), _written(3)["i"])
    np.testing.assert_array_equal(out["s"].indices.numpy(), [[0], [1]])
    np.testing.assert_array_equal(out["s"].dense_shape.numpy(), [2])
    assert isinstance(out["v"], rt.Tensor)  # a plain tensor for one record, as TensorFlow's
    np.testing.assert_array_equal(out["v"].numpy(), [0, 1, 2])


def test_parse_errors_name_the_key(records):
    with pytest.raises(rt.errors.InvalidArgumentError, match="Feature: zz .* is required"):
        rt.io.parse_example(records, {"zz": rt.io.FixedLenFeature([], rt.int64)})
    with pytest.raises(rt.errors.InvalidArgumentError, match="Key: f, Index: 0.  Data types"):
        rt.io.parse_example(records, {"f": rt.io.FixedLenFeature([3], rt.int64)})
    with pytest.raises(rt.errors.InvalidArgumentError, match="Values size: 3 but output shape: "
                                                             r"\[2\]"):
        rt.io.parse_example(records, {"f": rt.io.FixedLenFeature([2], rt.float32)})
    with pytest.raises(rt.errors.InvalidArgumentError, match="Could not parse"):
        rt.io.parse_single_example(b"\x0a\x7f", {"f": rt.io.VarLenFeature(rt.float32)})
    with pytest.raises(ValueError, match="dtype"):
        rt.io.FixedLenFeature([], rt.int32)
    with pytest.raises(TypeError, match="feature configurations"):
        rt.io.parse_example(records, [rt.io.VarLenFeature(rt.int64)])


def test_parsing_inside_dataset_map_and_rt_function(records):
    features = {"f": rt.io.FixedLenFeature([3], rt.float32),
                "s": rt.io.FixedLenFeature([2], rt.string)}
    path = os.path.join(FIXTURES, "examples.tfrecord")
    ds = rt.data.TFRecordDataset(path).batch(3).map(lambda s: rt.io.parse_example(s, features))
    assert ds.element_spec["f"] == rt.TensorSpec([None, 3], rt.float32)
    batches = list(ds)
    np.testing.assert_array_equal(np.concatenate([b["f"].numpy() for b in batches]),
                                  [_written(i)["f"] for i in range(4)])
    single = rt.data.TFRecordDataset(path).map(lambda s: rt.io.parse_single_example(s, features))
    assert single.element_spec["s"] == rt.TensorSpec([2], rt.string)
    assert [e["s"].numpy().tolist() for e in single] == [_written(i)["s"] for i in range(4)]

    @rt.function
    def dense_of_varlen(serialized):
        out = rt.io.parse_example(serialized, {"v": rt.io.VarLenFeature(rt.int64)})
        return rt.sparse.to_dense(out["v"], default_value=-1)

    np.testing.assert_array_equal(dense_of_varlen(rt.constant(records)).numpy(),
                                  [[-1, -1, -1], [0, -1, -1], [0, 1, -1], [0, 1, 2]])


def test_sequence_examples_tensorflow_wrote():
    (data,) = _records("sequence.tfrecord")
    context = {"length": rt.io.FixedLenFeature([], rt.int64)}
    sequence = {"tokens": rt.io.VarLenFeature(rt.int64),
                "scores": rt.io.FixedLenSequenceFeature([2], rt.float32)}
    ctx, seq = rt.io.parse_single_sequence_example(data, context, sequence)
    assert ctx["length"].numpy() == 3
    np.testing.assert_array_equal(seq["scores"].numpy(), [[0.5, 1.0], [1.5, 3.0], [2.5, 5.0]])
    np.testing.assert_array_equal(seq["tokens"].indices.numpy(),
                                  [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]])
    np.testing.assert_array_equal(seq["tokens"].dense_shape.numpy(), [3, 3])
    ctx, seq, lengths = rt.io.parse_sequence_example([data, data], context, sequence)
    np.testing.assert_array_equal(ctx["length"].numpy(), [3, 3])
    assert seq["scores"].shape.as_list() == [2, 3, 2]
    np.testing.assert_array_equal(seq["tokens"].dense_shape.numpy(), [2, 3, 3])
    assert list(lengths) == ["scores"]  # TensorFlow reports FixedLenSequenceFeature lengths only
    np.testing.assert_array_equal(lengths["scores"].numpy(), [3, 3])
    message = rt.train.SequenceExample.FromString(data)
    assert [f.int64_list.value for f in message.feature_lists.feature_list["tokens"].feature] == \
        [[1, 2], [3], [4, 5, 6]]
    assert message.SerializeToString() == data


@pytest.mark.parametrize("index, dtype, expected", [
    (0, rt.float32, np.array([[1.5, -2.0], [3.25, 4.0]], np.float32)),
    (1, rt.int64, np.array([1, -2, 2**40], np.int64)),
    (2, rt.int32, np.array(-7, np.int32)),
    (3, rt.uint8, np.array([0, 255, 7], np.uint8)),
    (4, rt.bool, np.array([True, False])),
    (5, rt.float64, np.array([np.pi])),
    (6, rt.string, np.array([b"ab", b"", b"xyz"], object)),
])
def test_serialize_tensor_matches_tensorflows_bytes(index, dtype, expected):
    data = _records("tensors.tfrecord")[index]
    parsed = rt.io.parse_tensor(data, dtype)
    assert parsed.dtype == dtype
    np.testing.assert_array_equal(parsed.numpy(), expected)
    assert rt.io.serialize_tensor(rt.constant(expected, dtype=dtype)).numpy() == data


def _hand_varint(n):
    out = b""
    n &= (1 << 64) - 1
    while n > 0x7F:
        out += bytes([n & 0x7F | 0x80])
        n >>= 7
    return out + bytes([n])


def _field(number, payload):
    return _hand_varint(number << 3 | 2) + _hand_varint(len(payload)) + payload


def test_unpacked_lists_and_reordered_map_entries_parse_as_protobuf_defines():
    # proto3 parsers accept unpacked repeated scalars and map entries with the value first;
    # bytes built by hand from the wire format's definition
    floats = b"".join(b"\x0d" + np.float32(v).tobytes() for v in (1.5, -2.0))   # field 1, fixed32
    ints = b"".join(b"\x08" + _hand_varint(v) for v in (5, -1, 300))            # field 1, varint
    entry_f = _field(2, _field(2, floats)) + _field(1, b"f")                     # value, then key
    entry_i = _field(1, b"i") + _field(2, _field(3, ints))
    example = _field(1, _field(1, entry_f) + _field(1, entry_i))
    out = rt.io.parse_example([example, example], {"f": rt.io.FixedLenFeature([2], rt.float32),
                                                   "i": rt.io.VarLenFeature(rt.int64)})
    np.testing.assert_array_equal(out["f"].numpy(), [[1.5, -2.0]] * 2)
    assert out["i"].values.numpy().tolist() == [5, -1, 300] * 2
    message = rt.train.Example.FromString(example)
    assert message.features.feature["i"].int64_list.value == [5, -1, 300]


def test_multibyte_varints_and_large_values_in_a_batch():
    values = [[0, 127, 128, 2**35, -(2**63)], [], [16384], [-1, 1]]
    records = [rt.train.Example(features=rt.train.Features(feature={
        "v": rt.train.Feature(int64_list=rt.train.Int64List(value=v))})).SerializeToString()
        for v in values]
    out = rt.io.parse_example(records, {"v": rt.io.RaggedFeature(rt.int64)})["v"]
    assert out.to_list() == values


def test_a_truncated_example_is_invalid_argument():
    good = rt.train.Example(features=rt.train.Features(feature={
        "x": rt.train.Feature(float_list=rt.train.FloatList(value=[1.0, 2.0]))}))
    data = good.SerializeToString()
    for cut in range(len(data)):  # every prefix: malformed, or missing the feature
        with pytest.raises(rt.errors.InvalidArgumentError):
            rt.io.parse_example([data[:cut]], {"x": rt.io.FixedLenFeature([2], rt.float32)})


def test_parsed_dict_keys_in_tensorflows_order():
    """TF 2.21 returns the VarLenFeature keys, then the fixed-length ones, then the
    RaggedFeature ones, each sorted: ['v', 'a', 'c', 'w', 'r'] for this description (also in a
    dataset's element_spec)."""
    def int_feature(values):
        return rt.train.Feature(int64_list=rt.train.Int64List(value=values))
    example = rt.train.Example(features=rt.train.Features(feature={
        "w": int_feature([1]), "a": rt.train.Feature(bytes_list=rt.train.BytesList(value=[b"x"])),
        "v": int_feature([1, 2]), "r": int_feature([3]), "c": int_feature([4])}))
    data = example.SerializeToString()
    description = {"w": rt.io.FixedLenFeature([], rt.int64), "a": rt.io.FixedLenFeature([], rt.string),
                   "v": rt.io.VarLenFeature(rt.int64), "r": rt.io.RaggedFeature(rt.int64),
                   "c": rt.io.FixedLenFeature([], rt.int64)}
    expected = ["v", "a", "c", "w", "r"]
    assert list(rt.io.parse_single_example(data, description)) == expected
    assert list(rt.io.parse_example([data], description)) == expected
    parsed = rt.data.Dataset.from_tensors(data).map(
        lambda x: rt.io.parse_single_example(x, description))
    assert list(parsed.element_spec) == expected
    assert int(next(iter(parsed))["c"]) == 4
