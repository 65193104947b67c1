"""Reading and writing the two files of a saved object, with every size checked before use.

A saved object is a directory holding `saved_model.json` (the graph file) and `variables.npz`
(variable values and constants, read with `np.load(..., allow_pickle=False)`). Its bytes form
(`dumps`/`loads`) is an uncompressed zip archive of the same two files.
"""

from __future__ import annotations

import ctypes
import io
import json
import math
import os
import re
import secrets
import shutil
import sys
import time
import zipfile
import zlib

import numpy as np
import numpy.lib.format as npy_format

from .schema import MAX_ELEMENTS

GRAPH_FILE = "saved_model.json"
ARRAYS_FILE = "variables.npz"
MAX_JSON_BYTES = 2 ** 28
MAX_ARRAY_BYTES = 2 ** 34  # all arrays together
# What a saved object may expand to in memory: at most this many bytes beyond the bytes read,
MIN_BUDGET = 2 ** 24
# plus this many times the bytes read (decompressed members and arrays, as their headers declare).
MAX_EXPANSION = 16
_KEY = re.compile(r"^[a-z][0-9]{1,9}$")
_ALLOWED_KINDS = "biufc"
_READ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error, KeyError,
                NotImplementedError, RuntimeError, UnicodeDecodeError, RecursionError)


# -- writing ------------------------------------------------------------------------------------

def graph_bytes(document: dict) -> bytes:
    return json.dumps(document, sort_keys=True, allow_nan=False, separators=(",", ":")).encode()


def arrays_bytes(arrays: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def write_dir(path, document: dict, arrays: dict) -> None:
    """Writes the two files so that `path` always holds one complete save, the old or the new.

    Both files are written (and synced) into a fresh directory beside `path`, which then takes
    its place: atomically exchanged with an existing save where the system can (Linux
    renameat2), else the old save is renamed aside, the new one renamed into place and the old
    one removed. A failure before that leaves the previous save untouched. A directory that
    holds other files besides a save keeps them: there each file is replaced on its own.
    """
    graph, data = graph_bytes(document), arrays_bytes(arrays)  # may fail: nothing written yet
    target = os.path.realpath(os.fspath(path))
    parent, base = os.path.split(target)
    if os.path.exists(target) and not os.path.isdir(target):
        raise ValueError(f"Cannot save to {path}: it exists and is not a directory.")
    os.makedirs(parent, exist_ok=True)
    staging = _new_sibling(parent, base, "saving")
    try:
        _write_files(staging, ((ARRAYS_FILE, data), (GRAPH_FILE, graph)))
        if not os.path.isdir(target):
            try:
                os.rename(staging, target)
                return
            except OSError:
                if not os.path.isdir(target):  # not created meanwhile by another save
                    raise
        if set(os.listdir(target)) - {GRAPH_FILE, ARRAYS_FILE}:
            for name in (ARRAYS_FILE, GRAPH_FILE):
                os.replace(os.path.join(staging, name), os.path.join(target, name))
            return
        os.chmod(staging, os.stat(target).st_mode & 0o7777)
        if _exchange(staging, target):
            return  # `staging` now holds the old save, removed below
        aside = _new_sibling(parent, base, "old", create=False)
        os.rename(target, aside)
        os.rename(staging, target)
        shutil.rmtree(aside, ignore_errors=True)
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging, ignore_errors=True)


def _new_sibling(parent: str, base: str, what: str, create: bool = True) -> str:
    while True:
        candidate = os.path.join(parent, f".{base}.{what}-{secrets.token_hex(6)}")
        if not create:
            if not os.path.lexists(candidate):
                return candidate
            continue
        try:
            os.mkdir(candidate)
            return candidate
        except FileExistsError:
            continue


def _write_files(directory: str, contents) -> None:
    for name, blob in contents:
        with open(os.path.join(directory, name), "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())


def _exchange(a: str, b: str) -> bool:
    """Atomically swaps the paths `a` and `b` (Linux renameat2 RENAME_EXCHANGE); False if not."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    at_fdcwd, rename_exchange = -100, 2
    return renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0


def write_bytes(document: dict, arrays: dict) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(GRAPH_FILE, graph_bytes(document))
        archive.writestr(ARRAYS_FILE, arrays_bytes(arrays))
    return buffer.getvalue()


# -- reading ------------------------------------------------------------------------------------

class Budget:
    """How many bytes reading a saved object may still allocate, charged before each allocation.

    Every size is charged as declared (a zip member's uncompressed size, an .npy header's shape
    times its item size) before anything is decompressed or allocated, so a small archive cannot
    make the loader allocate much more than it is: at most `MIN_BUDGET` plus `MAX_EXPANSION`
    times the bytes read, and never more than `MAX_ARRAY_BYTES`.
    """

    def __init__(self, source: str, size: int):
        self.source = source
        self.size = size
        self.limit = min(MAX_ARRAY_BYTES, MIN_BUDGET + MAX_EXPANSION * size)
        self.used = 0

    def charge(self, nbytes: int, what: str) -> None:
        if nbytes < 0 or self.used + nbytes > self.limit:
            raise ValueError(
                f"{what} declares {nbytes} bytes, which would take the memory used to read "
                f"{self.source} ({self.size} bytes) past its limit of {self.limit} bytes "
                f"({MIN_BUDGET} + {MAX_EXPANSION} x its size, at most {MAX_ARRAY_BYTES}); "
                f"{self.used} bytes are already used.")
        self.used += nbytes


def read_dir(path):
    """(document, ArrayStore) of a saved directory; ValueError when a file is missing or bad.

    Both files are opened through one handle on the directory, so a save that replaces the
    directory meanwhile (see `write_dir`) cannot mix an old file with a new one; when the
    directory is replaced between opening it and its files, reading starts again.
    """
    for _ in range(20):
        result = _read_dir_once(path)
        if result is not None:
            return result
        time.sleep(0.001)
    raise ValueError(f"{path} was replaced while it was being read, again and again.")


def _read_dir_once(path):
    """(document, ArrayStore), or None when `path` was being replaced by a save."""
    target = os.path.realpath(os.fspath(path))
    if not _DIR_FD:
        return _read_files(path, os.path.join(path, GRAPH_FILE), os.path.join(path, ARRAYS_FILE))
    try:
        dir_fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        if _being_replaced(target):
            return None
        raise ValueError(f"{path} is not a saved object: {GRAPH_FILE} is missing.") from None
    except OSError as exc:
        raise ValueError(f"{path} is not a saved object: {exc}") from None
    try:
        opened = []
        try:
            for name in (GRAPH_FILE, ARRAYS_FILE):
                try:
                    opened.append(os.open(name, os.O_RDONLY, dir_fd=dir_fd))
                except OSError:
                    if _replaced(target, dir_fd):
                        return None
                    raise ValueError(f"{path} is not a saved object: {name} is missing.") from None
            graph = os.fdopen(opened.pop(0), "rb")
            arrays = os.fdopen(opened.pop(0), "rb")
        finally:
            for fd in opened:
                os.close(fd)
    finally:
        os.close(dir_fd)
    try:
        with graph:
            return _read_files(path, graph, arrays)
    except BaseException:
        arrays.close()
        raise


def _read_files(path, graph, arrays):
    graph_path = os.path.join(path, GRAPH_FILE)
    arrays_path = os.path.join(path, ARRAYS_FILE)
    for p, f in ((graph_path, graph), (arrays_path, arrays)):
        if isinstance(f, str) and not os.path.isfile(f):
            raise ValueError(f"{path} is not a saved object: {os.path.basename(p)} is missing.")
    graph_size = _size(graph)
    if graph_size > MAX_JSON_BYTES:
        raise ValueError(f"{graph_path} is larger than {MAX_JSON_BYTES} bytes.")
    budget = Budget(path, graph_size + _size(arrays))
    budget.charge(graph_size, graph_path)
    if isinstance(graph, str):
        with open(graph, "rb") as f:
            data = f.read(graph_size)
    else:
        data = graph.read(graph_size)
    return parse_graph(data), ArrayStore(arrays, budget, arrays_path)


def _size(f) -> int:
    return os.path.getsize(f) if isinstance(f, str) else os.fstat(f.fileno()).st_size


def _replaced(target: str, dir_fd: int) -> bool:
    """Whether `target` no longer names the directory open as `dir_fd` (a save replaced it)."""
    try:
        now = os.stat(target)
    except OSError:
        return _being_replaced(target)
    then = os.fstat(dir_fd)
    return (now.st_ino, now.st_dev) != (then.st_ino, then.st_dev)


def _being_replaced(target: str) -> bool:
    """Whether a save is renaming a directory into place at `target` (see `write_dir`)."""
    parent, base = os.path.split(target)
    try:
        return any(n.startswith(f".{base}.old-") for n in os.listdir(parent or "."))
    except OSError:
        return False


_DIR_FD = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")


def read_bytes(data: bytes):
    """(document, ArrayStore) of the bytes form."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"loads() needs bytes, got {type(data).__name__}.")
    budget = Budget("the saved bytes", len(data))
    try:
        archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
        infos = {info.filename: info for info in archive.infolist()}
        if set(infos) != {GRAPH_FILE, ARRAYS_FILE}:
            raise ValueError(f"expected exactly {GRAPH_FILE} and {ARRAYS_FILE}, found "
                             f"{sorted(infos)[:5]}")
        if infos[GRAPH_FILE].file_size > MAX_JSON_BYTES:
            raise ValueError(f"{GRAPH_FILE} is larger than {MAX_JSON_BYTES} bytes")
        # the declared (uncompressed) sizes are charged before anything is decompressed, and
        # reading stops at the declared size whatever the compressed stream holds
        parts = {}
        for name in (GRAPH_FILE, ARRAYS_FILE):
            size = infos[name].file_size
            budget.charge(size, name)
            with archive.open(infos[name]) as f:
                parts[name] = f.read(size)
    except _READ_ERRORS as exc:
        raise ValueError(f"not a saved object: {exc}") from None
    return parse_graph(parts[GRAPH_FILE]), ArrayStore(io.BytesIO(parts[ARRAYS_FILE]), budget,
                                                      ARRAYS_FILE)


def _no_constants(name):
    raise ValueError(f"{name} is not valid JSON")


def parse_graph(data: bytes) -> dict:
    try:
        document = json.loads(data.decode("utf-8"), parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{GRAPH_FILE} is not valid JSON: {str(exc)[:200]}") from None
    if type(document) is not dict:
        raise ValueError(f"{GRAPH_FILE} must hold a JSON object.")
    return document


class ArrayStore:
    """The arrays of `variables.npz`, read one by one after their headers are checked."""

    def __init__(self, source, budget: Budget, name: str = ARRAYS_FILE):
        self._budget = budget
        self._name = name
        try:
            self._npz = np.load(source, allow_pickle=False)
        except _READ_ERRORS as exc:
            raise ValueError(f"{ARRAYS_FILE} cannot be read: {str(exc)[:200]}") from None
        if not isinstance(self._npz, np.lib.npyio.NpzFile):
            raise ValueError(f"{ARRAYS_FILE} is not an .npz archive.")
        self._total = 0

    def get(self, key, where: str, expected=None) -> np.ndarray:
        """The array stored under `key` (checked: name, dtype, shape, size); else ValueError.

        `expected`, when given, is the (NumPy dtype, shape) the graph file declares for it: the
        array's header must match it before any of its data is read.
        """
        if type(key) is not str or not _KEY.match(key):
            raise ValueError(f"{where}: bad array key {str(key)[:40]!r} (expected a letter and "
                             "digits, such as 'v0').")
        try:
            info = self._npz.zip.getinfo(key + ".npy")
        except KeyError:
            raise ValueError(f"{where}: {ARRAYS_FILE} has no array {key!r}.") from None
        try:
            with self._npz.zip.open(info) as f:
                shape, dtype = _header(f)
            count = math.prod(shape)
            if expected is not None and (dtype != expected[0] or shape != tuple(expected[1])):
                raise ValueError(f"its header declares {dtype} {list(shape)}, the graph file "
                                 f"{np.dtype(expected[0])} {list(expected[1])}")
            if count > MAX_ELEMENTS:
                raise ValueError(f"it declares {count} elements (at most {MAX_ELEMENTS})")
            nbytes = count * dtype.itemsize
            if nbytes > info.file_size:
                raise ValueError(f"it declares {nbytes} bytes but holds {info.file_size}")
            self._total += nbytes
            if self._total > MAX_ARRAY_BYTES:
                raise ValueError(f"the arrays hold more than {MAX_ARRAY_BYTES} bytes")
            self._budget.charge(nbytes, f"array {key!r} of {self._name}")
            array = self._npz[key]
        except _READ_ERRORS as exc:
            raise ValueError(f"{where}: array {key!r} of {self._name} cannot be read: "
                             f"{str(exc)[:400]}") from None
        if array.shape != shape or array.dtype != dtype:
            raise ValueError(f"{where}: array {key!r} does not match its header.")
        return array


def _header(f):
    version = npy_format.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = npy_format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, _, dtype = npy_format.read_array_header_2_0(f)
    else:
        raise ValueError(f"unsupported .npy version {version}")
    if (dtype.kind not in _ALLOWED_KINDS or dtype.hasobject or dtype.names is not None
            or dtype.subdtype is not None or len(shape) > 32):
        raise ValueError(f"dtype {dtype} or rank {len(shape)} is not allowed")
    return tuple(shape), dtype
