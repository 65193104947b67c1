"""`rt.io.gfile`: TensorFlow's file-system helpers over the local file system (plain Python:
paths are `str`, `bytes` or path-like; no ops). Missing files raise `rt.errors.NotFoundError`
(a `FileNotFoundError`), a copy or rename onto an existing file without `overwrite`
`rt.errors.AlreadyExistsError` (a `FileExistsError`), as TensorFlow's gfile does.

Differences from TensorFlow: only local paths (no `gs://`, `s3://`, `hdfs://`); `glob` and
`listdir` return their names sorted (TensorFlow's order is unspecified).
"""

from __future__ import annotations

import os
import types
from typing import Any, Iterator, NamedTuple

from ..arguments import add_keyword_hints_to_class, with_keyword_hints
from ..errors import AlreadyExistsError, NotFoundError
from ..exports import export


def _path(path: Any) -> str:
    return os.fsdecode(path.numpy() if hasattr(path, "numpy") else path)


def _missing(path: str) -> NotFoundError:
    return NotFoundError(f"{path}; No such file or directory")


class GFile:
    """A file, as TensorFlow's `tf.io.gfile.GFile(name, mode="r")`: `read(n=-1)`, `readline`,
    `readlines`, iteration over lines, `write`, `seek`, `tell`, `size()`, `flush`, `close`,
    and `with`. Text modes read and write `str`, "b" modes `bytes`."""

    def __init__(self, name: Any, mode: str = "r") -> None:
        self.name, self.mode = _path(name), mode
        if mode.replace("b", "").replace("+", "") not in ("r", "w", "a"):
            raise ValueError(f"`mode` must be 'r', 'w' or 'a' (with 'b' and '+'), got {mode!r}.")
        try:
            self._file = open(self.name, mode)
        except FileNotFoundError:
            raise _missing(self.name) from None

    def read(self, n: int = -1):
        """The next `n` characters (bytes in "b" modes), or the rest."""
        return self._file.read(n)

    def readline(self):
        """The next line, with its newline."""
        return self._file.readline()

    def readlines(self) -> list:
        """The remaining lines."""
        return self._file.readlines()

    def write(self, file_content) -> None:
        """Writes `file_content` (str in text modes, bytes in "b" modes)."""
        self._file.write(file_content)

    def seek(self, offset: int = 0, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()

    def size(self) -> int:
        """The file's length in bytes."""
        self._file.flush()
        return os.path.getsize(self.name)

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __iter__(self) -> Iterator:
        return iter(self._file)

    def __next__(self):
        return next(self._file)

    def __enter__(self) -> "GFile":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class FileStatistics(NamedTuple):
    """What `stat` tells of a path."""

    length: int
    mtime_nsec: int
    is_directory: bool


def exists(path) -> bool:
    """True when a file or directory is at `path`."""
    return os.path.exists(_path(path))


def isdir(path) -> bool:
    """True when `path` is a directory."""
    return os.path.isdir(_path(path))


def glob(pattern) -> list[str]:
    """The paths matching `pattern` (or any of a list of patterns), sorted."""
    patterns = pattern if isinstance(pattern, (list, tuple)) else [pattern]
    import glob as _glob  # loaded on first use: it compiles regular expressions at import
    return sorted({p for one in patterns for p in _glob.glob(_path(one))})


def listdir(path) -> list[str]:
    """The names of the entries of the directory `path`, sorted."""
    path = _path(path)
    if not os.path.isdir(path):
        raise NotFoundError(f"Could not find directory {path}")
    return sorted(os.listdir(path))


def makedirs(path) -> None:
    """Makes the directory `path` and its missing parents (no error when it exists)."""
    os.makedirs(_path(path), exist_ok=True)


def mkdir(path) -> None:
    """Makes the directory `path` (its parent must exist; no error when it exists)."""
    path = _path(path)
    try:
        os.mkdir(path)
    except FileNotFoundError:
        raise _missing(os.path.dirname(path)) from None
    except FileExistsError:
        if not os.path.isdir(path):
            raise AlreadyExistsError(f"{path}; File exists") from None


def remove(path) -> None:
    """Deletes the file `path`."""
    path = _path(path)
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _missing(path) from None


def rmtree(path) -> None:
    """Deletes the directory `path` and everything under it."""
    path = _path(path)
    if not os.path.isdir(path):
        raise _missing(path)
    import shutil  # loaded on first use: it imports bz2 and lzma, which `import runtime` skips
    shutil.rmtree(path)


def _check_target(src: str, dst: str, overwrite: bool) -> None:
    if not os.path.exists(src):
        raise _missing(src)
    if os.path.exists(dst) and not overwrite:
        raise AlreadyExistsError(f"{dst}; File exists (pass overwrite=True to replace it)")


def copy(src, dst, overwrite: bool = False) -> None:
    """Copies the file `src` to `dst` (replacing it only with `overwrite`)."""
    src, dst = _path(src), _path(dst)
    _check_target(src, dst, overwrite)
    import shutil  # loaded on first use (see rmtree)
    shutil.copyfile(src, dst)


def rename(src, dst, overwrite: bool = False) -> None:
    """Moves `src` to `dst` (replacing it only with `overwrite`)."""
    src, dst = _path(src), _path(dst)
    _check_target(src, dst, overwrite)
    os.replace(src, dst)


def stat(path) -> FileStatistics:
    """The length, modification time (ns) and kind of `path`."""
    path = _path(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise _missing(path) from None
    return FileStatistics(info.st_size, info.st_mtime_ns, os.path.isdir(path))


def walk(top, topdown: bool = True, onerror=None):
    """(directory, subdirectory names, file names) of `top` and every directory under it, as
    `os.walk` (names sorted)."""
    for root, dirs, files in os.walk(_path(top), topdown=topdown, onerror=onerror):
        dirs.sort()
        yield root, list(dirs), sorted(files)


def join(path, *paths) -> str:
    """`path` and `paths` joined with the separator."""
    return os.path.join(_path(path), *(_path(p) for p in paths))


def get_registered_schemes() -> list[str]:
    """The URL schemes paths may start with: only "" (plain local paths) here."""
    return [""]


def _public(**members) -> types.SimpleNamespace:
    """The namespace of `members`, each rejecting a misspelt keyword with a suggestion."""
    for name, member in members.items():
        if isinstance(member, type):
            add_keyword_hints_to_class(member)
        else:
            members[name] = with_keyword_hints(member, f"gfile.{name}")
    return types.SimpleNamespace(**members)


gfile = export("io.gfile")(_public(
    GFile=GFile, copy=copy, exists=exists, get_registered_schemes=get_registered_schemes,
    glob=glob, isdir=isdir, join=join, listdir=listdir,
    makedirs=makedirs, mkdir=mkdir, remove=remove, rename=rename, rmtree=rmtree, stat=stat,
    walk=walk))
