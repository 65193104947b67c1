"""rt.data, round 4: datasets of strings, map traced once, scan / take_while / unique / shard /
rebatch / window, `Dataset.range(n)` with a tensor `n` in a compiled function, keyword hints
on every public method, and the size arguments tf.data refuses.

Oracles: plain-Python models of tf.data's documented semantics (written below, independent of
the runtime) and values tf.data 2.21 prints for the same programs (quoted where used).
"""

import inspect
import itertools

import numpy as np
import pytest

import runtime as rt

D = rt.data.Dataset


def values(ds):
    """The elements as plain Python (ints, floats, bytes, lists, tuples, dicts)."""
    def plain(x):
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, tuple):
            return tuple(plain(v) for v in x)
        return np.asarray(x).tolist()
    return [plain(e) for e in ds.as_numpy_iterator()]


# -- item 15: strings -----------------------------------------------------------------------

WORDS = ["a", "bb", "", "dddd", "ccc"]


def test_a_dataset_of_python_strings_maps_and_filters():
    ds = D.from_tensor_slices(WORDS)
    assert ds.element_spec == rt.TensorSpec([], rt.string)
    assert values(ds.map(rt.strings.length)) == [len(w) for w in WORDS]
    assert values(ds.filter(lambda s: rt.strings.length(s) > 1)) == \
        [w.encode() for w in WORDS if len(w) > 1]
    assert values(ds.map(lambda s: s + "!")) == [(w + "!").encode() for w in WORDS]


def test_string_slices_of_every_byte_length_share_one_trace():
    calls = []

    def length(s):
        calls.append(1)
        return rt.strings.length(s)
    mapped = D.from_tensor_slices(np.array(WORDS)).map(length)   # a NumPy '<U4' array too
    assert values(mapped) == [len(w) for w in WORDS]
    assert values(mapped) == [len(w) for w in WORDS]
    assert len(calls) == 1


def test_strings_in_structures_batches_and_shuffles():
    pairs = D.from_tensor_slices((WORDS, list(range(len(WORDS)))))
    assert values(pairs.map(lambda s, i: rt.strings.length(s) + i)) == \
        [len(w) + i for i, w in enumerate(WORDS)]
    assert values(D.from_tensor_slices(WORDS).batch(2)) == \
        [[w.encode() for w in WORDS[i:i + 2]] for i in range(0, len(WORDS), 2)]
    shuffled = values(D.from_tensor_slices(WORDS).shuffle(5, seed=3).map(rt.strings.length))
    assert sorted(shuffled) == sorted(len(w) for w in WORDS)
    padded = D.from_tensor_slices(WORDS).map(lambda s: (s, rt.strings.length(s))).padded_batch(3)
    assert values(padded) == [([w.encode() for w in WORDS[i:i + 3]], [len(w) for w in WORDS[i:i + 3]])
                              for i in (0, 3)]
    rows = D.from_tensor_slices([["a", "bb"], ["ccc", "d"]]).unbatch()
    assert values(rows.map(rt.strings.length)) == [1, 2, 3, 1]


@pytest.mark.parametrize("signature", [
    {"output_signature": rt.TensorSpec((), rt.string)},
    {"output_types": rt.string, "output_shapes": ()},
])
def test_a_generator_of_strings_maps_and_filters(signature):
    def gen():
        yield from ["x", "yyyy", "zz"]
    ds = D.from_generator(gen, **signature)
    assert values(ds.map(rt.strings.length).filter(lambda n: n > 1)) == [4, 2]
    assert values(ds.filter(lambda s: rt.strings.length(s) < 3)) == [b"x", b"zz"]


# -- item 19: map traces once -----------------------------------------------------------------

@pytest.mark.parametrize("source", [
    lambda: D.range(50),                                          # a block source
    lambda: D.from_tensor_slices(np.arange(12.0).reshape(6, 2)),
    lambda: D.from_generator(lambda: iter(range(5)), output_signature=rt.TensorSpec((), rt.int32)),
    lambda: D.range(7).map(lambda x: x).filter(lambda x: x % 2 == 0),
])
def test_map_calls_the_python_function_once_as_tf_data_does(source):
    calls = []

    def f(x):
        calls.append(1)
        return x * 2 + 1
    ds = source()
    expected = [np.asarray(v) * 2 + 1 for v in ds.as_numpy_iterator()]
    mapped = ds.map(f)
    for _ in range(2):
        got = list(mapped.as_numpy_iterator())
        assert all(np.array_equal(a, b) for a, b in zip(got, expected)) and len(got) == len(expected)
    assert len(calls) == 1


def test_map_traced_once_still_sees_the_static_element_shape():
    # the function reads the element's static size: one element at a time or by blocks, the
    # answer is the element's (TF: 3 for every element of a (4, 3) slice source)
    ds = D.from_tensor_slices(np.ones((4, 3), np.float32)).map(lambda x: x + float(x.shape[0]))
    assert values(ds) == [[4.0, 4.0, 4.0]] * 4


# -- item 19: the new transformations against plain-Python models ----------------------------

def py_window(xs, size, shift, stride, drop):
    shift = size if shift is None else shift
    out = []
    for start in range(0, len(xs), shift):
        w = xs[start:start + (size - 1) * stride + 1:stride]
        if len(w) == size or (w and not drop):
            out.append(w)
    return out


def test_window_orders_and_cardinality_match_the_model():
    for n, size, shift, stride, drop in itertools.product(
            range(0, 9), range(1, 5), (None, 1, 2, 3, 5), (1, 2, 3), (False, True)):
        xs = list(range(n))
        ds = D.range(n).window(size, shift, stride, drop)
        got = [values(w) for w in ds]
        want = py_window(xs, size, shift, stride, drop)
        assert got == want, (n, size, shift, stride, drop)
        assert int(ds.cardinality()) == len(want), (n, size, shift, stride, drop)


def test_window_documented_values_and_specs():
    # tf.data: range(7).window(3, shift=2, stride=2) -> [0,2,4], [2,4,6], [4,6], [6]
    assert [values(w) for w in D.range(7).window(3, shift=2, stride=2)] == \
        [[0, 2, 4], [2, 4, 6], [4, 6], [6]]
    spec = D.range(7).window(3).element_spec
    assert isinstance(spec, rt.data.DatasetSpec)
    assert spec.element_spec == rt.TensorSpec([], rt.int64)
    pair = D.zip((D.range(7), D.range(7))).window(3).element_spec
    assert isinstance(pair, tuple) and all(isinstance(s, rt.data.DatasetSpec) for s in pair)
    windows = D.from_tensor_slices({"a": [1, 2, 3], "b": [4, 5, 6]}).window(2)
    assert [{k: values(v) for k, v in w.items()} for w in windows] == \
        [{"a": [1, 2], "b": [4, 5]}, {"a": [3], "b": [6]}]


def test_flat_map_over_windows_gives_sliding_batches():
    # tf.data: range(7).window(3, 1, 1, True).flat_map(lambda w: w.batch(3))
    got = values(D.range(7).window(3, 1, 1, True).flat_map(lambda w: w.batch(3)))
    assert got == [list(range(i, i + 3)) for i in range(5)]
    pairs = D.zip((D.range(5), D.range(10, 15))).window(2, drop_remainder=True)
    zipped = pairs.flat_map(lambda a, b: D.zip((a.batch(2), b.batch(2))))
    assert values(zipped) == [([0, 1], [10, 11]), ([2, 3], [12, 13])]


def test_windows_are_not_numpy_values_nor_staged_loop_elements():
    with pytest.raises(TypeError, match="flat_map"):
        D.range(4).window(2).as_numpy_iterator()

    @rt.function
    def count(ds):
        n = rt.constant(0)
        for _ in ds:
            n += 1
        return n
    with pytest.raises(TypeError, match="flat_map"):
        count(D.range(4).window(2))


def test_scan_matches_a_running_state_model():
    xs = [3, 1, 4, 1, 5, 9, 2]
    state, want = 0, []
    for x in xs:                                     # (state, x) -> (state + x, state * 10)
        want.append(state * 10)
        state += x
    ds = D.from_tensor_slices(np.array(xs, np.int64)).scan(
        rt.constant(0, rt.int64), lambda s, x: (s + x, s * 10))
    assert values(ds) == want
    assert ds.element_spec == rt.TensorSpec([], rt.int64)
    assert int(ds.cardinality()) == len(xs)
    # tuple elements are one argument, as in tf.data: [0, 1, 3] for zip(range(3), range(3))
    zipped = D.zip((D.range(3), D.range(3))).scan(rt.constant(0, rt.int64),
                                                    lambda s, e: (s + e[0], e[1] + s))
    assert values(zipped) == [0, 1, 3]
    # a Python initial state is an int32 tensor; a state that grows is relaxed
    assert values(D.range(4).scan(0, lambda s, x: (s + 1, s))) == [0, 1, 2, 3]
    grown = D.range(4).scan(rt.constant([0], rt.int64),
                            lambda s, x: (rt.concat([s, [x]], 0), rt.size(s)))
    assert values(grown) == [1, 2, 3, 4]


def test_scan_refuses_a_state_of_another_dtype():
    with pytest.raises(TypeError, match="int32.*float32"):
        D.range(3).scan(rt.constant(0), lambda s, x: (rt.cast(x, rt.float32), x))
    with pytest.raises(TypeError, match="pair"):
        D.range(3).scan(rt.constant(0), lambda s, x: s)


def test_take_while_unique_and_shard_match_python():
    xs = [5, 3, 8, 3, 1, 5, 9, 8, 2, 7]
    ds = D.from_tensor_slices(np.array(xs, np.int64))
    assert values(ds.take_while(lambda x: x != 1)) == list(itertools.takewhile(lambda x: x != 1, xs))
    assert int(ds.take_while(lambda x: x > 0).cardinality()) == rt.data.UNKNOWN_CARDINALITY
    assert values(ds.unique()) == list(dict.fromkeys(xs))
    assert values(D.from_tensor_slices(["b", "a", "b"]).unique()) == [b"b", b"a"]
    assert values(D.from_tensor_slices([[1], [2], [1]]).unique()) == [[1], [2]]
    for num_shards, index in itertools.product(range(1, 5), range(4)):
        if index < num_shards:
            sharded = ds.shard(num_shards, index)
            assert values(sharded) == xs[index::num_shards]
            assert int(sharded.cardinality()) == len(xs[index::num_shards])


def test_take_while_and_unique_refuse_what_tf_data_refuses():
    with pytest.raises(ValueError, match="scalar bool"):
        D.range(3).take_while(lambda x: x)
    with pytest.raises(TypeError, match="float32"):
        D.from_tensor_slices([1.0, 2.0]).unique()
    with pytest.raises(rt.errors.InvalidArgumentError, match="single component"):
        D.zip((D.range(3), D.range(3))).unique()


def py_rebatch(rows, sizes, drop):
    out, k, i = [], 0, 0
    while i < len(rows):
        want = sizes[k % len(sizes)]
        part = rows[i:i + want]
        if len(part) == want or not drop:
            out.append(part)
        i, k = i + want, k + 1
    return out


@pytest.mark.parametrize("n,batch,sizes,drop", [
    (8, 4, 2, False), (8, 4, [1, 3], False), (9, 4, 3, True), (9, 4, [2, 3], True),
    (9, 4, [2, 3], False), (10, 3, 4, False), (0, 2, 3, False), (7, 7, [1], True),
])
def test_rebatch_regroups_rows_as_the_model(n, batch, sizes, drop):
    ds = D.range(n).batch(batch).rebatch(sizes, drop_remainder=drop)
    assert values(ds) == py_rebatch(list(range(n)), sizes if isinstance(sizes, list) else [sizes], drop)


def test_rebatch_specs_and_errors():
    # tf.data: (3,) with drop_remainder and one size, (None,) otherwise
    assert D.range(9).batch(4).rebatch(3, drop_remainder=True).element_spec == \
        rt.TensorSpec([3], rt.int64)
    assert D.range(9).batch(4).rebatch([2, 3]).element_spec == rt.TensorSpec([None], rt.int64)
    with pytest.raises(ValueError, match="batch"):
        D.range(9).rebatch(3)
    with pytest.raises(rt.errors.InvalidArgumentError, match="batch_size"):
        D.range(9).batch(4).rebatch(0)


# -- item 19: range(n) with a tensor n inside a compiled function ----------------------------

def test_for_over_range_of_a_tensor_is_staged_once():
    @rt.function
    def total(n):
        s = rt.constant(0, rt.int64)
        for x in D.range(n):
            s += x
        return s
    for n in (5, 3, 0, 12):
        assert int(total(rt.constant(n))) == sum(range(n))
    assert total.experimental_get_tracing_count() == 1


def test_datasets_built_from_function_tensors_in_loops_and_pipelines():
    @rt.function
    def nested(n):
        s = rt.constant(0, rt.int64)
        for i in rt.range(n):
            for x in D.range(rt.cast(i, rt.int64)):
                s += x
        return s
    assert int(nested(rt.constant(6))) == sum(sum(range(i)) for i in range(6))

    @rt.function
    def pipeline(a, b, k, xs):
        s = rt.constant(0, rt.int64)
        for v in D.range(a, b, 2).take(k).map(lambda v: v * 10):
            s += v
        t = D.from_tensor_slices(xs).reduce(rt.constant(0.0), lambda acc, v: acc + v)
        return s, t
    s, t = pipeline(rt.constant(1), rt.constant(20), rt.constant(3), rt.constant([1.5, 2.5]))
    assert int(s) == sum(v * 10 for v in list(range(1, 20, 2))[:3])
    assert float(t) == 4.0


# -- item 20: keywords and sizes --------------------------------------------------------------

def _public_methods(cls):
    for name, member in inspect.getmembers(cls):
        if not name.startswith("_") and callable(member) and not isinstance(member, type):
            yield name, member


def _misspelt_keyword(fn):
    """A keyword `fn` accepts, misspelt by doubling its last letter, or None."""
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.name not in ("self", "cls") and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return (params[-1].name, params[-1].name + params[-1].name[-1]) if params else None


def _receivers():
    return {rt.data.Dataset: D.range(3), rt.data.Iterator: iter(D.range(3))}


@pytest.mark.parametrize("cls", [rt.data.Dataset, rt.data.Iterator])
def test_every_public_method_suggests_the_keyword_it_meant(cls):
    receiver = _receivers()[cls]
    hinted = []
    for name, _ in _public_methods(cls):
        bound = getattr(receiver, name)
        misspelt = _misspelt_keyword(bound)
        if misspelt is None:      # no keywords at all: still a TypeError naming the keyword
            with pytest.raises(TypeError, match="'nmae'"):
                bound(nmae=None)
            continue
        right, wrong = misspelt
        with pytest.raises(TypeError, match=f"{wrong}.*did you mean '{right}'"):
            bound(**{wrong: None})
        hinted.append(name)
    if cls is rt.data.Dataset:
        assert {"map", "batch", "shuffle", "window", "scan", "rebatch", "from_generator",
                "from_tensor_slices", "range", "zip", "list_files"} <= set(hinted)


@pytest.mark.parametrize("make, wrong, right", [
    (lambda **kw: rt.data.TextLineDataset(__file__, **kw), "compresion_type", "compression_type"),
    (lambda **kw: rt.data.experimental.CsvDataset(__file__, [""], **kw), "heder", "header"),
    (lambda **kw: D.from_tensor_slices([1, 2]).batch(2, **kw), "drop_remainer", "drop_remainder"),
])
def test_readers_suggest_the_keyword_they_meant(make, wrong, right):
    with pytest.raises(TypeError, match=f"{wrong}.*did you mean '{right}'"):
        make(**{wrong: True})


@pytest.mark.parametrize("call", [
    lambda: D.range(5).shuffle(-1), lambda: D.range(5).shuffle(0),
    lambda: D.range(5).batch(0), lambda: D.range(5).batch(-1),
    lambda: D.range(5).padded_batch(0), lambda: D.range(5).prefetch(-2),
    lambda: D.range(5).map(lambda x: x, num_parallel_calls=0),
    lambda: D.range(5).map(lambda x: x, num_parallel_calls=-3),
    lambda: D.range(5).interleave(D.from_tensors, cycle_length=0),
    lambda: D.range(5).interleave(D.from_tensors, block_length=0),
    lambda: D.range(5).shard(0, 0), lambda: D.range(5).shard(2, 2), lambda: D.range(5).shard(2, -1),
    lambda: D.range(5).window(0), lambda: D.range(5).window(2, shift=0),
    lambda: D.range(5).window(2, stride=0),
], ids=["shuffle-1", "shuffle0", "batch0", "batch-1", "padded_batch0", "prefetch-2", "map0",
        "map-3", "cycle0", "block0", "shards0", "index2", "index-1", "window0", "shift0", "stride0"])
def test_sizes_tf_data_refuses_raise_invalid_argument(call):
    # tf.data 2.21 raises InvalidArgumentError for each of these when the dataset is made
    with pytest.raises(rt.errors.InvalidArgumentError, match="must be"):
        call()


def test_sizes_tf_data_accepts_keep_its_meaning():
    # tf.data 2.21: repeat(-2) repeats forever, take(-2) takes all, skip(-2) skips all,
    # prefetch(0) prefetches nothing, shuffle(UNKNOWN_CARDINALITY) shuffles the whole dataset
    assert values(D.range(2).repeat(-2).take(5)) == [0, 1, 0, 1, 0]
    assert values(D.range(5).take(-2)) == [0, 1, 2, 3, 4]
    assert values(D.range(5).skip(-2)) == []
    assert values(D.range(5).prefetch(0)) == [0, 1, 2, 3, 4]
    assert sorted(values(D.range(50).shuffle(rt.data.UNKNOWN_CARDINALITY, seed=1))) == list(range(50))


def test_an_unconverted_python_loop_over_a_dataset_stops_with_advice():
    @rt.function(autograph=False)
    def total(n):
        s = rt.constant(0, rt.int64)
        for x in D.range(n):        # plain Python: would stage get-next ops forever
            s += x
        return s
    with pytest.raises(RuntimeError, match="autograph"):
        total(rt.constant(3))


def test_experimental_transformations_apply_as_the_methods():
    xs = [4, 2, 4, 7, 1]
    ds = D.from_tensor_slices(np.array(xs, np.int64))
    exp = rt.data.experimental
    running = values(ds.apply(exp.scan(rt.constant(0, rt.int64), lambda s, x: (s + x, s + x))))
    assert running == list(itertools.accumulate(xs))
    assert values(ds.apply(exp.take_while(lambda x: x < 7))) == [4, 2, 4]
    assert values(ds.apply(exp.unique())) == list(dict.fromkeys(xs))
    with pytest.raises(TypeError, match="did you mean 'predicate'"):
        exp.take_while(predicat=None)


def test_a_shuffle_built_in_a_function_reshuffles_at_each_call_as_eager_epochs_do():
    @rt.function
    def order(n):
        out = rt.TensorArray(rt.int64, size=0, dynamic_size=True)
        i = 0
        for x in D.range(n).shuffle(10, seed=1):
            out = out.write(i, x)
            i += 1
        return out.stack()
    calls = [order(rt.constant(10)).numpy().tolist() for _ in range(3)]
    eager = D.range(10).shuffle(10, seed=1)
    epochs = [values(eager) for _ in range(3)]
    assert all(sorted(c) == list(range(10)) for c in calls)
    assert calls == epochs and calls[0] != calls[1]
