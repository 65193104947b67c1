"""The file of `Dataset.cache(filename)`: the elements' flat columns in an `.npz` archive.

Read without pickle: a string column is stored as its bytes joined (`uint8`) and each item's
length (`int64`), never as an object array, and every member's header is checked before its
data is read (no object dtype; a declared size no larger than the member holds), so a damaged
or hostile file raises `DataLossError` instead of running code or allocating more than its
size allows.
"""

from __future__ import annotations

import math
import zipfile

import numpy as np

from ..errors import DataLossError


def write(path: str, count: int, columns: list[np.ndarray]) -> None:
    """Writes `count` elements' flat columns (each [count, ...]) to `path`."""
    arrays: dict[str, np.ndarray] = {"count": np.asarray(count, np.int64)}
    for i, column in enumerate(columns):
        if column.dtype == object:
            items = [bytes(item) for item in column.reshape(-1)]
            arrays[f"s{i}_data"] = np.frombuffer(b"".join(items), np.uint8)
            arrays[f"s{i}_lengths"] = np.array([len(item) for item in items], np.int64)
            arrays[f"s{i}_shape"] = np.array(column.shape, np.int64)
        else:
            arrays[f"c{i}"] = column
    np.savez(path, **arrays)


def read(path: str) -> tuple[int, list[np.ndarray]]:
    """(count, columns) from a file `write` made; `DataLossError` naming the file when it is
    not one."""
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: _member(archive, name, path) for name in archive.files}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
        raise DataLossError(f"The dataset cache file {path} cannot be read: {str(exc)[:200]}. "
                            "Delete it to rebuild the cache.") from None
    count = int(arrays.pop("count"))
    columns: list[np.ndarray] = []
    for i in range(len(arrays)):
        if f"c{i}" in arrays:
            columns.append(arrays[f"c{i}"])
        elif f"s{i}_data" in arrays:
            columns.append(_strings(arrays, i, path))
        else:
            break
    return count, columns


def _member(archive, name: str, path: str) -> np.ndarray:
    """One member, after its header is checked against the bytes the member holds."""
    info = archive.zip.getinfo(name + ".npy")
    with archive.zip.open(info) as f:
        major, _ = np.lib.format.read_magic(f)
        header = (np.lib.format.read_array_header_1_0 if major == 1
                  else np.lib.format.read_array_header_2_0)
        shape, _, dtype = header(f)
    if dtype.hasobject:
        raise ValueError(f"member {name} holds Python objects")
    if math.prod(shape) * dtype.itemsize > info.file_size:
        raise ValueError(f"member {name} declares {list(shape)} {dtype}, more than its "
                         f"{info.file_size} bytes")
    return archive[name]


def _strings(arrays: dict, i: int, path: str) -> np.ndarray:
    data, lengths = arrays[f"s{i}_data"], arrays[f"s{i}_lengths"]
    shape = tuple(int(d) for d in arrays[f"s{i}_shape"])
    if (lengths < 0).any() or int(lengths.sum()) != data.size or math.prod(shape) != lengths.size:
        raise DataLossError(f"The dataset cache file {path} is damaged (string column {i}). "
                            "Delete it to rebuild the cache.")
    raw = data.tobytes()
    ends = np.cumsum(lengths)
    items = np.empty(lengths.size, dtype=object)
    start = 0
    for k, end in enumerate(ends.tolist()):
        items[k] = raw[start:end]
        start = end
    return items.reshape(shape)
