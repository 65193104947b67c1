"""rt.io.gfile against Python's own file functions and TensorFlow 2.21's gfile (the errors and
listings noted below are what TensorFlow gave for the same calls)."""

import os

import pytest

import runtime as rt
from runtime.errors import AlreadyExistsError, NotFoundError

gfile = rt.io.gfile


def test_gfile_reads_and_writes_as_tensorflow(tmp_path):
    path = str(tmp_path / "a.txt")
    with gfile.GFile(path, "w") as f:
        f.write("one\ntwo\n")
    with gfile.GFile(path) as f:
        assert f.read() == "one\ntwo\n" and f.size() == 8
    with gfile.GFile(path, "rb") as f:
        assert f.readline() == b"one\n"
    assert list(gfile.GFile(path)) == ["one\n", "two\n"]
    with gfile.GFile(rt.constant(path), "ab") as f:   # a string tensor is a path too
        f.write(b"three")
    assert open(path, "rb").read() == b"one\ntwo\nthree"


def test_listing_walking_and_stat(tmp_path):
    os.makedirs(tmp_path / "sub" / "deep")
    (tmp_path / "sub" / "b.txt").write_text("")
    (tmp_path / "a.txt").write_text("12345678")
    # TensorFlow listed ['sub', 'a.txt'] (an unspecified order); these are sorted
    assert gfile.listdir(str(tmp_path)) == ["a.txt", "sub"]
    assert gfile.listdir(str(tmp_path / "sub")) == ["b.txt", "deep"]
    walked = [(os.path.relpath(r, tmp_path), d, f) for r, d, f in gfile.walk(str(tmp_path))]
    assert walked == [(".", ["sub"], ["a.txt"]), ("sub", ["deep"], ["b.txt"]),
                      (os.path.join("sub", "deep"), [], [])]
    assert gfile.glob(str(tmp_path / "*" / "*.txt")) == [str(tmp_path / "sub" / "b.txt")]
    assert gfile.stat(str(tmp_path / "a.txt")).length == 8
    assert gfile.stat(str(tmp_path)).is_directory
    assert gfile.exists(str(tmp_path / "a.txt")) and gfile.isdir(str(tmp_path / "sub"))
    assert gfile.join("a", "b") == os.path.join("a", "b")


def test_changes_and_tensorflows_errors(tmp_path):
    src, dst = str(tmp_path / "a.txt"), str(tmp_path / "b.txt")
    open(src, "w").write("x")
    gfile.copy(src, dst)
    assert open(dst).read() == "x"
    with pytest.raises(AlreadyExistsError):
        gfile.copy(src, dst)
    with pytest.raises(FileExistsError):     # AlreadyExistsError is a FileExistsError too
        gfile.rename(src, dst)
    gfile.rename(src, dst, overwrite=True)
    assert not os.path.exists(src)
    gfile.makedirs(str(tmp_path / "m" / "n"))
    gfile.mkdir(str(tmp_path / "m"))         # an existing directory: no error, as TensorFlow
    gfile.rmtree(str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m")
    missing = str(tmp_path / "missing")
    for call in (lambda: gfile.GFile(missing).read(), lambda: gfile.remove(missing),
                 lambda: gfile.stat(missing)):
        with pytest.raises(NotFoundError, match="No such file or directory"):
            call()
    with pytest.raises(NotFoundError, match="Could not find directory"):
        gfile.listdir(missing)
    with pytest.raises(TypeError, match="did you mean"):
        gfile.copy(dst, src, overwrit=True)
