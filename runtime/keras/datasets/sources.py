"""What the dataset loaders share: where Keras keeps the files, and safe readers for them.

`ORIGIN_FOLDER` and `CIFAR_ORIGIN_FOLDER` are read at each `load_data()` call, so a mirror
(or a `file://` folder, offline) can stand in for them.
"""

from __future__ import annotations

import io
import pickle
import zipfile

import numpy as np

from ..file_utils import get_file

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
CIFAR_ORIGIN_FOLDER = "https://www.cs.toronto.edu/~kriz/"

_ARRAY_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode"),
}


class _ArrayUnpickler(pickle.Unpickler):
    """Unpickles plain containers and NumPy arrays only: any other global is refused."""

    def find_class(self, module: str, name: str):
        if (module, name) in _ARRAY_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a dataset file "
                                     "(only NumPy arrays are allowed).")


def unpickle_arrays(stream, encoding: str = "ASCII"):
    """`pickle.load` limited to containers and NumPy arrays."""
    return _ArrayUnpickler(stream, encoding=encoding).load()


def _load_npy(buffer: io.BytesIO) -> np.ndarray:
    version = np.lib.format.read_magic(buffer)
    header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
              else np.lib.format.read_array_header_2_0)
    shape, fortran, dtype = header(buffer)
    if not dtype.hasobject:
        buffer.seek(0)
        return np.load(buffer, allow_pickle=False)
    array = unpickle_arrays(buffer, encoding="latin1")
    return np.asarray(array, dtype=object).reshape(shape, order="F" if fortran else "C")


def load_npz(path: str) -> dict:
    """The arrays of an `.npz` file; object arrays (ragged sequences) unpickled safely."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                arrays[member[:-4]] = _load_npy(io.BytesIO(archive.read(member)))
    return arrays


def fetch(fname: str, file_hash: str, **kwargs) -> str:
    """`get_file` of `ORIGIN_FOLDER + name` (the cached copy named `fname`)."""
    name = kwargs.pop("remote_name", None) or fname
    return get_file(fname=fname, origin=f"{ORIGIN_FOLDER}{name}", file_hash=file_hash, **kwargs)


def check_test_split(test_split: float) -> None:
    """Refuses a `test_split` outside [0, 1) with Keras's ValueError."""
    if not 0 <= test_split < 1:
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 and "
                         "1 (exclusive of 1).")


def shuffled(seed: int, x, y) -> tuple:
    """`x` and `y` reordered by one `np.random.RandomState(seed).shuffle` of their indices."""
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    return x[order], y[order]


def split(x, y, test_split: float) -> tuple:
    """`(x_train, y_train), (x_test, y_test)`: the last `test_split` of the rows held out."""
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))
