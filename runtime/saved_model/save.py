"""Writing: which concrete functions an object saves, and the graph file document."""

from __future__ import annotations

import inspect
import re

from ..arguments import strict_keywords
from ..layers import saving as _layers_saving
from . import files, graph_io, keras_export
from . import options as _options
from .codec import Encoder
from .loaded import LoadedObject

FORMAT = "autograph-rt-saved-model"
VERSION = 1
DEFAULT = "serving_default"
CALL = "__call__"         # a module's __call__ saved beside explicit signatures
OVERLOAD = "__trace"      # name__trace1, name__trace2: more traces of the function `name`
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


@strict_keywords("rt.saved_model.save")
def save(obj, path, signatures=None, options=None) -> None:
    """Writes `obj`'s signatures and variables to the directory `path` (see the module doc).
    `options`, an `rt.saved_model.SaveOptions`, is accepted and has no effect."""
    _options.check(options, _options.SaveOptions, "rt.saved_model.save")
    document, arrays = build(obj, signatures)
    files.write_dir(path, document, arrays)


@strict_keywords("rt.saved_model.dumps")
def dumps(obj, signatures=None, options=None) -> bytes:
    """The saved form of `obj` as bytes (a zip of the two files); `loads` reads it back.
    `options` (an `rt.saved_model.SaveOptions`) is accepted and has no effect."""
    _options.check(options, _options.SaveOptions, "rt.saved_model.dumps")
    document, arrays = build(obj, signatures)
    return files.write_bytes(document, arrays)


def export_keras(model, path, verbose=None, input_signature=None) -> None:
    """`Model.export(path)`: the model's `serve` and `serving_default` signatures (Keras 3's
    endpoints) and its variables; `input_signature` (TensorSpecs) overrides the model's
    declared inputs. Prints the endpoints unless `verbose` is False, as Keras does."""
    functions = keras_export.export_signatures(model, input_signature)
    document, arrays = build(model, functions)
    document["call"] = "serve"
    files.write_dir(path, document, arrays)
    if verbose is None or verbose:
        serve = functions["serve"]
        print(f"Saved artifact at '{path}'. The following endpoints are available:\n\n"
              f"* Endpoint 'serve'\n  args_0 (POSITIONAL_ONLY): "
              f"{serve.structured_input_signature[0][0]!r}\nOutput Type:\n  "
              f"{serve.structured_outputs!r}")


_layers_saving.EXPORTERS["tf_saved_model"] = export_keras


def dumps_pure(concrete) -> tuple[bytes, list]:
    """(bytes, variables): `concrete` saved with the variables it reads as a last argument.

    The saved function takes `(*args, variables)`, `variables` being a tuple of their values
    in the order of the returned list; it holds no state, so it can be shipped once and run
    with fresh values each time.
    """
    document, arrays = build(concrete, variables_as_inputs=True)
    return files.write_bytes(document, arrays), graph_io.variables_read(concrete)


def build(obj, signatures=None, variables_as_inputs: bool = False):
    """(document, arrays) for `obj`.

    With `variables_as_inputs`, every variable a function reads becomes an extra input
    (a tuple argument `variables`, in the order of `document["lifted"]`): the saved function
    is pure and holds no variable values.
    """
    kind, functions, call, aliases, owned = _signatures_of(obj, signatures)
    overloads = _overload_groups(functions)
    variables = list(owned)
    seen = {id(v) for v in variables}
    for concrete in functions.values():
        for var in graph_io.variables_read(concrete):
            if id(var) not in seen:
                seen.add(id(var))
                variables.append(var)
    lifted = variables if variables_as_inputs else None
    index = {} if variables_as_inputs else {id(v): i for i, v in enumerate(variables)}
    encoder = Encoder(lambda v: index.get(id(v)) if graph_io.is_variable(v) else None,
                      graph_io.SLOT_TYPE, graph_io.OUTPUT_TYPE)
    entries = [graph_io.encode_function(c, name, encoder, lifted) for name, c in functions.items()]
    arrays = dict(encoder.arrays)
    variable_entries = []
    if not variables_as_inputs:
        for i, var in enumerate(variables):
            state = graph_io.variable_state(var)
            key = f"v{i}"
            arrays[key] = state.pop("value")
            variable_entries.append({"key": key, **state})
    document = {"format": FORMAT, "version": VERSION, "kind": kind, "call": call,
                "aliases": aliases, "variables": variable_entries, "functions": entries}
    if overloads:
        document["overloads"] = overloads
    if not variables_as_inputs:
        _add_object_attributes(document, obj, signatures, index)
    return document, arrays


def _add_object_attributes(document: dict, obj, signatures, index: dict) -> None:
    """Records which saved functions are signatures (a module saved without `signatures=`
    has none, as in TensorFlow: its functions stay callable as attributes) and the attribute
    paths of its variables (`v`, `inner.kernel`), so the loaded object exposes them."""
    if isinstance(obj, LoadedObject):
        if obj._signature_names is not None:
            document["signatures"] = list(obj._signature_names)
        paths = {path: index[id(v)] for path, v in obj._attributes.items() if id(v) in index}
    elif graph_io.is_module(obj) and not graph_io.is_layer(obj):
        document["signatures"] = [] if signatures is None else list(_named(signatures))
        paths = dict(_variable_paths(obj, index))
    else:
        return
    if paths:
        document["attributes"] = paths


def _variable_paths(obj, index: dict, prefix: str = "", depth: int = 0):
    """(dotted attribute path, variable index) for variables reached through public
    attributes of modules, depth first, attribute names sorted."""
    if depth > 16:
        return
    for name, value in sorted(vars(obj).items()):
        if not IDENTIFIER.match(name) or name.startswith("_"):
            continue
        if graph_io.is_variable(value) and id(value) in index:
            yield prefix + name, index[id(value)]
        elif getattr(value, "_rt_not_saved", None):  # an Asset or a TrackableResource
            raise NotImplementedError(f"rt.saved_model.save: {prefix}{name} is an "
                                      f"{value._rt_not_saved}, which is not written into "
                                      "saved objects here; keep it out of the saved module.")
        elif graph_io.is_module(value):
            yield from _variable_paths(value, index, f"{prefix}{name}.", depth + 1)


def _signatures_of(obj, signatures):
    """(kind, {name: ConcreteFunction}, call name, aliases, variables the object owns)."""
    if isinstance(obj, LoadedObject):
        if signatures is not None:
            raise ValueError("A loaded object is saved with its own signatures.")
        functions = dict(obj._functions)
        for name, group in obj._overloads.items():
            functions.update({f"{name}{OVERLOAD}{k}": c for k, c in enumerate(group[1:], 1)})
        return obj.kind, functions, obj._call, dict(obj._aliases), obj.variables
    if graph_io.is_layer(obj):
        if signatures is None and not _has_traced_call(obj):
            functions = _named(keras_export.saved_model_signatures(obj))
            return "model", functions, "serve", {}, obj.variables
        functions = _named(signatures if signatures is not None else _layer_call(obj))
        return "model", functions, DEFAULT if DEFAULT in functions else None, {}, obj.variables
    if graph_io.is_module(obj):
        if signatures is None:
            functions, aliases = _module_functions(obj)
            call = DEFAULT if DEFAULT in functions else None
            return "module", functions, call, aliases, list(obj.variables)
        functions = _named(signatures)
        call = DEFAULT if DEFAULT in functions else None
        for name, fn in _traced_methods(obj).items():  # callable as attributes, as in TF
            key = CALL if name == "__call__" else name
            if key not in functions:
                functions.update(_named({key: fn}))
                call = CALL if key == CALL else call
        return "module", functions, call, {}, list(obj.variables)
    if signatures is None:
        signatures = obj
    functions = _named(signatures)
    aliases = {}
    name = getattr(obj, "__name__", None)
    if signatures is obj and isinstance(name, str) and IDENTIFIER.match(name) and name != DEFAULT:
        aliases[name] = DEFAULT
    call = DEFAULT if len(functions) == 1 and DEFAULT in functions else None
    return "function", functions, call, aliases, []


def _has_traced_call(layer) -> bool:
    call = getattr(layer, "call", None)
    return graph_io.is_function(call) and call.input_signature is not None


def _layer_call(layer):
    call = getattr(layer, "call", None)
    if graph_io.is_function(call) and call.input_signature is not None:
        return call
    raise ValueError(f"Saving {type(layer).__name__}: its call is not an rt.function with an "
                     "input_signature, so pass signatures= (a concrete function, or a dict of "
                     "them), e.g. rt.function(lambda x: model(x), input_signature=[...]).")


def _module_functions(module) -> tuple[dict, dict]:
    """({name: ConcreteFunction}, aliases) of an `rt.Module`'s `rt.function` attributes that
    have an input_signature, or were traced (each trace is saved): `__call__` is saved as the
    default signature (what the loaded object's `__call__` runs), as is a single other
    function, which keeps its name too."""
    found = _traced_methods(module)
    if not found:
        raise ValueError(f"Saving {type(module).__name__}: it has no rt.function with an "
                         "input_signature or a trace (e.g. @rt.function(input_signature=["
                         "rt.TensorSpec(...)]) on __call__, or call it once before saving), so "
                         "pass signatures= (a concrete function, or a dict of them).")
    call = found.pop("__call__", None)
    if call is None and len(found) == 1:
        (name, fn), = found.items()
        return _named({DEFAULT: fn}), ({name: DEFAULT} if name != DEFAULT else {})
    if call is not None:
        if DEFAULT in found:
            raise ValueError(f"Saving {type(module).__name__}: __call__ is saved as "
                             f"{DEFAULT!r}, which another function is named too.")
        found = {DEFAULT: call, **found}
    return _named(found), {}


def _traced_methods(module) -> dict:
    """{name: Function or its traces} of a module's `rt.function` attributes that have an
    input_signature or were traced."""
    found: dict = {}
    names = [name for name in dir(type(module))
             if graph_io.is_function(inspect.getattr_static(module, name, None))]
    names += [name for name, value in vars(module).items() if graph_io.is_function(value)]
    for name in dict.fromkeys(names):
        fn = getattr(module, name)
        if not (name == "__call__" or IDENTIFIER.match(name)):
            continue
        if fn.input_signature is not None:
            found[name] = fn
            continue
        traced = fn.list_concrete_functions()
        if traced:      # saved as traced, every trace, as TensorFlow saves them
            found[name] = traced if len(traced) > 1 else traced[0]
    return found


def _named(signatures) -> dict:
    if isinstance(signatures, dict):
        items = list(signatures.items())
    elif isinstance(signatures, (list, tuple)):
        items = [(DEFAULT if i == 0 else getattr(s, "name", f"f{i}"), s)
                 for i, s in enumerate(signatures)]
    else:
        items = [(DEFAULT, signatures)]
    if not items:
        raise ValueError("There is nothing to save: signatures is empty.")
    out = {}
    for name, fn in items:
        if not isinstance(name, str) or not IDENTIFIER.match(name) or _overload_of(name):
            raise ValueError(f"Signature name {name!r} must be a Python identifier not ending "
                             f"in {OVERLOAD}<number>.")
        if name in out:
            raise ValueError(f"Two signatures are named {name!r}.")
        if isinstance(fn, list):    # the traces of one function: name, name__trace1, ...
            out.update({(f"{name}{OVERLOAD}{k}" if k else name): _concrete(c, name)
                        for k, c in enumerate(fn)})
        else:
            out[name] = _concrete(fn, name)
    return out


def _overload_of(key: str) -> str | None:
    """The function name `key` is a further trace of (`name__trace2` -> `name`), or None."""
    base, sep, index = key.rpartition(OVERLOAD)
    return base if sep and index.isdigit() and base else None


def _overload_groups(functions: dict) -> dict:
    """{name: [name, name__trace1, ...]} for functions saved with several traces."""
    groups: dict = {}
    for key in functions:
        base = _overload_of(key)
        if base is not None and base in functions:
            groups.setdefault(base, [base]).append(key)
    return groups


def _concrete(fn, name):
    if graph_io.is_concrete(fn):
        again = getattr(fn, "_trace_again", None)   # TensorFlow's save traces it once more
        return fn if again is None else again()
    if graph_io.is_function(fn):
        if fn.input_signature is None:
            raise ValueError(f"Signature {name!r}: {fn!r} has no input_signature; pass "
                             "fn.get_concrete_function(...) for the shapes to save.")
        return fn.get_concrete_function()
    raise ValueError(f"Signature {name!r}: expected an rt.function or a concrete function, got "
                     f"{type(fn).__name__}.")
