"""keras.utils.get_file against Keras 3's documented behaviour, offline through file:// URLs."""

import hashlib
import io
import os
import tarfile
import zipfile

import pytest

import runtime as rt

get_file = rt.keras.utils.get_file


def _url(path):
    return "file://" + os.path.abspath(path)


def _dir(path):
    """A cache_dir that exists (Keras 3 caches in /tmp/.keras instead of a missing one)."""
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "src" / "data.txt"
    path.parent.mkdir()
    path.write_bytes(b"hello keras\n" * 1000)
    return path


def test_cached_under_keras_home_datasets(source, tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "home"))
    got = get_file(origin=_url(source))
    assert got == os.path.join(str(tmp_path / "home"), "datasets", "data.txt")
    assert open(got, "rb").read() == source.read_bytes()
    source.write_bytes(b"changed")  # a cached copy is not fetched again
    assert open(get_file(origin=_url(source)), "rb").read().startswith(b"hello")
    assert open(get_file(origin=_url(source), force_download=True), "rb").read() == b"changed"


def test_cache_dir_subdir_and_fname(source, tmp_path):
    got = get_file("renamed.txt", _url(source), cache_dir=_dir(tmp_path / "c"), cache_subdir="sub")
    assert got == str(tmp_path / "c" / "sub" / "renamed.txt")
    with pytest.raises(ValueError, match="fname"):
        get_file(os.path.join("a", "b.txt"), _url(source), cache_dir=_dir(tmp_path / "c"))
    with pytest.raises(ValueError, match="origin"):
        get_file("x.txt")


@pytest.mark.parametrize("algo", ["sha256", "md5"])
def test_file_hash_checked_with_auto_algorithm(source, tmp_path, algo):
    good = getattr(hashlib, algo)(source.read_bytes()).hexdigest()
    got = get_file(origin=_url(source), file_hash=good, cache_dir=_dir(tmp_path / "c"))
    assert os.path.exists(got)
    assert rt.keras.utils.get_file.__module__.endswith("file_utils")
    bad = "0" * len(good)
    with pytest.raises(ValueError, match="hash does not match"):
        get_file(origin=_url(source), file_hash=bad, cache_dir=_dir(tmp_path / "d"))
    # a failed check leaves nothing in the cache folder
    assert os.listdir(tmp_path / "d" / "datasets") == []


def test_md5_hash_keyword_and_redownload_of_stale_copy(source, tmp_path, capsys):
    folder = tmp_path / "c" / "datasets"
    folder.mkdir(parents=True)
    (folder / "data.txt").write_bytes(b"stale")
    md5 = hashlib.md5(source.read_bytes()).hexdigest()
    got = get_file(origin=_url(source), md5_hash=md5, cache_dir=_dir(tmp_path / "c"))
    assert open(got, "rb").read() == source.read_bytes()
    assert "re-download" in capsys.readouterr().out


def test_offline_error_names_url_and_cache_path(tmp_path):
    missing = tmp_path / "nowhere.bin"
    with pytest.raises(Exception, match="URL fetch failure") as info:
        get_file(origin=_url(missing), cache_dir=_dir(tmp_path / "c"))
    assert _url(missing) in str(info.value)
    assert str(tmp_path / "c" / "datasets" / "nowhere.bin") in str(info.value)
    assert os.listdir(tmp_path / "c" / "datasets") == []  # no partial file left


def _tar_gz(path, members):
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_extract_tar_gz_returns_extracted_folder(tmp_path):
    archive = tmp_path / "pack.tar.gz"
    _tar_gz(archive, {"pack/a.txt": b"A", "pack/b/c.txt": b"C"})
    got = get_file("pack.tar.gz", _url(archive), extract=True, cache_dir=_dir(tmp_path / "c"))
    # Keras 3: fname with a dot -> <stem>_extracted beside the archive
    assert got == str(tmp_path / "c" / "datasets" / "pack_extracted")
    assert open(os.path.join(got, "pack", "b", "c.txt"), "rb").read() == b"C"
    got2 = get_file("flowers", _url(archive), untar=True, cache_dir=_dir(tmp_path / "c"))
    assert got2 == str(tmp_path / "c" / "datasets" / "flowers")
    assert os.path.exists(str(tmp_path / "c" / "datasets" / "flowers_archive"))
    assert open(os.path.join(got2, "pack", "a.txt"), "rb").read() == b"A"


def test_extract_zip_and_refuse_path_traversal(tmp_path):
    archive = tmp_path / "z.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ok/x.txt", b"X")
        zf.writestr("../escape.txt", b"bad")
        zf.writestr("/abs.txt", b"bad")
    with pytest.warns(UserWarning, match="Skipping invalid path"):
        got = get_file(origin=_url(archive), extract=True, cache_dir=_dir(tmp_path / "c"))
    assert got == str(tmp_path / "c" / "datasets" / "z.zip")
    assert open(os.path.join(got, "ok", "x.txt"), "rb").read() == b"X"
    assert not (tmp_path / "c" / "datasets" / "escape.txt").exists()
    assert not os.path.exists(os.path.join(got, "abs.txt"))


def test_tar_member_escaping_is_skipped(tmp_path):
    archive = tmp_path / "t.tar.gz"
    _tar_gz(archive, {"../../evil.txt": b"bad", "fine.txt": b"ok"})
    with pytest.warns(UserWarning, match="evil"):
        got = get_file("t.tar.gz", _url(archive), extract=True, cache_dir=_dir(tmp_path / "c"))
    assert open(os.path.join(got, "fine.txt"), "rb").read() == b"ok"
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "c" / "evil.txt").exists()


def test_unknown_keyword_is_refused(source, tmp_path):
    with pytest.raises(TypeError, match="cache_subdir"):
        get_file(origin=_url(source), cache_subdirs="x")


class _BrokenResponse(io.BytesIO):
    """A response that fails after its first chunk, as a dropped connection does."""

    headers = {"Content-Length": "200000"}

    def read(self, size=-1):
        if self.tell():
            raise ConnectionResetError("connection dropped")
        return super().read(1000)


def test_an_interrupted_download_never_sits_in_the_cache(source, tmp_path, monkeypatch):
    cache = tmp_path / "c"
    cache.mkdir()
    good = get_file(origin=_url(source), cache_dir=str(cache))
    monkeypatch.setattr("urllib.request.urlopen", lambda url: _BrokenResponse(b"x" * 5000))
    with pytest.raises(ConnectionResetError):
        get_file(origin=_url(source), cache_dir=str(cache), force_download=True)
    # the earlier complete copy is still there, and no partial file beside it
    assert os.listdir(cache / "datasets") == ["data.txt"]
    assert open(good, "rb").read() == source.read_bytes()
    with pytest.raises(ConnectionResetError):
        get_file("other.txt", _url(source), cache_dir=str(cache))
    assert os.listdir(cache / "datasets") == ["data.txt"]


def test_a_missing_or_read_only_cache_dir_falls_back_to_tmp_keras(source, tmp_path,
                                                                   monkeypatch):
    # Keras 3: a cache_dir it cannot write to (os.access W_OK fails, as for one that does not
    # exist) is replaced by /tmp/.keras
    fallback = tmp_path / "fallback"
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(fallback))
    monkeypatch.setattr("os.path.isdir", lambda p, _isdir=os.path.isdir:
                        False if p == "/tmp" else _isdir(p))
    got = get_file("x.txt", _url(source), cache_dir=str(tmp_path / "missing"))
    assert got == os.path.join(str(fallback), ".keras", "datasets", "x.txt")
    assert not (tmp_path / "missing").exists()
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr("os.access", lambda p, mode, _access=os.access:
                        False if os.fspath(p) == str(locked) else _access(p, mode))
    got = get_file("y.txt", _url(source), cache_dir=str(locked))
    assert got == os.path.join(str(fallback), ".keras", "datasets", "y.txt")
    assert open(got, "rb").read() == source.read_bytes()
