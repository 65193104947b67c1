"""Saving whole models (architecture + weights) and weights alone; no pickle, no HDF5.

`save_model(model, path)` writes `model.json` (the model's class and `get_config()`, the
weights' names, shapes and dtypes, the compile settings and the optimizer's step counter),
`model.weights.npz` (the weights, in `model.weights` order) and `optimizer.weights.npz` (the
optimizer's slots, once it has taken a step): into a zip archive when `path` ends with
`.keras` (or `.h5`/`.hdf5`, Keras's legacy names: the same archive, with a warning that it is
not HDF5), else into the directory `path`. `load_model(path)` rebuilds the model from its
config (the runtime's layers, and classes registered with `register_keras_serializable` or
given as `custom_objects`), assigns the weights and restores the optimizer's state; it
checks every size and name the file declares before using it (see `load_model`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
import warnings
import zipfile
import zlib
from typing import Any, Iterator

import numpy as np

from .. import dtypes as _dtypes
from .. import optimizers
from ..arguments import strict_keywords
from ..function.logs import user_stacklevel
from ..shapes import TensorShape
from . import function_source as _function_source
from . import serialization as _serialization

FORMAT = "runtime-keras"
VERSION = 1
_CONFIG_FILE = "model.json"
_WEIGHTS_FILE = "model.weights.npz"
_OPTIMIZER_FILE = "optimizer.weights.npz"
MAX_DEPTH = 100  # lists and dicts in a model.json; a model nested twenty deep needs about 90
MAX_CONFIG_BYTES = 2 ** 28
# A .keras archive may decompress to at most MIN_EXPANSION + MAX_EXPANSION times its size (its
# arrays are stored uncompressed; a model.json compresses about tenfold).
MIN_EXPANSION = 2 ** 24
MAX_EXPANSION = 16


# Model.export's writers by format: "tf_saved_model" is runtime.saved_model's (it imports the
# layers, so it fills this table when it is imported, as `import runtime` does).
EXPORTERS: dict = {}
_KERAS_FORMATS = ("tf_saved_model", "onnx", "openvino", "litert")


@strict_keywords()
def export(model, filepath, format: str = "tf_saved_model", verbose: bool | None = None,
           input_signature=None) -> None:
    """`Model.export`: a SavedModel directory with the endpoints `serve` and `serving_default`
    (see runtime.saved_model.keras_export), loaded by `rt.saved_model.load`."""
    if format not in EXPORTERS:
        other = "is not supported here" if format in _KERAS_FORMATS else "is not a format"
        raise ValueError(f"Model.export: format={format!r} {other}; use "
                         "format='tf_saved_model' (the default).")
    EXPORTERS[format](model, os.fspath(filepath), verbose=verbose,
                      input_signature=input_signature)


# Keras 3 still saves and loads its legacy HDF5 format under these names; here they name a
# file of this runtime's own single-file format (as `.keras`), so a program using them runs
_HDF5_SUFFIXES = (".h5", ".hdf5")
_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _check_path(filepath, what: str) -> str:
    path = os.fspath(filepath)
    if what == "save_model" and path.endswith(_HDF5_SUFFIXES):
        warnings.warn(f"save_model: {path!r} is written in this runtime's single-file format "
                      "(as a '.keras' file), not HDF5: Keras cannot read it, and "
                      "keras.models.load_model here can. Prefer a path ending in '.keras'.",
                      UserWarning, stacklevel=user_stacklevel())
    return path


def _single_file(path: str) -> bool:
    """Whether `save_model` writes `path` as one zip archive (else a directory)."""
    return path.endswith((".keras", *_HDF5_SUFFIXES))


def _check_weights_path(filepath, what: str) -> str:
    """Keras 3's `.weights.h5` names are accepted (the file holds this runtime's .npz weights,
    not HDF5); any other `.h5`/`.hdf5` name is refused, naming the suffix to use."""
    path = os.fspath(filepath)
    if path.endswith((".h5", ".hdf5")) and not path.endswith(".weights.h5"):
        raise ValueError(f"{what}: the filename must end in `.weights.h5` (Keras 3's weights "
                         f"file) or `.npz`; HDF5 files such as {path!r} are not supported.")
    return path


def _json_default(owner: str):
    def default(value):
        if isinstance(value, tuple):
            return list(value)
        raise TypeError(f"Cannot save {owner}: its config holds {value!r}, which has no JSON "
                        "form. Register the class or function with "
                        "keras.saving.register_keras_serializable(), or override get_config().")
    return default


def _npz(arrays: list) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{f"w{index:05d}": np.asarray(value) for index, value in enumerate(arrays)})
    return buffer.getvalue()


def _weights_npz(model) -> bytes:
    return _npz(model.get_weights())


def _optimizer_state(model) -> tuple[dict | None, list]:
    """The optimizer's step counter and slots (`{"iterations", "slots": [[index of the
    model variable, slot name], ...]}`, the slots' values in that order), as Keras 3 keeps
    them in a `.keras` file so that training resumes exactly; (None, []) before any step."""
    optimizer = getattr(model, "optimizer", None)
    if not isinstance(optimizer, optimizers.Optimizer) or not optimizer.variables:
        return None, []
    entries, arrays = [], []
    for index, variable in enumerate(model.weights):
        for slot in optimizer.get_slot_names():
            try:
                value = optimizer.get_slot(variable, slot)
            except KeyError:  # a variable the optimizer has not updated
                continue
            entries.append([index, slot])
            arrays.append(value.numpy())
    return {"iterations": int(optimizer.iterations.numpy()), "slots": entries}, arrays


def _compile_config(model) -> dict | None:
    loss = getattr(model, "loss", None)
    optimizer = getattr(model, "optimizer", None)
    if loss is None or optimizer is None:
        return None
    config: dict[str, Any] = {}
    config["loss"] = loss if isinstance(loss, str) else _serialization.serialize_as("loss", loss)
    config["metrics"] = [m if isinstance(m, str) else _serialization.serialize_as("metric", m)
                         for m in getattr(model, "_compiled_metrics", None) or []]
    opt = {"class_name": type(optimizer).__name__}
    try:
        opt["config"] = optimizer.get_config()
    except (AttributeError, NotImplementedError):
        return None
    config["optimizer"] = opt
    try:
        json.dumps(config)
    except TypeError:
        return None
    return config


@strict_keywords()
def save_model(model, filepath, overwrite: bool = True, include_optimizer: bool = True,
               save_format: str | None = None) -> None:
    """Writes `model` to `filepath` (see the module docstring)."""
    path = _check_path(filepath, "save_model")
    if save_format not in (None, "keras", "tf"):
        raise ValueError(f"save_model: save_format must be 'keras' or None, got "
                         f"{save_format!r}.")
    if not model.built:
        raise ValueError(f"save_model: {model.name} is not built; call it on data (or give it an "
                         "Input) first.")
    description = {
        "format": FORMAT, "version": VERSION,
        "model": _serialization.serialize_layer(model),
        "weights": [{"name": v.name, "shape": v.shape.as_list(), "dtype": v.dtype.name}
                    for v in model.weights],
    }
    build = _build_config(model)
    if build is not None:
        description["build"] = build
    files = {}
    if include_optimizer:
        compiled = _compile_config(model)
        if compiled is not None:
            description["compile"] = compiled
            state, arrays = _optimizer_state(model)
            if state is not None:
                description["optimizer_state"] = state
                files[_OPTIMIZER_FILE] = _npz(arrays)
    text = json.dumps(description, indent=1, default=_json_default(model.name))
    files = {_CONFIG_FILE: text.encode("utf-8"), _WEIGHTS_FILE: _weights_npz(model), **files,
             **_saved_assets(model)}
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"save_model: {path!r} exists and overwrite=False.")
    if _single_file(path):
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with zipfile.ZipFile(path, "w") as archive:  # arrays stored, so loading sees no bomb
            for name, data in files.items():
                archive.writestr(name, data, zipfile.ZIP_DEFLATED if name == _CONFIG_FILE
                                 else zipfile.ZIP_STORED)
        return
    if os.path.isfile(path):
        raise FileExistsError(f"save_model: {path!r} is a file; give a directory or a path "
                              "ending in '.keras'.")
    os.makedirs(path, exist_ok=True)
    stale = os.path.join(path, _OPTIMIZER_FILE)
    if _OPTIMIZER_FILE not in files and os.path.exists(stale):
        os.remove(stale)
    for name, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(path, name)), exist_ok=True)
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)


_ASSETS = "assets"


def _asset_owners(model) -> list:
    """(directory, layer) for the model and each of its layers with `save_assets` /
    `load_assets`, in a fixed order (a loaded model has the same layers in the same order)."""
    layers = [model] + list(model.submodules)
    return [(f"{_ASSETS}/{i}_{layer.name}", layer) for i, layer in enumerate(layers)]


def _saved_assets(model) -> dict[str, bytes]:
    """The files each layer's `save_assets(directory)` writes, by their name in the archive
    (`assets/<index>_<layer name>/<file>`), as Keras 3 keeps a layer's assets."""
    files: dict[str, bytes] = {}
    for directory, layer in _asset_owners(model):
        if not callable(getattr(layer, "save_assets", None)):
            continue
        with tempfile.TemporaryDirectory() as scratch:
            layer.save_assets(scratch)
            for root, _, names in os.walk(scratch):
                for name in names:
                    relative = os.path.relpath(os.path.join(root, name), scratch)
                    with open(os.path.join(root, name), "rb") as f:
                        files[f"{directory}/{relative.replace(os.sep, '/')}"] = f.read()
    return files


def _load_assets(model, files: dict[str, bytes], path: str) -> None:
    """Hands each layer with `load_assets(directory)` a directory holding the files its
    `save_assets` wrote (after the weights are set, as Keras 3 does)."""
    for directory, layer in _asset_owners(model):
        if not callable(getattr(layer, "load_assets", None)):
            continue
        prefix = directory + "/"
        with tempfile.TemporaryDirectory() as scratch:
            for name, data in files.items():
                if not name.startswith(prefix):
                    continue
                relative = name[len(prefix):]
                parts = relative.split("/")
                if any(part in ("", ".", "..") for part in parts):
                    raise ValueError(f"load_model: {path!r} holds an asset named {name!r} "
                                     "outside its layer's directory.")
                target = os.path.join(scratch, *parts)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as f:
                    f.write(data)
            layer.load_assets(scratch)


def _read(path: str) -> tuple[dict, dict[str, bytes]]:
    """The model's description and the files beside it (`{name: bytes}`)."""
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_model: no such file or directory: {path!r}")
    if os.path.isdir(path):
        config_path = os.path.join(path, _CONFIG_FILE)
        if not os.path.exists(config_path):
            raise ValueError(f"load_model: {path!r} holds no {_CONFIG_FILE}; it was not written "
                             "by Model.save (a SavedModel loads with rt.saved_model.load).")
        files = {}
        names = [_CONFIG_FILE, _WEIGHTS_FILE, _OPTIMIZER_FILE] + [
            os.path.relpath(os.path.join(root, name), path).replace(os.sep, "/")
            for root, _, found in os.walk(os.path.join(path, _ASSETS)) for name in found]
        for name in names:
            if os.path.isfile(os.path.join(path, name)):
                with open(os.path.join(path, name), "rb") as f:
                    files[name] = f.read()
    else:
        if not zipfile.is_zipfile(path):
            raise ValueError(f"load_model: {path!r} is not a model saved by Model.save"
                             f"{_hdf5_note(path)}.")
        with _damaged(f"load_model: {path!r} is a damaged archive"):
            files = _members(path, (_CONFIG_FILE, _WEIGHTS_FILE, _OPTIMIZER_FILE))
    for name in (_CONFIG_FILE, _WEIGHTS_FILE):
        if name not in files:
            raise ValueError(f"load_model: {path!r} holds no {name}; it was not written by "
                             "Model.save.")
    return _parse_description(files.pop(_CONFIG_FILE), path), files


def _hdf5_note(path: str) -> str:
    """Why an HDF5 file (Keras's legacy format, written with h5py) does not load here."""
    with open(path, "rb") as f:
        if f.read(len(_HDF5_SIGNATURE)) != _HDF5_SIGNATURE:
            return ""
    return (": it is an HDF5 file (Keras's legacy format), which this runtime does not read; "
            "save the model here with model.save('name.keras'), or export its weights with "
            "get_weights() and set them with set_weights()")


def _expansion_limit(size: int) -> int:
    """The bytes a file of `size` bytes may expand to when decompressed (a zip bomb may not)."""
    return MIN_EXPANSION + MAX_EXPANSION * size


def _members(path: str, names: tuple) -> dict[str, bytes]:
    """The named members of the zip archive at `path`, their declared sizes checked against
    `_expansion_limit` and `MAX_CONFIG_BYTES` before anything is decompressed."""
    with zipfile.ZipFile(path) as archive:
        infos = {info.filename: info for info in archive.infolist() if info.filename in names
                 or (info.filename.startswith(_ASSETS + "/") and not info.is_dir())}
        config = infos.get(_CONFIG_FILE)
        if config is not None and config.file_size > MAX_CONFIG_BYTES:
            raise ValueError(f"load_model: {path!r}: {_CONFIG_FILE} declares "
                             f"{config.file_size} bytes, more than the {MAX_CONFIG_BYTES} a model "
                             "config may have.")
        declared = sum(info.file_size for info in infos.values())
        if declared > _expansion_limit(os.path.getsize(path)):
            raise ValueError(f"load_model: {path!r} declares {declared} bytes once "
                             "decompressed, far more than a saved model of its size holds (a "
                             "damaged file or a zip bomb).")
        found = {}
        for name, info in infos.items():
            with archive.open(info) as f:
                found[name] = f.read(info.file_size)  # never past the declared size
        return found


def _parse_description(text: bytes, path: str) -> dict:
    """The JSON description, refused with a ValueError when it is not JSON, not an object
    or nested deeper than `MAX_DEPTH`."""
    try:
        description = json.loads(text)
    except RecursionError:
        raise ValueError(f"load_model: {path!r}: {_CONFIG_FILE} is nested too deeply to be "
                         "a model config.") from None
    except ValueError as exc:
        raise ValueError(f"load_model: {path!r}: {_CONFIG_FILE} is not valid JSON "
                         f"({exc}).") from None
    if not isinstance(description, dict):
        raise ValueError(f"load_model: {path!r}: {_CONFIG_FILE} is not a model description.")
    if _depth(description) > MAX_DEPTH:
        raise ValueError(f"load_model: {path!r}: {_CONFIG_FILE} is nested more than "
                         f"{MAX_DEPTH} levels deep; no model config is, so it is refused.")
    return description


def _depth(value: Any) -> int:
    """How deeply lists and dicts nest in `value` (walked without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in (item.values() if isinstance(item, dict)
                                                  else item))
    return deepest


# what reading a damaged zip archive or .npy entry raises
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError,
               KeyError, OverflowError)


@contextlib.contextmanager
def _damaged(message: str) -> Iterator[None]:
    """Reports the errors of reading a damaged archive as a ValueError starting `message`."""
    try:
        yield
    except _ZIP_ERRORS as exc:
        raise ValueError(f"{message} ({type(exc).__name__}: {str(exc)[:200]}).") from None


def _headers(data: bytes, what: str) -> list[tuple[tuple, np.dtype]]:
    """The shape and dtype of each array of an .npz (in key order), read from its headers
    without loading it; a ValueError when an array claims more bytes than its entry holds."""
    with _damaged(f"{what}: the weights are not a readable .npz archive"):
        return _read_headers(data, what)


def _read_headers(data: bytes, what: str) -> list[tuple[tuple, np.dtype]]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    found = []
    with archive:
        declared = sum(info.file_size for info in archive.infolist())
        if declared > _expansion_limit(len(data)):
            raise ValueError(f"{what}: the weights declare {declared} bytes once decompressed, "
                             f"far more than their {len(data)} bytes can hold (a damaged file "
                             "or a zip bomb).")
        for info in sorted(archive.infolist(), key=lambda i: i.filename):
            with archive.open(info) as f:
                try:
                    version = np.lib.format.read_magic(f)
                    read = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                        np.lib.format.read_array_header_2_0
                    shape, _, dtype = read(f)
                    if any(not isinstance(d, int) or d < 0 for d in shape):
                        raise ValueError(f"the shape {shape} has a negative dimension")
                except ValueError as exc:
                    raise ValueError(f"{what}: the weight {info.filename!r} has a damaged "
                                     f"header ({exc}).") from None
                if dtype.hasobject:
                    raise ValueError(f"{what}: the weight {info.filename!r} holds Python "
                                     "objects; only numeric arrays are loaded.")
                size = int(np.prod(shape, dtype=object)) * dtype.itemsize
                if size > info.file_size - f.tell():
                    raise ValueError(f"{what}: the weight {info.filename!r} claims shape "
                                     f"{shape} ({size} bytes) but its entry holds "
                                     f"{info.file_size} bytes.")
            found.append((shape, dtype))
    return found


def _arrays(data: bytes, what: str = "load_weights") -> list[np.ndarray]:
    _headers(data, what)
    with _damaged(f"{what}: the weights are not a readable .npz archive"), \
            np.load(io.BytesIO(data), allow_pickle=False) as npz:
        return [npz[key] for key in sorted(npz.files)]


@strict_keywords()
def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,
               safe_mode: bool = True):
    """The model saved at `filepath` by `Model.save` / `save_model`, with its weights, and with
    `compile` compiled again with its optimizer's saved state (step counter and slots).

    With `safe_mode` (the default) the config may name only the runtime's layers,
    initializers and regularizers, registered classes and functions, and the public functions
    that compute tensors (`function_source.PURE_NAMESPACES`, `PURE_NAMES`); anything else, a
    lambda included, and every damaged or oversized part of the file raise `ValueError` before
    anything runs. `safe_mode=False` loads lambdas and any public function: only for files
    you trust."""
    path = _check_path(filepath, "load_model")
    description, files = _read(path)
    if description.get("format") != FORMAT or not isinstance(description.get("model"), dict):
        raise ValueError(f"load_model: {path!r} is not in this runtime's model format.")
    version = description.get("version", 0)
    if not isinstance(version, int) or version > VERSION:
        raise ValueError(f"load_model: {path!r} was written by a newer version (format "
                         f"{version!r}).")
    sizes = [int(np.prod(shape, dtype=object)) for shape, _ in
             _headers(files[_WEIGHTS_FILE], "load_model")]
    with _serialization.custom_object_scope(custom_objects or {}), \
            _function_source.loading(safe_mode):
        with _serialization.weight_budget(max(sizes, default=0), sum(sizes)), \
                _invalid_config(path):
            model = _serialization.deserialize_layer(description["model"])
            _ensure_built(model, description)
        _assign(model, _arrays(files[_WEIGHTS_FILE], "load_model"), "load_model")
        _load_assets(model, files, path)
        if compile and "compile" in description:
            with _invalid_config(path):
                _recompile(model, description["compile"], path)
            _restore_optimizer(model, description.get("optimizer_state"),
                               files.get(_OPTIMIZER_FILE), path)
    return model


def model_to_json(model, **kwargs: Any) -> str:
    """`Model.to_json()`: the model's class and config as JSON (keyword arguments go to
    `json.dumps`), which `model_from_json` reads back, as Keras's."""
    return json.dumps(_serialization.serialize_layer(model),
                      default=_json_default(type(model).__name__), **kwargs)


@strict_keywords("keras.models.model_from_json")
def model_from_json(json_string: str, custom_objects: dict | None = None):
    """A new model (fresh weights) from `Model.to_json()`'s text. As `load_model` in safe
    mode, the config may name only the runtime's and registered objects."""
    try:
        config = json.loads(json_string)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"model_from_json: json_string is not JSON: {exc}") from exc
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError("model_from_json: json_string must be what Model.to_json() returns "
                         "(an object with 'class_name' and 'config').")
    with _serialization.custom_object_scope(custom_objects or {}), \
            _function_source.loading(True):
        return _serialization.deserialize_layer(config)


@contextlib.contextmanager
def _invalid_config(path: str) -> Iterator[None]:
    """Reports a config that makes a layer fail to build as a ValueError naming the file."""
    try:
        yield
    except RecursionError:
        raise ValueError(f"load_model: {path!r}: the model config is nested too deeply to "
                         "load.") from None
    except (TypeError, KeyError, AttributeError, IndexError, OverflowError) as exc:
        raise ValueError(f"load_model: {path!r} holds a model config that cannot be built: "
                         f"{type(exc).__name__}: {exc}") from exc


def _build_config(model) -> dict | None:
    """The input shape and dtype a model was first called with (a subclassed model is rebuilt
    from them on load, as Keras's build config does), or None."""
    shape = model.__dict__.get("_build_input_shape")
    if not isinstance(shape, TensorShape) or shape.rank is None:
        return None
    dtype = model.__dict__.get("_build_input_dtype")
    return {"input_shape": shape.as_list(),
            "dtype": dtype.name if isinstance(dtype, _dtypes.DType) else "float32"}


def _ensure_built(model, description: dict) -> None:
    """Builds a model whose config does not build it (a subclassed model) from the input
    shape it was first called with."""
    if model.built and model.weights:
        return
    config = description["model"].get("config")
    build = description.get("build") or {}
    shape = config.get("build_input_shape") if isinstance(config, dict) else None
    dtype = (config.get("input_dtype") if isinstance(config, dict) else None) or "float32"
    if shape is None and isinstance(build.get("input_shape"), list):
        shape, dtype = build["input_shape"], build.get("dtype") or "float32"
    if shape is None:
        return
    _serialization.build_symbolically(model, tuple(shape), dtype)


def _recompile(model, config: dict, path: str) -> None:
    opt = config.get("optimizer") if isinstance(config, dict) else None
    if not isinstance(opt, dict) or not isinstance(opt.get("class_name"), str) or \
            not isinstance(opt.get("config"), dict):
        raise ValueError(f"load_model: {path!r}: the compile settings name no optimizer "
                         "(load with compile=False to skip them).")
    cls = _serialization.get_registered_object(opt["class_name"]) or \
        getattr(optimizers, opt["class_name"], None)
    if not (isinstance(cls, type) and issubclass(cls, optimizers.Optimizer)):
        raise ValueError(f"load_model: {path!r}: unknown optimizer class "
                         f"{opt['class_name'][:80]!r} (load with compile=False to skip the "
                         "compile settings, or register the class).")
    try:
        optimizer = cls.from_config(opt["config"])
    except TypeError as exc:
        raise ValueError(f"load_model: {path!r}: the optimizer's config does not fit "
                         f"{cls.__name__}: {exc}") from exc
    metrics, loss = config.get("metrics") or [], config.get("loss")
    if not isinstance(metrics, list):
        raise ValueError(f"load_model: {path!r}: the compiled metrics are not a list.")
    if not all(isinstance(m, str) for m in [loss, *metrics]) and \
            not _serialization.has_codec("loss"):
        raise ValueError(f"load_model: {path!r} was compiled with loss or metric objects, which "
                         "load through rt.keras: use rt.keras.models.load_model (or import "
                         "runtime.keras first), or load with compile=False.")
    metrics = [m if isinstance(m, str) else _serialization.deserialize_as("metric", m)
               for m in metrics]
    model.compile(optimizer=optimizer, metrics=metrics or None,
                  loss=loss if isinstance(loss, str) else _serialization.deserialize_as("loss", loss))


def _restore_optimizer(model, state, data: bytes | None, path: str) -> None:
    """Sets the step counter and slots `_optimizer_state` saved on the model's new
    optimizer (creating its slots), checking every entry against the model."""
    if state is None:
        return
    what = f"load_model: {path!r}: the optimizer state"
    optimizer, variables = model.optimizer, model.weights
    entries = state.get("slots") if isinstance(state, dict) else None
    iterations = state.get("iterations") if isinstance(state, dict) else None
    if data is None or not isinstance(entries, list) or not isinstance(iterations, int) or \
            isinstance(iterations, bool) or iterations < 0:
        raise ValueError(f"{what} is damaged (load with compile=False to skip it).")
    arrays = _arrays(data, "load_model")
    if len(arrays) != len(entries):
        raise ValueError(f"{what} lists {len(entries)} slots but holds {len(arrays)}.")
    for entry in entries:
        index, slot = entry if isinstance(entry, list) and len(entry) == 2 else (None, None)
        if not (isinstance(index, int) and 0 <= index < len(variables)) or \
                slot not in optimizer.get_slot_names():
            raise ValueError(f"{what} names no slot of this model: {entry!r:.80}.")
    optimizer.build([variables[index] for index, _ in entries])
    for (index, slot), value in zip(entries, arrays):  # a slot may be smaller (Adafactor's)
        try:
            expected = optimizer.get_slot(variables[index], slot).shape.as_list()
        except KeyError:
            raise ValueError(f"{what} names no slot of this model: {[index, slot]!r}.") from None
        if value.shape != tuple(expected):
            raise ValueError(f"{what}: slot {slot!r} of {variables[index].name} has shape "
                             f"{value.shape}, the optimizer's slot {expected}.")
    optimizer.iterations.assign(np.int64(iterations))
    for (index, slot), value in zip(entries, arrays):
        variable = variables[index]
        optimizer.get_slot(variable, slot).assign(
            value.astype(variable.dtype.as_numpy_dtype, copy=False))


def _assign(model, values: list, what: str, skip_mismatch: bool = False) -> None:
    variables = model.weights
    if not variables and values:
        raise ValueError(f"{what}: {model.name} has no weights yet; build it first (call it on "
                         "data, or start it with keras.Input / an input_shape).")
    if len(values) != len(variables):
        raise ValueError(f"{what}: the file has {len(values)} weights but {model.name} has "
                         f"{len(variables)}; the architectures differ.")
    for variable, value in zip(variables, values):
        if tuple(variable.shape.as_list()) != tuple(value.shape):
            if skip_mismatch:
                continue
            raise ValueError(f"{what}: weight {variable.name} has shape {variable.shape} but the "
                             f"file's has shape {value.shape}.")
        variable.assign(value.astype(variable.dtype.as_numpy_dtype, copy=False))


@strict_keywords()
def save_weights(model, filepath, overwrite: bool = True) -> None:
    """Writes `model.get_weights()` to an .npz file at exactly `filepath`."""
    path = _check_weights_path(filepath, "save_weights")
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"save_weights: {path!r} exists and overwrite=False.")
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(path, "wb") as f:
        f.write(_weights_npz(model))


@strict_keywords()
def load_weights(model, filepath, skip_mismatch: bool = False) -> None:
    """Assigns the weights `save_weights` wrote to `model`'s variables, in order."""
    path = _check_weights_path(filepath, "load_weights")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_weights: no such file: {path!r}")
    with open(path, "rb") as f:
        data = f.read()
    if zipfile.is_zipfile(path):  # an .npz is a zip too; a .keras file holds one
        with zipfile.ZipFile(path) as archive:
            if _WEIGHTS_FILE in archive.namelist():
                data = archive.read(_WEIGHTS_FILE)
    _assign(model, _arrays(data), "load_weights", skip_mismatch)
