"""rt.data.Dataset: sources and transformations against tf.data's documented results, with
NumPy and plain Python as the oracle."""

import collections
import threading
import time

import numpy as np
import pytest

import runtime as rt

data = rt.data
Dataset = rt.data.Dataset


def _plain(v):
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    return np.asarray(v).tolist() if isinstance(v, np.ndarray) else v


def values(ds):
    return [_plain(v) for v in ds.as_numpy_iterator()]


def test_from_tensor_slices_list_and_iteration():
    ds = Dataset.from_tensor_slices([8, 3, 0, 8, 2, 1])
    assert ds.element_spec == rt.TensorSpec([], rt.int32)
    assert [int(x) for x in ds] == [8, 3, 0, 8, 2, 1]
    it = iter(ds)
    assert int(next(it)) == 8
    assert isinstance(next(it), rt.Tensor)
    assert ds.reduce(0, lambda state, value: state + value).numpy() == 22


def test_nests_tuples_and_dicts():
    x = np.arange(12.0).reshape(4, 3)
    y = np.array([0, 1, 0, 1])
    ds = Dataset.from_tensor_slices((x, y))
    assert ds.element_spec == (rt.TensorSpec([3], rt.float64), rt.TensorSpec([], rt.int64))
    got = list(ds.as_numpy_iterator())
    for i, (a, b) in enumerate(got):
        np.testing.assert_array_equal(a, x[i])
        assert b == y[i]
    d = Dataset.from_tensor_slices({"a": x, "b": (y, y * 2)})
    first = next(iter(d))
    assert set(first) == {"a", "b"}
    np.testing.assert_array_equal(first["a"].numpy(), x[0])
    assert int(first["b"][1]) == 0
    Point = collections.namedtuple("Point", "u v")
    p = Dataset.from_tensor_slices(Point(np.arange(3), np.arange(3) * 10))
    e = list(p.as_numpy_iterator())[2]
    assert isinstance(e, Point) and e.v == 20


def test_from_tensor_slices_mismatch_names_sizes():
    with pytest.raises(ValueError, match=r"3.*4|4.*3") as info:
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
    assert isinstance(info.value, data.SliceSizeMismatchError)


def test_from_tensors_and_range():
    t = Dataset.from_tensors(([1, 2], 3))
    assert len(list(t)) == 1
    assert values(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert values(Dataset.range(2, 5)) == [2, 3, 4]
    assert values(Dataset.range(1, 5, 2)) == [1, 3]
    assert values(Dataset.range(5, 1, -2)) == [5, 3]
    assert Dataset.range(5).element_spec.dtype == rt.int64


def test_batch_and_drop_remainder():
    ds = Dataset.range(100).batch(4)
    assert ds.element_spec.shape.as_list() == [None]
    got = values(ds)
    assert len(got) == 25 and got[0] == [0, 1, 2, 3]
    assert values(Dataset.range(10).batch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    dropped = Dataset.range(10).batch(3, drop_remainder=True)
    assert dropped.element_spec.shape.as_list() == [3]
    assert values(dropped)[-1] == [6, 7, 8]
    with pytest.raises(ValueError, match="batch_size"):
        Dataset.range(3).batch(0)


def test_map_filter_and_their_specs():
    ds = Dataset.range(10).map(lambda x: x * 2).filter(lambda x: x % 3 == 0)
    assert values(ds) == [0, 6, 12, 18]
    pair = Dataset.range(3).map(lambda x: (x, rt.cast(x, rt.float32) / 2))
    assert pair.element_spec[1].dtype == rt.float32
    assert values(pair) == [(0, 0.0), (1, 0.5), (2, 1.0)]
    unpacked = Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: a + b)
    assert values(unpacked) == [11, 22]
    with pytest.raises(TypeError, match="None"):
        Dataset.range(3).map(lambda x: None)
    with pytest.raises(ValueError, match="scalar bool"):
        Dataset.range(3).filter(lambda x: x)


def test_map_traces_once_and_is_autograph_converted():
    calls = []

    def f(x):
        calls.append(1)
        if x > 2:
            y = x * 10
        else:
            y = -x
        return y
    assert values(Dataset.range(5).map(f)) == [0, -1, -2, 30, 40]
    assert len(calls) == 1


def test_vectorized_map_matches_element_path():
    x = np.random.default_rng(0).random((3000, 5)).astype(np.float32)
    fast = np.stack(list(Dataset.from_tensor_slices(x).map(lambda r: r * 2 + 1).as_numpy_iterator()))
    np.testing.assert_allclose(fast, x * 2 + 1, rtol=1e-6)
    # a function that is not elementwise runs element by element
    sums = list(Dataset.from_tensor_slices(x).map(lambda r: rt.reduce_sum(r)).as_numpy_iterator())
    np.testing.assert_allclose(sums, x.sum(axis=1), rtol=1e-5)


def test_shuffle_is_a_permutation_and_reshuffles():
    ds = Dataset.range(100).shuffle(10, seed=3)
    a, b = values(ds), values(ds)
    assert sorted(a) == list(range(100)) and sorted(b) == list(range(100))
    assert a != list(range(100)) and a != b
    fixed = Dataset.range(100).shuffle(10, seed=3, reshuffle_each_iteration=False)
    assert values(fixed) == values(fixed)
    # a buffer of size n bounds how far an element can move ahead
    for position, value in enumerate(a):
        assert value <= position + 10
    with pytest.raises(TypeError, match="buffer_size"):
        Dataset.range(3).shuffle()


def test_shuffle_block_and_element_paths_are_permutations():
    x = np.arange(5000)
    blocky = values(Dataset.from_tensor_slices(x).shuffle(700, seed=1))
    elementwise = values(Dataset.from_generator(lambda: iter(x.tolist()),
                                                output_signature=rt.TensorSpec([], rt.int64))
                         .shuffle(700, seed=1))
    assert sorted(blocky) == x.tolist() and sorted(elementwise) == x.tolist()
    assert blocky != x.tolist()


def test_shuffle_seed_reproducible_with_global_seed():
    rt.random.set_seed(7)
    a = values(Dataset.range(50).shuffle(50))
    rt.random.set_seed(7)
    b = values(Dataset.range(50).shuffle(50))
    assert a == b


def test_repeat_take_skip_enumerate_concatenate():
    assert values(Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert values(Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert values(Dataset.range(10).skip(7)) == [7, 8, 9]
    assert values(Dataset.range(10).take(-1)) == list(range(10))
    assert values(Dataset.from_tensor_slices([7, 8]).enumerate(start=5)) == [(5, 7), (6, 8)]
    assert values(Dataset.range(2).concatenate(Dataset.range(5, 7))) == [0, 1, 5, 6]
    # the data guide's repeat-then-batch vs batch-then-repeat
    sizes = [len(b) for b in Dataset.range(10).repeat(3).batch(4).as_numpy_iterator()]
    assert sizes == [4] * 7 + [2]
    sizes = [len(b) for b in Dataset.range(10).batch(4).repeat(3).as_numpy_iterator()]
    assert sizes == [4, 4, 2] * 3


def test_zip():
    a, b = Dataset.range(1, 4), Dataset.range(4, 7)
    assert values(Dataset.zip((a, b))) == [(1, 4), (2, 5), (3, 6)]
    assert values(Dataset.zip(a, Dataset.range(10))) == [(1, 0), (2, 1), (3, 2)]
    assert Dataset.zip((a, b)).cardinality().numpy() == 3


def test_padded_batch_and_unbatch():
    ds = Dataset.range(4).map(lambda x: rt.fill([x], x)).padded_batch(2)
    got = values(ds)
    assert got == [[[0], [1]], [[2, 2, 0], [3, 3, 3]]]
    fixed = Dataset.range(3).map(lambda x: rt.fill([x], x)).padded_batch(3, padded_shapes=[4],
                                                                        padding_values=np.int64(-1))
    assert values(fixed) == [[[-1, -1, -1, -1], [1, -1, -1, -1], [2, 2, -1, -1]]]
    assert values(Dataset.range(7).batch(3).unbatch()) == list(range(7))
    tuples = Dataset.from_tensor_slices((np.arange(6).reshape(3, 2), np.arange(3))).batch(2).unbatch()
    assert [v[1] for v in values(tuples)] == [0, 1, 2]


def test_flat_map_and_interleave():
    ds = Dataset.range(1, 4).flat_map(lambda x: Dataset.from_tensors(x).repeat(x))
    assert values(ds) == [1, 2, 2, 3, 3, 3]
    inter = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(6),
                                           cycle_length=2, block_length=4)
    assert values(inter) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3,
                             4, 4, 5, 5, 5, 5, 5, 5]


def test_cardinality():
    assert Dataset.range(42).cardinality().numpy() == 42
    assert Dataset.range(42).repeat().cardinality().numpy() == data.INFINITE_CARDINALITY
    assert Dataset.range(42).filter(lambda x: True).cardinality().numpy() == data.UNKNOWN_CARDINALITY
    assert data.experimental.cardinality(Dataset.range(10).batch(3)).numpy() == 4
    assert Dataset.range(10).batch(3, drop_remainder=True).cardinality().numpy() == 3
    assert Dataset.range(10).repeat().take(5).cardinality().numpy() == 5
    assert len(Dataset.range(10).skip(3)) == 7
    with pytest.raises(TypeError):
        len(Dataset.range(1).repeat())
    assert data.AUTOTUNE == data.experimental.AUTOTUNE == -1


def test_from_generator():
    def gen(stop):
        for i in range(stop):
            yield i, [1] * i
    ds = Dataset.from_generator(gen, args=(4,), output_signature=(
        rt.TensorSpec([], rt.int32), rt.TensorSpec([None], rt.int32)))
    got = values(ds)
    assert [g[0] for g in got] == [0, 1, 2, 3] and got[3][1] == [1, 1, 1]
    assert values(ds) == got     # each iteration calls the generator again
    old = Dataset.from_generator(lambda: iter([1.5, 2.5]), output_types=rt.float32, output_shapes=[])
    assert values(old) == [1.5, 2.5]
    bad = Dataset.from_generator(lambda: iter([[1, 2], [1, 2, 3]]),
                                 output_signature=rt.TensorSpec([2], rt.int32))
    with pytest.raises(rt.errors.InvalidArgumentError, match="shape"):
        list(bad)
    with pytest.raises(TypeError, match="callable"):
        Dataset.from_generator([1, 2], output_signature=rt.TensorSpec([], rt.int32))


def test_cache_replays(tmp_path):
    calls = []

    def gen():
        calls.append(1)
        yield from range(3)
    ds = Dataset.from_generator(gen, output_signature=rt.TensorSpec([], rt.int64)).cache()
    assert values(ds) == [0, 1, 2] and values(ds) == [0, 1, 2] and len(calls) == 1
    on_disk = Dataset.range(4).cache(str(tmp_path / "c"))
    assert values(on_disk) == [0, 1, 2, 3]
    assert values(Dataset.range(4).cache(str(tmp_path / "c"))) == [0, 1, 2, 3]


def test_text_lines_csv_and_memmap(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("alpha\nbeta\r\ngamma\n")
    assert values(data.TextLineDataset(str(path))) == [b"alpha", b"beta", b"gamma"]
    csv_path = tmp_path / "t.csv"
    csv_path.write_text("a,b\n1,2.5\n3,\n")
    rows = values(data.experimental.CsvDataset(str(csv_path), [rt.int32, 0.0], header=True))
    assert rows == [(1, 2.5), (3, 0.0)]
    array = np.arange(40, dtype=np.float32).reshape(10, 4)
    np.save(tmp_path / "big.npy", array)
    mapped = np.load(tmp_path / "big.npy", mmap_mode="r")
    total = sum(float(b.numpy().sum()) for b in Dataset.from_tensor_slices(mapped).batch(3))
    assert total == float(array.sum())


def test_strict_keywords_and_errors():
    with pytest.raises(TypeError):
        Dataset.range(3).batch(2, drop_remainer=True)
    with pytest.raises(TypeError):
        Dataset.range(3).shuffle(2, sed=1)


def _wait_for(condition, seconds: float = 10.0) -> bool:
    """Whether `condition()` holds within `seconds` (polled; a loaded machine only delays it)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.001)
    return True


def test_prefetch_overlaps_and_keeps_order():
    """The producer runs ahead of the consumer by the buffer, and no further. Counted, not
    timed: the consumer holds its first element until the generator has produced the four
    behind it (a prefetch that produced on demand would never get there)."""
    produced = []

    def gen():
        for i in range(20):
            produced.append(i)
            yield i
    ds = Dataset.from_generator(gen, output_signature=rt.TensorSpec([], rt.int64)).prefetch(4)
    it = iter(ds)
    got = [int(next(it))]
    assert _wait_for(lambda: len(produced) >= 1 + 4), produced  # ahead while we hold one
    time.sleep(0.05)
    assert len(produced) <= 1 + 4 + 1, produced  # the buffer, and one waiting to go in
    got += [int(x) for x in it]
    assert got == list(range(20))


def test_parallel_map_order_and_overlap():
    """num_parallel_calls=4 runs four calls at once, never more. Counted, not timed: the
    calls wait (once) until four are in flight together, which a serial map never reaches."""
    lock = threading.Lock()
    in_flight = [0, 0]  # now, most at once
    four = threading.Event()

    def slow(x):
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
            if in_flight[0] >= 4:
                four.set()
        if not four.wait(10.0):  # never four at once: later calls do not wait again
            four.set()
        with lock:
            in_flight[0] -= 1
        return x
    out = rt.numpy_function(lambda v: v, [rt.constant(1)], rt.int32)
    assert int(out) == 1

    def f(x):
        return rt.numpy_function(slow, [x], rt.int64)
    ds = Dataset.range(16).map(f, num_parallel_calls=4)
    assert values(ds) == list(range(16))
    assert in_flight[1] == 4, in_flight
    unordered = Dataset.range(16).map(f, num_parallel_calls=data.AUTOTUNE, deterministic=False)
    assert sorted(values(unordered)) == list(range(16))


def test_producer_errors_reach_the_consumer_at_their_element():
    def gen():
        yield 1
        yield 2
        raise RuntimeError("broken source")
    ds = Dataset.from_generator(gen, output_signature=rt.TensorSpec([], rt.int64)).prefetch(2)
    it = iter(ds)
    assert int(next(it)) == 1 and int(next(it)) == 2
    with pytest.raises(RuntimeError, match="broken source"):
        next(it)

    def f(x):
        return rt.numpy_function(lambda v: v if v != 3 else 1 // 0, [x], rt.int64)
    it = iter(Dataset.range(6).map(f, num_parallel_calls=3))
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(Exception, match="division"):
        next(it)


def test_abandoned_iterators_stop_their_threads():
    before = threading.active_count()
    for _ in range(5):
        it = iter(Dataset.range(10 ** 9).prefetch(2))
        next(it)
        del it
    deadline = time.time() + 2
    while threading.active_count() > before and time.time() < deadline:
        time.sleep(0.02)
    assert threading.active_count() <= before


def test_structure_checks_do_not_keep_classes_alive():
    import gc
    import weakref

    from runtime.data import structure

    class Temporary:
        pass

    assert not structure.is_structure(Temporary())
    gone = weakref.ref(Temporary)
    del Temporary
    gc.collect()
    assert gone() is None


def test_batches_of_one_leaf_and_of_structures_after_shuffle():
    x = np.arange(3000, dtype=np.float32).reshape(1000, 3)
    single = [b.numpy() for b in Dataset.from_tensor_slices(x).shuffle(300, seed=1).batch(64)]
    pairs = list(Dataset.from_tensor_slices((x, x[:, 0])).shuffle(300, seed=1).batch(64))
    assert [len(b) for b in single] == [64] * 15 + [40]
    for b, (features, first) in zip(single, pairs):
        np.testing.assert_array_equal(b, features.numpy())
        np.testing.assert_array_equal(b[:, 0], first.numpy())
    np.testing.assert_array_equal(np.sort(np.concatenate(single)[:, 0]), x[:, 0])


def test_repr_shows_tensorflows_class_names(tmp_path):
    """The class names TF 2.21 prints in a dataset's repr, e.g. `<_MapDataset element_spec=...>`
    (recorded under TensorFlow 2.21 for each construction)."""
    d = rt.data.Dataset
    x = d.range(4)
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    expected = {
        "_RangeDataset": x, "_TensorSliceDataset": d.from_tensor_slices([1, 2]),
        "_TensorDataset": d.from_tensors(1), "_MapDataset": x.map(lambda v: v),
        "_ParallelMapDataset": x.map(lambda v: v, num_parallel_calls=2),
        "_BatchDataset": x.batch(2), "_ParallelBatchDataset": x.batch(2, num_parallel_calls=2),
        "_PaddedBatchDataset": x.padded_batch(2), "_UnbatchDataset": x.batch(2).unbatch(),
        "_ShuffleDataset": x.shuffle(2), "_PrefetchDataset": x.prefetch(1),
        "CacheDataset": x.cache(), "_RepeatDataset": x.repeat(2), "_TakeDataset": x.take(1),
        "_FilterDataset": x.filter(lambda v: v > 0), "_ZipDataset": d.zip((x, x)),
        "_ConcatenateDataset": x.concatenate(x),
        "_FlatMapDataset": x.flat_map(lambda v: d.from_tensors(v)),
        "_InterleaveDataset": x.interleave(lambda v: d.from_tensors(v)),
        "_ParallelInterleaveDataset": x.interleave(lambda v: d.from_tensors(v),
                                                   num_parallel_calls=2),
        "_WindowDataset": x.window(2), "_ScanDataset": x.scan(0, lambda s, v: (s, v)),
        "TextLineDatasetV2": rt.data.TextLineDataset([str(empty)]),
        "TFRecordDatasetV2": rt.data.TFRecordDataset([str(empty)]),
        "CsvDatasetV2": rt.data.experimental.CsvDataset([str(empty)], [rt.int32]),
        "_DirectedInterleaveDataset": d.choose_from_datasets([x], d.range(1)),
        "_AssertCardinalityDataset": x.apply(rt.data.experimental.assert_cardinality(4)),
    }
    for name, dataset in expected.items():
        assert repr(dataset).startswith(f"<{name} element_spec="), (name, repr(dataset))
    assert repr(x) == "<_RangeDataset element_spec=TensorSpec(shape=(), dtype=rt.int64, name=None)>"

    class Mine(rt.data.Dataset):
        def __init__(self):
            self._spec, self._card = x._spec, x._card

    assert repr(Mine()).startswith("<Mine element_spec=")
