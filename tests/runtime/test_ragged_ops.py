"""rt APIs on RaggedTensors (ragged_ops, ragged_dispatch, ragged_shape), checked against plain
Python over the rows (the oracle) and against the values TensorFlow's ragged tensor guide
documents."""

import math

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

DIGITS = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
NESTED = [[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]]


def _both(fn, *args):
    """fn(*args) eagerly and inside rt.function: both results as Python lists."""
    out = []
    for f in (fn, rt.function(fn)):
        r = f(*args)
        out.append(r.to_list() if isinstance(r, rt.RaggedTensor) else r.numpy().tolist())
    return out


# -- factories and conversions -------------------------------------------------------------------

def test_factories_agree_with_the_guide():
    values = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
    nested = rt.RaggedTensor.from_nested_row_splits(values, ([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]))
    assert nested.to_list() == [[[10, 11, 12]], [], [[], [13, 14], [15, 16, 17, 18], [19]]]
    assert nested.ragged_rank == 2
    uniform = rt.RaggedTensor.from_uniform_row_length(
        rt.RaggedTensor.from_row_splits(values, [0, 3, 5, 9, 10]), uniform_row_length=2)
    assert uniform.to_list() == [[[10, 11, 12], [13, 14]], [[15, 16, 17, 18], [19]]]
    assert uniform.shape.as_list() == [2, 2, None]
    lengths = rt.RaggedTensor.from_nested_row_lengths(values, ([1, 0, 4], [3, 0, 2, 4, 1]))
    assert lengths.to_list() == nested.to_list()
    rowids = rt.RaggedTensor.from_nested_value_rowids(values, ([0, 2, 2, 2, 2], [0, 0, 0, 2, 2, 3, 3, 3, 3, 4]),
                                                      nested_nrows=[3, 5])
    assert rowids.to_list() == nested.to_list()


def test_from_tensor_with_padding_lengths_and_ragged_rank():
    x = [[1, 3, -1, -1], [2, -1, -1, -1], [4, 5, 8, 9]]
    assert rt.RaggedTensor.from_tensor(x, padding=-1).to_list() == [[1, 3], [2], [4, 5, 8, 9]]
    assert rt.RaggedTensor.from_tensor(x, lengths=[1, 0, 3]).to_list() == [[1], [], [4, 5, 8]]
    cube = np.arange(24).reshape(2, 3, 4)
    r = rt.RaggedTensor.from_tensor(cube, ragged_rank=2)
    assert r.ragged_rank == 2 and r.to_list() == cube.tolist()
    with pytest.raises(ValueError, match="ragged_rank"):
        rt.RaggedTensor.from_tensor(cube, ragged_rank=3)


def test_to_tensor_pads_and_cuts_to_a_shape_with_a_default():
    words = rt.ragged.constant([["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]])
    dense = words.to_tensor(default_value="", shape=[None, 10]).numpy().tolist()
    assert dense == [[w.encode() for w in row] + [b""] * (10 - len(row))
                     for row in [["Hi"], ["Welcome", "to", "the", "fair"], ["Have", "fun"]]]
    r = rt.ragged.constant(DIGITS)
    cut = r.to_tensor(default_value=-1, shape=[2, 3]).numpy().tolist()
    assert cut == [(row + [-1] * 3)[:3] for row in DIGITS[:2]]
    nested = rt.ragged.constant(NESTED).to_tensor()
    want = np.zeros((4, 3, 3), np.int32)
    for i, row in enumerate(NESTED):
        for j, item in enumerate(row):
            want[i, j, :len(item)] = item
    np.testing.assert_array_equal(nested.numpy(), want)


def test_sparse_round_trip():
    r = rt.ragged.constant([["a"], ["b", "c", "d"], []])
    st = r.to_sparse()
    assert st.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1], [1, 2]]
    assert st.dense_shape.numpy().tolist() == [3, 3]
    assert rt.RaggedTensor.from_sparse(st).to_list() == r.to_list()
    nested = rt.ragged.constant(NESTED)
    idx = nested.to_sparse().indices.numpy().tolist()
    assert idx == [[i, j, k] for i, row in enumerate(NESTED) for j, item in enumerate(row)
                   for k in range(len(item))]


# -- indexing ------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [np.s_[:, :2], np.s_[:, -2:], np.s_[1:, 1:3], np.s_[:, 5:]])
def test_slicing_the_rows_of_several_rows(key):
    r = rt.ragged.constant(DIGITS)
    assert r[key].to_list() == [row[key[1]] for row in DIGITS[key[0]]]


def test_indexing_inner_axes_of_a_rank_3_ragged_tensor():
    r = rt.ragged.constant(NESTED)
    assert r[:, 1:3].to_list() == [row[1:3] for row in NESTED]
    assert r[:, -1:].to_list() == [row[-1:] for row in NESTED]
    assert r[:, 0].to_list() == [row[0] for row in NESTED]
    assert r[:, :, :1].to_list() == [[item[:1] for item in row] for row in NESTED]
    assert r[3, 0].numpy().tolist() == NESTED[3][0]
    with pytest.raises(InvalidArgumentError, match="out of range"):
        r[:, 2]


# -- elementwise and broadcasting ----------------------------------------------------------------

def test_elementwise_apis_apply_to_the_values():
    r = rt.ragged.constant(DIGITS)
    assert rt.add(r, 3).to_list() == [[v + 3 for v in row] for row in DIGITS]
    assert rt.math.square(r).to_list() == [[v * v for v in row] for row in DIGITS]
    assert rt.maximum(r, 4).to_list() == [[max(v, 4) for v in row] for row in DIGITS]
    assert rt.cast(r, rt.float32).dtype is rt.float32
    words = rt.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert rt.strings.substr(words, 0, 2).to_list() == [[w.encode()[:2] for w in row] for row in
                                                         [["So", "long"], ["thanks", "for", "all", "the", "fish"]]]
    joined = rt.strings.join([words, words], separator="+")
    assert joined.to_list()[0] == [b"So+So", b"long+long"]


def test_dense_operands_broadcast_over_the_rows():
    x = rt.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    assert (x + [[1000], [2000], [3000]]).to_list() == [
        [v + d for v in row] for row, d in zip([[10, 87, 12], [19, 53], [12, 32]], [1000, 2000, 3000])]
    cube = rt.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert (cube + rt.constant([[10]])).to_list() == [[[v + 10 for v in p] for p in row]
                                                       for row in [[[1, 2], [3, 4], [5, 6]], [[7, 8]]]]
    deep = rt.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    out = (deep + rt.constant([10, 20, 30])).to_list()
    assert out == [[[[v[0] + 10, v[0] + 20, v[0] + 30] for v in item] for item in row]
                   for row in [[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]]]
    with pytest.raises(InvalidArgumentError):
        rt.ragged.constant([[1, 2], [3, 4, 5, 6], [7]]) + rt.constant(np.ones((3, 4), np.int32))
    with pytest.raises(InvalidArgumentError):
        rt.ragged.constant([[1, 2, 3], [4], [5, 6]]) + rt.ragged.constant([[10, 20], [30, 40], [50]])
    pairs = rt.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    ones = rt.ragged.constant([[[10], [20]], [[30]]], ragged_rank=1)
    assert (pairs + ones).to_list() == [[[11, 12], [23, 24]], [[35, 36]]]  # inner 1 broadcasts
    with pytest.raises(ValueError, match="different ranks"):
        rt.ragged.constant([[1, 2], [3]]) + ones


# -- reductions ----------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:invalid value encountered")  # 0 / 0: the empty rows' mean
def test_reductions_along_the_ragged_axis():
    r = rt.ragged.constant(DIGITS)
    means = rt.reduce_mean(r, axis=1).numpy()
    assert means.dtype == np.float64  # as TensorFlow: an integer mean is float64 here
    for got, row in zip(means, DIGITS):
        assert (math.isnan(got) and not row) or got == pytest.approx(sum(row) / len(row))
    assert rt.reduce_sum(r, axis=1).numpy().tolist() == [sum(row) for row in DIGITS]
    assert rt.reduce_sum(r, axis=0).numpy().tolist() == [3 + 5 + 6, 1 + 9, 4 + 2, 1]
    assert rt.reduce_max(r).numpy() == 9
    assert rt.reduce_min(rt.ragged.constant([[1, 2], [3], [4, 5, 6]]), axis=-1).numpy().tolist() == [1, 3, 4]
    assert rt.reduce_any(rt.greater(r, 5), axis=1).numpy().tolist() == [any(v > 5 for v in row) for row in DIGITS]


def test_reductions_of_a_rank_3_ragged_tensor():
    r = rt.ragged.constant(NESTED)
    assert rt.reduce_sum(r, axis=2).to_list() == [[sum(item) for item in row] for row in NESTED]
    by_position = []
    for row in NESTED:
        width = max((len(item) for item in row), default=0)
        by_position.append([sum(item[k] for item in row if k < len(item)) for k in range(width)])
    assert rt.reduce_sum(r, axis=1).to_list() == by_position
    assert rt.reduce_sum(r, axis=[1, 2]).numpy().tolist() == [sum(map(sum, row)) for row in NESTED]
    features = rt.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]], ragged_rank=1)
    np.testing.assert_allclose(rt.reduce_mean(features, axis=1).numpy(), [[2.0, 3.0], [5.0, 6.0]])


# -- concat, stack, tile, reverse, gather --------------------------------------------------------

def test_concat_stack_tile_reverse():
    r = rt.ragged.constant(DIGITS)
    assert rt.concat([r, [[5, 3]]], axis=0).to_list() == DIGITS + [[5, 3]]
    x = rt.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = rt.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    assert rt.concat([x, y], axis=1).to_list() == [a + b for a, b in zip(x.to_list(), y.to_list())]
    marker = rt.fill([x.nrows(), 1], "#")
    assert rt.concat([marker, x, marker], axis=1).to_list()[0] == [b"#", b"John", b"#"]
    assert rt.tile(r, [1, 2]).to_list() == [row * 2 for row in DIGITS]
    assert rt.tile(r, [2, 1]).to_list() == DIGITS * 2
    assert rt.reverse(r, [1]).to_list() == [row[::-1] for row in DIGITS]
    assert rt.reverse(r, [0]).to_list() == DIGITS[::-1]
    stacked = rt.stack([r, r], axis=0)
    assert stacked.to_list() == [DIGITS, DIGITS]
    assert rt.stack([r, r], axis=1).to_list() == [[row, row] for row in DIGITS]
    assert rt.ragged.stack([[1, 2], [3]]).to_list() == [[1, 2], [3]]
    assert rt.gather(r, [2, 0]).to_list() == [DIGITS[2], DIGITS[0]]


def test_embedding_lookup_and_map_fn_over_rows():
    table = rt.constant(np.arange(20, dtype=np.float32).reshape(10, 2))
    ids = rt.ragged.constant([[1, 2], [], [3]])
    out = rt.nn.embedding_lookup(table, ids)
    assert out.to_list() == [[[2.0, 3.0], [4.0, 5.0]], [], [[6.0, 7.0]]]
    r = rt.ragged.constant(DIGITS)
    assert rt.map_fn(rt.math.square, r).to_list() == [[v * v for v in row] for row in DIGITS]
    sums = rt.map_fn(rt.reduce_sum, r, fn_output_signature=rt.TensorSpec([], rt.int32))
    assert sums.numpy().tolist() == [sum(row) for row in DIGITS]


def test_boolean_mask_with_a_ragged_mask():
    r = rt.ragged.constant(DIGITS)
    kept = rt.ragged.boolean_mask(r, rt.greater(r, 2))
    assert kept.to_list() == [[v for v in row if v > 2] for row in DIGITS]
    rows = rt.boolean_mask(r, [True, False, True, False, True])
    assert rows.to_list() == [DIGITS[0], DIGITS[2], DIGITS[4]]


# -- rt.function, shapes, datasets ---------------------------------------------------------------

def test_ragged_values_through_rt_function():
    @rt.function
    def palindrome(x, axis):
        return rt.concat([x, rt.reverse(x, [axis])], axis)

    r = rt.ragged.constant([[1, 2], [3], [4, 5, 6]])
    assert palindrome(r, axis=1).to_list() == [row + row[::-1] for row in r.to_list()]
    assert palindrome(rt.ragged.constant([[7], [8, 9], []]), axis=1).to_list() == [[7, 7], [8, 9, 9, 8], []]
    assert palindrome.experimental_get_tracing_count() == 1

    @rt.function(input_signature=[rt.RaggedTensorSpec(shape=[None, None], dtype=rt.int32)])
    def max_and_min(x):
        return rt.math.reduce_max(x, axis=-1), rt.math.reduce_min(x, axis=-1)

    hi, lo = max_and_min(r)
    assert hi.numpy().tolist() == [2, 3, 6] and lo.numpy().tolist() == [1, 3, 4]
    eager, staged = _both(lambda x: rt.reduce_sum(x * 2, axis=1), r)
    assert eager == staged == [6, 6, 30]


def test_gradient_reaches_the_values():
    values = rt.Variable([1.0, 2.0, 3.0])
    with rt.GradientTape() as tape:
        r = rt.RaggedTensor.from_row_lengths(values, [2, 1])
        loss = rt.reduce_sum(rt.reduce_sum(r * r, axis=1))
    np.testing.assert_allclose(tape.gradient(loss, values).numpy(), [2.0, 4.0, 6.0])


def test_dynamic_ragged_shape():
    r = rt.ragged.constant([[1], [2, 3, 4], [], [5, 6]])
    shape = rt.shape(r)
    assert repr(shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert int(shape[0]) == 4
    with pytest.raises(ValueError, match="not uniform"):
        shape[1]
    assert repr(shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    x = rt.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    assert rt.reshape(x, shape).to_list() == [[b"a"], [b"b", b"c", b"d"], [], [b"e", b"f"]]
    assert rt.zeros(shape).to_list() == [[0.0], [0.0] * 3, [], [0.0] * 2]
    assert rt.fill(shape, "x").to_list() == [[b"x"], [b"x"] * 3, [], [b"x"] * 2]
    made = rt.experimental.DynamicRaggedShape(
        row_partitions=[rt.experimental.RowPartition.from_row_lengths([5, 3, 2])], inner_shape=[10, 8])
    assert repr(made) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    lengths = rt.experimental.DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert repr(lengths) == "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"


def test_ragged_batch_of_a_dataset():
    ds = rt.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(rt.range)
    batches = [b.to_list() for b in ds.ragged_batch(2)]
    assert batches == [[list(range(1)), list(range(5))], [list(range(3)), list(range(2))], [list(range(8))]]
    same = [b.to_list() for b in ds.apply(rt.data.experimental.dense_to_ragged_batch(2))]
    assert same == batches


def test_split_of_sentences_is_ragged_and_hashes_per_word():
    sentences = ["What makes you think she is a witch?", "A newt?"]
    words = rt.strings.split(rt.constant(sentences), " ")
    assert words.to_list() == [s.encode().split(b" ") for s in sentences]
    hashed = rt.strings.to_hash_bucket_fast(words, 1000)
    assert hashed.to_list() == [[int(rt.strings.to_hash_bucket_fast(w, 1000)) for w in s.split(" ")]
                                for s in sentences]


def test_keras_input_takes_a_ragged_tensor():
    inputs = rt.keras.Input(shape=(None,), dtype="int64", ragged=True)
    assert inputs.ragged and "ragged=True" in repr(inputs)
    total = rt.keras.layers.Lambda(lambda r: rt.cast(rt.reduce_sum(r, axis=1), "float32"))(inputs)
    column = rt.keras.layers.Lambda(lambda t: rt.expand_dims(t, -1))(total)
    outputs = rt.keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")(column)
    model = rt.keras.Model(inputs, outputs)
    got = model(rt.ragged.constant([[1, 2], [3], [4, 5, 6]]))
    np.testing.assert_allclose(got.numpy()[:, 0], [3.0, 3.0, 15.0])
    assert model.get_config()["layers"][0]["config"]["ragged"] is True


def test_datasets_slice_batch_unbatch_and_map_ragged_values():
    lengths = [[7], [], [1, 3], [3, 5, 2]]
    colors = [["red", "blue"], ["orange"], ["black", "yellow"], ["green"]]
    ds = rt.data.Dataset.from_tensor_slices({"lengths": rt.ragged.constant(lengths, dtype=rt.int64),
                                             "colors": rt.ragged.constant(colors)})
    rows = [(e["lengths"].numpy().tolist(), e["colors"].numpy().tolist()) for e in ds]
    assert rows == [(n, [c.encode() for c in cs]) for n, cs in zip(lengths, colors)]
    assert ds.batch(2).element_spec["lengths"] == rt.RaggedTensorSpec([None, None], rt.int64, 1)
    batches = [e["lengths"].to_list() for e in ds.batch(2)]
    assert batches == [lengths[:2], lengths[2:]]
    again = [e["lengths"].numpy().tolist() for e in ds.batch(2).unbatch()]
    assert again == lengths

    def transform(features):
        return {"mean_length": rt.math.reduce_mean(features["lengths"]),
                "length_ranges": rt.ragged.range(features["lengths"])}

    out = list(ds.map(transform))
    assert [int(e["mean_length"]) for e in out] == [sum(n) // len(n) if n else 0 for n in lengths]
    assert [e["length_ranges"].to_list() for e in out] == [[list(range(k)) for k in n] for n in lengths]
    nested = rt.data.Dataset.from_tensors(rt.ragged.constant([[[1], [2, 3]], [[4]]])).unbatch()
    assert [e.to_list() for e in nested] == [[[1], [2, 3]], [[4]]]


def test_ragged_range_staged_and_eager():
    for f in (rt.ragged.range, rt.function(rt.ragged.range)):
        r = f(rt.constant([0, 5]), rt.constant([5, 0]), rt.constant([2, -2]))
        assert r.to_list() == [list(range(0, 5, 2)), list(range(5, 0, -2))]
    assert rt.ragged.range(rt.constant([2, 3], rt.int64)).dtype is rt.int64
    assert rt.ragged.range(0.0, [1.0, 2.0], 0.5).to_list() == [[0.0, 0.5], [0.0, 0.5, 1.0, 1.5]]
    with pytest.raises(InvalidArgumentError, match="deltas"):
        rt.ragged.range(0, 3, 0)


def test_map_fn_with_a_ragged_result_inside_rt_function():
    r = rt.ragged.constant(DIGITS)
    squares = rt.function(lambda x: rt.map_fn(rt.math.square, x))(r)
    assert squares.to_list() == [[v * v for v in row] for row in DIGITS]
    spec = rt.RaggedTensorSpec([None, None], rt.int32)
    doubled = rt.function(lambda x: rt.map_fn(lambda row: rt.concat([row, row], 0), x,
                                              fn_output_signature=spec))(r)
    assert doubled.to_list() == [row + row for row in DIGITS]


def test_keepdims_variance_and_std():
    rows = [[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0], [6.0]]
    r = rt.ragged.constant(rows)
    assert rt.reduce_sum(r, axis=1, keepdims=True).numpy().tolist() == [[sum(x)] for x in rows]
    assert rt.reduce_sum(r, keepdims=True).numpy().tolist() == [[sum(map(sum, rows))]]
    centred = r - rt.reduce_mean(r, axis=1, keepdims=True)
    for got, row in zip(centred.to_list(), rows):
        np.testing.assert_allclose(got, np.array(row) - np.mean(row), rtol=1e-6)
    np.testing.assert_allclose(rt.math.reduce_variance(r, axis=1).numpy(), [np.var(x) for x in rows], rtol=1e-5)
    np.testing.assert_allclose(rt.math.reduce_std(r, axis=1).numpy(), [np.std(x) for x in rows], rtol=1e-5)


def test_more_factories_merge_dims_and_partition_helpers():
    values = [1, 2, 3, 4, 5]
    assert rt.RaggedTensor.from_row_starts(values, [0, 2, 2]).to_list() == [[1, 2], [], [3, 4, 5]]
    assert rt.RaggedTensor.from_row_limits(values, [2, 2, 5]).to_list() == [[1, 2], [], [3, 4, 5]]
    r = rt.ragged.constant(NESTED)
    assert r.merge_dims(0, 1).to_list() == [item for row in NESTED for item in row]
    assert r.merge_dims(1, 2).to_list() == [[v for item in row for v in item] for row in NESTED]
    assert r.merge_dims(0, 2).numpy().tolist() == [v for row in NESTED for item in row for v in item]
    dense_items = rt.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert dense_items.merge_dims(1, 2).to_list() == [[1, 2, 3, 4], [5, 6]]
    assert [t.numpy().tolist() for t in r.nested_row_lengths()] == [
        [len(row) for row in NESTED], [len(item) for row in NESTED for item in row]]
    assert r.with_row_splits_dtype(rt.int32).nested_row_splits[1].dtype is rt.int32
    assert rt.ragged.row_splits_to_segment_ids([0, 2, 2, 3]).numpy().tolist() == [0, 0, 2]
    assert rt.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=4).numpy().tolist() == [0, 2, 2, 3, 3]


def test_map_fn_over_the_rows_of_a_sparse_tensor():
    dense = np.array([[1.0, 0.0, 2.0, 0.0], [0.0] * 4, [0.0, 3.0, 0.0, 0.0]], np.float32)
    st = rt.sparse.from_dense(dense)
    doubled = rt.map_fn(lambda row: rt.sparse.to_dense(row) * 2, st,
                        fn_output_signature=rt.TensorSpec([4], rt.float32))
    np.testing.assert_array_equal(doubled.numpy(), dense * 2)
    scaled = rt.map_fn(lambda row: rt.sparse.SparseTensor(row.indices, row.values * 10, row.dense_shape), st)
    np.testing.assert_array_equal(rt.sparse.to_dense(scaled).numpy(), dense * 10)
    sums = rt.function(lambda s: rt.map_fn(lambda row: rt.reduce_sum(rt.sparse.to_dense(row)), s,
                                           fn_output_signature=rt.TensorSpec([], rt.float32)))(st)
    np.testing.assert_array_equal(sums.numpy(), dense.sum(axis=1))


def test_fit_predict_and_evaluate_take_ragged_x():
    inputs = rt.keras.Input(shape=(None,), dtype="float32", ragged=True)
    mean = rt.keras.layers.Lambda(lambda r: rt.expand_dims(rt.reduce_mean(r, axis=1), -1))(inputs)
    model = rt.keras.Model(inputs, rt.keras.layers.Dense(1)(mean))
    rows = [[1.0, 2.0], [3.0], [4.0, 5.0, 6.0], [7.0, 8.0]]
    x = rt.ragged.constant(rows)
    y = np.array([[np.mean(r)] for r in rows], np.float32)
    model.compile(optimizer=rt.keras.optimizers.SGD(0.01), loss="mse")
    history = model.fit(x, y, epochs=8, batch_size=2, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    np.testing.assert_allclose(model.predict(x, batch_size=3, verbose=0), model(x).numpy(), rtol=1e-6)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(float(np.mean((model(x).numpy() - y) ** 2)), rel=1e-5)


@pytest.mark.parametrize("key", [np.s_[::2], np.s_[::-1], np.s_[1::3], np.s_[-1:0:-2], np.s_[:-6:-1], np.s_[5::-2]])
def test_slices_with_a_step_follow_python_per_row(key):
    rows = DIGITS + [[7, 8, 9, 10, 11]]
    r = rt.ragged.constant(rows)
    assert r[:, key].to_list() == [row[key] for row in rows]
    assert r[key].to_list() == rows[key]


def test_string_ops_on_ragged_strings():
    rows = [["So", "long"], ["thanks", "", "all"], []]
    w = rt.ragged.constant(rows)
    for f in (rt.strings.reduce_join, rt.function(rt.strings.reduce_join)):
        got = f(w, axis=1, separator=" ").numpy().tolist()
        assert got == [" ".join(r).encode() for r in rows]
    assert rt.strings.reduce_join(w, separator="|").numpy() == "|".join(sum(rows, [])).encode()
    nested = [[["a", "b"], ["c"]], [["d", "e", "f"]]]
    assert rt.strings.reduce_join(rt.ragged.constant(nested), axis=2, separator="-").to_list() == [
        ["-".join(item).encode() for item in row] for row in nested]
    text = [["a b", "c"], ["d e f"]]
    assert rt.strings.split(rt.ragged.constant(text)).to_list() == [
        [s.encode().split() for s in row] for row in text]
    words = ["héllo", "wörld!"]
    points = rt.strings.unicode_decode(rt.constant(words), "UTF-8")
    assert points.to_list() == [[ord(c) for c in s] for s in words]
    assert rt.strings.unicode_encode(points, "UTF-8").numpy().tolist() == [s.encode() for s in words]
    assert rt.strings.length(w).to_list() == [[len(s) for s in r] for r in rows]


def _sum_along(x, axis, depth):
    """Python's reduce_sum of nested lists along `axis`, TensorFlow's way: items at one place
    combine, missing ones are skipped (a row of the result is as long as the longest)."""
    if axis > 0:
        return [_sum_along(row, axis - 1, depth - 1) for row in x]
    if depth == 1:
        return sum(x)
    width = max((len(item) for item in x), default=0)
    return [_sum_along([item[k] for item in x if k < len(item)], 0, depth - 1) for k in range(width)]


@pytest.mark.parametrize("seed", range(6))
def test_reductions_along_every_axis_of_deep_ragged_tensors(seed):
    rng = np.random.default_rng(seed)

    def rows(depth):
        if depth == 0:
            return int(rng.integers(0, 10))
        return [rows(depth - 1) for _ in range(int(rng.integers(0, 4)))]

    depth = 2 + seed % 3
    x = [rows(depth - 1) for _ in range(int(rng.integers(1, 5)))]
    r = rt.ragged.constant(x, dtype=rt.int32, ragged_rank=depth - 1)
    for axis in range(depth):
        got = rt.reduce_sum(r, axis=axis)
        got = got.to_list() if isinstance(got, rt.RaggedTensor) else got.numpy().tolist()
        assert got == _sum_along(x, axis, depth)
    # the guide's rank-3 example, as TensorFlow prints it
    guide = rt.ragged.constant(NESTED)
    assert rt.reduce_max(guide, axis=0).to_list() == [[8, 9, 3], [10], [6]]


def test_map_fn_whose_rows_are_ragged_eagerly_and_staged():
    r = rt.ragged.constant(DIGITS)
    spec = rt.RaggedTensorSpec([None, None, None], rt.int32, ragged_rank=2)
    want = [[list(range(v)) for v in row] for row in DIGITS]
    for f in (rt.map_fn, rt.function(rt.map_fn)):
        assert f(rt.ragged.range, r, fn_output_signature=spec).to_list() == want
    nested = rt.ragged.constant(NESTED)
    staged = rt.function(lambda x: rt.map_fn(lambda row: row * 10, x))(nested)
    assert staged.to_list() == [[[v * 10 for v in item] for item in row] for row in NESTED]
    empty = rt.ragged.constant([[1, 2], []])
    assert rt.concat([empty, rt.ragged.range([0, 0])], axis=0).to_list() == [[1, 2], [], [], []]


def test_dataset_functions_over_rows_of_different_sizes():
    ds = rt.data.Dataset.from_tensor_slices(rt.ragged.constant(NESTED))
    assert ds.element_spec == rt.RaggedTensorSpec([None, None], rt.int32, 1)
    kept = [e.to_list() for e in ds.filter(lambda x: rt.size(x) > 1)]
    assert kept == [row for row in NESTED if sum(map(len, row)) > 1]
    sums = [e.to_list() for e in ds.batch(2).map(lambda x: rt.reduce_sum(x, axis=-1))]
    assert sums == [[[sum(item) for item in row] for row in NESTED[i:i + 2]] for i in (0, 2)]


def test_a_ragged_dataset_iterated_inside_rt_function():
    ds = rt.data.Dataset.from_tensor_slices([1, 5, 3, 2, 8]).map(rt.range).ragged_batch(2)

    @rt.function
    def total(dataset):
        s = rt.constant(0)
        for r in dataset:
            s += rt.reduce_sum(r)
        return s

    assert int(total(ds)) == sum(sum(range(n)) for n in [1, 5, 3, 2, 8])


def test_ragged_datasets_save_and_load(tmp_path):
    ds = rt.data.Dataset.from_tensor_slices([1, 5, 3]).map(rt.range).ragged_batch(2)
    ds.save(str(tmp_path / "batches"))
    back = rt.data.Dataset.load(str(tmp_path / "batches"))
    assert back.element_spec == rt.RaggedTensorSpec([None, None], rt.int32, 1)
    assert [r.to_list() for r in back] == [r.to_list() for r in ds]
    rows = rt.data.Dataset.from_tensor_slices(rt.ragged.constant([[1, 2], [3], []]))
    rows.save(str(tmp_path / "rows"))
    loaded = rt.data.Dataset.load(str(tmp_path / "rows"))
    assert [r.to_list() for r in loaded.batch(3)] == [[[1, 2], [3], []]]  # rows batch into ragged again


# -- names bound before the first composite value -----------------------------------------------

_EARLY_BINDING = r"""
import json, sys
import runtime as rt
from runtime import reduce_sum
math_abs = rt.math.abs
add, rs, concat, shape, erf = rt.add, rt.reduce_sum, rt.concat, rt.shape, rt.math.erf
loaded_at_import = "runtime.ops.dispatch" in sys.modules and bool(
    sys.modules["runtime.ops.dispatch"]._LOADERS)
r = rt.ragged.constant([[1, 2], [3]])
sp = rt.sparse.SparseTensor([[0, 0], [1, 2]], [1.0, -2.5], [2, 3])
out = {
    "lazy": loaded_at_import,
    "rs": rs(r, axis=1).numpy().tolist(),
    "reduce_sum": reduce_sum(r, axis=1).numpy().tolist(),
    "add": add(r, 10).to_list(),
    "concat": concat([r, r], axis=1).to_list(),
    "shape": [int(d) for d in shape(sp).numpy()],
    "abs": math_abs(sp).values.numpy().tolist(),
    "erf_type": type(erf(rt.ragged.constant([[0.5], [1.0]]))).__name__,
    "same": rt.reduce_sum is rs and rt.add is add and rt.math.abs is math_abs,
}
print(json.dumps(out))
"""


def test_names_bound_before_the_first_ragged_value_dispatch():
    # a fresh interpreter: handlers load on the first refused composite, after these bindings
    import json
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _EARLY_BINDING], capture_output=True, text=True,
                          check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    rows = [[1, 2], [3]]
    assert out["lazy"]  # import runtime did not register the handlers
    assert out["rs"] == out["reduce_sum"] == [sum(row) for row in rows]
    assert out["add"] == [[v + 10 for v in row] for row in rows]
    assert out["concat"] == [row + row for row in rows]
    assert out["shape"] == [2, 3]
    np.testing.assert_array_equal(out["abs"], np.abs([1.0, -2.5]))
    assert out["erf_type"] == "RaggedTensor"  # rows of one length stay ragged, as in TF
    assert out["same"]  # the published names keep their identity


def test_apis_keep_their_identity_once_ragged_values_are_made():
    before = (rt.reduce_sum, rt.add, rt.math.add, rt.concat, rt.nn.relu)
    r = rt.ragged.constant([[1.0, -2.0], [3.0]])
    assert rt.reduce_sum(r, axis=1).numpy().tolist() == [-1.0, 3.0]
    assert rt.nn.relu(r).to_list() == [[1.0, 0.0], [3.0]]
    assert (rt.reduce_sum, rt.add, rt.math.add, rt.concat, rt.nn.relu) == before
    with pytest.raises(TypeError, match="RaggedTensor"):  # no handler: TF's refusal
        rt.linalg.matmul(r, r)


def test_sparse_values_through_zero_preserving_unary_apis():
    # TensorFlow applies these to a SparseTensor's values and keeps its indices
    sp = rt.sparse.SparseTensor([[0, 0], [1, 2]], [0.25, -0.5], [2, 3])
    for api, oracle in ((rt.abs, np.abs), (rt.negative, np.negative), (rt.math.sign, np.sign),
                        (rt.square, np.square), (rt.math.tanh, np.tanh), (rt.math.atan, np.arctan)):
        out = api(sp)
        assert isinstance(out, rt.SparseTensor)
        np.testing.assert_allclose(out.values.numpy(), oracle(np.float32([0.25, -0.5])), rtol=1e-6)
        assert out.indices.numpy().tolist() == [[0, 0], [1, 2]]
    assert rt.cast(sp, rt.int32).values.dtype == rt.int32
    assert rt.shape(sp).numpy().tolist() == [2, 3] and rt.shape(sp).dtype == rt.int32
    assert int(rt.size(sp)) == 6 and int(rt.rank(sp)) == 2
    with pytest.raises(TypeError):  # exp(0) is not 0: TensorFlow refuses it too
        rt.exp(sp)


_THREADS_FIRST_CALL = r"""
import json, threading
import runtime as rt
r = rt.ragged.constant([[1, 2], [3]])
start, results, errors = threading.Barrier(4), [], []

def call():
    start.wait()
    try:
        results.append(rt.reduce_sum(r, axis=1).numpy().tolist())
    except Exception as exc:
        errors.append(repr(exc))

threads = [threading.Thread(target=call) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"results": results, "errors": errors}))
"""


def test_threads_making_the_first_composite_call_together_all_dispatch():
    import json
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _THREADS_FIRST_CALL], capture_output=True,
                          text=True, check=True)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["errors"] == [] and out["results"] == [[3, 3]] * 4


def test_an_op_refuses_a_composite_value_with_tensorflows_error_type():
    # TensorFlow: tf.add(sparse, sparse) and tf.convert_to_tensor(ragged) raise ValueError
    sp = rt.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])
    r = rt.ragged.constant([[1.0], [2.0]])  # rows of one length: still not a dense tensor
    for call in (lambda: rt.add(sp, sp), lambda: rt.convert_to_tensor(r),
                 lambda: rt.linalg.matmul(r, r)):
        with pytest.raises(ValueError, match="Cannot convert a (Sparse|Ragged)Tensor"):
            call()
        with pytest.raises(TypeError):  # also a TypeError, as before
            call()
