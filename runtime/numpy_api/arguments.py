"""Checks of NumPy arguments that tensors cannot honour, with errors that say why."""

from __future__ import annotations

from ..ops import array_math


def no_out(name: str, out) -> None:
    """Refuses `out=`: tensors are immutable, so results cannot be written into a given array."""
    outs = out if isinstance(out, tuple) else (out,)
    if any(o is not None for o in outs):
        raise TypeError(f"{name}(..., out=...) is not supported on tensors: tensors are "
                        "immutable. Assign the result instead: `y = " + name + "(...)`.")


def refuse(name: str, **arguments) -> None:
    """Refuses NumPy arguments (given as not None) that have no runtime equivalent."""
    given = [key for key, value in arguments.items() if value is not None]
    if given:
        raise TypeError(f"{name}(..., {given[0]}=...) is not supported on tensors; compute it "
                        f"with separate ops (for where=: np.where(mask, x, fill)).")


def flatten(x):
    """`x` as a 1-D tensor (C order)."""
    return array_math.reshape(x, [-1])
