"""Activation functions by name: `get("relu")` is `rt.nn.relu`."""

from __future__ import annotations

from typing import Callable

from ..ops import math_ops, nn_ops


def linear(x):
    """The identity activation."""
    return x


_BY_NAME: dict[str, Callable] = {
    "relu": nn_ops.relu,
    "softmax": nn_ops.softmax,
    "log_softmax": nn_ops.log_softmax,
    "sigmoid": math_ops.sigmoid,
    "tanh": math_ops.tanh,
    "exponential": math_ops.exp,
    "linear": linear,
}


def get(identifier) -> Callable:
    """The activation function for a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier.lower()]
        except KeyError:
            raise ValueError(f"Unknown activation {identifier!r}; known names are "
                             f"{sorted(_BY_NAME)}, or pass a callable.") from None
    if callable(identifier):
        return identifier
    raise TypeError(f"An activation must be a name, a callable or None, got {identifier!r}.")
