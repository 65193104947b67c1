"""Signatures: matching a call's values against the specs a function was traced for.

A spec is a `TensorSpec`, a nest, or a Python value the function was traced with. One
matcher, `match`, serves every check: binding a call of a concrete function, validating an
`input_signature`, and deciding whether an existing trace fits new arguments.
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import nest
from ..errors import SignatureMismatchError
from ..ops.extension_type import CompositeTensor
from ..ops.variables import VariableArgument
from ..shapes import TensorShape, TensorSpec
from ..tensor import DeviceTensor, EagerTensor, SymbolicTensor, Tensor, to_numpy_value
from ..tracing import spec_of
from .keys import leaf_key_or_none


def match(spec, value, where: str, values: list | None = None, convert: bool = True,
          lazy: bool = False) -> None:
    """Checks `value` against `spec`, raising TypeError or ValueError that starts with `where`.

    Appends the NumPy value of each tensor leaf to `values` when it is given (then TensorSpecs
    and symbolic tensors are refused: they have no value). With `convert=False` only tensors,
    arrays and TensorSpecs fill a TensorSpec, and their shapes must be subtypes of its shape:
    the test for reusing a trace, where Python values are part of the key. With `lazy`, a
    DeviceTensor gives its buffer as it is (`_lazy_value`: for a tier that takes it).
    """
    if isinstance(spec, TensorSpec):
        array = _tensor_leaf(spec, value, where, values is not None, convert, lazy)
        if values is not None:
            values.append(array)
    elif type(spec) is VariableArgument:
        if not spec.fits(value):
            raise TypeError(f"{where} is {value!r:.80}, but this concrete function was traced for "
                            f"a {spec.dtype.name} variable of shape {spec.shape}.")
        if values is not None:  # binding a call: the graph reads and writes this variable
            spec.bind(value)
    elif hasattr(type(spec), "_bind_argument"):  # a dataset or iterator stand-in
        if not spec._fits(value):
            raise TypeError(f"{where} is {value!r:.80}, but this concrete function was traced for "
                            f"{spec!r:.200}.")
        if values is not None:
            spec._bind_argument(value)
    elif nest.is_nested(spec):
        if not nest.is_nested(value) or nest.structure_signature(spec) != nest.structure_signature(value):
            raise TypeError(f"{where} has structure {structure_text(value)} but the function was "
                            f"traced for {structure_text(spec)}.")
        for s, v in zip(nest.flatten(spec), nest.flatten(value)):
            match(s, v, where, values, convert, lazy)
    elif value is not spec and not _same_python_value(value, spec):
        raise TypeError(f"{where} is {value!r:.60}, but this concrete function was traced with the "
                        f"Python value {spec!r:.60}. Call the Function to trace a new one.")


def _same_python_value(value, spec) -> bool:
    """True when `value` has the type and cache key of `spec` (so objects count by identity)."""
    if type(value) is not type(spec):
        return False
    key = leaf_key_or_none(value)
    return key is not None and key == leaf_key_or_none(spec)


def _tensor_leaf(spec: TensorSpec, value, where: str, need_value: bool, convert: bool,
                 lazy: bool = False):
    """The NumPy value of a leaf that `spec` describes (None for a TensorSpec or symbolic leaf)."""
    if isinstance(value, (TensorSpec, SymbolicTensor)):
        if need_value:
            what = "a TensorSpec" if isinstance(value, TensorSpec) else "a symbolic tensor of another graph"
            raise TypeError(f"{where} is {what}; pass a tensor or a NumPy value.")
        fits = value.shape.is_subtype_of(spec.shape) if isinstance(value, TensorSpec) or not convert \
            else spec.shape.is_compatible_with(value.shape)
        if value.dtype is not spec.dtype or not fits:
            received = repr(value) if isinstance(value, TensorSpec) else \
                f"a tensor of shape {value.shape} and dtype {value.dtype.name}"
            raise SignatureMismatchError(f"{where}: expected {spec!r}, received {received}.")
        return None
    if type(value) is EagerTensor:
        array = value._value
    elif type(value) is DeviceTensor:  # read as NumPy only for a tier that needs it
        array = value._value if need_value and not lazy else \
            value._lazy_value if need_value else value._box
    elif isinstance(value, (np.ndarray, np.generic)):
        array = value
        if not array.dtype.isnative:  # big-endian data: the graph runs on native values
            array = np.asarray(array).astype(array.dtype.newbyteorder("="))
    elif not convert:
        raise TypeError(f"{where} is {value!r:.60}, not a tensor.")
    else:
        array = _converted(spec, value, where)
    if array.dtype != spec.dtype._np:
        raise SignatureMismatchError(f"{where}: expected {spec!r}, received a tensor of dtype "
                                     f"{np.dtype(array.dtype).name} and shape {TensorShape(array.shape)}.")
    if not spec.shape.is_compatible_with(array.shape):
        raise SignatureMismatchError(f"{where}: expected {spec!r}, received a tensor of shape "
                                     f"{TensorShape(array.shape)} (dtype {np.dtype(array.dtype).name}).")
    return array


def _converted(spec: TensorSpec, value, where: str):
    """The NumPy value of a variable or Python value passed for a tensor."""
    if hasattr(value, "_as_tensor"):
        tensor = value._as_tensor()
        if type(tensor) is EagerTensor or type(tensor) is DeviceTensor:
            return tensor._value
        if isinstance(tensor, Tensor):
            raise TypeError(f"{where} is a symbolic tensor of another graph.")
        value = tensor
    try:
        return to_numpy_value(value, spec.dtype)
    except TypeError as exc:
        raise TypeError(f"{where}: expected {spec!r}, received {value!r:.60}: {exc}") from None


def fits(signature: tuple, args: tuple, kwargs: dict) -> bool:
    """True when the call (args, kwargs) can reuse the trace of `signature` (supertype shapes)."""
    sig_args, sig_kwargs = signature
    if len(args) != len(sig_args) or set(kwargs) != set(sig_kwargs):
        return False
    try:
        for spec, value in zip(sig_args, args):
            match(spec, value, "", convert=False)
        for key, value in kwargs.items():
            match(sig_kwargs[key], value, "", convert=False)
    except (TypeError, ValueError):
        return False
    return True


def has_tensor_leaf(args: tuple, kwargs: dict) -> bool:
    """True when some leaf of the call is a tensor, a numeric array or a TensorSpec."""
    return any(spec_of(leaf) is not None for leaf in nest.flatten((list(args), kwargs)))


def validate_input_signature(input_signature, sig: inspect.Signature | None, name: str) -> tuple:
    """`input_signature` as a tuple, after checking it holds only TensorSpecs."""
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(f"{name}: input_signature must be a list or tuple of TensorSpecs, got "
                        f"{input_signature!r}.")
    for spec in nest.flatten(list(input_signature)):
        if not isinstance(spec, TensorSpec):
            raise TypeError(f"{name}: input_signature must contain only TensorSpecs, got {spec!r}.")
    if sig is not None:
        for p in sig.parameters.values():
            if p.kind == p.VAR_KEYWORD:
                raise TypeError(f"{name}: a function with **{p.name} cannot have an "
                                "input_signature; name its arguments instead.")
    return tuple(input_signature)


def bind_arguments(sig: inspect.Signature | None, args: tuple, kwargs: dict, fname: str):
    """(args, kwargs) bound to the parameters of `sig`, defaults applied: a tuple for the
    positional parameters and `*args`, a dict for keyword-only ones and `**kwargs`."""
    if sig is None:
        return args, kwargs
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"{fname}(): {exc}") from None
    bound.apply_defaults()
    pos, kw = [], {}
    for name, value in bound.arguments.items():
        kind = sig.parameters[name].kind
        if kind == inspect.Parameter.VAR_POSITIONAL:
            pos.extend(value)
        elif kind == inspect.Parameter.VAR_KEYWORD:
            kw.update(value)
        elif kind == inspect.Parameter.KEYWORD_ONLY:
            kw[name] = value
        else:
            pos.append(value)
    return tuple(pos), kw


def apply_input_signature(input_signature: tuple, pos: tuple, kw: dict, names: list[str],
                          fname: str) -> tuple:
    """The positional arguments to trace with: the input_signature in place of the arguments
    it covers (after checking they match it), then the Python values of the parameters after
    it (their defaults unless the call gave others), as TensorFlow keeps them; keyword-only
    arguments (`kw`) stay Python values too. A tensor outside the signature is refused."""
    n = len(input_signature)
    if len(pos) < n:
        raise TypeError(f"{fname}() has an input_signature of {n} arguments but was called "
                        f"with {len(pos)}.")
    extra = [(names[i] if i < len(names) else f"argument {i}", pos[i]) for i in range(n, len(pos))]
    for label, value in extra + list(kw.items()):
        if has_tensor_leaf((value,), {}):
            raise TypeError(f"{fname}(): argument {label!r} is not covered by the input_signature "
                            f"({n} arguments), so it takes Python values only (its default when "
                            "left out); add a TensorSpec for it to pass a tensor.")
    for i, (spec, value) in enumerate(zip(input_signature, pos)):
        label = f"argument {names[i]!r}" if i < len(names) else f"argument {i}"
        match(spec, value, f"{fname}(): {label}")
    return tuple(input_signature) + tuple(pos[n:])


def structure_text(value) -> str:
    """The nesting of `value` with its leaves as `*`."""
    return str(nest.structure_signature(value)).replace("'*'", "*")


def describe(value) -> str:
    """A spec or Python value in words, for printed signatures and logs."""
    if isinstance(value, TensorSpec):
        return f"{value.dtype.name} Tensor, shape={value.shape}"
    if type(value) is VariableArgument:
        return f"{value.dtype.name} Variable, shape={value.shape}"
    if isinstance(value, CompositeTensor):  # a template: its fields are specs
        return repr(value._type_spec)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    return f"Python {type(value).__name__} {value!r}"
