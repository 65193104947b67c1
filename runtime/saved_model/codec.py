"""Values in the graph file: attributes and signature structures as tagged JSON.

JSON's null, booleans, integers and strings stand for themselves; everything else is an
object with exactly one key naming its kind:

    {"float": "0x1.8p+1"}          a float, exact (float.hex; also "inf", "-inf", "nan")
    {"tuple": [...]}  {"list": [...]}  {"dict": [[key, value], ...]}
    {"dtype": "float32"}           a runtime dtype      {"np_dtype": "float32"}  a NumPy dtype
    {"shape": [2, null]}           a TensorShape (null: unknown rank)
    {"array": "c0"}  {"scalar": "c1"}   a NumPy array / scalar stored in the .npz under that key
    {"bytes": [[2], ["6869", ""]]}  a string array: its shape and its items' bytes in hex
    {"variable": 0}                the saved variable with that index
    {"slice": [start, stop, step]}  {"ellipsis": null}  {"slot": 0}   parts of an index key
    {"spec": [shape, dtype, name]}  a TensorSpec        {"output": 0}  a function output
    {"extension": [name, [[field, value], ...]]}  a value of an rt.experimental.ExtensionType
Decoding builds only these values: nothing is called or imported; an extension type's name is
looked up only among the classes the loading program defined (registered by `__name__`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .. import dtypes as _dtypes
from ..dtypes import DType
from ..ops.extension_type import ImmutableDict, from_fields, is_registered_composite, lookup_registered, registered_name
from ..shapes import TensorShape, TensorSpec

MAX_DEPTH = 32

# every dtype a saved tensor, array or attribute may have; string arrays are written in the
# graph file as hex (the .npz holds numbers only: object arrays would need pickle)
DTYPES = {d.name: d for d in (*_dtypes.ALL, _dtypes.variant)}
NP_DTYPES = {name: np.dtype(d.as_numpy_dtype) for name, d in DTYPES.items()
             if name not in ("variant", "string")}
MAX_STRING_BYTES = 2 ** 26  # all the bytes of one string array in the graph file


class Output:
    """A function output inside a structure: the index of the graph output it is."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


class Encoder:
    """Turns attribute and signature values into tagged JSON; arrays go to `arrays`."""

    def __init__(self, variable_index, slot_type, output_type):
        self.arrays: dict[str, np.ndarray] = {}
        self._variable_index = variable_index
        self._slot_type = slot_type
        self._output_type = output_type

    def array_key(self, value: np.ndarray) -> str:
        key = f"c{len(self.arrays)}"
        self.arrays[key] = value
        return key

    def encode(self, v, where: str):
        if v is None or type(v) in (bool, int, str):
            return v
        if type(v) is float:
            return {"float": v.hex() if math.isfinite(v) else repr(v)}
        if type(v) in (tuple, list):
            return {type(v).__name__: [self.encode(x, where) for x in v]}
        if isinstance(v, tuple):  # namedtuples are saved as plain tuples
            return {"tuple": [self.encode(x, where) for x in v]}
        if type(v) is dict or isinstance(v, ImmutableDict):
            if not all(type(k) in (str, int) for k in v):
                raise ValueError(f"{where}: only dicts with str or int keys can be saved.")
            return {"dict": [[k, self.encode(x, where)] for k, x in v.items()]}
        if isinstance(v, DType):
            return {"dtype": v.name}
        if isinstance(v, np.dtype):
            return {"np_dtype": v.name}
        if isinstance(v, TensorSpec):
            name = None if v.name is None else safe_name(v.name)
            return {"spec": [self.encode(v.shape, where), v.dtype.name, name]}
        if isinstance(v, TensorShape):
            return {"shape": None if v.as_tuple() is None else list(v.as_tuple())}
        if isinstance(v, np.ndarray) and v.dtype.kind in "biufc":
            return {"array": self.array_key(v)}
        if isinstance(v, np.generic) and v.dtype.kind in "biufc":
            return {"scalar": self.array_key(np.asarray(v))}
        if (isinstance(v, np.ndarray) and v.dtype == object
                and all(type(b) is bytes for b in v.reshape(-1).tolist())):
            return {"bytes": [list(v.shape), [b.hex() for b in v.reshape(-1).tolist()]]}
        if type(v) is slice:
            return {"slice": [self.encode(p, where) for p in (v.start, v.stop, v.step)]}
        if v is Ellipsis:
            return {"ellipsis": None}
        if isinstance(v, self._slot_type):
            return {"slot": v.index}
        if isinstance(v, self._output_type):
            return {"output": v.index}
        if is_registered_composite(v):
            fields = [[f.name, self.encode(getattr(v, f.name), where)] for f in dataclasses.fields(v)]
            return {"extension": [registered_name(type(v)), fields]}
        index = self._variable_index(v)
        if index is not None:
            return {"variable": index}
        raise ValueError(f"{where}: a value of type {type(v).__name__} ({v!r:.60}) cannot be "
                         "saved; saved graphs hold only numbers, strings, dtypes, shapes, arrays "
                         "and variables.")


class Decoder:
    """Turns tagged JSON back into values; every malformed item raises ValueError."""

    def __init__(self, array, variables, slot_type):
        self._array = array  # key -> validated NumPy array
        self._variables = variables
        self._slot_type = slot_type

    def decode(self, v, where: str, depth: int = 0):
        if depth > MAX_DEPTH:
            raise ValueError(f"{where}: values nested more than {MAX_DEPTH} levels deep.")
        if v is None or type(v) in (bool, int, str):
            return v
        if type(v) is not dict or len(v) != 1:
            raise ValueError(f"{where}: expected a tagged value, got {_short(v)}.")
        (tag, body), = v.items()
        method = getattr(self, f"_tag_{tag}", None) if tag.isidentifier() else None
        if method is None:
            raise ValueError(f"{where}: unknown value tag {tag!r}.")
        return method(body, where, depth + 1)

    def _items(self, body, where, depth, size=None):
        return [self.decode(x, where, depth) for x in _checked_list(body, where, size)]

    def _tag_float(self, body, where, depth):
        try:
            return float.fromhex(body) if body not in ("inf", "-inf", "nan") else float(body)
        except (TypeError, ValueError, OverflowError):
            raise ValueError(f"{where}: bad float {_short(body)}.") from None

    def _tag_tuple(self, body, where, depth):
        return tuple(self._items(body, where, depth))

    def _tag_list(self, body, where, depth):
        return self._items(body, where, depth)

    def _tag_dict(self, body, where, depth):
        out = {}
        for pair in _checked_list(body, where):
            if type(pair) is not list or len(pair) != 2 or type(pair[0]) not in (str, int):
                raise ValueError(f"{where}: dict items must be [str or int key, value] pairs.")
            out[pair[0]] = self.decode(pair[1], where, depth)
        return out

    def _tag_dtype(self, body, where, depth):
        return dtype_named(body, where)

    def _tag_np_dtype(self, body, where, depth):
        if type(body) is not str or body not in NP_DTYPES:
            raise ValueError(f"{where}: unknown NumPy dtype {_short(body)}.")
        return NP_DTYPES[body]

    def _tag_shape(self, body, where, depth):
        return shape_from(body, where)

    def _tag_spec(self, body, where, depth):
        if type(body) is not list or len(body) != 3:
            raise ValueError(f"{where}: a spec is [shape, dtype, name].")
        shape = self.decode(body[0], where, depth)
        name = body[2]
        if not isinstance(shape, TensorShape) or not (name is None or type(name) is str):
            raise ValueError(f"{where}: a spec is [shape, dtype, name].")
        return TensorSpec(shape, dtype_named(body[1], where), check_name(name, where))

    def _tag_extension(self, body, where, depth):
        """An extension type's value: its class looked up by registered name among the
        classes this program defined (never imported), its fields as saved."""
        form = f"{where}: an extension type value is [registered name, [[field, value], ...]]"
        if type(body) is not list or len(body) != 2 or type(body[0]) is not str \
                or type(body[1]) is not list:
            raise ValueError(f"{form}.")
        cls = lookup_registered(body[0])
        names = [f.name for f in dataclasses.fields(cls)]
        pairs = _checked_list(body[1], where, len(names))
        if any(type(p) is not list or len(p) != 2 for p in pairs) or [p[0] for p in pairs] != names:
            raise ValueError(f"{form}; {body[0]} has the fields {names}.")
        fields = {}
        for name, value in pairs:
            value = self.decode(value, where, depth)
            fields[name] = ImmutableDict(value) if type(value) is dict else value
        return from_fields(cls, fields)

    def _tag_array(self, body, where, depth):
        return self._array(body, where)

    def _tag_scalar(self, body, where, depth):
        value = self._array(body, where)
        if value.ndim != 0:
            raise ValueError(f"{where}: scalar {body!r} is not 0-dimensional.")
        return value[()]

    def _tag_bytes(self, body, where, depth):
        form = f"{where}: a string array is [shape, [hex strings]]"
        if type(body) is not list or len(body) != 2 or type(body[1]) is not list:
            raise ValueError(f"{form}.")
        shape = shape_from(body[0], where)
        items = body[1]
        if body[0] is None or math.prod(shape.as_tuple()) != len(items):
            raise ValueError(f"{form} of as many items as the shape holds.")
        if not all(type(h) is str for h in items) or sum(map(len, items)) > 2 * MAX_STRING_BYTES:
            raise ValueError(f"{form}, at most {MAX_STRING_BYTES} bytes in all.")
        out = np.empty(len(items), dtype=object)
        try:
            out[:] = [bytes.fromhex(h) for h in items]
        except ValueError:
            raise ValueError(f"{form}: an item is not hex digits.") from None
        return out.reshape(shape.as_tuple())

    def _tag_variable(self, body, where, depth):
        if type(body) is not int or not 0 <= body < len(self._variables):
            raise ValueError(f"{where}: variable index {_short(body)} is out of range "
                             f"(the file has {len(self._variables)} variables).")
        return self._variables[body]

    def _tag_slice(self, body, where, depth):
        return slice(*self._items(body, where, depth, 3))

    def _tag_ellipsis(self, body, where, depth):
        if body is not None:
            raise ValueError(f"{where}: ellipsis takes null.")
        return Ellipsis

    def _tag_slot(self, body, where, depth):
        return self._slot_type(check_index(body, 2 ** 16, where, "slot"))

    def _tag_output(self, body, where, depth):
        return Output(check_index(body, 2 ** 20, where, "output"))


def _checked_list(body, where, size=None) -> list:
    if type(body) is not list or (size is not None and len(body) != size):
        raise ValueError(f"{where}: expected a list{'' if size is None else f' of {size}'}, "
                         f"got {_short(body)}.")
    return body


def dtype_named(name, where: str) -> DType:
    if type(name) is not str or name not in DTYPES:
        raise ValueError(f"{where}: unknown dtype {_short(name)}.")
    return DTYPES[name]


def shape_from(dims, where: str) -> TensorShape:
    if dims is None:
        return TensorShape(None)
    if (type(dims) is not list or len(dims) > 32
            or not all(d is None or (type(d) is int and 0 <= d < 2 ** 31) for d in dims)
            or math.prod(d for d in dims if d) > 2 ** 31):
        raise ValueError(f"{where}: bad shape {_short(dims)} (at most 32 dims, each null or an "
                         "int in [0, 2**31), at most 2**31 elements).")
    return TensorShape(dims)


def check_index(value, limit: int, where: str, what: str) -> int:
    if type(value) is not int or not 0 <= value < limit:
        raise ValueError(f"{where}: {what} {_short(value)} is out of range [0, {limit}).")
    return value


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/:")


def check_name(name, where: str, allow_none: bool = True):
    """A graph, op, tensor or variable name: at most 256 of [A-Za-z0-9_.-/:], no '..'."""
    if name is None and allow_none:
        return None
    if (type(name) is not str or not 0 < len(name) <= 256 or not set(name) <= _NAME_CHARS
            or ".." in name):
        raise ValueError(f"{where}: bad name {_short(name)} (1-256 characters of "
                         "A-Z a-z 0-9 _ . - / :, no '..').")
    return name


def safe_name(name) -> str:
    """`name` as `check_name` accepts it: other characters become '_' ('<lambda>' is written
    '_lambda_'), '..' becomes '._', at most 256 characters. Used for every name written."""
    text = "".join(c if c in _NAME_CHARS else "_" for c in str(name))[:256]
    while ".." in text:
        text = text.replace("..", "._")
    return text or "_"


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
