"""Memory limits of loading: a small hostile file cannot make the loader allocate much more
than its own size. Every declared size (a zip member's uncompressed size, an .npy header's shape
times item size, the graph file's variable shapes) is checked before anything is decompressed
or allocated; tracemalloc's peak is the oracle.
"""

import io
import json
import os
import struct
import tracemalloc
import zipfile

import numpy as np
import numpy.lib.format as npy_format
import pytest

import runtime as rt
from runtime.saved_model import files

PEAK_LIMIT = 64 * 2 ** 20  # far below what the hostile files below declare (>= 400 MB)


def _saved():
    v = rt.Variable(np.ones(3, np.float32), name="v")

    @rt.function(input_signature=[rt.TensorSpec([3])])
    def f(x):
        return x * v
    with zipfile.ZipFile(io.BytesIO(rt.saved_model.dumps(f))) as z:
        return json.loads(z.read(files.GRAPH_FILE)), z.read(files.ARRAYS_FILE)


def _pack(doc, npz, compression=zipfile.ZIP_STORED):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression, compresslevel=9 if compression else None) as z:
        z.writestr(files.GRAPH_FILE, json.dumps(doc))
        z.writestr(files.ARRAYS_FILE, npz)
    return buffer.getvalue()


def _lying_zip(name, payload, declared):
    """A one-member stored zip whose headers declare `declared` uncompressed bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        z.writestr(name, payload)
    data = bytearray(buffer.getvalue())
    assert data[:4] == b"PK\x03\x04"
    struct.pack_into("<I", data, 22, declared)  # local header: uncompressed size
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, declared)  # central directory: the same
    return bytes(data)


def _npy_header(shape, descr="<f4"):
    header = io.BytesIO()
    npy_format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False,
                                               "shape": shape})
    return header.getvalue()


def _peak_of_refused_load(load, arg):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            load(arg)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, str(info.value)


def test_a_compressed_archive_cannot_expand_past_the_limit():
    doc, _ = _saved()
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as z:
        z.writestr("v0.npy", b"\0" * 400_000_000)  # 400 MB of zeros, deflated below to ~0.4 MB
    data = _pack(doc, inner.getvalue(), zipfile.ZIP_DEFLATED)
    assert len(data) < 500_000
    peak, message = _peak_of_refused_load(rt.saved_model.loads, data)
    assert peak < PEAK_LIMIT, peak
    assert files.ARRAYS_FILE in message and "limit" in message


def test_an_npy_header_declaring_a_huge_shape_allocates_nothing_of_it():
    doc, _ = _saved()
    n = 500_000_000  # 2 GB of float32, declared by the graph file, the .npy header and the zip
    doc["variables"][0]["shape"] = [n]
    header = _npy_header((n,))
    npz = _lying_zip("v0.npy", header + b"\0" * 64, len(header) + 4 * n)
    peak, message = _peak_of_refused_load(rt.saved_model.loads, _pack(doc, npz))
    assert peak < PEAK_LIMIT, peak
    assert files.ARRAYS_FILE in message and "limit" in message and str(4 * n) in message


def test_a_header_that_disagrees_with_the_graph_file_is_refused_before_reading():
    doc, _ = _saved()
    n = 300_000_000
    header = _npy_header((n,), "<f8")
    npz = _lying_zip("v0.npy", header + b"\0" * 64, len(header) + 8 * n)
    peak, message = _peak_of_refused_load(rt.saved_model.loads, _pack(doc, npz))
    assert peak < PEAK_LIMIT, peak
    assert "float64" in message and "float32 [3]" in message


def test_a_saved_directory_with_a_compressed_bomb_is_refused(tmp_path):
    doc, _ = _saved()
    n = 100_000_000  # 400 MB of float32 zeros, as the graph file declares
    doc["variables"][0]["shape"] = [n]
    path = tmp_path / "saved"
    path.mkdir()
    (path / files.GRAPH_FILE).write_text(json.dumps(doc))
    np.savez_compressed(path / files.ARRAYS_FILE, v0=np.zeros(n, np.float32))
    assert os.path.getsize(path / files.ARRAYS_FILE) < 1_000_000
    peak, message = _peak_of_refused_load(rt.saved_model.load, str(path))
    assert peak < PEAK_LIMIT, peak
    assert str(path / files.ARRAYS_FILE) in message and "limit" in message


def test_honest_files_still_load(tmp_path):
    values = np.arange(6 * 2 ** 20, dtype=np.float32)  # 24 MB: more than the fixed allowance
    v = rt.Variable(values)

    @rt.function(input_signature=[rt.TensorSpec(values.shape)])
    def f(x):
        return x + v
    loaded = rt.saved_model.loads(rt.saved_model.dumps(f))
    np.testing.assert_array_equal(loaded(np.ones_like(values)).numpy(), values + 1)
    rt.saved_model.save(f, str(tmp_path / "s"))
    loaded = rt.saved_model.load(str(tmp_path / "s"))
    np.testing.assert_array_equal(loaded.variables[0].numpy(), values)
