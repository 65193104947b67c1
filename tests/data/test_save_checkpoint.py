"""Dataset.save/load (read back by a reader written here from the documented format, CRCs
checked by a plain-Python CRC32C), iterator checkpoints (TensorFlow's guide, recorded under
TensorFlow 2.21), ignore_errors and TextLineDataset's missing files (TensorFlow's outputs and
error types)."""

import collections
import json
import logging
import os
import struct

import numpy as np
import pytest

import runtime as rt

Dataset = rt.data.Dataset


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    """The records of an uncompressed TFRecord file, both CRCs checked by hand."""
    data, out, at = open(path, "rb").read(), [], 0
    while at < len(data):
        header = data[at:at + 8]
        (n,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[at + 8:at + 12])[0] == masked(crc32c(header))
        body = data[at + 12:at + 12 + n]
        assert struct.unpack("<I", data[at + 12 + n:at + 16 + n])[0] == masked(crc32c(body))
        out.append(body)
        at += 16 + n
    return out


def components(record, dtypes):
    """The documented record layout: rank, dims, then values (strings: lengths, bytes)."""
    out, at = [], 0
    for dtype in dtypes:
        (rank,) = struct.unpack_from("<I", record, at)
        dims = list(struct.unpack_from(f"<{rank}q", record, at + 4))
        at += 4 + 8 * rank
        count = int(np.prod(dims))
        if dtype is bytes:
            lengths = struct.unpack_from(f"<{count}q", record, at)
            at += 8 * count
            items = []
            for n in lengths:
                items.append(record[at:at + n])
                at += n
            out.append((dims, items))
        else:
            size = np.dtype(dtype).itemsize * count
            out.append((dims, np.frombuffer(record[at:at + size], dtype=np.dtype(dtype)).tolist()))
            at += size
    assert at == len(record)
    return out


def test_save_writes_the_documented_format(tmp_path):
    ds = Dataset.from_tensor_slices(({"a": np.arange(3, dtype=np.int64),
                                      "s": np.array([b"x", b"yy", b""])},
                                     np.arange(6, dtype=np.float32).reshape(3, 2)))
    ds.save(str(tmp_path / "saved"))
    spec = json.loads((tmp_path / "saved" / "dataset_spec.json").read_text())
    assert spec["format"] == "runtime.data.save" and spec["version"] == 1
    assert spec["shards"] == [{"file": "shard-00000.tfrecord", "elements": 3}]
    found = [components(r, ["<i8", bytes, "<f4"])
             for r in records(tmp_path / "saved" / "shard-00000.tfrecord")]
    assert found[1] == [([], [1]), ([], [b"yy"]), ([2], [2.0, 3.0])]
    assert found[2][1] == ([], [b""])


def test_load_round_trips_specs_values_and_cardinality(tmp_path):
    Point = collections.namedtuple("Point", ["x", "label"])
    ds = Dataset.from_tensor_slices(Point(np.arange(10, dtype=np.float64).reshape(5, 2),
                                          np.array([b"a", b"b", b"c", b"d", b"e"])))
    ds.save(str(tmp_path / "p"), compression="GZIP")
    loaded = Dataset.load(str(tmp_path / "p"))
    assert loaded.element_spec == ds.element_spec
    assert type(loaded.element_spec).__name__ == "Point"
    assert int(loaded.cardinality()) == 5
    for got, want in zip(loaded.as_numpy_iterator(), ds.as_numpy_iterator()):
        np.testing.assert_array_equal(got.x, want.x)
        assert got.label == want.label
    # TensorFlow 2.21: a filtered dataset loads with its count known; a saved batch keeps
    # its spec (None,); a second save to one path replaces the first
    Dataset.range(10).filter(lambda x: x % 2 == 0).save(str(tmp_path / "f"))
    f = Dataset.load(str(tmp_path / "f"))
    assert int(f.cardinality()) == 5 and [int(v) for v in f] == [0, 2, 4, 6, 8]
    Dataset.range(10).batch(3).save(str(tmp_path / "b"))
    b = rt.data.experimental.load(str(tmp_path / "b"))
    assert b.element_spec == rt.TensorSpec([None], rt.int64)
    assert [x.tolist() for x in b.as_numpy_iterator()] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    Dataset.range(3).save(str(tmp_path / "f"))
    assert [int(v) for v in Dataset.load(str(tmp_path / "f"))] == [0, 1, 2]


def test_shards_and_reader_func_as_tensorflow(tmp_path):
    rt.data.experimental.save(Dataset.range(10), str(tmp_path / "s"), shard_func=lambda x: x % 3)
    assert sorted(os.listdir(tmp_path / "s")) == ["dataset_spec.json", "shard-00000.tfrecord",
                                                  "shard-00001.tfrecord", "shard-00002.tfrecord"]
    flat = Dataset.load(str(tmp_path / "s"), reader_func=lambda dss: dss.flat_map(lambda x: x))
    assert [int(v) for v in flat] == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]     # TensorFlow's
    assert int(flat.cardinality()) == 10                                 # the saved count
    Dataset.range(0).save(str(tmp_path / "empty"))
    empty = Dataset.load(str(tmp_path / "empty"))
    assert int(empty.cardinality()) == 0 and list(empty) == []
    loaded = Dataset.load(str(tmp_path / "s"))
    assert int(loaded.cardinality()) == 10
    assert sorted(int(v) for v in loaded) == list(range(10))


def test_load_errors(tmp_path):
    with pytest.raises(rt.errors.NotFoundError, match="nope"):
        Dataset.load(str(tmp_path / "nope"))
    Dataset.range(4).save(str(tmp_path / "d"))
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match="Data type mismatch at component 0: expected float32 but got int64"):
        Dataset.load(str(tmp_path / "d"), element_spec=rt.TensorSpec([], rt.float32))
    assert [int(v) for v in Dataset.load(str(tmp_path / "d"),
                                         element_spec=rt.TensorSpec([], rt.int64))] == [0, 1, 2, 3]
    with pytest.raises(rt.errors.InvalidArgumentError, match="compression"):
        Dataset.load(str(tmp_path / "d"), compression="GZIP")
    with pytest.raises(rt.errors.InvalidArgumentError, match="scalar int64"):
        Dataset.range(4).save(str(tmp_path / "e"), shard_func=lambda x: rt.cast(x, rt.int32))
    with pytest.raises(ValueError, match="compression"):
        Dataset.range(4).save(str(tmp_path / "e"), compression="BAD")
    with pytest.raises(ValueError, match="checkpoint_args"):
        Dataset.range(4).save(str(tmp_path / "e"), checkpoint_args={"x": 1})


def test_load_refuses_damaged_files_without_allocating(tmp_path):
    Dataset.range(4).save(str(tmp_path / "d"))
    shard = tmp_path / "d" / "shard-00000.tfrecord"
    data = bytearray(shard.read_bytes())
    data[14] ^= 0xFF                                     # a value byte of the first record
    shard.write_bytes(bytes(data))
    with pytest.raises(rt.errors.DataLossError):
        list(Dataset.load(str(tmp_path / "d")))
    # a well-framed record claiming 10**12 values of a 1-D element: refused, not allocated
    Dataset.from_tensor_slices(np.zeros((2, 3), np.float64)).save(str(tmp_path / "big"))
    with rt.io.TFRecordWriter(str(tmp_path / "big" / "shard-00000.tfrecord")) as w:
        w.write(struct.pack("<I", 1) + struct.pack("<q", 10 ** 12) + b"\0" * 16)
    with pytest.raises(rt.errors.DataLossError, match="larger than its record|too short|shape"):
        list(Dataset.load(str(tmp_path / "big")))
    # a spec naming something other than a namedtuple's identifiers is not loaded
    spec_path = tmp_path / "d" / "dataset_spec.json"
    document = json.loads(spec_path.read_text())
    document["element_spec"] = {"kind": "namedtuple", "name": "os.system", "fields": ["a"],
                                "items": [{"kind": "tensor", "dtype": "int64", "shape": []}]}
    spec_path.write_text(json.dumps(document))
    with pytest.raises(rt.errors.DataLossError, match="namedtuple"):
        Dataset.load(str(tmp_path / "d"))
    document["shards"] = [{"file": "../../etc/passwd", "elements": 1}]
    document["element_spec"] = {"kind": "tensor", "dtype": "int64", "shape": []}
    spec_path.write_text(json.dumps(document))
    with pytest.raises(rt.errors.DataLossError, match="shards"):
        Dataset.load(str(tmp_path / "d"))


# -- iterator checkpoints ------------------------------------------------------------------------

def test_checkpoint_restores_iterator_as_in_tensorflows_guide(tmp_path):
    range_ds = Dataset.range(20)
    iterator = iter(range_ds)
    ckpt = rt.train.Checkpoint(step=rt.Variable(0), iterator=iterator)
    manager = rt.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3)
    assert [int(next(iterator)) for _ in range(5)] == [0, 1, 2, 3, 4]
    manager.save()
    assert [int(next(iterator)) for _ in range(5)] == [5, 6, 7, 8, 9]
    ckpt.restore(manager.latest_checkpoint).assert_consumed()
    assert [int(next(iterator)) for _ in range(5)] == [5, 6, 7, 8, 9]   # TensorFlow's output


def pipeline():
    return (Dataset.range(30).shuffle(30).map(lambda x: x * 2).repeat(2).batch(4).prefetch(2))


def test_new_iterator_of_a_new_dataset_continues_with_the_same_elements(tmp_path):
    it = iter(pipeline())
    for _ in range(9):                                 # into the second epoch's shuffle
        next(it)
    rt.train.Checkpoint(data=it).write(str(tmp_path / "c"))
    rest = [b.numpy().tolist() for b in it]
    fresh = iter(pipeline())                           # an unseeded shuffle of its own
    rt.train.Checkpoint(data=fresh).read(str(tmp_path / "c")).assert_consumed()
    assert [b.numpy().tolist() for b in fresh] == rest
    # the elements handed out over both epochs are each number twice
    seen = [v for b in rest for v in b]
    assert len(seen) == 60 - 36


def test_restoring_into_another_recipe_is_refused(tmp_path):
    it = iter(pipeline())
    next(it)
    path = rt.train.Checkpoint(data=it).write(str(tmp_path / "c"))
    other = iter(Dataset.range(10))
    with pytest.raises(ValueError, match="shuffle"):
        rt.train.Checkpoint(data=other).read(path)


# -- ignore_errors and TextLineDataset ------------------------------------------------------------

def failing():
    return Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0]).map(
        lambda x: rt.debugging.check_numerics(1.0 / x, "error"))


def test_ignore_errors_drops_failed_elements_as_tensorflow(caplog):
    with pytest.raises(rt.errors.InvalidArgumentError):
        list(failing())
    ds = failing().ignore_errors()
    assert [float(v) for v in ds] == [1.0, 0.5, 0.25]                    # TensorFlow's
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY
    with caplog.at_level(logging.WARNING, logger="runtime.data"):
        assert [float(v) for v in failing().apply(
            rt.data.experimental.ignore_errors(log_warning=True))] == [1.0, 0.5, 0.25]
    assert "NaN or Inf" in caplog.text
    steps = Dataset.range(6).map(lambda x: rt.debugging.check_numerics(
        1.0 / rt.cast(x - 2, rt.float32), "bad"))
    assert [b.tolist() for b in steps.ignore_errors().batch(2).as_numpy_iterator()] == \
        [[-0.5, -1.0], [1.0, 0.5], [pytest.approx(1 / 3)]]              # TensorFlow's
    kept = Dataset.range(8).filter(lambda x: rt.debugging.check_numerics(
        1.0 / rt.cast(x % 3, rt.float32), "bad") > 0.4).ignore_errors()
    assert [int(v) for v in kept] == [1, 2, 4, 5, 7]


def test_ignore_errors_does_not_reach_past_itself():
    ds = Dataset.range(4).ignore_errors().map(
        lambda x: rt.debugging.check_numerics(1.0 / rt.cast(x, rt.float32), "bad"))
    with pytest.raises(rt.errors.InvalidArgumentError):
        list(ds)


def test_text_line_dataset_of_missing_file_fails_when_iterated(tmp_path):
    good = tmp_path / "a.txt"
    good.write_text("one\ntwo\n")
    missing = str(tmp_path / "missing.txt")
    ds = rt.data.TextLineDataset([missing])             # TensorFlow builds it
    assert ds.element_spec == rt.TensorSpec([], rt.string)
    with pytest.raises(rt.errors.NotFoundError, match="missing.txt"):
        list(ds)                                         # and fails with NotFoundError here
    both = rt.data.TextLineDataset([str(good), missing])
    it = iter(both)
    assert [next(it).numpy(), next(it).numpy()] == [b"one", b"two"]
    with pytest.raises(FileNotFoundError):
        next(it)
    assert [v.numpy() for v in rt.data.TextLineDataset([missing, str(good)]).ignore_errors()] == \
        [b"one", b"two"]


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int16, np.int32, np.float16,
                                   np.float32, np.complex64, np.complex128])
def test_save_load_round_trips_dtypes_and_varying_shapes(tmp_path, dtype):
    rng = np.random.default_rng(0)
    values = [(rng.random((n, 2)) * 10).astype(dtype) for n in (0, 1, 3)]

    def gen():
        yield from values
    ds = Dataset.from_generator(gen, output_signature=rt.TensorSpec([None, 2], rt.as_dtype(dtype)))
    ds.save(str(tmp_path / "v"), compression="ZLIB")
    loaded = Dataset.load(str(tmp_path / "v"))
    assert loaded.element_spec == ds.element_spec
    got = list(loaded.as_numpy_iterator())
    assert [g.shape for g in got] == [(0, 2), (1, 2), (3, 2)]
    for g, want in zip(got, values):
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)


def test_ignore_errors_drops_a_batch_of_unequal_shapes_as_tensorflow():
    def gen():
        for n in [2, 2, 3, 2, 2, 2]:
            yield np.arange(n)
    ds = Dataset.from_generator(gen, output_signature=rt.TensorSpec([None], rt.int64)).batch(2)
    with pytest.raises(rt.errors.InvalidArgumentError):
        list(ds)
    # TensorFlow 2.21: the batch [[0, 1, 2], [0, 1]] is dropped, the others kept
    assert [b.tolist() for b in ds.ignore_errors().as_numpy_iterator()] == [[[0, 1], [0, 1]]] * 2


def test_iterator_checkpoint_keeps_unseeded_sampling_order(tmp_path):
    def mixed():
        return Dataset.sample_from_datasets([Dataset.range(40), Dataset.range(100, 140)],
                                            rerandomize_each_iteration=True).repeat(2)
    it = iter(mixed())
    for _ in range(50):
        next(it)
    rt.train.Checkpoint(it=it).write(str(tmp_path / "s"))
    rest = [int(v) for v in it]
    fresh = iter(mixed())                              # its own random seed
    rt.train.Checkpoint(it=fresh).read(str(tmp_path / "s"))
    assert [int(v) for v in fresh] == rest
    assert len(rest) == 160 - 50


def test_iterator_pulled_inside_a_compiled_function_saves_its_position(tmp_path):
    it = iter(Dataset.range(10))

    @rt.function
    def pull(iterator):
        return next(iterator) + next(iterator)

    assert int(pull(it)) == 0 + 1
    ckpt = rt.train.Checkpoint(it=it)
    path = ckpt.write(str(tmp_path / "c"))
    assert int(pull(it)) == 2 + 3
    ckpt.read(path)
    assert [int(next(it)) for _ in range(3)] == [2, 3, 4]


def test_ignore_errors_skips_failures_of_a_parallel_map():
    ds = Dataset.range(12).map(
        lambda x: rt.debugging.check_numerics(1.0 / rt.cast(x % 4, rt.float32), "bad"),
        num_parallel_calls=rt.data.AUTOTUNE)
    with pytest.raises(rt.errors.InvalidArgumentError):
        list(ds)
    assert [float(v) for v in ds.ignore_errors()] == pytest.approx([1.0, 0.5, 1 / 3] * 3)


def test_ignore_errors_reaches_behind_a_prefetch():
    ds = Dataset.range(12).map(
        lambda x: rt.debugging.check_numerics(1.0 / rt.cast(x % 4, rt.float32), "bad")).prefetch(2)
    assert [float(v) for v in ds.ignore_errors()] == pytest.approx([1.0, 0.5, 1 / 3] * 3)
    with pytest.raises(rt.errors.InvalidArgumentError):
        list(ds)                                  # and the same prefetch alone still fails


def test_ignore_errors_passes_over_failed_interleave_calls_and_missing_files(tmp_path):
    names = []
    for i in range(3):
        path = tmp_path / f"f{i}.txt"
        if i != 1:
            path.write_text(f"a{i}\nb{i}\n")
        names.append(str(path))

    def lines(name):
        return rt.data.TextLineDataset(name)
    ds = Dataset.from_tensor_slices(names).interleave(lines, cycle_length=3)
    with pytest.raises(rt.errors.NotFoundError, match="f1.txt"):
        list(ds)
    assert sorted(v.numpy() for v in ds.ignore_errors()) == [b"a0", b"a2", b"b0", b"b2"]

    def failing_for_one(x):
        rt.debugging.assert_less(x, np.int64(3))
        return Dataset.from_tensors(x).repeat(2)
    ds = Dataset.range(5).flat_map(failing_for_one)
    with pytest.raises(rt.errors.InvalidArgumentError):
        list(ds)
    assert [int(v) for v in ds.ignore_errors()] == [0, 0, 1, 1, 2, 2]


def test_text_line_dataset_reads_as_tensorflow(tmp_path):
    import gzip
    import zlib
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\n\nthr\ree\r\r\nlast")
    (tmp_path / "b.txt").write_bytes(b"b1\nb2\nb3\nb4\n")
    (tmp_path / "c.txt").write_bytes(b"c1\n")
    with gzip.open(tmp_path / "g.gz", "wb") as f:
        f.write(b"g1\ng2\n")
    (tmp_path / "z.z").write_bytes(zlib.compress(b"z1\nz2"))

    def read(*args, **kwargs):
        return [v.numpy() for v in rt.data.TextLineDataset(*args, **kwargs)]
    a, b, c = (str(tmp_path / n) for n in ("a.txt", "b.txt", "c.txt"))
    # TensorFlow 2.21's lines: every \r dropped, a last line without \n kept
    assert read(a) == [b"one", b"two", b"", b"three", b"last"]
    assert read(a, buffer_size=3) == [b"one", b"two", b"", b"three", b"last"]
    assert read([a, b, c], num_parallel_reads=2) == [b"one", b"b1", b"two", b"b2", b"", b"b3",
                                                     b"three", b"b4", b"last", b"c1"]
    assert read(str(tmp_path / "g.gz"), compression_type="GZIP") == [b"g1", b"g2"]
    assert read(str(tmp_path / "z.z"), compression_type="ZLIB") == [b"z1", b"z2"]
    assert read(Dataset.from_tensor_slices([c, b])) == [b"c1", b"b1", b"b2", b"b3", b"b4"]
    # TensorFlow 2.21: FailedPreconditionError "<dir>; Is a directory", when iterated
    with pytest.raises(rt.errors.FailedPreconditionError, match="Is a directory"):
        read(str(tmp_path))
    with pytest.raises(ValueError, match="compression_type"):
        rt.data.TextLineDataset(a, compression_type="BZ2")


def test_snapshot_writes_the_first_full_pass_and_replays_it(tmp_path):
    """TF's load_data/csv tutorial: `ds.snapshot(path).shuffle(...)` gives the input's elements;
    the first complete pass writes them under `path`, later passes read them from there
    (the generator is not run again), and an iteration cut short writes nothing."""
    runs = []

    def gen():
        runs.append(1)
        yield from ([i, 10 * i] for i in range(5))

    source = Dataset.from_generator(gen, output_signature=rt.TensorSpec([2], rt.int64))
    snap = source.snapshot(str(tmp_path / "snap"))
    assert snap.element_spec == source.element_spec
    next(iter(snap))
    assert not (tmp_path / "snap").exists()
    first = [x.numpy().tolist() for x in snap]
    assert first == [[i, 10 * i] for i in range(5)]
    runs.clear()
    shuffled = [x.numpy().tolist() for x in snap.shuffle(10, seed=3)]
    assert sorted(shuffled) == first and runs == []
    (folder,) = os.listdir(tmp_path / "snap")
    assert [x.numpy().tolist() for x in Dataset.load(str(tmp_path / "snap" / folder))] == first


def test_snapshot_compression_names(tmp_path):
    ds = Dataset.range(3).snapshot(str(tmp_path / "gz"), compression="GZIP")
    assert [int(x) for x in ds] == [0, 1, 2] and [int(x) for x in ds] == [0, 1, 2]
    with pytest.raises(ValueError, match="SNAPPY"):
        Dataset.range(3).snapshot(str(tmp_path / "s"), compression="SNAPPY")
