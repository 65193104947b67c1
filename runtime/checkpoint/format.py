"""The files of one checkpoint: `PREFIX.index` (a JSON document: the object graph and where
each value is) and `PREFIX.data-00000-of-00001` (an uncompressed `.npz` archive of the
values, read with `np.load(..., allow_pickle=False)`; nothing in it is ever executed).

Each file is written to a temporary file beside its final name, synced, then renamed into
place (data first, index last): a reader sees the old checkpoint or the new one. The index
records the SHA-256 of the data file, so a data file from another save is recognised.
String values (arrays of bytes) are stored as one uint8 array of their bytes plus an int64
array of their lengths.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import secrets
import zipfile
from typing import Any

import numpy as np

from ..errors import NotFoundError

INDEX_SUFFIX = ".index"
DATA_SUFFIX = ".data-00000-of-00001"
FORMAT = "runtime.train.Checkpoint"
VERSION = 1


def index_path(prefix: str) -> str:
    return prefix + INDEX_SUFFIX


def data_path(prefix: str) -> str:
    return prefix + DATA_SUFFIX


def exists(prefix: str) -> bool:
    """True when a checkpoint with this prefix has been written."""
    return os.path.isfile(index_path(prefix))


def _write_atomically(path: str, data: bytes) -> None:
    directory = os.path.dirname(path) or "."
    temporary = os.path.join(directory, f".{os.path.basename(path)}.tmp{secrets.token_hex(6)}")
    try:
        with open(temporary, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def encode(value: np.ndarray, name: str, arrays: dict) -> dict:
    """Puts `value` into `arrays` under `name` (two arrays for strings); returns the index
    entry's storage fields."""
    if value.dtype.kind in "OSU":
        items = [item.encode("utf-8") if isinstance(item, str) else bytes(item)
                 for item in value.reshape(-1).tolist()]
        arrays[name] = np.frombuffer(b"".join(items), dtype=np.uint8)
        arrays[name + "_lengths"] = np.asarray([len(item) for item in items], dtype=np.int64)
        return {"array": name, "lengths": name + "_lengths"}
    arrays[name] = np.array(value, order="C")
    return {"array": name}


def decode(entry: dict, arrays: dict, where: str) -> np.ndarray:
    """The value an index entry describes, checked against its recorded shape."""
    shape = tuple(entry["shape"])
    try:
        stored = arrays[entry["array"]]
        if "lengths" in entry:
            lengths = arrays[entry["lengths"]]
            blob = stored.tobytes()
            ends = np.cumsum(lengths)
            if lengths.ndim != 1 or (len(ends) and ends[-1] != len(blob)) or (lengths < 0).any():
                raise ValueError("string lengths do not match the stored bytes")
            items = [blob[end - length:end] for end, length in zip(ends.tolist(),
                                                                     lengths.tolist())]
            value = np.empty(len(items), dtype=object)
            value[:] = items
            return value.reshape(shape)
        if stored.shape != shape:
            raise ValueError(f"stored shape {stored.shape} differs from the index's {shape}")
        return stored
    except (KeyError, ValueError) as exc:
        raise ValueError(f"The checkpoint's value of {where} is damaged: {exc}.") from None


def write(prefix: str, document: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
    """Writes the data file, then the index naming its hash (creating the directory)."""
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    data = buffer.getvalue()
    document = dict(document, format=FORMAT, version=VERSION,
                    data_sha256=hashlib.sha256(data).hexdigest(), data_bytes=len(data))
    _write_atomically(data_path(prefix), data)
    index = json.dumps(document, sort_keys=True, allow_nan=False, indent=1).encode("utf-8")
    _write_atomically(index_path(prefix), index)


def read_index(prefix: str) -> dict[str, Any]:
    """The index document; `NotFoundError` naming the path when there is no checkpoint."""
    path = index_path(prefix)
    try:
        with open(path, "rb") as f:
            text = f.read()
    except FileNotFoundError:
        hint = ""
        if os.path.isdir(prefix):
            hint = (" It is a directory: pass a checkpoint prefix such as "
                    "rt.train.latest_checkpoint(directory).")
        raise NotFoundError(f"No checkpoint at '{prefix}': the file '{path}' does not "
                            f"exist.{hint}") from None
    except IsADirectoryError:
        raise NotFoundError(f"No checkpoint at '{prefix}': '{path}' is a directory.") from None
    try:
        document = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"'{path}' is not a checkpoint index (not JSON: {exc}).") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"'{path}' is not a checkpoint index written by rt.train.Checkpoint.")
    if document.get("version") != VERSION:
        raise ValueError(f"'{path}' has checkpoint format version {document.get('version')!r}; "
                         f"this runtime reads version {VERSION}.")
    if not isinstance(document.get("nodes"), list) or not document["nodes"]:
        raise ValueError(f"'{path}' has no object graph.")
    return document


def read_arrays(prefix: str, document: dict[str, Any]) -> dict[str, np.ndarray]:
    """The stored arrays, after checking the data file is the one the index was written with."""
    path = data_path(prefix)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise NotFoundError(f"The checkpoint '{prefix}' has an index but its data file '{path}' "
                            "does not exist.") from None
    if len(data) != document.get("data_bytes") or \
            hashlib.sha256(data).hexdigest() != document.get("data_sha256"):
        raise ValueError(f"The data file '{path}' does not belong to the index "
                         f"'{index_path(prefix)}' (another save overwrote one of them, or the "
                         "file is damaged).")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"The data file '{path}' cannot be read: {exc}.") from None


def delete(prefix: str) -> None:
    """Removes a checkpoint's files (those that exist)."""
    for path in (index_path(prefix), data_path(prefix)):
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
