"""TensorShape (dims that may be unknown) and TensorSpec (shape + dtype)."""

from __future__ import annotations

from typing import Iterable, Sequence

from . import dtypes as _dtypes


class TensorShape:
    """A possibly partial shape: `None` dims (or `None` rank) are unknown."""

    __slots__ = ("_dims",)

    def __init__(self, dims=None):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, int):
            self._dims = (_dim(dims),)
        elif type(dims) is tuple and all(type(d) is int and d >= 0 for d in dims):
            self._dims = dims    # a NumPy shape, the common case: nothing to convert
        else:
            self._dims = tuple(_dim(d) for d in dims)

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self):
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other) -> None:
        """Raises ValueError unless `other` is compatible with this shape."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def is_subtype_of(self, other) -> bool:
        """True when every shape this one allows is also allowed by `other`."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def most_specific_common_supertype(self, others: Iterable) -> "TensorShape | None":
        """The most specific shape that every one of `self` and `others` fits."""
        dims = self._dims
        for other in others:
            other = as_shape(other)
            if dims is None or other._dims is None or len(dims) != len(other._dims):
                dims = None
                continue
            dims = tuple(a if a == b else None for a, b in zip(dims, other._dims))
        return TensorShape(dims)

    def merge_with(self, other) -> "TensorShape":
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible.")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape(a if a is not None else b for a, b in zip(self._dims, other._dims))

    def concatenate(self, other) -> "TensorShape":
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def with_rank(self, rank: int) -> "TensorShape":
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}.")
        return self

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("None" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def compact(self) -> str:
        """`[2,?]` form used in graph listings."""
        if self._dims is None:
            return "[...]"
        return "[" + ",".join("?" if d is None else str(d) for d in self._dims) + "]"


def _dim(d):
    if d is None:
        return None
    if hasattr(d, "value") and not isinstance(d, int):  # TF-style Dimension
        d = d.value
        if d is None:
            return None
    try:
        value = int(d)
    except (TypeError, ValueError):
        raise TypeError(f"A shape dimension must be an int or None, got {d!r}.") from None
    if value != d or value < -1:
        raise ValueError(f"Invalid shape dimension {d!r}.")
    return None if value == -1 else value


def as_shape(value) -> TensorShape:
    return value if isinstance(value, TensorShape) else TensorShape(value)


class TensorSpec:
    """Describes a tensor argument: a shape (possibly partial), a dtype and an optional name."""

    __slots__ = ("shape", "dtype", "name", "_hash")

    def __init__(self, shape, dtype=_dtypes.float32, name: str | None = None):
        self.shape = as_shape(shape)
        self.dtype = _dtypes.as_dtype(dtype)
        self.name = name
        self._hash = hash((self.shape._dims, self.dtype.name, name))

    @classmethod
    def from_tensor(cls, tensor, name: str | None = None) -> "TensorSpec":
        return cls(tensor.shape, tensor.dtype, name)

    def is_compatible_with(self, other) -> bool:
        """True when `other` (a spec, tensor or array) fits this spec."""
        if isinstance(other, TensorSpec):
            return self.dtype is other.dtype and self.shape.is_compatible_with(other.shape)
        dtype = getattr(other, "dtype", None)
        shape = getattr(other, "shape", None)
        if dtype is None or shape is None:
            return False
        try:
            dtype = _dtypes.as_dtype(dtype)
        except TypeError:
            return False
        return dtype is self.dtype and self.shape.is_compatible_with(shape)

    def is_subtype_of(self, other: "TensorSpec") -> bool:
        return self.dtype is other.dtype and self.shape.is_subtype_of(other.shape)

    def most_specific_common_supertype(self, others: Sequence["TensorSpec"]):
        if any(o.dtype is not self.dtype for o in others):
            return None
        return TensorSpec(self.shape.most_specific_common_supertype([o.shape for o in others]),
                          self.dtype, self.name)

    def __eq__(self, other) -> bool:
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype is other.dtype and self.name == other.name)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"
