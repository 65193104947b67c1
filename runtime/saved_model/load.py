"""Reading: a validated graph file and arrays become a LoadedObject; nothing in them runs."""

from __future__ import annotations

from ..arguments import strict_keywords
from . import files, graph_io
from . import options as _options
from .codec import Decoder, check_name, dtype_named, shape_from
from .loaded import LoadedObject
from .save import FORMAT, IDENTIFIER, VERSION

_TOP_KEYS = {"format", "version", "kind", "call", "aliases", "variables", "functions"}
_OPTIONAL_KEYS = {"overloads", "signatures", "attributes"}
_VARIABLE_KEYS = {"key", "name", "dtype", "shape", "trainable"}
_KINDS = ("function", "model", "module")


@strict_keywords("rt.saved_model.load")
def load(path, tags=None, options=None) -> LoadedObject:
    """Loads a directory written by `save`; ValueError naming what is wrong with a bad file.
    `tags` and `options` (an `rt.saved_model.LoadOptions`) are accepted and have no effect."""
    _options.check(options, _options.LoadOptions, "rt.saved_model.load")
    document, store = files.read_dir(path)
    return from_document(document, store)


@strict_keywords("rt.saved_model.loads")
def loads(data: bytes) -> LoadedObject:
    """Loads the bytes written by `dumps`."""
    document, store = files.read_bytes(data)
    return from_document(document, store)


def from_document(document: dict, store) -> LoadedObject:
    if document.get("format") != FORMAT:
        raise ValueError(f"Not a saved object: the format is {str(document.get('format'))[:40]!r}, "
                         f"expected {FORMAT!r}.")
    version = document.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise ValueError(f"Saved format version {str(version)[:20]} is not supported (this "
                         f"runtime reads versions 1 to {VERSION}).")
    if not _TOP_KEYS <= set(document) <= _TOP_KEYS | _OPTIONAL_KEYS:
        raise ValueError(f"The graph file must have the keys {sorted(_TOP_KEYS)} (and may have "
                         f"{sorted(_OPTIONAL_KEYS)}), found {sorted(document)[:12]}.")
    kind = document["kind"]
    if kind not in _KINDS:
        raise ValueError(f"Unknown saved kind {str(kind)[:40]!r}.")
    variables = _variables(document["variables"], store)
    decoder = Decoder(store.get, variables, graph_io.SLOT_TYPE)
    entries = document["functions"]
    if type(entries) is not list or not 0 < len(entries) <= 1024:
        raise ValueError("functions must be a list of 1 to 1024 entries.")
    signatures = {}
    for i, entry in enumerate(entries):
        name = entry.get("name") if type(entry) is dict else None
        if type(name) is not str or not IDENTIFIER.match(name) or name in signatures:
            raise ValueError(f"function {i}: its name {str(name)[:40]!r} must be a unique "
                             "identifier.")
        signatures[name] = graph_io.decode_function(entry, decoder, variables, f"function {name!r}")
    call = document["call"]
    if call is not None and (type(call) is not str or call not in signatures):
        raise ValueError(f"call names {str(call)[:40]!r}, which is not a saved function.")
    aliases = document["aliases"]
    if type(aliases) is not dict or not all(
            type(k) is str and IDENTIFIER.match(k) and type(v) is str and v in signatures for k, v in aliases.items()):
        raise ValueError("aliases must map identifiers to saved function names.")
    overloads = document.get("overloads", {})
    if type(overloads) is not dict or not all(
            type(k) is str and k in signatures and type(v) is list and len(v) <= 1024
            and all(type(n) is str and n in signatures for n in v) for k, v in overloads.items()):
        raise ValueError("overloads must map saved function names to lists of them.")
    groups = {name: [signatures[n] for n in names] for name, names in overloads.items()}
    for names in overloads.values():      # further traces are reached through their group
        for n in names[1:]:
            signatures.pop(n, None)
    return LoadedObject(kind, signatures, variables, call, aliases, groups,
                        _signature_names(document, signatures),
                        _attributes(document, variables))


def _signature_names(document: dict, functions: dict) -> list | None:
    names = document.get("signatures")
    if names is None:
        return None
    if type(names) is not list or not all(type(n) is str and n in functions for n in names):
        raise ValueError("signatures must list names of saved functions.")
    return names


def _attributes(document: dict, variables: list) -> dict:
    paths = document.get("attributes", {})
    if type(paths) is not dict or len(paths) > 2 ** 20 or not all(
            type(p) is str and all(IDENTIFIER.match(part) for part in p.split("."))
            and type(i) is int and 0 <= i < len(variables) for p, i in paths.items()):
        raise ValueError("attributes must map dotted identifiers to variable indices.")
    return {path: variables[i] for path, i in paths.items()}


def _variables(entries, store) -> list:
    if type(entries) is not list or len(entries) > 2 ** 20:
        raise ValueError("variables must be a list.")
    out = []
    for i, entry in enumerate(entries):
        where = f"variable {i}"
        if type(entry) is not dict or set(entry) != _VARIABLE_KEYS:
            raise ValueError(f"{where}: expected the keys {sorted(_VARIABLE_KEYS)}.")
        name = check_name(entry["name"], where, False)
        dtype = dtype_named(entry["dtype"], where)
        shape = shape_from(entry["shape"], where)
        if type(entry["trainable"]) is not bool or not shape.is_fully_defined():
            raise ValueError(f"{where}: trainable must be a bool and the shape fully defined.")
        value = store.get(entry["key"], where,
                          (dtype.as_numpy_dtype, tuple(shape.as_list())))
        if value.dtype != dtype.as_numpy_dtype or value.shape != tuple(shape.as_list()):
            raise ValueError(f"{where} ({name}): the stored array is {value.dtype} "
                             f"{list(value.shape)}, the file declares {dtype.name} "
                             f"{shape.as_list()}.")
        out.append(graph_io.new_variable(value, name, entry["trainable"]))
    return out
