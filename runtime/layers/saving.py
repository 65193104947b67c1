"""Saving whole models (architecture + weights) and weights alone; no pickle, no HDF5.

`save_model(model, path)` writes `model.json` (the model's class and `get_config()`, the
weights' names, shapes and dtypes, and the compile settings when they are plain names)
and `model.weights.npz` (the weights, in `model.weights` order): into a zip archive when
`path` ends with `.keras`, else into the directory `path`. `load_model(path)` rebuilds the
model from its config (the runtime's layers, and classes registered with
`register_keras_serializable` or given as `custom_objects`) and assigns the weights.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import zipfile
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from .. import optimizers
from ..arguments import strict_keywords
from ..shapes import TensorShape
from . import function_source as _function_source
from . import serialization as _serialization

FORMAT = "runtime-keras"
VERSION = 1
_CONFIG_FILE = "model.json"
_WEIGHTS_FILE = "model.weights.npz"


def _check_path(filepath, what: str) -> str:
    path = os.fspath(filepath)
    if path.endswith((".h5", ".hdf5")):
        raise ValueError(f"{what}: HDF5 files are not supported; use a path ending in "
                         f"'.keras' (one file) or a directory (got {path!r}).")
    return path


def _json_default(owner: str):
    def default(value):
        if isinstance(value, tuple):
            return list(value)
        raise TypeError(f"Cannot save {owner}: its config holds {value!r}, which has no JSON "
                        "form. Register the class or function with "
                        "keras.saving.register_keras_serializable(), or override get_config().")
    return default


def _weights_npz(model) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **{f"w{index:05d}": np.asarray(value)
                        for index, value in enumerate(model.get_weights())})
    return buffer.getvalue()


def _compile_config(model) -> dict | None:
    loss = getattr(model, "loss", None)
    optimizer = getattr(model, "optimizer", None)
    if loss is None or optimizer is None:
        return None
    config: dict[str, Any] = {}
    _load_codecs()
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
                    for v in model.variables],
    }
    build = _build_config(model)
    if build is not None:
        description["build"] = build
    if include_optimizer:
        compiled = _compile_config(model)
        if compiled is not None:
            description["compile"] = compiled
    text = json.dumps(description, indent=1, default=_json_default(model.name))
    weights = _weights_npz(model)
    if os.path.exists(path) and not overwrite:
        raise FileExistsError(f"save_model: {path!r} exists and overwrite=False.")
    if path.endswith(".keras"):
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(_CONFIG_FILE, text)
            archive.writestr(_WEIGHTS_FILE, weights)
        return
    if os.path.isfile(path):
        raise FileExistsError(f"save_model: {path!r} is a file; give a directory or a path "
                              "ending in '.keras'.")
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, _CONFIG_FILE), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(path, _WEIGHTS_FILE), "wb") as f:
        f.write(weights)


def _read(path: str) -> tuple[dict, bytes]:
    if not os.path.exists(path):
        raise FileNotFoundError(f"load_model: no such file or directory: {path!r}")
    if os.path.isdir(path):
        config_path = os.path.join(path, _CONFIG_FILE)
        if not os.path.exists(config_path):
            raise ValueError(f"load_model: {path!r} holds no {_CONFIG_FILE}; it was not written "
                             "by Model.save (a SavedModel loads with rt.saved_model.load).")
        with open(config_path, encoding="utf-8") as f:
            text = f.read()
        with open(os.path.join(path, _WEIGHTS_FILE), "rb") as f:
            return json.loads(text), f.read()
    if not zipfile.is_zipfile(path):
        raise ValueError(f"load_model: {path!r} is not a model saved by Model.save.")
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read(_CONFIG_FILE)), archive.read(_WEIGHTS_FILE)


def _arrays(data: bytes) -> list[np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        return [npz[key] for key in sorted(npz.files)]


@strict_keywords()
def load_model(filepath, custom_objects: dict | None = None, compile: bool = True,
               safe_mode: bool = True):
    """The model saved at `filepath` by `Model.save` / `save_model`, with its weights (and
    compiled again when it was compiled with named losses and metrics and `compile`). A model
    holding a lambda (`Lambda(lambda x: ...)`) loads only with `safe_mode=False`: loading
    runs the lambda's saved source."""
    path = _check_path(filepath, "load_model")
    description, weights = _read(path)
    if description.get("format") != FORMAT:
        raise ValueError(f"load_model: {path!r} is not in this runtime's model format.")
    if description.get("version", 0) > VERSION:
        raise ValueError(f"load_model: {path!r} was written by a newer version (format "
                         f"{description['version']}).")
    with _serialization.custom_object_scope(custom_objects or {}), \
            _function_source.loading(safe_mode):
        model = _serialization.deserialize_layer(description["model"])
        _ensure_built(model, description)
        _assign(model, _arrays(weights), "load_model")
        if compile and "compile" in description:
            _recompile(model, description["compile"])
    return model


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
    if model.built and model.variables:
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


def _recompile(model, config: dict) -> None:
    opt = config["optimizer"]
    cls = _serialization.get_registered_object(opt["class_name"]) or \
        getattr(optimizers, opt["class_name"], None)
    if cls is None:
        return
    optimizer = cls.from_config(opt["config"]) if hasattr(cls, "from_config") else \
        cls(**opt["config"])
    _load_codecs()
    metrics = [m if isinstance(m, str) else _serialization.deserialize_as("metric", m)
               for m in config.get("metrics", [])]
    loss = config["loss"]
    model.compile(optimizer=optimizer, metrics=metrics or None,
                  loss=loss if isinstance(loss, str) else _serialization.deserialize_as("loss", loss))


def _load_codecs() -> None:
    """Loads `rt.keras`, whose losses and metrics say how they are saved (it sits above this
    module, so it is loaded by name, once, when a compiled model is saved or loaded)."""
    if "loss" not in _serialization._CODECS:
        importlib.import_module("runtime.keras")


def _assign(model, values: list, what: str, skip_mismatch: bool = False) -> None:
    variables = model.variables
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
    path = _check_path(filepath, "save_weights")
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
    path = _check_path(filepath, "load_weights")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_weights: no such file: {path!r}")
    with open(path, "rb") as f:
        data = f.read()
    if zipfile.is_zipfile(path):  # an .npz is a zip too; a .keras file holds one
        with zipfile.ZipFile(path) as archive:
            if _WEIGHTS_FILE in archive.namelist():
                data = archive.read(_WEIGHTS_FILE)
    _assign(model, _arrays(data), "load_weights", skip_mismatch)
