"""Element structures of datasets: nests of NumPy arrays inside, tensors outside.

A dataset element is a tuple, namedtuple or dict nest whose leaves are arrays (as in
tf.data, a Python list is a value, converted to one tensor, not a structure). Inside the
pipeline leaves are NumPy arrays; the iterator hands them out as eager tensors.
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable

import numpy as np

from .. import dtypes as _dtypes
from ..context import init_scope
from ..ops.core import convert_to_tensor
from ..ops.extension_type import ExtensionTypeSpec
from ..ops.ragged import RaggedTensorSpec
from ..shapes import TensorShape, TensorSpec
from ..tensor import EagerTensor, Tensor
from . import sparse_elements as _sparse

# specs that stand for their value's template (an element_spec as a user sees it)
_TEMPLATED = (ExtensionTypeSpec, RaggedTensorSpec)


def is_structure(value: Any) -> bool:
    """Tuples, namedtuples, dicts and composite values (extension types) are structure;
    everything else is a leaf."""
    return isinstance(value, (tuple, dict, _TEMPLATED)) or is_composite(value) \
        or _sparse.is_sparse(value)


def is_composite(value: Any) -> bool:
    """An extension type's value (rebuilt from its fields by `__nest_from_fields__`)."""
    cls = type(value)
    found = _COMPOSITE_TYPES.get(cls)
    if found is None:  # asked once per type: a failed hasattr on a class formats an error
        found = _COMPOSITE_TYPES[cls] = (hasattr(cls, "__nest_from_fields__")
                                         and hasattr(cls, "__dataclass_fields__"))
    return found


# a value's type -> whether is_composite holds; weak, so that a class defined and dropped by a
# program (an extension type made in a function, a test) is not kept alive by having been asked
_COMPOSITE_TYPES: "weakref.WeakKeyDictionary[type, bool]" = weakref.WeakKeyDictionary()


def _is_static(value: Any) -> bool:
    """A composite's Python-valued field (a str, a TensorShape, ...): part of the structure."""
    return not isinstance(value, (np.ndarray, np.generic, Tensor, TensorSpec, tuple, dict)) \
        and not is_composite(value) and not hasattr(value, "_spec")


def _fields(value: Any) -> list:
    return [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]


def flatten(value: Any) -> list:
    """The leaves of `value` in a fixed order (dict keys sorted, a composite's fields in
    order, without its Python-valued fields; an extension type's Spec as its template; a
    SparseTensor's dense values and mask, runtime/data/sparse_elements.py)."""
    if _sparse.is_sparse(value):
        value = _sparse.encode(value)
    if isinstance(value, _TEMPLATED):
        value = value._to_template()
    if is_composite(value):
        out = []
        for _, v in _fields(value):
            if not _is_static(v):
                out.extend(flatten(v))
        return out
    if isinstance(value, dict):
        out = []
        for k in sorted(value, key=repr):
            out.extend(flatten(value[k]))
        return out
    if isinstance(value, tuple):
        out = []
        for v in value:
            out.extend(flatten(v))
        return out
    return [value]


def pack(template: Any, leaves: list) -> Any:
    """`leaves` in the structure of `template` (the inverse of `flatten`)."""
    if not is_structure(template):
        return leaves[0]     # one leaf: the common case, kept cheap
    it = iter(leaves)

    def build(t):
        if _sparse.is_sparse(t):
            return _sparse.SparseElement(next(it), next(it))
        if isinstance(t, _TEMPLATED):
            t = t._to_template()
        if is_composite(t):
            return type(t).__nest_from_fields__(
                {n: v if _is_static(v) else build(v) for n, v in _fields(t)})
        if isinstance(t, dict):
            built = {k: build(t[k]) for k in sorted(t, key=repr)}
            return type(t)((k, built[k]) for k in t) if type(t) is not dict else {k: built[k] for k in t}
        if isinstance(t, tuple):
            items = [build(v) for v in t]
            return type(t)(*items) if hasattr(t, "_fields") else type(t)(items)
        return next(it)
    return build(template)


def map_structure(fn: Callable, value: Any) -> Any:
    if not is_structure(value):
        return fn(value)
    return pack(value, [fn(leaf) for leaf in flatten(value)])


def strings_as_objects(array: np.ndarray) -> np.ndarray:
    """A NumPy `S`/`U` array as the runtime's string arrays (objects holding `bytes`), so
    strings of any length share one dtype (`rt.string`); other arrays unchanged."""
    kind = array.dtype.kind
    if kind == "S":
        return array.astype(object)
    if kind == "U":
        return np.char.encode(array, "utf-8").astype(object)
    return array


def to_array(value: Any, where: str = "value") -> np.ndarray:
    """One leaf as a NumPy array with the runtime's dtype rules (int -> int32, ...)."""
    if isinstance(value, np.ndarray) and value.dtype.kind != "O":  # memory-mapped stay mapped
        return strings_as_objects(value)
    if isinstance(value, EagerTensor):
        return value._value
    if isinstance(value, Tensor):
        raise TypeError(f"{where} is a symbolic tensor: datasets are built from eager values "
                        "(build the dataset outside the function and pass it as an argument).")
    if value is None:
        raise TypeError(f"{where} is None, which is not a tensor.")
    try:
        with init_scope():  # a Python value is a constant, also while a function is traced
            return convert_to_tensor(value)._value
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{where} cannot be converted to a tensor: {exc}") from None


def spec_of_array(array: np.ndarray, batch_dims: int = 0) -> TensorSpec:
    return TensorSpec(TensorShape(array.shape[batch_dims:]), _dtypes.as_dtype(array.dtype))


def row(array: np.ndarray, i: int) -> np.ndarray:
    """Slice `i` along the first axis as an array (a string slice stays an object array)."""
    if array.dtype.kind == "O":
        return array[i, ...]
    return np.asarray(array[i])


def to_tensor(array: Any) -> Any:
    """An eager tensor of a NumPy leaf (a dataset leaf, such as a window, passes as is)."""
    if type(array) is not np.ndarray:
        if hasattr(array, "_spec") and hasattr(array, "_open"):
            return array
        if isinstance(array, str):
            array = array.encode()
        if isinstance(array, bytes):
            array = np.array(array, dtype=object)
        else:
            array = strings_as_objects(np.asarray(array))
    return EagerTensor(array)


def to_tensors(element: Any) -> Any:
    """The element's eager tensors (its SparseTensors rebuilt)."""
    tensors = map_structure(to_tensor, element)
    return _sparse.decode_all(tensors) if _sparse.holds_sparse(tensors) else tensors


def tensors_of(spec: Any) -> Callable[[Any], Any]:
    """`to_tensors` for the elements of a dataset whose (internal) element spec is `spec`, its
    structure decided here once instead of for every element: an element of one leaf is
    converted directly."""
    return to_tensors if is_structure(spec) else to_tensor


def to_numpy(element: Any) -> Any:
    """An element as NumPy values (0-d arrays become NumPy scalars), as `as_numpy_iterator`."""
    def leaf(a):
        a = np.asarray(a)
        return a[()] if a.ndim == 0 else a
    return map_structure(leaf, element)


def describe(spec: Any) -> str:
    return repr(spec)


def specs_compatible(a: Any, b: Any) -> bool:
    """Whether two element specs have one structure and compatible leaves."""
    try:
        fa, fb = flatten(a), flatten(b)
        if len(fa) != len(fb) or _skeleton(a) != _skeleton(b):
            return False
    except Exception:
        return False
    return all(x.dtype == y.dtype and x.shape.is_compatible_with(y.shape) for x, y in zip(fa, fb))


def spec_key(spec: Any) -> tuple:
    """A hashable key of an element spec (structure, shapes, dtypes)."""
    leaves = flatten(spec)
    return (_skeleton(spec), tuple((s.shape.as_tuple(), s.dtype.name) for s in leaves))


def _skeleton(value: Any) -> Any:
    """A comparable description of a structure without its leaves."""
    if _sparse.is_sparse(value):
        return (_sparse.SparseElement, (("dense", "*"), ("present", "*")))
    if isinstance(value, _TEMPLATED):
        value = value._to_template()
    if is_composite(value):
        return (type(value), tuple((n, ("static", repr(v)) if _is_static(v) else _skeleton(v))
                                   for n, v in _fields(value)))
    if isinstance(value, dict):
        return (type(value).__name__, tuple((repr(k), _skeleton(value[k])) for k in sorted(value, key=repr)))
    if isinstance(value, tuple):
        return (type(value).__name__, getattr(value, "_fields", None), tuple(_skeleton(v) for v in value))
    return "*"


def common_spec(a: TensorSpec, b: TensorSpec) -> TensorSpec:
    """The most specific spec both fit (dims that differ become None)."""
    sa, sb = a.shape.as_tuple(), b.shape.as_tuple()
    if sa is None or sb is None or len(sa) != len(sb):
        return TensorSpec(TensorShape(None), a.dtype)
    return TensorSpec(TensorShape([x if x == y else None for x, y in zip(sa, sb)]), a.dtype)
