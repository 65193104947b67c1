"""tf.data.experimental's dense_to_sparse_batch, lookup tables from datasets,
make_batched_features_dataset, snapshot, to_variant / from_variant and enable_debug_mode:
the values TensorFlow 2.21 gave for the same calls (recorded in comments), or plain Python."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from runtime.data import dataset as dataset_module

E = rt.data.experimental
Dataset = rt.data.Dataset


def sparse_parts(s):
    return s.indices.numpy().tolist(), s.values.numpy().tolist(), s.dense_shape.numpy().tolist()


def test_dense_to_sparse_batch_matches_tensorflow():
    ragged = Dataset.from_tensor_slices(rt.ragged.constant([[1, 2, 3], [4, 5], [6, 7, 8, 9], []]))
    batches = ragged.apply(E.dense_to_sparse_batch(2, [5]))
    assert batches.element_spec == rt.SparseTensorSpec([None, 5], rt.int32)
    # TensorFlow 2.21: ([[0,0],[0,1],[0,2],[1,0],[1,1]], [1,2,3,4,5], [2,5]) and
    # ([[0,0],[0,1],[0,2],[0,3]], [6,7,8,9], [2,5])
    assert [sparse_parts(s) for s in batches] == [
        ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [1, 2, 3, 4, 5], [2, 5]),
        ([[0, 0], [0, 1], [0, 2], [0, 3]], [6, 7, 8, 9], [2, 5])]
    # an unknown row dimension takes the batch's largest; zeros are entries too (TF 2.21)
    rows = Dataset.from_tensor_slices([[1, 0], [0, 3], [5, 6]])
    assert [sparse_parts(s) for s in rows.apply(E.dense_to_sparse_batch(2, [None]))] == [
        ([[0, 0], [0, 1], [1, 0], [1, 1]], [1, 0, 0, 3], [2, 2]),
        ([[0, 0], [0, 1]], [5, 6], [1, 2])]
    too_long = Dataset.from_tensor_slices([[1, 0, 2]]).apply(E.dense_to_sparse_batch(2, [2]))
    with pytest.raises(rt.errors.DataLossError, match=r"shape \(\[3\]\) that is larger than "
                                                      r"the row shape \(\[2\]\)"):
        list(too_long)
    with pytest.raises(ValueError, match="rank"):
        rows.apply(E.dense_to_sparse_batch(2, [2, 2]))


def test_sparse_batches_iterate_inside_a_function():
    @rt.function
    def total():
        ds = Dataset.from_tensor_slices([[1, 0], [0, 3], [5, 6]]).apply(
            E.dense_to_sparse_batch(2, [3]))
        acc = rt.constant(0)
        for s in ds:
            acc += rt.reduce_sum(s.values) + rt.cast(s.dense_shape[0] * 100, rt.int32)
        return acc
    assert int(total()) == 315  # TensorFlow 2.21's tf.function gives 315

    @rt.function
    def indices_sum(ds):
        acc = rt.constant(0, rt.int64)
        for s in ds:
            acc += rt.reduce_sum(s.indices) * 10 + s.dense_shape[1]
        return acc
    sparse = rt.sparse.SparseTensor([[0, 1], [1, 2]], [7, 8], [2, 3])
    # rows [0, 1] -> indices [[1]], dense_shape [3]; [0, 0, 8] -> [[2]]: 10 + 3 + 20 + 3
    eager = sum(int(rt.reduce_sum(s.indices)) * 10 + int(s.dense_shape[0])
                for s in Dataset.from_tensor_slices(sparse))
    assert eager == 36
    assert int(indices_sum(Dataset.from_tensor_slices(sparse).batch(2))) == \
        sum(int(rt.reduce_sum(s.indices)) * 10 + int(s.dense_shape[1])
            for s in Dataset.from_tensor_slices(sparse).batch(2))


def test_tables_from_datasets_match_tensorflow():
    keys = Dataset.from_tensor_slices(["a", "b", "c"])
    pairs = Dataset.zip((keys, Dataset.range(3)))
    table = E.table_from_dataset(pairs, default_value=-1)
    assert table.lookup(rt.constant(["b", "z"])).numpy().tolist() == [1, -1]
    assert (int(table.size()), table.key_dtype, table.value_dtype) == (3, rt.string, rt.int64)
    # TensorFlow 2.21: [2, -5]; with two OOV buckets [2, 4, 4] (FarmHash); vocab_size=2 [0, 1, -1]
    assert E.index_table_from_dataset(keys, default_value=-5).lookup(
        rt.constant(["c", "z"])).numpy().tolist() == [2, -5]
    assert E.index_table_from_dataset(keys, num_oov_buckets=2).lookup(
        rt.constant(["c", "z", "y"])).numpy().tolist() == [2, 4, 4]
    assert E.index_table_from_dataset(keys, vocab_size=2).lookup(
        rt.constant(["a", "b", "c"])).numpy().tolist() == [0, 1, -1]
    init = E.DatasetInitializer(pairs)
    assert (init.key_dtype, init.value_dtype) == (rt.string, rt.int64)
    assert rt.lookup.StaticHashTable(init, -1).lookup(
        rt.constant(["a", "c"])).numpy().tolist() == [0, 2]
    with pytest.raises(ValueError, match="non-scalar key"):
        E.DatasetInitializer(Dataset.zip((keys.batch(2), Dataset.range(2))))
    with pytest.raises(ValueError, match="`default_value` must be specified"):
        E.table_from_dataset(Dataset.zip((keys, keys)))
    with pytest.raises(rt.errors.FailedPreconditionError, match="expected to contain 5"):
        E.index_table_from_dataset(keys, vocab_size=5)
    with pytest.raises(TypeError, match="default_valu"):
        E.index_table_from_dataset(keys, default_valu=3)


def _write_examples(directory):
    for f in range(2):
        with rt.io.TFRecordWriter(str(directory / f"part-{f}.tfrecord")) as writer:
            for i in range(3):
                example = rt.train.Example(features=rt.train.Features(feature={
                    "x": rt.train.Feature(float_list=rt.train.FloatList(value=[10 * f + i, 0.5])),
                    "y": rt.train.Feature(int64_list=rt.train.Int64List(value=[f * 3 + i]))}))
                writer.write(example.SerializeToString())
    return str(directory / "part-*.tfrecord")


FEATURES = {"x": rt.io.FixedLenFeature([2], rt.float32), "y": rt.io.FixedLenFeature([], rt.int64)}


def test_make_batched_features_dataset_reads_files_in_tensorflows_order(tmp_path):
    pattern = _write_examples(tmp_path)
    ds = E.make_batched_features_dataset(pattern, 4, FEATURES, label_key="y", num_epochs=1,
                                         shuffle=False)
    assert ds.element_spec == ({"x": rt.TensorSpec([None, 2], rt.float32)},
                               rt.TensorSpec([None], rt.int64))
    got = [(x["x"].numpy().tolist(), y.numpy().tolist()) for x, y in ds]
    assert got == [([[0.0, 0.5], [1.0, 0.5], [2.0, 0.5], [10.0, 0.5]], [0, 1, 2, 3]),
                   ([[11.0, 0.5], [12.0, 0.5]], [4, 5])]
    # repeated forever: whole batches of a known size (TensorFlow 2.21's spec: (4, 2), (4,))
    forever = E.make_batched_features_dataset(pattern, 4, FEATURES, shuffle=False)
    assert forever.element_spec == {"x": rt.TensorSpec([4, 2], rt.float32),
                                    "y": rt.TensorSpec([4], rt.int64)}
    assert [b["y"].numpy().tolist() for b in forever.take(3)] == \
        [[0, 1, 2, 3], [4, 5, 0, 1], [2, 3, 4, 5]]
    # two files read at once alternate record by record (TensorFlow 2.21: [[0,3],[1,4],[2,5]])
    two = E.make_batched_features_dataset(pattern, 2, FEATURES, num_epochs=1, shuffle=False,
                                          reader_num_threads=2)
    assert [b["y"].numpy().tolist() for b in two] == [[0, 3], [1, 4], [2, 5]]
    shuffled = E.make_batched_features_dataset(pattern, 6, FEATURES, num_epochs=1,
                                               shuffle_seed=3)
    assert sorted(next(iter(shuffled))["y"].numpy().tolist()) == [0, 1, 2, 3, 4, 5]
    with pytest.raises(ValueError, match=r"`label_key` provided \(z\)"):
        E.make_batched_features_dataset(pattern, 2, FEATURES, label_key="z")
    with pytest.raises(rt.errors.InvalidArgumentError, match="no file matches"):
        E.make_batched_features_dataset(str(tmp_path / "none-*"), 2, FEATURES)


def test_snapshot_and_variants(tmp_path):
    ds = Dataset.range(5).map(lambda x: x * x).apply(E.snapshot(str(tmp_path / "snap")))
    assert list(ds.as_numpy_iterator()) == [0, 1, 4, 9, 16]
    assert list(ds.as_numpy_iterator()) == [0, 1, 4, 9, 16]   # read back from the snapshot
    assert any((tmp_path / "snap").iterdir())
    source = Dataset.range(3)
    variant = E.to_variant(source)
    assert (variant.dtype, variant.shape) == (rt.variant, rt.TensorShape([]))
    again = E.from_variant(variant, source.element_spec)
    assert list(again.as_numpy_iterator()) == [0, 1, 2]
    with pytest.raises(ValueError, match="element spec"):
        E.from_variant(variant, rt.TensorSpec([], rt.float32))
    with pytest.raises(TypeError, match="to_variant"):
        E.from_variant(rt.constant(1), source.element_spec)


def test_debug_mode_runs_functions_eagerly_in_order(monkeypatch):
    monkeypatch.setattr(dataset_module, "DEBUG_MODE", [False])
    E.enable_debug_mode()
    seen = []

    def double(x):
        seen.append(rt.executing_eagerly())
        return x * 2
    out = list(Dataset.range(4).map(double, num_parallel_calls=4).as_numpy_iterator())
    # TensorFlow 2.21: [0, 2, 4, 6], and seen == [False, True, True, True, True] (one trace,
    # then one eager call per element)
    assert out == [0, 2, 4, 6] and seen == [False, True, True, True, True]
    assert np.array_equal(np.stack(list(Dataset.range(3).batch(3).map(double))), [[0, 2, 4]])
