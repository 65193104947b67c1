"""Datasets read from Dask collections one partition at a time, and fit on them."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

da = pytest.importorskip("dask.array")


def test_rows_of_a_dask_array_in_order_one_partition_at_a_time():
    x = np.arange(40, dtype=np.float32).reshape(20, 2)
    computed = []

    def note(block):
        computed.append(len(block))
        return block

    array = da.from_array(x, chunks=(6, 2)).map_blocks(note, dtype=np.float32)
    ds = rt.data.Dataset.from_dask(array)
    rows = [row.numpy() for row in ds]
    np.testing.assert_array_equal(np.stack(rows), x)
    assert max(computed) <= 6                     # never the whole array at once
    batches = [b.numpy() for b in ds.batch(8)]
    assert [len(b) for b in batches] == [8, 8, 4]
    np.testing.assert_array_equal(np.concatenate(batches), x)


def test_a_dask_dataframe_gives_its_columns_as_a_dict():
    dd = pytest.importorskip("dask.dataframe")      # needs pandas and pyarrow
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": np.arange(10, dtype=np.float32), "b": np.arange(10) * 2})
    ds = rt.data.Dataset.from_dask(dd.from_pandas(frame, npartitions=3))
    first = next(iter(ds))
    assert set(first) == {"a", "b"}
    total_a = sum(float(e["a"]) for e in ds)
    assert total_a == float(frame["a"].sum())


def test_fit_streams_a_dask_array_through_a_model():
    rng = np.random.default_rng(0)
    x = rng.random((256, 3)).astype(np.float32)
    y = (x @ np.float32([[1.0], [-2.0], [0.5]]))
    ds = rt.data.Dataset.zip((rt.data.Dataset.from_dask(da.from_array(x, chunks=(64, 3))),
                              rt.data.Dataset.from_dask(da.from_array(y, chunks=(64, 1)))))
    model = rt.keras.Sequential([rt.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=rt.keras.optimizers.SGD(0.1), loss="mse")
    history = model.fit(ds.batch(32), epochs=5, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
