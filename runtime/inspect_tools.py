"""Tracing a function from the command line: argument specs as text, listings as text.

`autograph --trace` reaches this module through the `autograph.backends` entry point, so the
converter never imports the runtime itself.
"""

from __future__ import annotations

import re

from . import dtypes as _dtypes
from .function import function
from .function.reporting import build_report
from .shapes import TensorSpec


def report(function, *args, path=None, **kwargs) -> str:
    """`ag.report` reaches the runtime here; the report tool loads on first use (see
    `function/reporting.py`: the layer above registers it)."""
    return build_report(function, *args, path=path, **kwargs)


_SPEC = re.compile(r"^\s*([A-Za-z]+\d*)\s*\[([^\]]*)\]\s*$")


def parse_specs(text: str) -> list[TensorSpec]:
    """Parses `"f32[None,3], i32[]"` into TensorSpecs (dtype short or long names, None or ?)."""
    specs = []
    for part in _split(text):
        match = _SPEC.match(part)
        if match is None:
            raise ValueError(f"cannot read the argument spec {part.strip()!r}; write it like "
                             "f32[None,3] or int32[] (a dtype, then the dims in brackets)")
        dtype_name, dims_text = match.groups()
        try:
            dtype = _dtypes.as_dtype(dtype_name)
        except TypeError:
            raise ValueError(f"unknown dtype {dtype_name!r} in {part.strip()!r}; use names such "
                             "as f32, float32, i32, int64, bool") from None
        dims = []
        for d in filter(None, (x.strip() for x in dims_text.split(","))):
            if d in ("None", "?", "-1"):
                dims.append(None)
            elif d.isdigit():
                dims.append(int(d))
            else:
                raise ValueError(f"bad dimension {d!r} in {part.strip()!r}; use an int or None")
        specs.append(TensorSpec(dims, dtype))
    return specs


def _split(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return parts


def trace_listing(python_function, spec_text: str) -> str:
    """The traced graph and the generated NumPy code of `python_function` for the specs."""
    specs = parse_specs(spec_text)
    concrete = function(python_function).get_concrete_function(*specs)
    return (f"# signature\n{concrete.pretty_printed_signature()}\n\n"
            f"# graph\n{concrete.graph}\n\n"
            f"# generated NumPy code\n{concrete.generated_source}")
