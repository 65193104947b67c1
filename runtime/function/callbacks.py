"""Function callbacks: told of every concrete function when it is created."""

from __future__ import annotations

from typing import Callable

_callbacks: list[Callable] = []


def add_function_callback(callback: Callable) -> None:
    """Calls `callback(function, name, graph, inputs, outputs)` for each new concrete function."""
    if callback not in _callbacks:
        _callbacks.append(callback)


def remove_function_callback(callback: Callable) -> None:
    """Stops calling a callback added with add_function_callback (KeyError if it was not added)."""
    try:
        _callbacks.remove(callback)
    except ValueError:
        raise KeyError(f"{callback!r} is not a registered function callback.") from None


def clear_function_callbacks() -> None:
    """Removes every function callback."""
    _callbacks.clear()


def notify(concrete) -> None:
    """Tells every callback of a new concrete function."""
    graph = concrete.graph
    for cb in list(_callbacks):
        cb(concrete, concrete.name, graph, graph.inputs, graph.outputs)
