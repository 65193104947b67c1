"""Dataset.counter and tf.data.experimental.Counter (TensorFlow 2.21's values: an endless int64
count from start by step; the data guide numbers the lines of a file with it)."""

import numpy as np
import pytest

import runtime as rt


def test_counter_counts_from_start_by_step_forever():
    counter = rt.data.experimental.Counter()
    assert counter.element_spec == rt.TensorSpec([], rt.int64)
    assert counter.cardinality().numpy() == rt.data.INFINITE_CARDINALITY
    assert list(counter.take(3).as_numpy_iterator()) == [0, 1, 2]
    down = rt.data.experimental.Counter(start=2, step=-1, dtype=rt.int32)
    assert down.element_spec.dtype == rt.int32
    assert [int(v) for v in down.take(3)] == [2, 1, 0]
    assert list(rt.data.Dataset.counter(5, step=3).take(2).as_numpy_iterator()) == [5, 8]
    with pytest.raises(TypeError, match="stpe"):
        rt.data.Dataset.counter(stpe=2)


def test_counter_numbers_the_lines_of_a_file(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"line {i}\n" for i in range(25)))
    dataset = rt.data.Dataset.zip((rt.data.experimental.Counter(),
                                   rt.data.TextLineDataset(str(path))))
    batches = list(dataset.shuffle(buffer_size=10, seed=1).batch(10).as_numpy_iterator())
    assert [len(n) for n, _ in batches] == [10, 10, 5]
    ids = np.concatenate([n for n, _ in batches])
    lines = np.concatenate([line for _, line in batches])
    assert sorted(ids.tolist()) == list(range(25))      # every line once, its number beside it
    assert all(line == f"line {i}".encode() for i, line in zip(ids, lines))
