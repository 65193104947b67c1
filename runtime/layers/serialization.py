"""Layer configs: what `get_config()` returns and how `from_config()` rebuilds a layer.

Every layer records the arguments its constructor was called with, so `Layer.get_config()`
works for any layer (the runtime's own and yours) without writing one: the config is the
bound constructor arguments (defaults filled in) plus `name`, `trainable` and `dtype` (Keras
3's DTypePolicy config, runtime/layers/dtype_policy.py), with
values made JSON-friendly (activation functions become their names, initializers and nested
layers `{"class_name": ..., "config": ...}` dicts, dtypes their names, arrays lists).
`Layer.from_config(config)` calls the constructor with them again.

Classes and functions of your own are found by name when loading once they are registered
with `register_keras_serializable` (or passed as `custom_objects`).
"""

from __future__ import annotations

import contextlib
import inspect
import random
import sys
import threading
from typing import Any, Callable, Iterator

import numpy as np

from .. import context
from .. import dtypes as _dtypes
from ..graph import FuncGraph
from ..module import Module
from ..shapes import TensorShape
from . import activations as _activations
from . import dtype_policy as _dtype_policy
from . import function_source as _function_source
from . import initializers as _initializers
from . import regularizers as _regularizers
from .initializers import Initializer


class InitArguments:
    """The positional and keyword arguments a layer's constructor was called with (a plain
    holder, so the layers among them are not tracked as this layer's sublayers)."""

    __slots__ = ("args", "kwargs")

    def __init__(self, args: tuple, kwargs: dict) -> None:
        self.args, self.kwargs = args, kwargs


# -- registry ------------------------------------------------------------------------------

_REGISTERED: dict[str, Any] = {}
_REGISTERED_NAMES: dict[int, str] = {}


class _Scope(threading.local):
    def __init__(self) -> None:
        self.stack: list[dict] = []


_scope = _Scope()


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable:
    """A decorator registering a class or function as `"package>name"` (name defaults to
    its `__name__`), so that saved models using it can be loaded."""
    if not isinstance(package, str) or ">" in package:
        raise ValueError(f"register_keras_serializable: package must be a string without '>', "
                         f"got {package!r}.")

    def register(obj):
        key = f"{package}>{name or obj.__name__}"
        if key in _REGISTERED and _REGISTERED[key] is not obj \
                and getattr(_REGISTERED[key], "__qualname__", None) != obj.__qualname__:
            raise ValueError(f"{key!r} is already registered to {_REGISTERED[key]!r}.")
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise TypeError(f"register_keras_serializable: {obj.__name__} has no get_config "
                            "method.")
        _REGISTERED[key] = obj
        _REGISTERED_NAMES[id(obj)] = key
        return obj
    return register


def get_registered_name(obj) -> str:
    """`"package>name"` for a registered object, else its `__name__`."""
    return _REGISTERED_NAMES.get(id(obj), getattr(obj, "__name__", type(obj).__name__))


def get_custom_objects() -> dict:
    """The registry `register_keras_serializable` fills, by registered name; an entry added
    to it (`get_custom_objects()["MyLayer"] = MyLayer`) resolves that name when configs are
    deserialized, as in Keras."""
    return _REGISTERED


def get_registered_object(name: str, custom_objects: dict | None = None, module_objects=None):
    """The class or function saved under `name`, looked up in `custom_objects`, the active
    `custom_object_scope`s, the registry, then `module_objects` (None if not found)."""
    for table in ([custom_objects] if custom_objects else []) + _scope.stack[::-1]:
        if name in table:
            return table[name]
    if name in _REGISTERED:
        return _REGISTERED[name]
    short = [obj for key, obj in _REGISTERED.items() if key.rpartition(">")[2] == name]
    if len(short) == 1:
        return short[0]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


@contextlib.contextmanager
def custom_object_scope(*tables: dict) -> Iterator[None]:
    """Within the block, names in `tables` resolve to the given classes and functions when
    configs are deserialized (as `custom_objects` of `load_model` do)."""
    merged: dict = {}
    for table in tables:
        if table:
            merged.update(table)
    _scope.stack.append(merged)
    try:
        yield
    finally:
        _scope.stack.pop()


# -- weights a loading model may create --------------------------------------------------

class _Budget(threading.local):
    largest: int | None = None
    left = 0


_budget = _Budget()


@contextlib.contextmanager
def weight_budget(largest: int, total: int) -> Iterator[None]:
    """Within the block, `reserve_weight` refuses a weight of more than `largest` elements,
    or weights adding up to more than twice `total` (the sizes of a weights file's arrays):
    a config read from a file cannot make a layer allocate more than the file holds."""
    outer = (_budget.largest, _budget.left)
    _budget.largest, _budget.left = largest, 2 * total + 256
    try:
        yield
    finally:
        _budget.largest, _budget.left = outer


def reserve_weight(owner: str, shape: TensorShape) -> None:
    """Called by `Layer.add_weight` before it allocates: a ValueError when a model being
    loaded asks for more than its weights file holds (see `weight_budget`)."""
    if _budget.largest is None:
        return
    size = shape.num_elements()
    if size > _budget.largest or size > _budget.left:
        raise ValueError(f"load_model: the config makes {owner} a weight of shape {shape} "
                         f"({size} elements), but the file's weights hold at most "
                         f"{_budget.largest} elements each; the config does not match its "
                         "weights (a damaged or hostile file). Nothing was allocated.")
    _budget.left -= size


# -- values -> config ----------------------------------------------------------------------

_CODECS: dict[str, tuple[Callable, Callable]] = {}


def register_codec(kind: str, serialize: Callable, deserialize: Callable) -> None:
    """How values of a `kind` ("loss", "metric") go into a saved model's compile settings
    and come back (`rt.keras` registers its losses and metrics)."""
    _CODECS[kind] = (serialize, deserialize)


def has_codec(kind: str) -> bool:
    """True once a codec for `kind` is registered (`rt.keras` registers "loss" and "metric")."""
    return kind in _CODECS


def serialize_as(kind: str, value: Any) -> Any:
    codec = _CODECS.get(kind)
    return codec[0](value) if codec else serialize_value(value)


def deserialize_as(kind: str, value: Any) -> Any:
    codec = _CODECS.get(kind)
    return codec[1](value) if codec else deserialize_value(value)


def _activation_name(fn) -> str | None:
    return _activations.name_of(fn)


def serialize_value(value: Any) -> Any:
    """`value` as it goes into a config (see the module docstring); values that have no
    config form are returned unchanged (saving then reports them)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, _dtypes.DType):
        return value.name
    if isinstance(value, TensorShape):
        return value.as_list() if value.rank is not None else None
    if isinstance(value, tuple):
        return tuple(serialize_value(v) for v in value)
    if isinstance(value, list):
        return [serialize_value(v) for v in value]
    if isinstance(value, dict):
        return {k: serialize_value(v) for k, v in value.items()}
    if _is_layer(value):
        return serialize_layer(value)
    if _initializers.is_builtin(value):
        return _initializers.serialize(value)
    if isinstance(value, Initializer):
        return {"class_name": get_registered_name(type(value)),
                "config": serialize_value(value.get_config())}
    if inspect.isclass(value):
        return value
    if callable(value) and not hasattr(value, "get_config"):
        name = _activation_name(value)
        if name is not None:
            return name
        if id(value) in _REGISTERED_NAMES:
            return {"class_name": "function", "config": _REGISTERED_NAMES[id(value)]}
        public = _function_source.public_name(value)
        if public is not None:
            return {"class_name": "function", "config": public}
        if _function_source.is_lambda(value):
            return {"class_name": "__lambda__", "config": _function_source.lambda_config(value)}
        return value
    if hasattr(value, "get_config"):
        return {"class_name": get_registered_name(type(value)),
                "config": serialize_value(value.get_config())}
    return value


# Keys whose config value Keras 3 writes from the layer's normalized attribute: tuples of
# ints for kernel sizes, strides, pool sizes, paddings and croppings given as one int
_NORMALIZED_KEYS = ("kernel_size", "strides", "dilation_rate", "pool_size", "size", "padding",
                    "cropping", "output_padding", "target_shape", "dims")


def _keras_value(layer, key: str, value: Any) -> Any:
    """A constructor argument as Keras 3's `get_config` writes it: initializers,
    regularizers and constraints given by name as their `{"module", "class_name", "config",
    "registered_name"}` dicts, no activation as "linear", no data format as
    "channels_last", sizes and strides as the layer's tuples."""
    if key.endswith("_initializer") and (isinstance(value, (str, type)) or
                                         _initializers.is_builtin(value)):
        # made only to be described: the seed it takes must not move Python's `random` on
        # (Keras's get_config draws none, so a layer copied from its config, as
        # Bidirectional copies its layer, takes Keras's seeds)
        state = random.getstate()
        try:
            found = _initializers.get(value)
        finally:
            random.setstate(state)
        return _initializers.serialize(found) if _initializers.is_builtin(found) else value
    if key.endswith(("_regularizer", "_constraint")) and value is not None and \
            not isinstance(value, dict):
        # the constraints import the losses, which import this module: found loaded (a layer
        # taking a constraint has loaded them)
        module = _regularizers if key.endswith("_regularizer") else \
            sys.modules.get("runtime.layers.constraints")
        if module is None:
            return value
        base = module.Regularizer if module is _regularizers else module.Constraint
        found = module.get(value, key)
        if isinstance(found, base) and type(found).__module__ == module.__name__:
            return module.serialize(found)
        return value
    if key in ("activation", "recurrent_activation") and value is None:
        return "linear"
    if key == "data_format" and value is None:
        return "channels_last"
    if key in _NORMALIZED_KEYS and not isinstance(value, str):
        normalized = getattr(layer, key, None)
        if isinstance(normalized, tuple) and all(isinstance(v, (int, tuple))
                                                 for v in normalized):
            return normalized
    return value


def layer_config(layer) -> dict:
    """The default `get_config()`: the constructor's arguments (see the module docstring)."""
    cls = type(layer)
    captured = layer.__dict__.get("_init_arguments")
    args, kwargs = (captured.args, captured.kwargs) if captured is not None else ((), {})
    signature = inspect.signature(cls.__init__)
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError as exc:
        raise NotImplementedError(f"{cls.__name__}.get_config: the constructor arguments "
                                  f"cannot be recorded ({exc}); override get_config.") from None
    bound.apply_defaults()
    config: dict = {"name": layer.name, "trainable": layer.trainable,
                    "dtype": _dtype_policy.policy_config(_dtypes.as_dtype(layer.dtype))}
    for (key, value), param in zip(list(bound.arguments.items())[1:],
                                   list(signature.parameters.values())[1:]):
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                raise NotImplementedError(f"{cls.__name__}.get_config: *{key} arguments have no "
                                          "config form; override get_config.")
        elif param.kind is inspect.Parameter.VAR_KEYWORD:
            config.update({k: v for k, v in value.items() if k not in ("name", "trainable",
                                                                       "dtype")})
        elif key not in ("name", "trainable", "dtype"):
            config[key] = _keras_value(layer, key, value)
    config.pop("weights", None)
    kept_out = {"dynamic": False}  # keywords Keras 3's config leaves out at these values
    for klass in reversed(cls.__mro__):
        kept_out.update(klass.__dict__.get("_config_defaults_kept_out", {}))
    for key, default in kept_out.items():
        if key in config and type(config[key]) is type(default) and config[key] == default:
            del config[key]
    return {key: serialize_value(value) for key, value in config.items()}



def plain_dtype_config(layer) -> dict:
    """`layer_config` as the Keras 3 layers whose own get_config names the dtype by its name
    and leaves `trainable` out (SpatialDropout1D/2D/3D, Discretization) return it."""
    config = layer_config(layer)
    config.pop("trainable", None)
    config["dtype"] = _dtypes.as_dtype(layer.dtype).name
    return config

# {model class: builder(config)}: `Model.from_config` of a functional config builds a
# functional model, as Keras's; runtime.layers.functional fills it (it imports this module).
FUNCTIONAL_BUILDERS: dict[type, Callable[[dict], Any]] = {}
_FUNCTIONAL_KEYS = frozenset({"layers", "input_layers", "output_layers"})


def layer_from_config(cls, config: dict):
    """The default `from_config`: `cls(**config)`, with nested `{"class_name", "config"}`
    values rebuilt; `name`, `trainable`, `dtype` are set afterwards when the constructor
    does not take them. A functional model's config (what `Model.get_config()` returns)
    given to `Model.from_config` rebuilds the functional model."""
    builder = FUNCTIONAL_BUILDERS.get(cls)
    if builder is not None and isinstance(config, dict) and _FUNCTIONAL_KEYS <= config.keys():
        return builder(config)
    config = {key: value if key == "dtype" and _dtype_policy.is_policy_config(value)
              else deserialize_value(value) for key, value in dict(config).items()}
    params = inspect.signature(cls.__init__).parameters
    open_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    later = {}
    if not open_kwargs:
        for key in ("name", "trainable", "dtype"):
            if key in config and key not in params:
                later[key] = config.pop(key)
    layer = cls(**config)
    if "name" in later:
        layer._name = later["name"]
    if "trainable" in later:
        layer.trainable = bool(later["trainable"])
    return layer


# -- config -> values ------------------------------------------------------------------------

def _is_object_config(value) -> bool:
    return isinstance(value, dict) and "class_name" in value and "config" in value and \
        set(value) <= {"class_name", "config", "registered_name", "module", "name",
                       "inbound_nodes", "build_config"}


def deserialize_value(value: Any) -> Any:
    """Undoes `serialize_value` for the nested objects: `{"class_name", "config"}` dicts of
    layers, initializers, registered classes and functions become objects again."""
    if isinstance(value, list):
        return [deserialize_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(deserialize_value(v) for v in value)
    if not isinstance(value, dict):
        return value
    if not _is_object_config(value):
        return {k: deserialize_value(v) for k, v in value.items()}
    _check_names(value)
    name = value.get("registered_name") or value["class_name"]
    if value["class_name"] == "__lambda__":
        return _function_source.lambda_from_config(value["config"])
    if value["class_name"] == "function" and value["config"].startswith(
            _function_source.PREFIX):
        return _function_source.public_function(value["config"])
    if value["class_name"] == "function":
        fn = get_registered_object(value["config"])
        if fn is None:
            raise ValueError(f"Unknown function {value['config']!r}: register it with "
                             "register_keras_serializable or pass it in custom_objects.")
        return fn
    cls = get_registered_object(name) or _runtime_layer_class(value["class_name"]) \
        or _runtime_value_class(value["class_name"])
    if cls is None:
        raise ValueError(f"Unknown class {value['class_name']!r} in the config: classes are "
                         "found by name among this runtime's layers, initializers and "
                         "regularizers and the classes registered with "
                         "keras.saving.register_keras_serializable() or passed in "
                         "custom_objects.")
    if hasattr(cls, "from_config"):
        return cls.from_config(value["config"])
    return cls(**deserialize_value(value["config"]))


def _check_names(value: dict) -> None:
    """Refuses an object config whose names are not strings, and a Keras `"module"` outside
    `keras` and this runtime: classes are looked up by name, never imported from a module
    path a file names."""
    for key in ("class_name", "registered_name", "module"):
        if value.get(key) is not None and not isinstance(value[key], str):
            raise ValueError(f"A config's {key!r} must be a string, got {_short(value[key])}.")
    if value["class_name"] in ("function", "__lambda__"):
        expected = str if value["class_name"] == "function" else dict
        if not isinstance(value["config"], expected):
            raise ValueError(f"A {value['class_name']!r} config must be a {expected.__name__}, "
                             f"got {_short(value['config'])}.")
    module = value.get("module")
    if module is not None and module.split(".", 1)[0] not in ("keras", "runtime"):
        raise ValueError(f"The config of {value['class_name']!r} names the module {module!r}; "
                         "classes are found by name among this runtime's and registered "
                         "classes, never imported from a module path.")


def _short(value: Any, limit: int = 120) -> str:
    """`repr(value)`, cut to `limit` characters (configs read from files may be huge)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _runtime_value_class(class_name: str):
    """An initializer, regularizer or constraint class of this runtime named `class_name`, or
    None."""
    found = getattr(_initializers, str(class_name), None)
    if inspect.isclass(found) and issubclass(found, Initializer):
        return found
    for module in ("runtime.keras.regularizers", "runtime.layers.regularizers",
                   "runtime.layers.constraints"):
        found = getattr(sys.modules.get(module), str(class_name), None)
        if inspect.isclass(found) and callable(getattr(found, "from_config", None)) and \
                found.__module__ == module:
            return found
    return None


def _is_layer(value) -> bool:
    return isinstance(value, Module) and hasattr(value, "get_config") and \
        hasattr(value, "built")


def _runtime_layer_class(class_name: str):
    """A layer class of `runtime.layers` (looked up when loading, once the package is in)."""
    for module in ("runtime.layers", "runtime.layers.functional", "runtime.keras.tfsm_layer"):
        cls = getattr(sys.modules.get(module), str(class_name), None)
        if inspect.isclass(cls) and issubclass(cls, Module) and hasattr(cls, "from_config"):
            return cls
    return None


def build_symbolically(model, batch_input_shape: tuple, dtype) -> None:
    """Calls `model` on a placeholder of `batch_input_shape` in a throwaway graph, so that
    its layers create their weights (eagerly, as on a first call) without running."""
    graph = FuncGraph(f"{model.name}_build")
    with context.graph_scope(graph):
        model(graph.placeholder(TensorShape(batch_input_shape), _dtypes.as_dtype(dtype),
                                name="inputs"))


def serialize_layer(layer) -> dict:
    """`{"class_name", "config"}` (and `"registered_name"` for a registered class); a layer
    of this runtime's, as Keras 3 writes its own: `{"module": "keras.layers", "class_name",
    "config", "registered_name": None}`."""
    cls = type(layer)
    result = {"class_name": cls.__name__, "config": layer.get_config()}
    if id(cls) in _REGISTERED_NAMES:
        result["registered_name"] = _REGISTERED_NAMES[id(cls)]
    elif cls.__module__.startswith("runtime.layers") and \
            _runtime_layer_class(cls.__name__) is cls:
        result = {"module": "keras.layers", **result, "registered_name": None}
    # as Keras's serialize_keras_object: a built layer's (or model's) build config, so a
    # layer held by another (Bidirectional's, TimeDistributed's) carries its own
    build = getattr(layer, "get_build_config", None)
    build = build() if callable(build) else None
    if build is not None:
        result["build_config"] = build
    return result


def deserialize_layer(config: dict, custom_objects: dict | None = None):
    """The layer described by `{"class_name", "config"}`: a registered or `custom_objects`
    class, or one of `runtime.layers`."""
    if not isinstance(config, dict) or "class_name" not in config or \
            not isinstance(config.get("config", {}), dict):
        raise ValueError(f"A layer config is a dict with 'class_name' and a dict 'config', got "
                         f"{_short(config)}.")
    _check_names(config)
    with custom_object_scope(custom_objects or {}):
        name = config.get("registered_name") or config["class_name"]
        cls = get_registered_object(name) or get_registered_object(config["class_name"]) \
            or _runtime_layer_class(config["class_name"])
        if cls is None:
            raise ValueError(f"Unknown layer class {config['class_name']!r}: register it with "
                             "keras.saving.register_keras_serializable() or pass it in "
                             "custom_objects.")
        try:
            return cls.from_config(config.get("config", {}))
        except NotImplementedError as exc:  # a config this runtime cannot honour: bad input
            raise ValueError(f"The {config['class_name']} config cannot be loaded here: "
                             f"{exc}") from exc
