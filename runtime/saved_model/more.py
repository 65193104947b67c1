"""More of `rt.saved_model`: `Asset`, `experimental.TrackableResource`,
`experimental.Fingerprint` and `experimental.read_fingerprint`.

A saved object here is `saved_model.json` and `variables.npz` (see the package's doc), so
its fingerprint is computed from those two files when it is read (TensorFlow writes a
`fingerprint.pb` beside its `saved_model.pb` at save time and reads it back). Each hash is a
64-bit BLAKE2b digest of one part of the save, so two saves of the same functions and
values have the same fingerprint and any change of a part changes that part's hash:

- `saved_model_checksum`: the bytes of `saved_model.json`;
- `graph_def_program_hash`: the saved functions (their graphs);
- `signature_def_hash`: the signatures, their aliases and the called function;
- `saved_object_graph_hash`: the kind of object saved, its variables' descriptions and
  attribute paths;
- `checkpoint_hash`: the arrays of `variables.npz` (names and contents, by CRC);
- `version`: the saved format's version.

Assets and resources are not written into a saved object: `rt.saved_model.save` of a module
holding one raises NotImplementedError naming it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from typing import Any

from .. import context
from ..arguments import strict_keywords
from ..ops.core import constant
from . import files


def _hash(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _json_hash(value: Any) -> int:
    return _hash(json.dumps(value, sort_keys=True, separators=(",", ":")).encode())


_HASH_FIELDS = ("saved_model_checksum", "graph_def_program_hash", "signature_def_hash",
                "saved_object_graph_hash", "checkpoint_hash")


class Fingerprint:
    """The fingerprint of a saved object (`read_fingerprint`): five 64-bit hashes and the
    format version. Equal when the five hashes are equal (the version is not compared, as in
    TensorFlow); `singleprint()` joins the four that identify the model's program and values.
    """

    @strict_keywords("Fingerprint")
    def __init__(self, saved_model_checksum: int | None = None,
                 graph_def_program_hash: int | None = None,
                 signature_def_hash: int | None = None,
                 saved_object_graph_hash: int | None = None,
                 checkpoint_hash: int | None = None, version: int | None = None) -> None:
        self.saved_model_checksum = saved_model_checksum
        self.graph_def_program_hash = graph_def_program_hash
        self.signature_def_hash = signature_def_hash
        self.saved_object_graph_hash = saved_object_graph_hash
        self.checkpoint_hash = checkpoint_hash
        self.version = version

    @classmethod
    def from_proto(cls, proto: Any) -> "Fingerprint":
        """A Fingerprint from a FingerprintDef-like object (its five hash fields and its
        `version`, a VersionDef whose `producer` is taken, or an int)."""
        version = getattr(proto, "version", None)
        try:
            return cls(*(int(getattr(proto, name)) for name in _HASH_FIELDS),
                       version=getattr(version, "producer", version))
        except (AttributeError, TypeError, ValueError) as exc:
            raise ValueError(f"Fingerprint.from_proto: {proto!r:.80} is not a fingerprint "
                             f"({exc}).") from None

    def _hashes(self) -> tuple:
        return (self.saved_model_checksum, self.graph_def_program_hash, self.signature_def_hash,
                self.saved_object_graph_hash, self.checkpoint_hash)

    def singleprint(self) -> str:
        """"graph_def_program_hash/signature_def_hash/saved_object_graph_hash/checkpoint_hash";
        ValueError when one of them is not an int."""
        parts = self._hashes()[1:]
        if not all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
            raise ValueError("Encounted invalid fingerprint values when constructing "
                             f"singleprint.graph_def_program_hash: {parts[0]}"
                             f"signature_def_hash: {parts[1]}saved_object_graph_hash: "
                             f"{parts[2]}checkpoint_hash: {parts[3]}")
        return "/".join(str(p) for p in parts)

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Fingerprint):
            return NotImplemented
        return self._hashes() == other._hashes()

    __hash__ = None  # type: ignore[assignment]  # its fields may be set, as TensorFlow's

    def __str__(self) -> str:
        return "\n".join([
            "SavedModel Fingerprint",
            f"  saved_model_checksum: {self.saved_model_checksum}",
            f"  graph_def_program_hash: {self.graph_def_program_hash}",
            f"  signature_def_hash: {self.signature_def_hash}",
            f"  saved_object_graph_hash: {self.saved_object_graph_hash}",
            f"  checkpoint_hash: {self.checkpoint_hash}"])

    def __repr__(self) -> str:
        return "Fingerprint(" + ", ".join(str(h) for h in self._hashes()) + ")"


@strict_keywords("rt.saved_model.experimental.read_fingerprint")
def read_fingerprint(export_dir) -> Fingerprint:
    """The Fingerprint of the saved object in `export_dir` (see the module doc);
    FileNotFoundError when the directory holds no saved object."""
    path = os.fspath(export_dir)
    graph_path = os.path.join(path, files.GRAPH_FILE)
    if not os.path.isfile(graph_path) or not os.path.isfile(os.path.join(path, files.ARRAYS_FILE)):
        raise FileNotFoundError(f"SavedModel Fingerprint Error: Could not find a saved object "
                                f"in directory: {path} ({files.GRAPH_FILE} and "
                                f"{files.ARRAYS_FILE} are needed).")
    document, store = files.read_dir(path)
    with open(graph_path, "rb") as f:
        checksum = _hash(f.read())
    members = sorted((info.filename, info.CRC, info.file_size)
                     for info in store._npz.zip.infolist())
    return Fingerprint(
        saved_model_checksum=checksum,
        graph_def_program_hash=_json_hash(document.get("functions")),
        signature_def_hash=_json_hash([document.get("signatures"), document.get("aliases"),
                                       document.get("call"), document.get("overloads")]),
        saved_object_graph_hash=_json_hash([document.get("kind"), document.get("variables"),
                                            document.get("attributes")]),
        checkpoint_hash=_json_hash(members),
        version=document.get("version"))


class _Deleter:
    """Calls a resource's `_destroy_resource` when the resource is collected."""

    def __init__(self, destroy) -> None:
        self._destroy = destroy

    def __del__(self) -> None:
        try:
            self._destroy()
        except Exception:  # noqa: BLE001 - as TensorFlow, a failing destructor is not raised
            pass


class TrackableResource:
    """Base of objects that hold a resource: a subclass defines `_create_resource()`
    (returns the handle), and may define `_initialize()` (run once after the handle is
    made) and `_destroy_resource()` (run when the object is collected). `resource_handle`
    makes the handle on first use, outside any traced function (`rt.init_scope`), on
    `device`.

    Resources are not written into saved objects: `rt.saved_model.save` of a module
    holding one raises NotImplementedError."""

    _rt_not_saved = "rt.saved_model.experimental.TrackableResource"

    def __init__(self, device: str = "") -> None:
        if not isinstance(device, str):
            raise TypeError(f"TrackableResource: device must be a str, got {device!r}.")
        self._resource_device = device
        self._resource_handle_value = None
        self._resource_deleter = _Deleter(self._destroy_resource)

    def _create_resource(self) -> Any:
        """Makes the resource and returns its handle (subclasses define it)."""
        raise NotImplementedError(f"{type(self).__name__} must define _create_resource().")

    def _initialize(self) -> None:
        """Initializes the resource made by `_create_resource` (nothing by default)."""

    def _destroy_resource(self) -> None:
        """Frees the resource (nothing by default)."""

    @property
    def resource_handle(self) -> Any:
        """The handle `_create_resource()` returned, made (and initialized) on first use."""
        if self._resource_handle_value is None:
            placed = context.device(self._resource_device) if self._resource_device \
                else contextlib.nullcontext()
            with context.init_scope(), placed:
                self._resource_handle_value = self._create_resource()
                self._initialize()
        return self._resource_handle_value


class Asset:
    """A file a saved model needs (a vocabulary, ...): `asset_path` is its path as a string
    tensor. Assets are not copied into saved objects here: `rt.saved_model.save` of a module
    holding one raises NotImplementedError."""

    _rt_not_saved = "rt.saved_model.Asset"

    @strict_keywords("Asset")
    def __init__(self, path) -> None:
        if isinstance(path, Asset):
            path = path._path
        elif hasattr(path, "numpy"):
            path = path.numpy()
        if isinstance(path, bytes):
            path = path.decode("utf-8")
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"Asset: path must be a str, got {type(path).__name__}.")
        self._path = os.fspath(path)
        with context.init_scope():
            self._tensor = constant(self._path)

    @property
    def asset_path(self) -> Any:
        """The path, a string tensor."""
        return self._tensor

    def __repr__(self) -> str:
        return f"<Asset {self._path!r}>"
