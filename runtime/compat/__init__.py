"""`rt.compat`: TensorFlow 2's `tf.compat` helpers (text and bytes, paths, dimension values, the
number type tuples) and `rt.compat.v1`, which names TensorFlow 1's API without providing it.

`import runtime.compat.v1 as tf1` succeeds, so a TensorFlow 2 program that imports it beside
`tf` ports by changing the import; each use of a TensorFlow 1 name (`tf1.Session`,
`tf1.placeholder`, `tf1.estimator`, ...) raises `AttributeError` saying what to use instead.
"""

from __future__ import annotations

import numbers
import os
from typing import Any

import numpy as np

from ..arguments import strict_keywords
from . import v1

#: the Python and NumPy types TensorFlow counts as integers, reals, complex numbers and strings
integral_types = (numbers.Integral, np.integer)
real_types = (numbers.Real, np.integer, np.floating)
complex_types = (numbers.Complex, np.number)
bytes_or_text_types = (bytes, str)


@strict_keywords("compat.as_bytes")
def as_bytes(bytes_or_text: bytes | bytearray | str, encoding: str = "utf-8") -> bytes:
    """`bytes_or_text` as bytes: a str encoded with `encoding`, bytes as they are."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"as_bytes: expected binary or unicode string, got {bytes_or_text!r}.")


@strict_keywords("compat.as_text")
def as_text(bytes_or_text: bytes | str, encoding: str = "utf-8") -> str:
    """`bytes_or_text` as str: bytes decoded with `encoding`, a str as it is."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, (bytes, bytearray)):
        return bytes(bytes_or_text).decode(encoding)
    raise TypeError(f"as_text: expected binary or unicode string, got {bytes_or_text!r}.")


as_str = as_text


@strict_keywords("compat.as_str_any")
def as_str_any(value: Any, encoding: str = "utf-8") -> str:
    """`as_str` for bytes, `str(value)` for anything else."""
    return as_text(bytes(value), encoding) if isinstance(value, (bytes, bytearray)) \
        else str(value)


@strict_keywords("compat.path_to_str")
def path_to_str(path: Any) -> Any:
    """A path-like object as its str; anything else unchanged."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


@strict_keywords("compat.dimension_value")
def dimension_value(dimension: Any) -> int | None:
    """The int (or None) of a shape dimension."""
    return getattr(dimension, "value", dimension)


__all__ = ["as_bytes", "as_str", "as_str_any", "as_text", "bytes_or_text_types",
           "complex_types", "dimension_value", "integral_types", "path_to_str", "real_types",
           "v1"]
