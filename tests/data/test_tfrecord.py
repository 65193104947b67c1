"""TFRecord files: TensorFlow's bytes read here, ours checked by an independent CRC and by
the protobuf package, corruption reported as DataLossError (fixtures: tests/data/fixtures,
written by make_tfrecord_fixtures.py with TensorFlow 2.21)."""

import gzip
import os
import struct
import zlib

import numpy as np
import pytest

import runtime as rt
from runtime.ops import io_tfrecord
from runtime.ops.io_tfrecord import crc32c, crc32c_many

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


@pytest.fixture(params=["numpy", "google-crc32c"])
def crc_code(request, monkeypatch):
    """Runs a test with the NumPy CRC and with the optional C one (when installed)."""
    if request.param == "numpy":
        monkeypatch.setattr(io_tfrecord, "_C_CRC", None)
    elif io_tfrecord._c_crc() is None:
        pytest.skip("google-crc32c (the extra `tfrecord`) is not installed in its C build")
    return request.param


def _bitwise_crc32c(data: bytes) -> int:
    """CRC-32C one bit at a time (the definition; independent of the table code)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _hand_records(data: bytes) -> list[bytes]:
    """The records of TFRecord bytes, each CRC checked with the bitwise CRC."""
    out, pos = [], 0
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[pos + 8:pos + 12])[0] == _masked(_bitwise_crc32c(header))
        body = data[pos + 12:pos + 12 + length]
        assert struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])[0] == \
            _masked(_bitwise_crc32c(body))
        out.append(body)
        pos += 16 + length
    return out


@pytest.mark.parametrize("data, expected", [
    (bytes(32), 0x8A9136AA),                      # RFC 3720, B.4
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
    (b"123456789", 0xE3069283),                   # the CRC catalogue's check value
    (b"", 0),
])
def test_crc32c_known_vectors(crc_code, data, expected):
    assert crc32c(data) == expected == _bitwise_crc32c(data)


def test_crc32c_of_many_items_of_different_lengths(crc_code):
    rng = np.random.default_rng(0)
    items = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in (0, 5, 1, 300, 17, 5)]
    assert crc32c_many(items).tolist() == [_bitwise_crc32c(b) for b in items]


def test_crc32c_across_row_boundaries_and_of_equal_short_items(crc_code):
    """Every length around the 256-byte rows of the block CRC, items of one short length
    (fed word by word), and long items, against the bitwise definition."""
    rng = np.random.default_rng(1)
    lengths = list(range(0, 70)) + list(range(250, 262)) + list(range(508, 518)) + [1023, 20000]
    items = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in lengths]
    assert crc32c_many(items).tolist() == [_bitwise_crc32c(b) for b in items]
    for n in (4, 8, 12, 64):
        same = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for _ in range(5)]
        assert crc32c_many(same).tolist() == [_bitwise_crc32c(b) for b in same]
    assert crc32c_many([]).size == 0


@pytest.mark.parametrize("name, compression", [("examples.tfrecord", None),
                                               ("examples.tfrecord.gz", "GZIP")])
def test_reads_the_files_tensorflow_wrote(name, compression):
    records = [r.numpy() for r in rt.data.TFRecordDataset(os.path.join(FIXTURES, name),
                                                          compression_type=compression)]
    with open(os.path.join(FIXTURES, "examples.tfrecord"), "rb") as fh:
        assert records == _hand_records(fh.read())
    assert len(records) == 4
    example = rt.train.Example.FromString(records[2])
    assert example.features.feature["i"].int64_list.value == [2, -3, 2**40]
    assert example.features.feature["s"].bytes_list.value == [b"row2", b"\xff\x00"]


def test_reads_a_zlib_file_tensorflow_wrote():
    path = os.path.join(FIXTURES, "strings.tfrecord.zlib")
    got = [r.numpy() for r in rt.data.TFRecordDataset(path, compression_type="ZLIB")]
    assert got == [b"", b"a", b"hello world" * 20]
    assert _hand_records(zlib.decompress(open(path, "rb").read())) == got


@pytest.mark.parametrize("options", [None, "", "GZIP", "ZLIB",
                                     rt.io.TFRecordOptions(compression_type="GZIP")])
def test_files_written_here_hold_tensorflow_framing(tmp_path, options):
    path = str(tmp_path / "out.tfrecord")
    records = [b"", b"x", bytes(range(256)) * 3, "text"]
    with rt.io.TFRecordWriter(path, options) as writer:
        for r in records:
            writer.write(r)
    raw = open(path, "rb").read()
    kind = rt.io.TFRecordOptions.get_compression_type_string(options)
    if kind == "GZIP":
        raw = gzip.decompress(raw)
    elif kind == "ZLIB":
        raw = zlib.decompress(raw)
    expected = [b"", b"x", bytes(range(256)) * 3, b"text"]
    assert _hand_records(raw) == expected
    got = [r.numpy() for r in rt.data.TFRecordDataset(path, compression_type=kind or None)]
    assert got == expected


def test_a_corrupted_record_names_the_file_and_offset(crc_code, tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    with rt.io.TFRecordWriter(path) as writer:
        writer.write(b"first record")
        writer.write(b"second record")
    data = bytearray(open(path, "rb").read())
    second = 16 + len(b"first record")
    data[second + 12 + 3] ^= 0x01  # one bit of the second record's data
    open(path, "wb").write(bytes(data))
    with pytest.raises(rt.errors.DataLossError, match=f"at {second} in file {path}"):
        list(rt.data.TFRecordDataset(path))


def test_the_first_corrupted_record_in_the_file_is_reported(crc_code, tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    records = [bytes([i]) * (100 + i) for i in range(6)]
    with rt.io.TFRecordWriter(path) as writer:
        for record in records:
            writer.write(record)
    good = open(path, "rb").read()
    at = [sum(16 + len(r) for r in records[:i]) for i in range(len(records))]
    data = bytearray(good)
    data[at[4] + 9] ^= 0x10  # the length's CRC of record 4
    data[at[2] + 20] ^= 0x01  # the data of record 2
    open(path, "wb").write(bytes(data))
    with pytest.raises(rt.errors.DataLossError, match=f"at {at[2]} in file .*the data's CRC"):
        list(rt.data.TFRecordDataset(path))
    got = []
    with pytest.raises(rt.errors.DataLossError):  # the records before it come first
        for record in rt.data.TFRecordDataset(path):
            got.append(record.numpy())
    assert got == records[:2]
    data = bytearray(good)
    data[at[3] + 8] ^= 0x01  # the length's CRC of record 3
    open(path, "wb").write(bytes(data))
    with pytest.raises(rt.errors.DataLossError, match=f"at {at[3]} in file .*the length's CRC"):
        list(rt.data.TFRecordDataset(path))


def test_a_corrupted_length_and_a_truncated_file_are_data_loss(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    with rt.io.TFRecordWriter(path) as writer:
        writer.write(b"0123456789")
    good = open(path, "rb").read()
    open(path, "wb").write(good[:-3])
    with pytest.raises(rt.errors.DataLossError, match="truncated record at 0"):
        list(rt.data.TFRecordDataset(path))
    open(path, "wb").write(good[:2] + b"\x7f" + good[3:])
    with pytest.raises(rt.errors.DataLossError, match="at 0 in file"):
        list(rt.data.TFRecordDataset(path))


def test_a_huge_declared_length_is_data_loss_not_an_allocation(tmp_path):
    path = str(tmp_path / "huge.tfrecord")
    header = struct.pack("<Q", 1 << 60)
    open(path, "wb").write(header + struct.pack("<I", _masked(_bitwise_crc32c(header))) + b"ab")
    with pytest.raises(rt.errors.DataLossError, match="more than the file holds"):
        list(rt.data.TFRecordDataset(path))
    gz = str(tmp_path / "huge.tfrecord.gz")
    open(gz, "wb").write(gzip.compress(open(path, "rb").read()))
    with pytest.raises(rt.errors.DataLossError, match="truncated record at 0"):
        list(rt.data.TFRecordDataset(gz, compression_type="GZIP"))


def test_several_files_in_order_interleaved_and_from_a_dataset(tmp_path):
    paths = []
    for f in range(3):
        paths.append(str(tmp_path / f"part{f}.tfrecord"))
        with rt.io.TFRecordWriter(paths[-1]) as writer:
            for i in range(f + 1):
                writer.write(f"{f}-{i}")
    read = lambda ds: [r.numpy().decode() for r in ds]  # noqa: E731
    assert read(rt.data.TFRecordDataset(paths)) == ["0-0", "1-0", "1-1", "2-0", "2-1", "2-2"]
    assert read(rt.data.TFRecordDataset(rt.data.Dataset.from_tensor_slices(paths[::-1]))) == \
        ["2-0", "2-1", "2-2", "1-0", "1-1", "0-0"]
    assert sorted(read(rt.data.TFRecordDataset(paths, num_parallel_reads=2))) == \
        sorted(read(rt.data.TFRecordDataset(paths)))
    assert read(rt.data.TFRecordDataset(paths, num_parallel_reads=3))[:3] == ["0-0", "1-0", "2-0"]


def test_a_missing_file_and_bad_arguments(tmp_path):
    with pytest.raises(rt.errors.NotFoundError, match="nope.tfrecord"):
        list(rt.data.TFRecordDataset(str(tmp_path / "nope.tfrecord")))
    with pytest.raises(ValueError, match="compression_type"):
        rt.data.TFRecordDataset("x", compression_type="BZIP2")
    with pytest.raises(TypeError, match="compresion_type"):
        rt.data.TFRecordDataset("x", compresion_type="GZIP")
    writer = rt.io.TFRecordWriter(str(tmp_path / "w.tfrecord"))
    writer.close()
    with pytest.raises(ValueError, match="closed"):
        writer.write(b"late")


def _protobuf_example_class():
    """tf.train.Example's schema (tensorflow/core/example/*.proto) built with protobuf."""
    descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
    from google.protobuf import descriptor_pool, message_factory

    f = descriptor_pb2.FileDescriptorProto(name="example_check.proto", package="check",
                                           syntax="proto3")
    T = descriptor_pb2.FieldDescriptorProto  # noqa: N806

    def message(name, *fields, options=None):
        m = f.message_type.add(name=name)
        for number, fname, ftype, label, type_name in fields:
            fd = m.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                fd.type_name = type_name
        return m

    rep, opt = T.LABEL_REPEATED, T.LABEL_OPTIONAL
    message("BytesList", (1, "value", T.TYPE_BYTES, rep, None))
    message("FloatList", (1, "value", T.TYPE_FLOAT, rep, None))
    message("Int64List", (1, "value", T.TYPE_INT64, rep, None))
    feature = message("Feature", (1, "bytes_list", T.TYPE_MESSAGE, opt, ".check.BytesList"),
                      (2, "float_list", T.TYPE_MESSAGE, opt, ".check.FloatList"),
                      (3, "int64_list", T.TYPE_MESSAGE, opt, ".check.Int64List"))
    feature.oneof_decl.add(name="kind")
    for fd in feature.field:
        fd.oneof_index = 0
    features = message("Features", (1, "feature", T.TYPE_MESSAGE, rep, ".check.Features.FeatureEntry"))
    entry = features.nested_type.add(name="FeatureEntry")
    entry.field.add(name="key", number=1, type=T.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=T.TYPE_MESSAGE, label=opt, type_name=".check.Feature")
    entry.options.map_entry = True
    message("Example", (1, "features", T.TYPE_MESSAGE, opt, ".check.Features"))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("check.Example"))


def test_examples_written_here_decode_with_the_protobuf_package():
    cls = _protobuf_example_class()
    ours = rt.train.Example(features=rt.train.Features(feature={
        "f": rt.train.Feature(float_list=rt.train.FloatList(value=[1.5, -2.25])),
        "i": rt.train.Feature(int64_list=rt.train.Int64List(value=[-1, 0, 2**62, 300])),
        "s": rt.train.Feature(bytes_list=rt.train.BytesList(value=[b"a\x00b", "é"])),
    }))
    theirs = cls.FromString(ours.SerializeToString())
    assert list(theirs.features.feature["f"].float_list.value) == [1.5, -2.25]
    assert list(theirs.features.feature["i"].int64_list.value) == [-1, 0, 2**62, 300]
    assert list(theirs.features.feature["s"].bytes_list.value) == [b"a\x00b", "é".encode()]
    back = rt.train.Example.FromString(theirs.SerializeToString())
    assert back == ours


def test_long_records_and_many_records_round_trip(tmp_path):
    rng = np.random.default_rng(3)
    records = [rng.bytes(n) for n in (5000, 70_000, 4096, 4097, 0)] + \
        [rng.bytes(int(n)) for n in rng.integers(0, 300, 5000)]
    path = str(tmp_path / "many.tfrecord")
    with rt.io.TFRecordWriter(path) as writer:
        for r in records:
            writer.write(r)
    with open(path, "rb") as fh:
        assert _hand_records(fh.read()) == records
    got = [r.numpy() for r in rt.data.TFRecordDataset(path, buffer_size=10_000)]
    assert got == records
    assert crc32c(records[1]) == _bitwise_crc32c(records[1])


def test_flush_writes_what_was_written(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    writer = rt.io.TFRecordWriter(path)
    writer.write(b"one")
    writer.flush()
    assert _hand_records(open(path, "rb").read()) == [b"one"]
    writer.close()


def test_records_flow_through_the_usual_transformations(tmp_path):
    path = str(tmp_path / "t.tfrecord")
    expected = [b"r%d" % i for i in range(10)]
    with rt.io.TFRecordWriter(path) as writer:
        for r in expected:
            writer.write(r)
    ds = rt.data.TFRecordDataset(path, buffer_size=64)  # several pieces of the file
    assert [r.numpy() for r in ds.skip(1).take(3)] == expected[1:4]
    assert sorted(r.numpy() for r in ds.shuffle(10, seed=0)) == expected
    batches = [b.numpy().tolist() for b in ds.batch(4, drop_remainder=True)]
    assert batches == [expected[0:4], expected[4:8]]
    assert ds.element_spec == rt.TensorSpec([], rt.string)


def _reference_read(data: bytes):
    """(records, offset of the first bad record or None), reading one record at a time with
    the bitwise CRC, as TensorFlow's reader goes."""
    out, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 12:
            return out, pos
        header = data[pos:pos + 8]
        if struct.unpack("<I", data[pos + 8:pos + 12])[0] != _masked(_bitwise_crc32c(header)):
            return out, pos
        (length,) = struct.unpack("<Q", header)
        body = data[pos + 12:pos + 12 + length]
        if len(data) - pos < 16 + length or \
                struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])[0] != \
                _masked(_bitwise_crc32c(body)):
            return out, pos
        out.append(body)
        pos += 16 + length
    return out, None


def test_damaged_files_give_the_records_before_the_damage_then_its_offset(crc_code, tmp_path):
    """A bit flipped, bytes cut out, or the file cut short, 40 times (seeded), read in 4 KB
    pieces: the records before the damage, then DataLossError at the damaged record."""
    rng = np.random.default_rng(11)
    path = str(tmp_path / "damaged.tfrecord")
    with rt.io.TFRecordWriter(path) as writer:
        for _ in range(30):
            writer.write(rng.bytes(int(rng.choice([0, 3, 100, 700, 5000]))))
    good = open(path, "rb").read()
    for _ in range(40):
        data = bytearray(good)
        at, change = int(rng.integers(len(data))), rng.integers(3)
        if change == 0:
            data[at] ^= 1 << int(rng.integers(8))
        elif change == 1:
            del data[at:at + int(rng.integers(1, 5))]
        else:
            del data[at:]
        open(path, "wb").write(bytes(data))
        expected, bad_at = _reference_read(bytes(data))
        got = []
        if bad_at is None:
            got = [r.numpy() for r in rt.data.TFRecordDataset(path, buffer_size=4096)]
        else:
            with pytest.raises(rt.errors.DataLossError, match=f"at {bad_at} in file"):
                for record in rt.data.TFRecordDataset(path, buffer_size=4096):
                    got.append(record.numpy())
        assert got == expected


def test_a_directory_is_a_failed_precondition_when_read(tmp_path):
    # TensorFlow 2.21: FailedPreconditionError "<dir>; Is a directory" from the iterator
    with pytest.raises(rt.errors.FailedPreconditionError, match="Is a directory"):
        list(rt.data.TFRecordDataset(str(tmp_path)))
