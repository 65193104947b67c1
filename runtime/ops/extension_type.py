"""Composite values (TensorFlow's `CompositeTensor` / `TypeSpec`) and user extension types
(`rt.experimental.ExtensionType`, `BatchableExtensionType`).

A composite value is made of component tensors and Python values. An extension type declares
its fields with annotations; its instances are dataclass nests (see `autograph.nest`), so
`rt.function` keys them by their fields (tensors by shape and dtype, Python values by value),
`cond`, `while_loop` and autograph's loops carry them, and results are rebuilt through
`__nest_from_fields__` without running the class's `__init__` again.

    class MaskedTensor(rt.experimental.ExtensionType):
        values: rt.Tensor
        mask: rt.Tensor

        def __validate__(self):
            self.values.shape.assert_is_compatible_with(self.mask.shape)

Each class gets a `Spec` (a `TypeSpec`: TensorSpecs in place of tensors) usable in
`input_signature`, `get_concrete_function` and `rt.type_spec_from_value`. Classes are
registered by their `__name__` (the class attribute when given, else module and qualified
name): loading saved data looks types up in that registry only, never imports a module.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import sys
import typing
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from .. import nest
from ..exports import export
from ..shapes import TensorShape, TensorSpec
from ..tensor import Tensor
from . import core as _core
from .array_math import equal as _equal
from .array_math import logical_and, logical_not, reduce_all
from .core import constant, convert_to_tensor

_REGISTRY: dict[str, type] = {}
_NAMES: dict[type, str] = {}  # the built-in composite classes' registered names
_BASES: set = set()


# -- the protocol ------------------------------------------------------------------------------

@export("TypeSpec", "types.experimental.TypeSpec")
class TypeSpec:
    """Describes a composite value without its tensors' contents: `value_type`, and how the
    value splits into components (`_to_components`) and is rebuilt (`_from_components`)."""

    @property
    def value_type(self) -> type:
        raise NotImplementedError

    def _to_template(self) -> Any:
        """A value of `value_type` whose tensors are TensorSpecs (what `rt.function` traces)."""
        raise NotImplementedError

    @property
    def _component_specs(self) -> list:
        return nest.flatten(self._to_template())

    def _to_components(self, value: Any) -> list:
        return nest.flatten(value)

    def _from_components(self, components: list) -> Any:
        return nest.pack_sequence_as(self._to_template(), list(components))

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """True when `spec_or_value` has this structure and fitting tensors."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else \
            type_spec_from_value(spec_or_value)
        if not isinstance(other, TypeSpec) or other.value_type is not self.value_type:
            return False
        mine, theirs = self._to_template(), other._to_template()
        if nest.structure_signature(mine) != nest.structure_signature(theirs):
            return False
        return all(_leaf_compatible(a, b) for a, b in zip(nest.flatten(mine), nest.flatten(theirs)))


def _leaf_compatible(a: Any, b: Any) -> bool:
    if isinstance(a, TensorSpec):
        return isinstance(b, TensorSpec) and a.is_compatible_with(b)
    return type(a) is type(b) and a == b


class CompositeTensor:
    """A value made of tensors that `rt.function`, `rt.nest` and datasets treat as one value."""

    @property
    def _type_spec(self) -> TypeSpec:
        raise NotImplementedError


_core.refuse_conversion(CompositeTensor)


def as_templates(structure: Any) -> Any:
    """`structure` with each TypeSpec replaced by its template (TensorSpecs in place of the
    tensors of its value): what `input_signature` and `get_concrete_function` trace with."""
    if isinstance(structure, TypeSpec):
        return structure._to_template()
    if isinstance(structure, (list, tuple, dict)):
        leaves = nest.flatten(structure)
        if any(isinstance(leaf, TypeSpec) for leaf in leaves):
            return nest.pack_sequence_as(structure, [as_templates(leaf) for leaf in leaves])
    return structure


@export("type_spec_from_value")
def type_spec_from_value(value: Any) -> TypeSpec | TensorSpec:
    """The TypeSpec of `value`: a TensorSpec for a tensor, the `Spec` of an extension type."""
    spec = getattr(value, "_type_spec", None)
    if spec is not None:
        return spec
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, TensorSpec):
        return value
    try:
        tensor = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"type_spec_from_value: could not build a TypeSpec for {value!r:.80}; "
                        "pass a tensor, a composite value or a value convertible to a tensor."
                        ) from None
    return TensorSpec(tensor.shape, tensor.dtype)


# -- field annotations -------------------------------------------------------------------------

class ImmutableDict(dict):
    """The value of a `Mapping` field: a dict that cannot be changed."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("The Mapping field of an ExtensionType is immutable; build a new value "
                        "instead.")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _refuse  # type: ignore

    def __repr__(self) -> str:
        return f"ImmutableDict({dict.__repr__(self)})"

    def __hash__(self) -> int:  # type: ignore[override]  # by keys (equal dicts have equal keys): a field default may be one
        return hash(frozenset(self))


def _origin(annotation: Any) -> Any:
    return typing.get_origin(annotation)


def convert_field(value: Any, annotation: Any, where: str) -> Any:
    """`value` converted to a field's declared type; TypeError naming `where` otherwise."""
    if annotation is Any or annotation is None and value is None:
        return value
    if isinstance(value, TensorSpec) or _is_symbolic_template(value):
        return value
    origin = _origin(annotation)
    if origin is typing.Union:
        return _convert_union(value, typing.get_args(annotation), where)
    if origin in (tuple, collections.abc.Sequence):
        return _convert_tuple(value, typing.get_args(annotation), where)
    if origin in (dict, collections.abc.Mapping):
        return _convert_mapping(value, typing.get_args(annotation), where)
    if annotation is Tensor:
        return _convert_tensor(value, where)
    if annotation is TensorShape:
        return _convert_with(TensorShape, value, where, "a TensorShape")
    if annotation is _dtypes.DType:
        return _convert_with(_dtypes.as_dtype, value, where, "a DType")
    if isinstance(annotation, type):
        if isinstance(value, annotation):
            return value
        raise TypeError(f"{where}: expected {_type_name(annotation)!r}, got "
                        f"{type(value).__name__!r} ({value!r:.60}).")
    return value


def _is_symbolic_template(value: Any) -> bool:
    return isinstance(value, TypeSpec)


def _convert_with(fn: Callable, value: Any, where: str, what: str) -> Any:
    try:
        return fn(value)
    except (TypeError, ValueError):
        raise TypeError(f"{where}: expected {what}, got {value!r:.80}.") from None


def _convert_tensor(value: Any, where: str) -> Any:
    if isinstance(value, Tensor):
        return value
    if value is None:  # TensorFlow's words, then the fix
        raise TypeError(f"{where}: expected a Tensor, got 'NoneType'; pass a tensor or a value "
                        "convertible to one.")
    if isinstance(value, CompositeTensor):
        raise TypeError(f"{where}: expected a Tensor, got {type(value).__name__}.")
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where}: expected a Tensor, got {value!r:.80} ({exc}).") from None


def _convert_union(value: Any, options: tuple, where: str) -> Any:
    if value is None and type(None) in options:
        return None
    for option in options:  # an exact instance first: Union[str, Tensor] keeps a str a str
        if isinstance(option, type) and _origin(option) is None and isinstance(value, option):
            return value
    for option in options:
        if option is type(None):
            continue
        try:
            return convert_field(value, option, where)
        except (TypeError, ValueError):
            continue
    names = ", ".join(_type_name(o) for o in options)
    raise TypeError(f"{where}: expected one of ({names}), got {value!r:.80}.")


def _convert_tuple(value: Any, args: tuple, where: str) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{where}: expected a tuple, got {value!r:.80}.")
    if not args:
        return tuple(value)
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(convert_field(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
    if len(args) != len(value):
        raise TypeError(f"{where}: expected a tuple of {len(args)} items, got {len(value)}.")
    return tuple(convert_field(v, a, f"{where}[{i}]") for i, (v, a) in enumerate(zip(value, args)))


def _convert_mapping(value: Any, args: tuple, where: str) -> ImmutableDict:
    if not isinstance(value, collections.abc.Mapping):
        raise TypeError(f"{where}: expected a Mapping, got {value!r:.80}.")
    key_type, value_type = args if len(args) == 2 else (Any, Any)
    return ImmutableDict((convert_field(k, key_type, f"{where} key"),
                        convert_field(v, value_type, f"{where}[{k!r}]")) for k, v in value.items())


def _type_name(annotation: Any) -> str:
    if annotation is Tensor:
        return "tf.Tensor"
    return getattr(annotation, "__name__", None) or repr(annotation)


# -- ExtensionType -----------------------------------------------------------------------------

def _own_annotations(cls: type) -> dict:
    return dict(cls.__dict__.get("__annotations__", {}))


def _resolved_hints(cls: type) -> dict:
    """The field annotations of `cls`, forward references resolved where they can be."""
    hints = cls.__dict__.get("_rt_hints")
    if hints is not None:
        return hints
    module = sys.modules.get(cls.__module__)
    globalns = dict(vars(module)) if module is not None else {}
    localns = {cls.__name__: cls}
    hints = {}
    for base in reversed(cls.__mro__):
        if base in _BASES or not issubclass(base, ExtensionType):
            continue
        for name, annotation in _own_annotations(base).items():
            if isinstance(annotation, str):
                try:
                    annotation = eval(annotation, globalns, localns)  # noqa: S307 - the user's own source
                except Exception:
                    annotation = Any
            hints[name] = _resolve_forward(annotation, globalns, localns)
    if all(_is_resolved(a) for a in hints.values()):
        cls._rt_hints = hints  # type: ignore[attr-defined]
    return hints


def _resolve_forward(annotation: Any, globalns: dict, localns: dict) -> Any:
    try:
        return typing._eval_type(annotation, globalns, localns)  # type: ignore[attr-defined]
    except Exception:
        return Any


def _is_resolved(annotation: Any) -> bool:
    return not isinstance(annotation, (str, typing.ForwardRef))


def _field_names(cls: type) -> tuple:
    return tuple(f.name for f in dataclasses.fields(cls))


class ExtensionType(CompositeTensor):
    """A user-defined composite value: fields declared with annotations (`rt.Tensor`,
    `rt.TensorShape`, `rt.DType`, Python types, nested extension types, `Tuple[...]`,
    `Mapping[...]`, `Union[...]`), converted and checked when built, then immutable.
    `__validate__(self)`, when defined, runs after the fields are set."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__module__ == __name__:  # BatchableExtensionType: a base, no fields
            return
        encoder = cls.__dict__.get("__batch_encoder__")
        if encoder is not None and not getattr(encoder, "_rt_default_encoding", False):
            raise NotImplementedError(
                f"{cls.__name__}.__batch_encoder__: a custom batch encoding is not supported "
                "here; values are batched field by field (rt.experimental."
                "ExtensionTypeBatchEncoder's default).")
        user_init = cls.__dict__.get("__init__")
        for name in _own_annotations(cls):  # `= []` / `= {}` defaults, immutable as TF keeps them
            default: Any = cls.__dict__.get(name)
            if type(default) in (list, set):
                setattr(cls, name, tuple(default))
            elif type(default) is dict:  # a factory: Python 3.10's dataclasses refuse dict defaults
                frozen = ImmutableDict(default)
                setattr(cls, name, dataclasses.field(default_factory=lambda frozen=frozen: frozen))
        dataclasses.dataclass(init=False, repr=False, eq=False)(cls)
        cls.__init__ = _wrapped_init(cls, user_init or _default_init)  # type: ignore[method-assign]
        cls.Spec = _make_spec_class(cls, cls.__dict__.get("Spec"))  # type: ignore[attr-defined]
        _register_class(cls)

    @classmethod
    def __nest_from_fields__(cls, fields: dict) -> Any:
        """An instance holding `fields` as they are (no conversion, no `__validate__`)."""
        value = object.__new__(cls)
        value.__dict__.update(fields)
        value.__dict__["_rt_frozen"] = True
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_rt_frozen"):
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom "
                                 "constructor of ExtensionType.")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_rt_frozen"):
            raise AttributeError(f"Cannot mutate attribute `{name}` outside the custom "
                                 "constructor of ExtensionType.")
        object.__delattr__(self, name)

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in _field_names(type(self)))
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        """A scalar bool tensor: same type, same static shapes and equal fields."""
        if type(other) is not type(self):
            return constant(False)
        result = constant(True)
        for a, b in zip(nest.flatten(self), nest.flatten(other)):
            if isinstance(a, Tensor) and isinstance(b, Tensor):
                if a.dtype is not b.dtype or (a.shape.is_fully_defined() and b.shape.is_fully_defined()
                                              and a.shape.as_list() != b.shape.as_list()):
                    return constant(False)
                result = logical_and(result, reduce_all(_equal(a, b)))
            elif isinstance(a, Tensor) or isinstance(b, Tensor) or not _python_equal(a, b):
                return constant(False)
        return result

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        return logical_not(self.__eq__(other))

    __hash__ = None  # type: ignore[assignment]

    @property
    def _type_spec(self) -> TypeSpec:
        return type(self).Spec.from_value(self)  # type: ignore[attr-defined]


def _python_equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _register_class(cls: type) -> None:
    """Registers `cls` by name; an explicit `__name__` that another class holds is refused, as
    TensorFlow does (a class without one may be redefined, as in a notebook)."""
    name = registered_name(cls)
    held = _REGISTRY.get(name)
    if held is not None and held is not cls and isinstance(cls.__dict__.get("__name__"), str):
        raise ValueError(f"Name {name} has already been registered for class "
                         f"{held.__module__}.{held.__qualname__}; give this class another "
                         "`__name__`.")
    _REGISTRY[name] = cls


def register_composite(cls: type, name: str) -> None:
    """Registers a built-in composite dataclass (ragged and sparse tensors) under `name`, so
    saved files can hold its values."""
    _NAMES[cls] = name
    _REGISTRY[name] = cls


def from_fields(cls: type, fields: dict) -> Any:
    """A value of the composite class `cls` holding `fields` as they are."""
    build = getattr(cls, "__nest_from_fields__", None)
    if build is not None:
        return build(fields)
    value: Any = object.__new__(cls)
    value.__dict__.update(fields)
    return value


def is_registered_composite(value: Any) -> bool:
    """True for a value whose class saved files can name (see `registered_name`)."""
    return isinstance(value, ExtensionType) or type(value) in _NAMES


def registered_name(cls: type) -> str:
    """The name a class is saved under: its `__name__` class attribute, else module.qualname."""
    if cls in _NAMES:
        return _NAMES[cls]
    own = cls.__dict__.get("__name__")
    return own if isinstance(own, str) else f"{cls.__module__}.{cls.__qualname__}"


def lookup_registered(name: str) -> type:
    """The extension type registered under `name` (only classes this program defined)."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"No ExtensionType named {name!r} is defined in this program; define "
                         "the class (with the same `__name__`) before loading.") from None


def _default_init(self: Any, *args: Any, **kwargs: Any) -> None:
    names = _field_names(type(self))
    if len(args) > len(names):
        raise TypeError(f"{type(self).__name__}() takes {len(names)} fields, got {len(args)} "
                        "positional arguments.")
    given = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {key!r}; "
                            f"its fields are {list(names)}.")
        if key in given:
            raise TypeError(f"{type(self).__name__}() got multiple values for field {key!r}.")
        given[key] = value
    for name in names:
        if name in given:
            object.__setattr__(self, name, given[name])


def _wrapped_init(cls: type, init: Callable) -> Callable:
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if type(self) is cls:
            _finish(self)
    __init__.__doc__ = init.__doc__
    __init__.__wrapped__ = init  # type: ignore[attr-defined]
    return __init__


def _finish(self: Any) -> None:
    """Converts each field to its declared type, runs `__validate__`, freezes the value."""
    cls = type(self)
    hints = _resolved_hints(cls)
    for f in dataclasses.fields(cls):
        where = f.name
        if f.name in self.__dict__:
            value = self.__dict__[f.name]
        elif f.default is not dataclasses.MISSING:
            value = f.default
        elif f.default_factory is not dataclasses.MISSING:
            value = f.default_factory()
        else:
            raise TypeError(f"{cls.__name__}() missing a value for field {f.name!r}.")
        object.__setattr__(self, f.name, convert_field(value, hints.get(f.name, Any), where))
    validate = getattr(cls, "__validate__", None)
    if validate is not None:
        validate(self)
    self.__dict__["_rt_frozen"] = True


@export("experimental.BatchableExtensionType")
class BatchableExtensionType(ExtensionType):
    """An extension type whose values can be batched and unbatched (datasets, `map_fn`): each
    tensor field gains or loses a leading dimension, a `TensorShape` field (the batch shape)
    too."""


export("experimental.ExtensionType")(ExtensionType)
_BASES.update({ExtensionType, BatchableExtensionType})


# -- generated Spec classes --------------------------------------------------------------------

class ExtensionTypeSpec(TypeSpec):
    """The TypeSpec of an extension type: its fields, with TensorSpecs in place of tensors and
    the Specs of nested extension types in place of those values."""

    _value_type: type = object

    @property
    def value_type(self) -> type:
        return self._value_type

    @classmethod
    def from_value(cls, value: Any) -> Any:
        """The spec of `value` (an instance of this spec's value type)."""
        spec = object.__new__(cls)
        for name in _field_names(cls._value_type):
            spec.__dict__[name] = _spec_of_field(getattr(value, name))
        return spec

    def _fields(self) -> dict:
        return {n: getattr(self, n) for n in _field_names(self._value_type)}

    def _to_template(self) -> Any:
        fields = {n: _template_of_field(v) for n, v in self._fields().items()}
        return self._value_type.__nest_from_fields__(fields)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={v!r}" for n, v in self._fields().items())
        return f"{self._value_type.__name__}.Spec({inner})"

    def _key(self) -> tuple:
        return (self._value_type, tuple((n, _hashable(v)) for n, v in self._fields().items()))

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ExtensionTypeSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def _spec_of_field(value: Any) -> Any:
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype)
    if isinstance(value, (CompositeTensor, TypeSpec)) or hasattr(value, "_type_spec"):
        return value if isinstance(value, TypeSpec) else value._type_spec
    if isinstance(value, dict):
        return ImmutableDict((k, _spec_of_field(v)) for k, v in value.items())
    if isinstance(value, tuple):
        return tuple(_spec_of_field(v) for v in value)
    return value


def _template_of_field(value: Any) -> Any:
    if isinstance(value, TypeSpec):
        return value._to_template()
    if isinstance(value, dict):
        return ImmutableDict((k, _template_of_field(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(_template_of_field(v) for v in value)
    return value


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted(((k, _hashable(v)) for k, v in value.items()), key=lambda kv: repr(kv[0])))
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, np.ndarray):
        return (value.shape, value.dtype.str, value.tobytes())
    return value


def _make_spec_class(cls: type, user_spec: type | None) -> type:
    """`cls.Spec`: the user's nested `class Spec` (when given) over ExtensionTypeSpec."""
    bases: tuple = (ExtensionTypeSpec,)
    namespace: dict = {"_value_type": cls, "__qualname__": f"{cls.__qualname__}.Spec",
                       "__module__": cls.__module__}
    if user_spec is not None and not issubclass(user_spec, ExtensionTypeSpec):
        bases = (user_spec, ExtensionTypeSpec)
    else:
        if user_spec is not None:  # `class Spec(rt.experimental.ExtensionTypeSpec)`: its methods
            bases = (user_spec,)
        namespace["__init__"] = _spec_init
    return type("Spec", bases, namespace)


def _spec_init(self: Any, *args: Any, **kwargs: Any) -> None:
    names = _field_names(self._value_type)
    given = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names:
            raise TypeError(f"{self._value_type.__name__}.Spec() got an unexpected keyword "
                            f"argument {key!r}; its fields are {list(names)}.")
        given[key] = value
    for f in dataclasses.fields(self._value_type):
        if f.name in given:
            value = given[f.name]
        elif f.default is not dataclasses.MISSING:
            value = _spec_of_field(f.default)
        else:
            raise TypeError(f"{self._value_type.__name__}.Spec() missing a value for field "
                            f"{f.name!r}.")
        if isinstance(value, dict):
            value = ImmutableDict(value)
        elif isinstance(value, list):
            value = tuple(value)
        self.__dict__[f.name] = value


# -- components: the tensors of a nest, composite values' Python fields kept in the structure --

def is_static_field(value: Any) -> bool:
    """A composite's Python-valued field (a str, a TensorShape, a DType, ...): part of its
    structure, not one of its component tensors."""
    return not isinstance(value, (Tensor, TensorSpec, np.ndarray, np.generic, list, tuple, dict,
                                  CompositeTensor))


def flatten_components(value: Any) -> list:
    """The component tensors of `value` in `nest.flatten`'s order, without the Python-valued
    fields of extension types."""
    if isinstance(value, ExtensionType):
        out = []
        for name in _field_names(type(value)):
            field = getattr(value, name)
            if not is_static_field(field):
                out.extend(flatten_components(field))
        return out
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in flatten_components(v)]
    if isinstance(value, dict):
        return [leaf for k in _dict_order(value) for leaf in flatten_components(value[k])]
    return nest.flatten(value)


def pack_components(template: Any, leaves: list) -> Any:
    """A value shaped like `template` from `leaves` (the inverse of `flatten_components`)."""
    it = iter(leaves)
    out = _pack(template, it)
    if next(it, it) is not it:
        raise ValueError(f"pack_components: more leaves than {type(template).__name__} holds.")
    return out


def _pack(template: Any, it: Any) -> Any:
    if isinstance(template, ExtensionType):
        fields = {}
        for name in _field_names(type(template)):
            field = getattr(template, name)
            fields[name] = field if is_static_field(field) else _pack(field, it)
        return type(template).__nest_from_fields__(fields)
    if isinstance(template, (list, tuple)):
        items = [_pack(v, it) for v in template]
        if isinstance(template, list):
            return items
        return type(template)(*items) if hasattr(template, "_fields") else type(template)(items)
    if isinstance(template, dict):
        built = {k: _pack(template[k], it) for k in _dict_order(template)}
        return type(template)((k, built[k]) for k in template)
    if nest.is_nested(template):
        return nest.pack_sequence_as(template, [next(it) for _ in nest.flatten(template)])
    return next(it)


def _dict_order(d: dict) -> list:
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def has_composite(value: Any) -> bool:
    """True when `value` is or holds an extension type value."""
    if isinstance(value, ExtensionType):
        return True
    if isinstance(value, (list, tuple)):
        return any(has_composite(v) for v in value)
    if isinstance(value, dict):
        return any(has_composite(v) for v in value.values())
    return False


def batch_template(template: Any, batch_size: Any) -> Any:
    """`template` for a batch of `batch_size` values: the batch-shape (`TensorShape`) fields of
    batchable extension types gain a leading dimension."""
    return _rebatch(template, lambda shape: TensorShape([batch_size]).concatenate(shape))


def unbatch_template(template: Any) -> Any:
    """`template` for one value of a batch: batch-shape fields lose their leading dimension."""
    return _rebatch(template, lambda shape: shape[1:] if shape.rank else shape)


def _rebatch(template: Any, fix: Callable) -> Any:
    if isinstance(template, BatchableExtensionType):
        fields = {}
        for name in _field_names(type(template)):
            field = getattr(template, name)
            if isinstance(field, TensorShape):
                field = fix(field)
            elif not is_static_field(field):
                field = _rebatch(field, fix)
            fields[name] = field
        return type(template).__nest_from_fields__(fields)
    if isinstance(template, (list, tuple)) and has_composite(template):
        items = [_rebatch(v, fix) for v in template]
        if isinstance(template, list):
            return items
        return type(template)(*items) if hasattr(template, "_fields") else type(template)(items)
    if isinstance(template, dict) and has_composite(template):
        return type(template)((k, _rebatch(v, fix)) for k, v in template.items())
    return template


def trace_templates(structure: Any) -> Any:
    """`structure` with each composite value that defines `_trace_template()` (ragged and
    sparse tensors) replaced by that template: `rt.function` keys and traces those by their
    TypeSpec, not by the sizes of their components. Unchanged values are returned as is."""
    if hasattr(type(structure), "_trace_template"):
        return structure._trace_template()
    if type(structure) in (list, tuple) or (isinstance(structure, tuple) and hasattr(structure, "_fields")):
        items = [trace_templates(v) for v in structure]
        if all(a is b for a, b in zip(items, structure)):
            return structure
        if isinstance(structure, list):
            return items
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if type(structure) is dict:
        mapped = {k: trace_templates(v) for k, v in structure.items()}
        if all(mapped[k] is structure[k] for k in structure):
            return structure
        return mapped
    return structure


def as_type_specs(structure: Any) -> Any:
    """`structure` (a nest of TensorSpecs, as datasets hold their element structure) with each
    extension type template replaced by its `Spec`, as TensorFlow shows an `element_spec`."""
    if isinstance(structure, ExtensionType):
        return type(structure).Spec.from_value(structure)  # type: ignore[attr-defined]
    if isinstance(structure, tuple) and has_composite(structure):
        items = [as_type_specs(v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)
    if isinstance(structure, dict) and has_composite(structure):
        return type(structure)((k, as_type_specs(v)) for k, v in structure.items())
    return structure
