"""rt.lookup's static tables against TensorFlow 2.21's results for the same programs (the
numbers below were printed by TensorFlow), and the tutorial's vocabulary layer."""

import numpy as np
import pytest

import runtime as rt


def _vocab(keys, values, **kw):
    return rt.lookup.KeyValueTensorInitializer(keys, values, **kw)


def test_static_hash_table_looks_up_and_defaults_as_tensorflow():
    table = rt.lookup.StaticHashTable(_vocab(["a", "b"], [3, 4]), -1)
    found = table.lookup(rt.constant([["a", "q"], ["b", "a"]]))
    assert found.dtype == rt.int32 and found.numpy().tolist() == [[3, -1], [4, 3]]
    assert int(table.size()) == 2 and table.size().dtype == rt.int64
    keys, values = table.export()
    assert sorted(zip(keys.numpy().tolist(), values.numpy().tolist())) == [(b"a", 3), (b"b", 4)]
    assert table[rt.ragged.constant([["a"], ["b", "c"]])].to_list() == [[3], [4, -1]]


def test_keys_of_another_dtype_are_a_type_error():
    table = rt.lookup.StaticHashTable(_vocab(["a", "b"], [3, 4]), -1)
    with pytest.raises(TypeError, match="keys.*must be string"):
        table.lookup(rt.constant([1]))


def test_vocabulary_table_hashes_unknown_keys_into_tensorflows_buckets():
    # TensorFlow: [0 1 4 3 5 2] and size 7 (FarmHash buckets after the vocabulary)
    table = rt.lookup.StaticVocabularyTable(
        _vocab(["a", "b"], [0, 1], value_dtype=rt.int64), 5)
    ids = table.lookup(rt.constant(["a", "b", "c", "hello", "world", "x"]))
    assert ids.dtype == rt.int64 and ids.numpy().tolist() == [0, 1, 4, 3, 5, 2]
    assert int(table.size()) == 7
    ints = rt.lookup.StaticVocabularyTable(
        _vocab(rt.constant([7, 9], rt.int64), rt.constant([0, 1], rt.int64)), 4)
    assert ints.lookup(rt.constant([7, 8, 9, 100, -3], rt.int64)).numpy().tolist() == \
        [0, 5, 1, 5, 5]  # TensorFlow's ids


def test_vocabulary_table_needs_int64_values_and_buckets():
    with pytest.raises(TypeError, match="value_dtype"):
        rt.lookup.StaticVocabularyTable(_vocab(["a"], [0]), 1)
    with pytest.raises(ValueError, match="num_oov_buckets"):
        rt.lookup.StaticVocabularyTable(_vocab(["a"], [0], value_dtype=rt.int64), 0)


def test_text_file_initializer_reads_columns_lines_and_line_numbers(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("x\ty\nfoo\t7\nbar\t9\n")
    by_column = rt.lookup.TextFileInitializer(str(path), rt.string, 0, rt.int64,
                                              rt.lookup.TextFileIndex.LINE_NUMBER)
    assert rt.lookup.StaticHashTable(by_column, -1).lookup(
        rt.constant(["foo", "x", "q"])).numpy().tolist() == [1, 0, -1]
    whole = rt.lookup.TextFileInitializer(str(path), rt.string, rt.lookup.TextFileIndex.WHOLE_LINE,
                                          rt.int64, rt.lookup.TextFileIndex.LINE_NUMBER,
                                          value_index_offset=10)
    assert rt.lookup.StaticHashTable(whole, -1).lookup(
        rt.constant(["foo\t7", "x"])).numpy().tolist() == [11, -1]
    values = rt.lookup.TextFileInitializer(str(path), rt.string, 0, rt.int64, 1, vocab_size=2)
    with pytest.raises(ValueError):  # "y" is not a number
        rt.lookup.StaticHashTable(values, -1)


def test_tables_work_in_compiled_functions_datasets_and_layers():
    class VocabTable(rt.keras.layers.Layer):  # the "load text" tutorial's layer
        def __init__(self, vocab):
            super().__init__()
            keys = [""] + vocab
            init = rt.lookup.KeyValueTensorInitializer(keys, range(len(keys)),
                                                       key_dtype=rt.string,
                                                       value_dtype=rt.int64)
            self.table = rt.lookup.StaticVocabularyTable(init, 1)

        def call(self, x):
            return self.table.lookup(x)

    layer = VocabTable(["a", "b", "c"])
    # TensorFlow prints [0 1 2 3 4 4 4 4 4 4]
    assert layer(rt.constant([""] + list("abcdefghi"))).numpy().tolist() == \
        [0, 1, 2, 3, 4, 4, 4, 4, 4, 4]
    staged = rt.function(lambda x: layer.table.lookup(x))
    assert staged(rt.constant(["c", "zz"])).numpy().tolist() == [3, 4]
    mapped = rt.data.Dataset.from_tensor_slices(["a", "zz", "c"]).map(layer)
    assert [int(v) for v in mapped] == [1, 4, 3]
    assert np.asarray(staged(rt.constant([["a"]]))).shape == (1, 1)


def test_to_hash_bucket_fast_gives_tensorflows_buckets():
    # TensorFlow 2.21: [939, 296, 263, 690, 719] (FarmHash fingerprints modulo 1000)
    buckets = rt.strings.to_hash_bucket_fast(["a", "hello", "", "Breed", "x" * 100], 1000)
    assert buckets.numpy().tolist() == [939, 296, 263, 690, 719]
    staged = rt.function(lambda s: rt.strings.to_hash_bucket_fast(s, 1000))
    assert staged(rt.constant(["hello"])).numpy().tolist() == [296]
