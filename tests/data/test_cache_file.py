"""Dataset.cache(filename): the file round-trips every element kind, and reading a damaged or
hostile file raises DataLossError without running code or allocating past its size."""

import io
import os
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.data import Dataset


def _values(ds):
    return [rt.nest.map_structure(lambda t: t.numpy(), e) for e in ds]


def test_strings_and_numbers_round_trip_through_the_file(tmp_path):
    path = str(tmp_path / "c")
    words = [b"", b"a\x00", b"\x00\x00tail\x00", "é".encode(), b"plain"]
    source = Dataset.from_tensor_slices(({"w": words, "n": np.arange(5.0)}, np.arange(5)))
    first = _values(source.cache(path))
    assert os.path.exists(path + ".npz")
    again = _values(Dataset.from_tensor_slices(({"w": ["x"] * 5, "n": np.zeros(5)},
                                                np.zeros(5, np.int64))).cache(path))
    assert again == first  # replayed from the file, byte for byte (trailing NULs kept)
    assert [e[0]["w"] for e in again] == words


def test_a_file_holding_pickled_objects_is_refused_without_unpickling(tmp_path):
    path = str(tmp_path / "c")

    class Boom:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "ran"),))

    hostile = np.empty(1, dtype=object)
    hostile[0] = Boom()
    np.savez(path + ".npz", count=np.asarray(1), c0=hostile)
    with pytest.raises(rt.errors.DataLossError, match="cannot be read"):
        list(Dataset.range(1).cache(path))
    assert not os.path.exists(tmp_path / "ran")


def test_a_header_declaring_more_than_the_file_holds_is_refused(tmp_path):
    path = str(tmp_path / "c")
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buf, {"descr": "<f8", "fortran_order": False, "shape": (10**12,)})
    with zipfile.ZipFile(path + ".npz", "w") as z:
        z.writestr("count.npy", _npy(np.asarray(1)))
        z.writestr("c0.npy", buf.getvalue() + b"\x00" * 16)
    with pytest.raises(rt.errors.DataLossError, match="more than its"):
        list(Dataset.range(1).cache(path))


def _npy(array):
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()
