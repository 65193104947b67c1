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

def read_dir(path):
    """(document, ArrayStore) of a saved directory; ValueError when a file is missing or bad."""
    graph_path = os.path.join(path, GRAPH_FILE)
    arrays_path = os.path.join(path, ARRAYS_FILE)
    for p in (graph_path, arrays_path):
        if not os.path.isfile(p):
            raise ValueError(f"{path} is not a saved object: {os.path.basename(p)} is missing.")
    if os.path.getsize(graph_path) > MAX_JSON_BYTES:
        raise ValueError(f"{GRAPH_FILE} is larger than {MAX_JSON_BYTES} bytes.")
    with open(graph_path, "rb") as f:
        document = parse_graph(f.read())
    return document, ArrayStore(arrays_path)


def read_bytes(data: bytes):
    """(document, ArrayStore) of the bytes form."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"loads() needs bytes, got {type(data).__name__}.")
    try:
        archive = zipfile.ZipFile(io.BytesIO(bytes(data)))
        infos = {info.filename: info for info in archive.infolist()}
        if set(infos) != {GRAPH_FILE, ARRAYS_FILE}:
            raise ValueError(f"expected exactly {GRAPH_FILE} and {ARRAYS_FILE}, found "
                             f"{sorted(infos)[:5]}")
        if infos[GRAPH_FILE].file_size > MAX_JSON_BYTES:
            raise ValueError(f"{GRAPH_FILE} is larger than {MAX_JSON_BYTES} bytes")
        graph = archive.read(GRAPH_FILE)
        arrays = archive.read(ARRAYS_FILE)
    except _READ_ERRORS as exc:
        raise ValueError(f"not a saved object: {exc}") from None
    return parse_graph(graph), ArrayStore(io.BytesIO(arrays))


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

    def __init__(self, source):
        try:
            self._npz = np.load(source, allow_pickle=False)
        except _READ_ERRORS as exc:
            raise ValueError(f"{ARRAYS_FILE} cannot be read: {str(exc)[:200]}") from None
        if not isinstance(self._npz, np.lib.npyio.NpzFile):
            raise ValueError(f"{ARRAYS_FILE} is not an .npz archive.")
        self._total = 0

    def get(self, key, where: str) -> np.ndarray:
        """The array stored under `key` (checked: name, dtype, shape, size); else ValueError."""
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
            if count > MAX_ELEMENTS:
                raise ValueError(f"it declares {count} elements (at most {MAX_ELEMENTS})")
            if count * dtype.itemsize > info.file_size:
                raise ValueError(f"it declares {count * dtype.itemsize} bytes but holds "
                                 f"{info.file_size}")
            self._total += count * dtype.itemsize
            if self._total > MAX_ARRAY_BYTES:
                raise ValueError(f"the arrays hold more than {MAX_ARRAY_BYTES} bytes")
            array = self._npz[key]
        except _READ_ERRORS as exc:
            raise ValueError(f"{where}: array {key!r} cannot be read: {str(exc)[:200]}") from None
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
