"""Reading and writing the two files of a saved object, with every size checked before use.

A saved object is a directory holding `saved_model.json` (the graph file) and `variables.npz`
(variable values and constants, read with `np.load(..., allow_pickle=False)`). Its bytes form
(`dumps`/`loads`) is an uncompressed zip archive of the same two files.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
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
    os.makedirs(path, exist_ok=True)
    for name, data in ((GRAPH_FILE, graph_bytes(document)), (ARRAYS_FILE, arrays_bytes(arrays))):
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)


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
    """(document, ArrayStore) of a saved directory; ValueError when a file is missing or bad."""
    graph_path = os.path.join(path, GRAPH_FILE)
    arrays_path = os.path.join(path, ARRAYS_FILE)
    for p in (graph_path, arrays_path):
        if not os.path.isfile(p):
            raise ValueError(f"{path} is not a saved object: {os.path.basename(p)} is missing.")
    graph_size = os.path.getsize(graph_path)
    if graph_size > MAX_JSON_BYTES:
        raise ValueError(f"{graph_path} is larger than {MAX_JSON_BYTES} bytes.")
    budget = Budget(path, graph_size + os.path.getsize(arrays_path))
    budget.charge(graph_size, graph_path)
    with open(graph_path, "rb") as f:
        document = parse_graph(f.read(graph_size))
    return document, ArrayStore(arrays_path, budget, arrays_path)


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
