"""Per-thread state: the graph being built, name scopes, devices, and the eager switch; and
`hooks`, through which ops reach the layers above them (the tape, the summary writer)."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Callable, Iterator


class _State(threading.local):
    def __init__(self):
        self.graphs = []        # stack of graphs being built; empty means eager
        self.scopes = []        # name scope stack
        self.devices = []       # device stack
        self.tapes = []         # active op listeners: gradient tapes (see record_operation)


state = _State()
_run_eagerly = [False]


class _Hooks:
    """Services of upper layers that ops call without importing up a layer: the module that
    provides one fills its slot when it is imported; None until then."""

    __slots__ = ("gradient_tape", "write_summary", "load_op", "quantize_model")

    def __init__(self) -> None:
        # runtime.gradients.tape.GradientTape: py_function's gradient runs its function under one
        self.gradient_tape: Callable[..., Any] | None = None
        # runtime.summary._state.write_staged: the kernel of a staged summary (WriteSummary)
        self.write_summary: Callable[..., None] | None = None
        # runtime.ops.load_op: loads the op family defining an op name (every family for
        # None), for the registry's lookups by name and its complete listing (runtime.opdef)
        self.load_op: Callable[[str | None], None] | None = None
        # runtime.keras.quantizers.quantize_model: Model.quantize's checks of its configs
        self.quantize_model: Callable[..., None] | None = None


hooks = _Hooks()


def current_graph():
    """The graph ops are added to, or None when ops run eagerly."""
    graphs = state.graphs
    return graphs[-1] if graphs else None


def record_operation(opdef, inputs, outputs, attrs, operation=None) -> None:
    """Tells every active tape that `opdef` mapped `inputs` to `outputs`.

    A tape is any object in `state.tapes` with a `_record_operation` method of this
    signature (kept out of GradientTape's public API); `operation` is the graph operation,
    or None for an op run eagerly.
    """
    for tape in state.tapes:
        tape._record_operation(opdef, inputs, outputs, attrs, operation)


def executing_eagerly() -> bool:
    """True outside a traced function: ops run at once on values (as `tf.executing_eagerly`)."""
    graphs = state.graphs
    return not graphs or graphs[-1] is None


class graph_scope:
    """Makes `graph` (or None: eager) the target of new ops (a class: tracing enters many)."""

    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def __enter__(self):
        state.graphs.append(self.graph)
        return self.graph

    def __exit__(self, *exc_info) -> bool:
        state.graphs.pop()
        return False


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Lifts out of every graph being built: ops inside run eagerly, once."""
    with graph_scope(None):
        yield


@contextlib.contextmanager
def name_scope(name: str) -> Iterator[str]:
    """Prefixes the names of ops created inside with `name/`; the empty name clears the
    prefix, as in TensorFlow."""
    if not isinstance(name, str):
        raise ValueError(f"name_scope needs a string name, got {name!r}.")
    if not name:
        with name_scope_reset():
            yield ""
        return
    state.scopes.append(name.rstrip("/"))
    try:
        yield "/".join(state.scopes) + "/"
    finally:
        state.scopes.pop()


class name_scope_reset:
    """Clears the name scope for ops that belong to no scope (shared constants)."""

    __slots__ = ("saved",)

    def __enter__(self) -> None:
        self.saved = state.scopes
        state.scopes = []

    def __exit__(self, *exc_info) -> bool:
        state.scopes = self.saved
        return False


def scope_prefix() -> str:
    return "/".join(state.scopes) + "/" if state.scopes else ""


@contextlib.contextmanager
def device(name: str | None) -> Iterator[None]:
    """Ops created inside record `name` as their device."""
    if name is not None and not isinstance(name, str):
        raise TypeError(f"device name must be a str or None, got {name!r}.")
    state.devices.append(name or "")
    try:
        yield
    finally:
        state.devices.pop()


def current_device() -> str:
    return state.devices[-1] if state.devices else ""


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, compiled functions run their Python body on every call, untraced."""
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_eagerly[0]
