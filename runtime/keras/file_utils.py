"""`keras.utils.get_file`: a download cache with Keras 3's layout, hashes and archives.

A file lands in `<cache_dir>/<cache_subdir>/<fname>`; `cache_dir` defaults to `$KERAS_HOME`
(or `~/.keras`), and one that cannot be written to (or does not exist) is replaced by
`/tmp/.keras`, as in Keras 3. The download goes to a temporary file in that folder, is checked against
`file_hash`, and only then renamed into place, so a half-downloaded file never sits in the
cache. Archives are extracted with members that would land outside the target skipped.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings
import zipfile
from typing import Optional, Sequence, Union

from ..arguments import strict_keywords
from ..layers.progress import Progbar

_CHUNK = 1 << 16


class URLFetchError(Exception):
    """A download that failed (Keras raises a plain `Exception` here; this subclasses it)."""


def keras_home() -> str:
    """`$KERAS_HOME` when set, else `~/.keras`."""
    return os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")


def _hasher(algorithm: str, file_hash: Optional[str] = None):
    if algorithm == "sha256" or (algorithm == "auto" and file_hash is not None
                                 and len(file_hash) == 64):
        return hashlib.sha256()
    if algorithm in ("md5", "auto"):
        return hashlib.md5()
    raise ValueError(f"hash_algorithm must be 'auto', 'sha256' or 'md5', got {algorithm!r}.")


def hash_file(fpath: str, algorithm: str = "sha256", chunk_size: int = 65535) -> str:
    """The hex digest of the file at `fpath` ("sha256", "md5"; "auto" is sha256)."""
    hasher = _hasher("sha256" if algorithm == "auto" else algorithm)
    with open(fpath, "rb") as stream:
        for chunk in iter(lambda: stream.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath: str, file_hash: str, algorithm: str = "auto",
                  chunk_size: int = 65535) -> bool:
    """Whether the file's digest equals `file_hash` ("auto": sha256 for 64 hex digits, else md5)."""
    hasher = _hasher(algorithm, file_hash)
    with open(fpath, "rb") as stream:
        for chunk in iter(lambda: stream.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest() == str(file_hash)


def _inside(base: str, name: str) -> bool:
    """Whether archive member `name` resolves to a path inside `base`."""
    if os.path.isabs(name) or ".." in name.replace("\\", "/").split("/"):
        return False
    target = os.path.realpath(os.path.join(base, name))
    return os.path.commonpath([target, base]) == base


def _safe_members(names_and_members, base: str):
    for name, member, link in names_and_members:
        ok = _inside(base, name)
        if ok and link is not None:
            start = os.path.dirname(name) if member.issym() else ""
            ok = _inside(base, os.path.normpath(os.path.join(start, link)))
        if ok:
            yield member
        else:
            warnings.warn(f"Skipping invalid path during archive extraction: '{name}'.",
                          stacklevel=3)


def _extract_open(archive, path: str) -> None:
    base = os.path.realpath(path)
    if isinstance(archive, zipfile.ZipFile):
        rows = ((info.filename, info, None) for info in archive.infolist())
        archive.extractall(path, members=list(_safe_members(rows, base)))
        return
    rows = ((m.name, m, m.linkname if (m.issym() or m.islnk()) else None) for m in archive)
    members = list(_safe_members(rows, base))
    if sys.version_info >= (3, 12) or hasattr(tarfile, "data_filter"):
        archive.extractall(path, members=members, filter="data")
    else:  # pragma: no cover - Pythons without tarfile filters
        archive.extractall(path, members=members)


def extract_archive(file_path: str, path: str = ".",
                    archive_format: Union[str, Sequence[str], None] = "auto") -> bool:
    """Extracts a tar (plain, gz, bz2, xz) or zip archive into `path`; False if no format
    in `archive_format` ("auto" = ["tar", "zip"]) matches."""
    if archive_format is None:
        return False
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    for kind in formats:
        if kind not in ("tar", "zip"):
            raise ValueError(f"archive_format must be 'auto', 'tar', 'zip' or a list of them, "
                             f"got {kind!r}.")
        is_kind = tarfile.is_tarfile if kind == "tar" else zipfile.is_zipfile
        if not is_kind(file_path):
            continue
        opener = tarfile.open if kind == "tar" else zipfile.ZipFile
        with opener(file_path) as archive:
            try:
                _extract_open(archive, path)
            except (tarfile.TarError, RuntimeError, KeyboardInterrupt):
                shutil.rmtree(path, ignore_errors=True)
                raise
        return True
    return False


def _cache_folder(cache_dir: Optional[str], cache_subdir: str) -> str:
    """`<cache_dir>/<cache_subdir>`, made if missing. As Keras 3, a `cache_dir` that cannot be
    written to (or does not exist) is replaced by `/tmp/.keras`; the default, `keras_home()`,
    is made when missing (Keras makes it when imported)."""
    if cache_dir is None:
        base = os.path.expanduser(keras_home())
        try:
            os.makedirs(base, exist_ok=True)
        except OSError:
            pass  # not writable: the fallback below
    else:
        base = os.path.expanduser(os.fspath(cache_dir))
    if not os.access(base, os.W_OK):
        base = os.path.join("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir(), ".keras")
    folder = os.path.join(base, cache_subdir)
    os.makedirs(folder, exist_ok=True)
    return folder


def _targets(fname, origin: str, folder: str, extracting: bool) -> tuple[str, Optional[str]]:
    """(download path, extraction folder) with Keras 3's names."""
    given = os.fspath(fname) if fname else ""
    if given and os.sep in given:
        raise ValueError("get_file: paths are not accepted as `fname`; give the parent folder as "
                         f"`cache_dir`. Received: fname={given}")
    name = given or os.path.basename(urllib.parse.urlsplit(origin).path)
    if not name:
        raise ValueError(f"get_file: cannot tell the file name from origin={origin!r}; "
                         "give `fname`.")
    if not extracting:
        return os.path.join(folder, name), None
    if given and "." in name:
        stem = name[:name.find(".")]
        return os.path.join(folder, name), os.path.join(folder, f"{stem}_extracted")
    return os.path.join(folder, f"{name}_archive"), os.path.join(folder, name)


def _download(origin: str, target: str) -> str:
    """Streams `origin` into a temporary file beside `target`, then renames it into place."""
    folder = os.path.dirname(target)
    fd, partial = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part",
                                   dir=folder)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(origin) as response:
            length = response.headers.get("Content-Length") if response.headers else None
            bar = Progbar(int(length) if length else None)
            done = 0
            for chunk in iter(lambda: response.read(_CHUNK), b""):
                out.write(chunk)
                done += len(chunk)
                if not length or done < int(length):
                    bar.update(done)
            bar.update(done, finalize=True)
    except urllib.error.HTTPError as exc:
        _discard(partial)
        raise URLFetchError(f"URL fetch failure on {origin}: {exc.code} -- {exc.msg} "
                            f"(cache path: {target})") from exc
    except urllib.error.URLError as exc:
        _discard(partial)
        raise URLFetchError(f"URL fetch failure on {origin}: {exc.errno} -- {exc.reason} "
                            f"(cache path: {target}; when offline, put the file there)") from exc
    except BaseException:
        _discard(partial)
        raise
    return partial


def _discard(path: str) -> None:
    if os.path.exists(path):
        os.remove(path)


@strict_keywords("get_file")
def get_file(fname: Optional[str] = None, origin: Optional[str] = None, untar: bool = False,
             md5_hash: Optional[str] = None, file_hash: Optional[str] = None,
             cache_subdir: str = "datasets", hash_algorithm: str = "auto",
             extract: bool = False, archive_format: Union[str, Sequence[str], None] = "auto",
             cache_dir: Optional[str] = None, force_download: bool = False) -> str:
    """Downloads `origin` into the cache unless a copy (matching `file_hash`) is there, and
    returns its path; with `extract=True` (or `untar=True`) the extracted folder's path."""
    if origin is None:
        raise ValueError('get_file: give the "origin" argument (the URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    _hasher(hash_algorithm, file_hash)  # refuses an unknown algorithm before any download
    extracting = bool(extract or untar)
    folder = _cache_folder(cache_dir, cache_subdir)
    target, extraction_dir = _targets(fname, origin, folder, extracting)
    fresh = force_download or not os.path.exists(target)
    if not fresh and file_hash is not None and not validate_file(target, file_hash,
                                                                 hash_algorithm):
        print(f"A local file was found, but it seems to be incomplete or outdated because the "
              f"{hash_algorithm} file hash does not match the original value of {file_hash} so "
              "we will re-download the data.")
        fresh = True
    if fresh:
        print(f"Downloading data from {origin}")
        partial = _download(origin, target)
        if file_hash is not None and not validate_file(partial, file_hash, hash_algorithm):
            _discard(partial)
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} file "
                             f"hash does not match the provided value of {file_hash} "
                             f"(origin: {origin}).")
        os.replace(partial, target)
    if extraction_dir is None:
        return target
    if fresh or not os.path.isdir(extraction_dir):
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            warnings.warn("Could not extract archive.", stacklevel=2)
    return extraction_dir


__all__ = ["get_file", "hash_file", "validate_file", "extract_archive", "URLFetchError"]
