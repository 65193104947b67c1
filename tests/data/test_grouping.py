"""group_by_window and bucket_by_sequence_length against TensorFlow 2.21's recorded outputs
(run under /tmp/tf with the same programs) and a plain-Python model of the grouping."""

import numpy as np
import pytest

import runtime as rt


def lists(ds):
    return [np.asarray(x).tolist() for x in ds.as_numpy_iterator()]


def python_group_by_window(values, key, size, reduce):
    """The grouping as tf.data documents it: a full window is reduced at once, the rest at
    the end in increasing order of key."""
    groups, out = {}, []
    for v in values:
        k = key(v)
        groups.setdefault(k, []).append(v)
        if len(groups[k]) == size(k):
            out += reduce(k, groups.pop(k))
    for k in sorted(groups):
        out += reduce(k, groups.pop(k))
    return out


def test_group_by_window_matches_tensorflow():
    ds = rt.data.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda k, w: w.batch(3), window_size=3)
    # TensorFlow 2.21: [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]], cardinality -2, spec (None,)
    assert lists(ds) == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY
    assert ds.element_spec == rt.TensorSpec([None], rt.int64)


def test_group_by_window_size_func_matches_tensorflow():
    ds = rt.data.Dataset.range(10).group_by_window(
        key_func=lambda x: x % 3, reduce_func=lambda k, w: w.batch(10),
        window_size_func=lambda k: k + 1)
    assert lists(ds) == [[0], [3], [1, 4], [6], [2, 5, 8], [9], [7]]   # TensorFlow's


@pytest.mark.parametrize("values,offset", [([5, 3, 9, 1, 3], 10), ([5, 3, 9, 1, 3], -4)])
def test_group_by_window_flushes_groups_by_increasing_key(values, offset):
    def key(x):
        return offset - x if offset > 0 else x + offset
    ds = rt.data.Dataset.from_tensor_slices(np.array(values, np.int64)).group_by_window(
        lambda x: key(x), lambda k, w: w.batch(10), window_size=5)
    expected = python_group_by_window(values, key, lambda k: 5, lambda k, g: [g])
    assert lists(ds) == expected
    # TensorFlow 2.21 gives these two orders
    assert expected == ([[9], [5], [3, 3], [1]] if offset > 0 else [[1], [3, 3], [5], [9]])


def test_group_by_window_random_keys_match_python_model():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 50, 200).tolist()
    sizes = {0: 2, 1: 5, 2: 3, 3: 7}
    ds = rt.data.Dataset.from_tensor_slices(np.array(values, np.int64)).group_by_window(
        lambda x: x % 4, lambda k, w: w.batch(100).map(lambda b: b * 0 + k),
        window_size_func=lambda k: rt.gather(rt.constant([2, 5, 3, 7], rt.int64), k))
    expected = python_group_by_window(values, lambda v: v % 4, lambda k: sizes[k],
                                      lambda k, g: [[k] * len(g)])
    assert lists(ds) == expected


def test_group_by_window_tuple_elements_and_map_in_reduce():
    ds = rt.data.Dataset.range(10).map(lambda x: (x, x * 10)).group_by_window(
        lambda a, b: a % 2, lambda k, w: w.batch(2), window_size=4)
    first = list(ds.as_numpy_iterator())[:2]
    assert [(a.tolist(), b.tolist()) for a, b in first] == [([0, 2], [0, 20]), ([4, 6], [40, 60])]
    ds = rt.data.Dataset.range(10).group_by_window(
        lambda a: a % 2, lambda k, w: w.map(lambda v: v + k), window_size=4)
    assert lists(ds) == [0, 2, 4, 6, 2, 4, 6, 8, 8, 10]                 # TensorFlow's
    ds = rt.data.Dataset.range(10).apply(rt.data.experimental.group_by_window(
        lambda a: a % 2, lambda k, w: w.batch(2), window_size=4))
    assert lists(ds) == [[0, 2], [4, 6], [1, 3], [5, 7], [8], [9]]


def test_group_by_window_errors():
    ds = rt.data.Dataset.range(10)
    with pytest.raises(ValueError, match="window_size"):
        ds.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3))
    with pytest.raises(ValueError, match="window_size"):
        ds.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size=2,
                           window_size_func=lambda k: k)
    with pytest.raises(ValueError, match="int64"):
        ds.group_by_window(lambda x: rt.cast(x % 2, rt.int32), lambda k, w: w.batch(3), window_size=2)
    with pytest.raises(rt.errors.InvalidArgumentError, match="greater than zero"):
        ds.group_by_window(lambda x: x % 2, lambda k, w: w.batch(3), window_size=0)
    with pytest.raises(TypeError, match="Dataset"):
        ds.group_by_window(lambda x: x % 2, lambda k, w: 3, window_size=2)
    with pytest.raises(TypeError, match="window_sise"):
        ds.group_by_window(lambda x: x % 2, lambda k, w: w, window_sise=2)


def ragged_source():
    def gen():
        for n in [1, 3, 2, 5, 4, 7, 6, 2, 8]:
            yield np.arange(n, dtype=np.int32)
    return rt.data.Dataset.from_generator(gen, output_signature=rt.TensorSpec([None], rt.int32))


def length(x):
    return rt.shape(x)[0]


def test_bucket_by_sequence_length_matches_tensorflow():
    ds = ragged_source().bucket_by_sequence_length(length, [3, 6], [2, 2, 2])
    assert lists(ds) == [[[0, 0], [0, 1]], [[0, 1, 2, 0, 0], [0, 1, 2, 3, 4]],
                         [[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 0]], [[0, 1]],
                         [[0, 1, 2, 3]], [[0, 1, 2, 3, 4, 5, 6, 7]]]
    assert ds.element_spec == rt.TensorSpec([None, None], rt.int32)
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY


def test_bucket_pad_to_boundary_matches_tensorflow():
    ds = ragged_source().bucket_by_sequence_length(length, [3, 9], [2, 2, 2],
                                                   pad_to_bucket_boundary=True, padding_values=-1)
    assert lists(ds) == [[[0, -1], [0, 1]],
                         [[0, 1, 2, -1, -1, -1, -1, -1], [0, 1, 2, 3, 4, -1, -1, -1]],
                         [[0, 1, 2, 3, -1, -1, -1, -1], [0, 1, 2, 3, 4, 5, 6, -1]],
                         [[0, 1, 2, 3, 4, 5, -1, -1], [0, 1, 2, 3, 4, 5, 6, 7]], [[0, 1]]]
    too_long = ragged_source().bucket_by_sequence_length(length, [3, 6], [2, 2, 2],
                                                         pad_to_bucket_boundary=True)
    with pytest.raises(rt.errors.InvalidArgumentError, match="pad_to_bucket_boundary"):
        lists(too_long)


def test_bucket_drop_remainder_padded_shapes_and_no_padding():
    ds = ragged_source().bucket_by_sequence_length(length, [3, 6], [2, 2, 2], drop_remainder=True)
    assert lists(ds) == [[[0, 0], [0, 1]], [[0, 1, 2, 0, 0], [0, 1, 2, 3, 4]],
                         [[0, 1, 2, 3, 4, 5, 6], [0, 1, 2, 3, 4, 5, 0]]]
    ds = ragged_source().bucket_by_sequence_length(length, [3, 6], [2, 2, 2], padded_shapes=[10])
    assert [x.shape for x in ds.as_numpy_iterator()] == [(2, 10)] * 3 + [(1, 10)] * 3
    assert ds.element_spec == rt.TensorSpec([None, 10], rt.int32)
    ds = rt.data.Dataset.range(10).bucket_by_sequence_length(
        lambda x: rt.cast(x, rt.int32), [3, 6], [2, 2, 2], no_padding=True)
    assert lists(ds) == [[0, 1], [3, 4], [6, 7], [8, 9], [2], [5]]      # TensorFlow's
    assert ds.element_spec == rt.TensorSpec([None], rt.int64)


def test_bucket_errors_and_experimental_alias():
    with pytest.raises(ValueError, match="len\\(bucket_batch_sizes\\)"):
        ragged_source().bucket_by_sequence_length(length, [3, 6], [2, 2])
    ds = ragged_source().apply(rt.data.experimental.bucket_by_sequence_length(length, [4], [3, 3]))
    lengths = [1, 3, 2, 5, 4, 7, 6, 2, 8]

    def pad(group):
        longest = max(group)
        return [list(range(n)) + [0] * (longest - n) for n in group]
    expected = python_group_by_window(lengths, lambda n: int(n >= 4), lambda k: 3,
                                      lambda k, g: [pad(g)])
    assert lists(ds) == expected


def test_cardinalities_of_infinite_inputs_as_tensorflow():
    forever = rt.data.Dataset.range(10).repeat()
    # TensorFlow 2.21: -1 for both groupings of an infinite input, -2 for ignore_errors
    assert int(forever.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2),
                                       window_size=2).cardinality()) == -1
    assert int(forever.bucket_by_sequence_length(lambda x: rt.cast(x, rt.int32), [3], [2, 2],
                                                 no_padding=True).cardinality()) == -1
    assert int(forever.ignore_errors().cardinality()) == -2
    assert int(rt.data.Dataset.range(10).ignore_errors().cardinality()) == -2


def test_bucket_boundaries_out_of_order_follow_tensorflows_rule():
    ds = rt.data.Dataset.range(10).map(lambda x: rt.cast(x, rt.int32)).bucket_by_sequence_length(
        lambda x: x, [6, 3], [2, 3, 4], no_padding=True)
    assert lists(ds) == [[0, 1], [2, 3], [4, 5], [6, 7, 8, 9]]          # TensorFlow's
