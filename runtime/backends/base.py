"""What every backend shares: the Backend interface, and errors that name the user's line.

A backend renders a `Program` (a graph after `runtime.passes`) as something callable:
`render(program, name).fn(*input_values)` returns the output values (one value, or a tuple
when the graph has several outputs), and `.op_at(traceback)` names the graph op whose code
raised, where the backend can tell.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import Any, Optional, Protocol

import numpy as np

from .. import errors
from ..graph import Operation
from ..passes import Program

CompileLog = Callable[[int, str], None]  # log(level, message), as function.logs.log_event


class Compiled(Protocol):
    """What `Backend.render` returns: `fn(*input_values)` runs the program."""

    @property
    def graph(self) -> Any:
        """The graph as traced (what reports and gradients read)."""

    @property
    def source(self) -> str:
        """The generated code, for people to read."""

    @property
    def fn(self) -> Callable[..., Any]:
        """The compiled function of the input values."""

    def op_at(self, tb: Optional[TracebackType]) -> Optional[Operation]:
        """The graph op whose code raised, from a traceback, where the backend can tell."""


class JitCompileError(errors.InvalidArgumentError, NotImplementedError):
    """A compiler tier cannot compile a graph (names the op and the user's line)."""


class Backend:
    """One execution tier. Subclasses set `name` and implement `render`."""

    name: str = "abstract"

    def require(self) -> None:
        """Raises ImportError, naming what to install, when the tier's library is missing."""

    def with_options(self, wait_for_compile: Optional[bool] = None) -> "Backend":
        """This tier with `rt.function`'s compile options. Only the Numba tier compiles in
        the background; the others always compile before the first call returns, so waiting
        is what they do and they return themselves."""
        return self

    def render(self, program: Program, name: str,
               log: Optional[CompileLog] = None) -> Compiled:
        """The compiled form of `program`; `log(level, message)` reports compile times."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<backend {self.name}>"


def aliasing(graph) -> set[int]:
    """Ids of the tensors of `graph` (nested bodies included) whose value may share memory
    with an input of the graph or with a constant: inputs, constants, and the results of ops
    that may return a view of an aliasing input (any op without `fresh_output`), and of ops
    with bodies. A caller's NumPy array passed as an input must not reach the caller's
    results or a variable uncopied: tensors are immutable, the array is not."""
    found: set[int] = set()

    def visit(g) -> None:
        found.update(id(t) for t in g.inputs)
        for op in g.operations:
            for sub in op.subgraphs:
                visit(sub)
            if op.opdef.fresh_output:
                continue
            if (op.subgraphs or op.opdef.is_constant
                    or any(id(t) in found for t in op.inputs)):
                found.update(id(t) for t in op.outputs)
    visit(graph)
    return found


def describe(op: Operation) -> str:
    """`op 'name' (Type), created at file:line in fn()`."""
    where = f"op {op.name!r} ({op.type})"
    if op.location is not None:
        filename, line, function = op.location
        where += f", created at {filename}:{line} in {function}()"
    return where


def runtime_error(compiled: Compiled, exc: BaseException) -> Optional[errors.OpError]:
    """Turns an error raised by generated code into one that names the graph op and the
    user's line that created it; None when the error should propagate unchanged."""
    op = compiled.op_at(sys.exc_info()[2])
    where = describe(op) if op is not None else ""
    if isinstance(exc, errors.OpError):
        if not where or exc.op is not None:
            return None
        error = type(exc)(f"{exc.message}\n  [raised by {where}]", op)
        return error
    if isinstance(exc, MemoryError):
        return errors.ResourceExhaustedError(f"Out of memory in {where or 'a compiled function'}: "
                                             f"{exc}", op)
    if isinstance(exc, (ValueError, IndexError, ZeroDivisionError, FloatingPointError,
                        np.linalg.LinAlgError)):
        return errors.InvalidArgumentError(f"{type(exc).__name__} in {where}: {exc}" if where
                                           else f"{type(exc).__name__}: {exc}", op)
    return None
