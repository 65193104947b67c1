"""sample_from_datasets, choose_from_datasets, rejection_resample and Dataset.random: TensorFlow
2.21's recorded orders (deterministic ones, and seeded sample_from_datasets and Dataset.random),
its errors and cardinalities, and statistics (NumPy) of the random ones (rejection_resample's
draws are not TensorFlow's numbers)."""

import numpy as np
import pytest

import runtime as rt

Dataset = rt.data.Dataset


def ints(ds):
    return [int(x) for x in ds.as_numpy_iterator()]


def a():
    return Dataset.range(0, 5)


def b():
    return Dataset.range(100, 103)


def selector(values):
    return Dataset.from_tensor_slices(np.array(values, np.int64))


def test_choose_from_datasets_matches_tensorflow():
    ds = Dataset.choose_from_datasets([a(), b()], selector([0, 1, 0, 1, 1, 0]))
    assert ints(ds) == [0, 100, 1, 101, 102, 2]
    assert int(ds.cardinality()) == rt.data.UNKNOWN_CARDINALITY
    # Dataset.choose_from_datasets stops at an empty input by default ...
    assert ints(Dataset.choose_from_datasets([a(), b()], selector([1, 1, 1, 1, 0]))) == [100, 101, 102]
    # ... the experimental form (and stop_on_empty_dataset=False) passes over it
    assert ints(Dataset.choose_from_datasets([a(), b()], selector([1, 1, 1, 1, 0]),
                                             stop_on_empty_dataset=False)) == [100, 101, 102, 0]
    assert ints(rt.data.experimental.choose_from_datasets(
        [a(), b()], selector([1, 1, 1, 1, 0]))) == [100, 101, 102, 0]


def test_choose_from_datasets_errors_as_tensorflow():
    with pytest.raises(TypeError, match="scalar `rt.int64`"):
        Dataset.choose_from_datasets([a(), b()], Dataset.from_tensor_slices(np.array([0, 1], np.int32)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="Selector index out of range: 5 >= 2"):
        ints(Dataset.choose_from_datasets([a(), b()], selector([0, 5])))
    with pytest.raises(ValueError, match="should not be empty"):
        Dataset.choose_from_datasets([], selector([0]))
    with pytest.raises(TypeError, match="should be a `rt.data.Dataset`"):
        Dataset.choose_from_datasets([a(), b()], [0, 1])


@pytest.mark.parametrize("stop", [False, True])
def test_cardinalities_as_tensorflow(stop):
    cases = ([a(), b()], [a().repeat(), b().repeat()], [a().repeat(), b()])
    # TensorFlow 2.21: -2, -1, -1 for either stop_on_empty_dataset, both functions
    want = [-2, -1, -1]
    assert [int(Dataset.sample_from_datasets(d, seed=1, stop_on_empty_dataset=stop).cardinality())
            for d in cases] == want
    cases = ([a(), b()], [a().repeat(), b().repeat()], [a().repeat(), b()])
    assert [int(Dataset.choose_from_datasets(d, Dataset.range(2).repeat(),
                                             stop_on_empty_dataset=stop).cardinality())
            for d in cases] == want


def test_sample_from_datasets_takes_every_element_once_in_each_inputs_order():
    for seed in range(5):
        out = ints(Dataset.sample_from_datasets([a(), b()], seed=seed))
        assert sorted(out) == [0, 1, 2, 3, 4, 100, 101, 102]
        assert [v for v in out if v < 100] == [0, 1, 2, 3, 4]
        assert [v for v in out if v >= 100] == [100, 101, 102]


def test_sample_from_datasets_stop_on_empty_dataset_ends_at_the_first_empty_input():
    for seed in range(10):
        full = ints(Dataset.sample_from_datasets([a(), b()], seed=seed))
        cut = ints(Dataset.sample_from_datasets([a(), b()], seed=seed, stop_on_empty_dataset=True))
        assert full[:len(cut)] == cut
        # it ends when an input that has given all its elements is chosen again
        assert set(range(5)) <= set(cut) or set(range(100, 103)) <= set(cut)


def test_sample_from_datasets_seeded_repeats_and_rerandomizes():
    ds = Dataset.sample_from_datasets([Dataset.range(50), Dataset.range(100, 150)], seed=7)
    assert ints(ds) == ints(ds)
    again = Dataset.sample_from_datasets([Dataset.range(50), Dataset.range(100, 150)], seed=7)
    assert ints(again) == ints(ds)
    ds = Dataset.sample_from_datasets([Dataset.range(50), Dataset.range(100, 150)], seed=7,
                                      rerandomize_each_iteration=True)
    assert ints(ds) != ints(ds)


def test_sample_from_datasets_frequencies_follow_weights():
    ds = Dataset.sample_from_datasets([Dataset.from_tensors(np.int64(0)).repeat(),
                                       Dataset.from_tensors(np.int64(1)).repeat(),
                                       Dataset.from_tensors(np.int64(2)).repeat()],
                                      weights=[0.6, 0.3, 0.1], seed=3)
    counts = np.bincount(ints(ds.take(20000)), minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.6, 0.3, 0.1], atol=0.015)
    # weights that do not sum to one are normalised (TensorFlow takes their logs as logits)
    ds = Dataset.sample_from_datasets([Dataset.from_tensors(np.int64(0)).repeat(),
                                       Dataset.from_tensors(np.int64(1)).repeat()],
                                      weights=np.array([3.0, 1.0]), seed=3)
    assert abs(np.mean(ints(ds.take(10000))) - 0.25) < 0.015


def test_sample_from_datasets_weights_forms_as_tensorflow():
    assert ints(Dataset.sample_from_datasets([a(), b()], weights=[0.0, 1.0], seed=1)) == [100, 101, 102]
    assert int(Dataset.sample_from_datasets([a(), b()], weights=[0.0, 1.0]).cardinality()) == 3
    single = a()
    assert Dataset.sample_from_datasets([single], seed=1) is single
    weights = Dataset.from_tensor_slices(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], np.float32))
    ds = Dataset.sample_from_datasets([a(), b()], weights=weights, seed=1)
    assert ints(ds) == [0, 100, 1]                                       # TensorFlow's
    assert int(ds.cardinality()) == -2
    ds = rt.data.experimental.sample_from_datasets([a(), b()], weights=rt.constant([0.5, 0.5]), seed=2)
    assert sorted(ints(ds)) == [0, 1, 2, 3, 4, 100, 101, 102]


def test_sample_from_datasets_errors_as_tensorflow():
    with pytest.raises(ValueError, match="should not be empty"):
        Dataset.sample_from_datasets([])
    with pytest.raises(ValueError, match="`len\\(weights\\)=1` vs. `len\\(datasets\\)=2`"):
        Dataset.sample_from_datasets([a(), b()], weights=[1.0])
    with pytest.raises(TypeError, match="must be either `rt.float32` or `rt.float64` but is int32"):
        Dataset.sample_from_datasets([a(), b()], weights=[1, 2])
    with pytest.raises(TypeError, match="compatible element specs"):
        Dataset.sample_from_datasets([a(), Dataset.range(3).map(lambda x: rt.cast(x, rt.int32))])
    with pytest.raises(TypeError, match="stop_on_empty_dataset"):
        Dataset.sample_from_datasets([a(), b()], stop_on_empty=True)


def classes(ds):
    return [int(c) for c, _ in ds.as_numpy_iterator()]


def skewed():
    return Dataset.from_tensor_slices(np.array([0] * 80 + [1] * 20, np.int64))


def test_rejection_resample_with_initial_dist_reaches_target():
    ds = skewed().repeat().rejection_resample(lambda x: x, target_dist=[0.5, 0.5],
                                              initial_dist=[0.8, 0.2], seed=1)
    # TensorFlow 2.21: spec (int64 class, int64 element), cardinality -1; 2000 draws give
    # [0.499 0.501]
    assert ds.element_spec == (rt.TensorSpec([], rt.int64), rt.TensorSpec([], rt.int64))
    assert int(ds.cardinality()) == rt.data.INFINITE_CARDINALITY
    pairs = list(ds.take(4000).as_numpy_iterator())
    assert all(int(c) == int(x) for c, x in pairs)
    np.testing.assert_allclose(np.bincount([int(c) for c, _ in pairs]) / 4000, [0.5, 0.5], atol=0.03)


def test_rejection_resample_estimates_the_initial_distribution():
    data = Dataset.from_tensor_slices(np.tile(np.array([0] * 8 + [1] * 2, np.int64), 50)).repeat()
    ds = data.rejection_resample(lambda x: x, target_dist=[0.3, 0.7], seed=5)
    np.testing.assert_allclose(np.bincount(classes(ds.take(4000))) / 4000, [0.3, 0.7], atol=0.04)
    finite = skewed().rejection_resample(lambda x: x, target_dist=[0.5, 0.5], seed=1)
    assert int(finite.cardinality()) == rt.data.UNKNOWN_CARDINALITY
    assert 0 < len(classes(finite)) <= 100


def test_rejection_resample_structure_and_identity_cases():
    pairs = Dataset.from_tensor_slices((np.arange(6), np.array([0, 1, 0, 1, 0, 1])))
    ds = pairs.rejection_resample(lambda x, y: rt.cast(y, rt.int32), target_dist=[0.5, 0.5],
                                  initial_dist=[0.5, 0.5], seed=1)
    # TensorFlow 2.21's spec; target == initial keeps every element in order
    assert ds.element_spec == (rt.TensorSpec([], rt.int32),
                               (rt.TensorSpec([], rt.int64), rt.TensorSpec([], rt.int64)))
    assert [(int(c), (int(x), int(y))) for c, (x, y) in ds.as_numpy_iterator()] == \
        [(y, (x, y)) for x, y in zip(range(6), [0, 1, 0, 1, 0, 1])]
    assert int(ds.cardinality()) == 6
    uniform = Dataset.range(4).apply(rt.data.experimental.rejection_resample(
        lambda x: x, target_dist=[0.25] * 4, initial_dist=[0.25] * 4, seed=1))
    assert [(int(c), int(x)) for c, x in uniform.as_numpy_iterator()] == [(i, i) for i in range(4)]


def test_rejection_resample_errors():
    with pytest.raises(TypeError, match="integer scalar"):
        Dataset.range(4).rejection_resample(lambda x: rt.cast(x, rt.float32), target_dist=[0.5, 0.5])
    with pytest.raises(rt.errors.InvalidArgumentError, match="class 2"):
        classes(Dataset.range(4).rejection_resample(lambda x: x, target_dist=[0.5, 0.5],
                                                    initial_dist=[0.5, 0.5]))


def test_choose_from_datasets_built_in_a_compiled_function_from_its_tensors():
    @rt.function
    def total(n):
        ds = Dataset.choose_from_datasets([Dataset.range(n), Dataset.range(100, 100 + n)],
                                          Dataset.range(2).repeat(n))
        s = rt.constant(0, rt.int64)
        for v in ds:
            s += v
        return s

    for n in (3, 4):
        assert int(total(rt.constant(n, rt.int64))) == sum(range(n)) + sum(range(100, 100 + n))
    assert total.experimental_get_tracing_count() == 1


def test_rejection_resample_filter_only_case_as_tensorflow():
    # target [1, 0] from [0.5, 0.5]: only the filtered pass; TensorFlow 2.21 gives the five
    # class-0 elements and cardinality -2 (also of an infinite input)
    ds = Dataset.range(10).rejection_resample(lambda x: x % 2, [1.0, 0.0], initial_dist=[0.5, 0.5], seed=1)
    assert [int(x) % 2 for _, x in ds.as_numpy_iterator()] == [0] * 5
    assert int(ds.cardinality()) == -2
    assert int(Dataset.range(10).repeat().rejection_resample(
        lambda x: x % 2, [1.0, 0.0], initial_dist=[0.5, 0.5], seed=1).cardinality()) == -2


def test_sampling_repeats_across_iterations_unless_rerandomized_as_tensorflow():
    # TensorFlow 2.21: the same order at each iteration, seeded or not, unless
    # rerandomize_each_iteration=True; the global seed makes two datasets draw alike
    for kw, same in [({"seed": 1}, True), ({}, True), ({"rerandomize_each_iteration": False}, True),
                     ({"seed": 1, "rerandomize_each_iteration": True}, False),
                     ({"rerandomize_each_iteration": True}, False)]:
        ds = Dataset.sample_from_datasets([Dataset.range(20), Dataset.range(100, 120)], **kw)
        assert (ints(ds) == ints(ds)) is same, kw
    try:
        rt.random.set_seed(5)
        first = ints(Dataset.sample_from_datasets([Dataset.range(20), Dataset.range(100, 120)]))
        rt.random.set_seed(5)
        second = ints(Dataset.sample_from_datasets([Dataset.range(20), Dataset.range(100, 120)]))
    finally:
        rt.random.set_seed(None)
    assert first == second


# Recorded from TensorFlow 2.21 (CPU) with the same definitions:
#   tf.random.set_seed(3); [int(v) for v in tf.data.Dataset.random().take(6)], ...
#   a, b, c = (tf.data.Dataset.range(k, k + 100) for k in (0, 100, 200))
#   [int(v) for v in tf.data.Dataset.sample_from_datasets([a, b], weights=[0.5, 0.5],
#                                                         seed=4).take(20)], ...
def test_dataset_random_gives_tensorflows_numbers():
    rt.random.set_seed(3)
    assert ints(Dataset.random().take(6)) == [3121683424, 843624297, 2470414284, 813836452,
                                              4131427539, 148887149]
    seeded = [2058544851, 32233798, 302027796, 3838645477, 1441186052, 3437574395]
    assert ints(Dataset.random(seed=5).take(6)) == seeded
    again = Dataset.random(seed=5).take(3)
    assert ints(again) == ints(again) == seeded[:3]
    fresh = Dataset.random(seed=5, rerandomize_each_iteration=True).take(3)
    assert ints(fresh) == [3339243300, 931263166, 4234747053]
    assert ints(fresh) == [3899243381, 3505289254, 724058633]
    spec = Dataset.random(seed=1).element_spec
    assert spec.dtype is rt.int64 and spec.shape == []
    assert int(Dataset.random(seed=1).cardinality()) == rt.data.INFINITE_CARDINALITY


def _ranges():
    return [Dataset.range(k, k + 100) for k in (0, 100, 200)]


def test_seeded_sample_from_datasets_gives_tensorflows_order():
    rt.random.set_seed(3)
    x, y, z = _ranges()
    assert ints(Dataset.sample_from_datasets([x, y], weights=[0.5, 0.5], seed=4).take(20)) == [
        0, 100, 101, 102, 1, 103, 2, 3, 4, 5, 6, 104, 7, 8, 9, 105, 10, 106, 11, 107]
    weighted = [0, 200, 201, 100, 101, 202, 102, 1, 2, 103, 3, 203, 104, 4, 105, 204, 106, 205,
                5, 206]
    assert ints(Dataset.sample_from_datasets([x, y, z], weights=[0.2, 0.5, 0.3], seed=4)
                .take(20)) == weighted
    assert ints(Dataset.sample_from_datasets([x, y, z], weights=np.array([0.2, 0.5, 0.3]),
                                             seed=4).take(20)) == weighted
    assert ints(Dataset.sample_from_datasets([x, y, z], seed=4).take(20)) == [
        0, 200, 201, 100, 1, 202, 2, 3, 4, 5, 6, 203, 7, 8, 9, 204, 101, 205, 10, 206]
    by_rows = Dataset.from_tensor_slices(np.array([[0.9, 0.1], [0.1, 0.9]] * 10, np.float32))
    assert ints(Dataset.sample_from_datasets([x, y], weights=by_rows, seed=4)) == [
        0, 100, 1, 101, 2, 102, 3, 103, 4, 104, 5, 105, 6, 106, 7, 107, 8, 108, 9, 109]
    # an input that ends is passed over: its later draws are dropped
    assert ints(Dataset.sample_from_datasets([Dataset.range(3), y], seed=4).take(20)) == [
        0, 100, 101, 102, 1, 103, 2, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114,
        115, 116]
    fresh = Dataset.sample_from_datasets([x, y], seed=4, rerandomize_each_iteration=True).take(6)
    assert ints(fresh) == [0, 1, 100, 2, 101, 3]
    assert ints(fresh) == [0, 1, 100, 2, 3, 101]


def test_sample_from_datasets_takes_its_op_seed_from_the_global_seed_as_tensorflow():
    rt.random.set_seed(0)
    x, y, _ = _ranges()
    assert ints(Dataset.sample_from_datasets([x, y], weights=[0.5, 0.5]).take(20)) == [
        100, 101, 102, 103, 104, 105, 106, 0, 1, 107, 108, 2, 3, 109, 110, 111, 4, 112, 113, 114]
