"""The attribute schema of saved graphs: what loading checks each op's attributes against.

Every op declares its attributes where it is defined, `define(..., attrs={...})`, with the
kinds of runtime/attr_kinds.py; this module reads those declarations, never anything in the
file: the exact set of names, each value's type, and the range of numbers and sizes. A value
that passes reaches the executor only as a bool, int, float, str (written into generated code
with `repr`), a registered dtype, a shape, a NumPy array read without pickle, or a loaded
variable. An op that holds Python objects or lives only on tapes (`savable=False`) is never
written or read.
"""

from __future__ import annotations

from ..attr_kinds import (  # noqa: F401 -- the vocabulary, re-exported for the file readers
    ARRAY,
    AXES,
    AXES_PAIR,
    AXIS,
    BOOL,
    DIMS,
    DTYPE,
    EQUATION,
    FLOAT,
    INT,
    INTS,
    KEY,
    MAX_DIM,
    MAX_ELEMENTS,
    MAX_RANK,
    MAX_STR,
    MODE,
    NP_DTYPE,
    NUMBER,
    OPT_AXES,
    OPT_DIMS,
    OPT_DTYPE,
    OPT_INT,
    PADDING,
    PARTIAL_DIMS,
    PARTS,
    SHAPE,
    STR,
    STREAM,
    VARIABLE,
    AttrContext,
    AttrKind,
)
from ..opdef import OpDef, lookup


def savable_op(op_type: object) -> OpDef | None:
    """The registered op named `op_type` when it can be saved, else None (an op of a family
    `import runtime` left unloaded is loaded first)."""
    opdef = lookup(op_type) if type(op_type) is str else None
    return opdef if opdef is not None and opdef.savable else None


def attr_kinds(op_type: str) -> dict[str, AttrKind]:
    """The declared attributes of a savable op type (empty for ops without attributes)."""
    opdef = savable_op(op_type)
    if opdef is None:
        raise ValueError(f"op type {str(op_type)[:60]!r} has no attribute schema: it is not a "
                         "registered op that can be saved.")
    return opdef.attrs


def attr_errors(op_type: str, attrs: dict, ctx: AttrContext) -> list[str]:
    """What is wrong with `attrs` for an op of `op_type` (empty when they fit the schema)."""
    if savable_op(op_type) is None:
        return [f"op type {str(op_type)[:60]!r} is not a registered op that can be saved"]
    kinds = attr_kinds(op_type)
    problems = []
    for name in sorted(set(attrs) - set(kinds)):
        problems.append(f"unknown attribute {name!r}")
    for name in sorted(set(kinds) - set(attrs)):
        problems.append(f"missing attribute {name!r}")
    for name, kind in kinds.items():
        if name in attrs:
            wrong = kind.check(attrs[name], ctx)
            if wrong is not None:
                problems.append(f"attribute {name!r} must be {wrong}, got {_short(attrs[name])}")
    return problems


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
