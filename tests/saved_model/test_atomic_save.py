"""Saving over an existing save is atomic: a failed save leaves the previous one loadable and
byte-for-byte unchanged, and a concurrent load sees either the old or the new complete save.
The file system (bytes of the files, directory listings) and NumPy values are the oracles.
"""

import os
import threading

import numpy as np
import pytest

import runtime as rt
from runtime.saved_model import files


def _function(values):
    v = rt.Variable(np.asarray(values, np.float32), name="v")

    @rt.function(input_signature=[rt.TensorSpec([len(values)])])
    def f(x):
        return x * v

    return f


def _snapshot(path):
    return {name: open(os.path.join(path, name), "rb").read() for name in sorted(os.listdir(path))}


def _check_loads(path, values):
    loaded = rt.saved_model.load(path)
    x = np.arange(len(values), dtype=np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), x * np.asarray(values, np.float32))


def test_a_save_failing_while_it_writes_keeps_the_previous_save(tmp_path, monkeypatch):
    path = str(tmp_path / "model")
    rt.saved_model.save(_function([1.0, 2.0, 3.0]), path)
    before = _snapshot(path)

    def broken(arrays):
        raise OSError("disk full (simulated)")
    monkeypatch.setattr(files, "arrays_bytes", broken)
    with pytest.raises(OSError, match="disk full"):
        rt.saved_model.save(_function([5.0, 6.0]), path)
    monkeypatch.undo()
    assert _snapshot(path) == before
    _check_loads(path, [1.0, 2.0, 3.0])
    assert sorted(os.listdir(tmp_path)) == ["model"]  # no staging directory left behind


def test_a_save_failing_at_the_last_file_keeps_the_previous_save(tmp_path, monkeypatch):
    path = str(tmp_path / "model")
    rt.saved_model.save(_function([1.0, 2.0, 3.0]), path)
    before = _snapshot(path)
    real_write = files._write_files

    def write_then_fail(directory, contents):
        real_write(directory, list(contents)[:1])
        raise OSError("interrupted (simulated)")
    monkeypatch.setattr(files, "_write_files", write_then_fail)
    with pytest.raises(OSError, match="interrupted"):
        rt.saved_model.save(_function([5.0, 6.0]), path)
    monkeypatch.undo()
    assert _snapshot(path) == before
    _check_loads(path, [1.0, 2.0, 3.0])
    assert sorted(os.listdir(tmp_path)) == ["model"]


def test_an_unsavable_signature_keeps_the_previous_save(tmp_path):
    path = str(tmp_path / "model")
    rt.saved_model.save(_function([1.0, 2.0, 3.0]), path)
    before = _snapshot(path)
    with pytest.raises(ValueError):
        rt.saved_model.save(rt.function(lambda x: x), path)  # no input_signature
    with pytest.raises(ValueError):
        rt.saved_model.save(_function([1.0]), path, signatures={"not an identifier": _function([1.0])})
    assert _snapshot(path) == before
    _check_loads(path, [1.0, 2.0, 3.0])


def test_saving_over_a_save_replaces_it_and_keeps_other_files(tmp_path):
    path = str(tmp_path / "model")
    rt.saved_model.save(_function([1.0, 2.0, 3.0]), path)
    rt.saved_model.save(_function([4.0, 5.0]), path)
    _check_loads(path, [4.0, 5.0])
    assert sorted(os.listdir(tmp_path)) == ["model"]
    with open(os.path.join(path, "NOTES.txt"), "w") as f:
        f.write("mine")
    rt.saved_model.save(_function([7.0]), path)
    _check_loads(path, [7.0])
    assert open(os.path.join(path, "NOTES.txt")).read() == "mine"


@pytest.mark.parametrize("exchange", [True, False], ids=["exchange", "rename-aside"])
def test_a_concurrent_load_never_sees_a_half_written_save(tmp_path, monkeypatch, exchange):
    if not exchange:  # the portable way: the old save renamed aside, then the new one in place
        monkeypatch.setattr(files, "_exchange", lambda a, b: False)
    path = str(tmp_path / "model")
    # the two saves differ in shapes, so mixing one's graph file with the other's arrays fails
    saves = {3: _function([1.0, 2.0, 3.0]), 5: _function([9.0, 8.0, 7.0, 6.0, 5.0])}
    expected = {3: [1.0, 2.0, 3.0], 5: [9.0, 8.0, 7.0, 6.0, 5.0]}
    rt.saved_model.save(saves[3], path)
    stop = threading.Event()
    problems, seen = [], {3: 0, 5: 0}

    def loader():
        while not stop.is_set():
            try:
                loaded = rt.saved_model.load(path)
                values = loaded.variables[0].numpy()
                np.testing.assert_array_equal(values, np.float32(expected[len(values)]))
                seen[len(values)] += 1
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                problems.append(f"{type(exc).__name__}: {exc}")

    thread = threading.Thread(target=loader)
    thread.start()
    try:
        for i in range(60):
            rt.saved_model.save(saves[5 if i % 2 == 0 else 3], path)
    finally:
        stop.set()
        thread.join()
    assert not problems, problems[:3]
    assert sum(seen.values()) > 0
    assert sorted(os.listdir(tmp_path)) == ["model"]
