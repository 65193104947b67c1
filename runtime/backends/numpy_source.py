"""The NumPy backend: a Program rendered as generated Python source (`t3 = t1 * t2`).

Each op writes itself through its `template` or `emit`; cond and while_loop become Python
`if` and `while` blocks, so a traced program runs as the hand-written NumPy code would. The
passes (`runtime.passes`) have already folded, merged and found buffer lifetimes.
"""

from __future__ import annotations

import builtins
import itertools
import keyword
import linecache
import re
import weakref
from collections.abc import Sequence
from typing import Any, Callable, Literal, Optional

import numpy as np

from .. import errors
from ..graph import Operation
from ..passes import GraphLike, Program, live_operations
from ..passes.lifetimes import ufunc_of
from ..tensor import SymbolicTensor
from .base import Backend, CompileLog, aliasing

_compile_counter = itertools.count()
_LITERAL_TYPES = (int, float, bool, str, type(None))


_NAME = r"\bc\d+\b"  # compiled on first use (re's cache), not at import
_COMMENTED_CONSTANT_SIZE = 4  # constants up to this many elements are shown in line comments


def _value_text(value) -> str:
    """A constant's value as a short comment: `1`, `2.5`, `[1, 2]`."""
    array = np.asarray(value)
    if array.ndim == 0:
        return repr(array.item())
    return repr(array.tolist())


class Emitter:
    """Collects generated lines and the objects the generated code refers to."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line_ops: dict[int, Operation] = {}
        self.namespace: dict[str, Any] = {"np": np, "errors": errors}
        self._names: dict[int, str] = {}
        self._bound: dict[int, str] = {}
        self._keep: list[Any] = []  # keeps bound objects alive while ids are used as keys
        self._indent = 1
        self._counters: dict[str, itertools.count[int]] = {}
        self.current_op: Optional[Operation] = None
        self.params: set[str] = set()
        self.program: Optional[GraphLike] = None  # the graph being lowered
        self._consumers: Optional[dict[int, list[Optional[Operation]]]] = None
        # the input whose buffer the op being emitted writes its result into
        self._reuse: Optional[SymbolicTensor] = None
        self._constants: dict[str, Any] = {}  # constant name -> value, for line comments
        self._aliasing: Optional[set[int]] = None

    def may_alias(self, tensor: SymbolicTensor) -> bool:
        """Whether `tensor`'s value may share memory with an input array or a constant (see
        `base.aliasing`): stored in a variable or returned, it is copied."""
        if self.program is None:
            return True
        if self._aliasing is None:
            self._aliasing = aliasing(self.program)
        return id(tensor) in self._aliasing

    # -- names ---------------------------------------------------------------------------
    def fresh(self, prefix: str = "t") -> str:
        counter = self._counters.setdefault(prefix, itertools.count())
        return f"{prefix}{next(counter)}"

    def name(self, tensor: SymbolicTensor) -> str:
        """The Python name holding `tensor`'s value."""
        try:
            return self._names[id(tensor)]
        except KeyError:
            raise errors.InaccessibleTensorError(
                f"internal: tensor {tensor.name} is used before it is computed") from None

    def define(self, tensor: SymbolicTensor, name: str | None = None) -> str:
        name = name or self.fresh()
        self._names[id(tensor)] = name
        self._keep.append(tensor)
        return name

    def alias(self, tensor: SymbolicTensor, name: str) -> None:
        self.define(tensor, name)

    def ins(self, op: Operation) -> list[str]:
        return [self.name(t) for t in op.inputs]

    def outs(self, op: Operation) -> list[str]:
        return [self.define(t) for t in op.outputs]

    def bind(self, obj: Any, prefix: str = "k") -> str:
        """A global name in the generated module for `obj`."""
        found = self._bound.get(id(obj))
        if found is None:
            found = self.fresh(prefix)
            self._bound[id(obj)] = found
            self._keep.append(obj)
            self.namespace[found] = obj
            if prefix == "c":
                self._constants[found] = obj
        return found

    def literal(self, value: Any) -> str:
        """Python source for an attribute value: a literal when possible, else a bound name."""
        if type(value) in _LITERAL_TYPES and not (type(value) is float and not np.isfinite(value)):
            return repr(value)
        if type(value) in (tuple, list) and all(type(v) in _LITERAL_TYPES for v in value):
            return repr(tuple(value))
        if isinstance(value, type) and issubclass(value, np.generic):
            return f"np.{value.__name__}"
        if isinstance(value, np.dtype):
            return f"np.{value.type.__name__}"
        return self.bind(value, "at")

    # -- lines -----------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("    " * self._indent + text)
        if self.current_op is not None:
            self.line_ops[len(self.lines)] = self.current_op

    def commented_lines(self) -> list[str]:
        """The lines, each ending with the values of the small constants it names."""
        const_text = {name: _value_text(value) for name, value in self._constants.items()
                      if np.size(value) <= _COMMENTED_CONSTANT_SIZE}
        if not const_text:
            return self.lines
        out = []
        for text in self.lines:
            named = [f"{n} = {const_text[n]}" for n in dict.fromkeys(re.findall(_NAME, text))
                     if n in const_text]
            out.append(f"{text}  # {', '.join(named)}" if named and "#" not in text else text)
        return out

    def indented(self) -> "_Indented":
        """A context in which emitted lines are indented one more level."""
        return _Indented(self)

    # -- graphs ----------------------------------------------------------------------------
    def emit_graph(self, graph: GraphLike,
                   outputs: Optional[Sequence[SymbolicTensor]] = None) -> None:
        """Emits the live ops of `graph` in program order."""
        for op in live_operations(graph, graph.outputs if outputs is None else outputs):
            self.emit_op(op)

    def consumers(self, tensor: SymbolicTensor) -> list[Optional[Operation]]:
        """The ops of the program (nested bodies included) that read `tensor`, with None for
        each graph or body that returns it."""
        if self.program is None:
            return [None]  # unknown: treat the tensor as escaping
        if self._consumers is None:
            found: dict[int, list[Optional[Operation]]] = {}
            graphs: list[GraphLike] = [self.program]
            while graphs:
                graph = graphs.pop()
                for t in graph.outputs:
                    found.setdefault(id(t), []).append(None)
                for op in graph.operations:
                    for t in op.inputs:
                        found.setdefault(id(t), []).append(op)
                    graphs.extend(op.subgraphs)
            self._consumers = found
        return self._consumers.get(id(tensor), [])

    def emit_program(self, program: Program) -> None:
        """Emits the live top-level ops of `program`, deleting each temporary after its last
        use and letting elementwise ops write into dying temporaries."""
        self.program = program.graph
        ops = program.live
        lifetimes = program.lifetimes
        holders: dict[str, int] = {}
        for k, op in enumerate(ops):
            self._reuse = lifetimes.reuse.get(k)
            self.emit_op(op)
            self._reuse = None
            for t in op.outputs:
                name = self.name(t)
                holders[name] = holders.get(name, 0) + 1
            for t in lifetimes.dying[k]:
                name = self.name(t)
                if name in holders:
                    holders[name] -= 1
                    if not holders[name] and name not in self.params and name not in self.namespace:
                        self.line(f"del {name}")

    def reuse_target(self, op: Operation) -> str | None:
        """The name of a dying input buffer `op` may write its result into, or None."""
        return self.name(self._reuse) if self._reuse is not None and self.current_op is op else None

    def emit_op(self, op: Operation) -> None:
        outer = self.current_op
        self.current_op = op
        try:
            opdef = op.opdef
            # an op with its own emitter writes into a dying operand itself (`reuse_target`)
            into = (ufunc_of(op) if self._reuse is not None and outer is None
                    and opdef.emit is None else None)
            if into is not None:
                out = self.name(self._reuse)  # type: ignore[arg-type]  # set: `into` is not None
                self._assign(op, into.format(*self.ins(op), out=out))
            elif opdef.emit is not None:
                opdef.emit(self, op)
            elif opdef.template is not None:
                expr = opdef.template.format(*self.ins(op), **{
                    k: self.literal(v) for k, v in op.attrs.items()})
                self._assign(op, expr)
            else:
                args = self.ins(op) + [f"{k}={self.literal(v)}" for k, v in op.attrs.items()]
                self._assign(op, f"{self.bind(opdef.kernel)}({', '.join(args)})")
        finally:
            self.current_op = outer

    def _assign(self, op: Operation, expr: str) -> None:
        outs = self.outs(op)
        if not outs:
            self.line(expr)
        elif len(outs) == 1:
            self.line(f"{outs[0]} = {expr}")
        else:
            self.line(f"{', '.join(outs)} = {expr}")


class CompiledGraph:
    """A graph lowered to a Python function of the input values, returning output values."""

    _keep: list[Any]  # the objects the generated code names, set by `render`

    def __init__(self, graph, render_source: Callable[[], str], fn, line_ops: dict,
                 filename: str):
        self.graph = graph
        self._render_source = render_source
        self._source: str | None = None
        self.fn = fn
        self.line_ops = line_ops
        self.filename = filename

    @property
    def source(self) -> str:
        """The generated Python, each line ending with the values of the small constants it
        names (written out when first asked for; the compiled text has no comments)."""
        if self._source is None:
            self._source = self._render_source()
            if self.filename in linecache.cache:   # tracebacks show the commented lines too
                linecache.cache[self.filename] = (len(self._source), None,
                                                  self._source.splitlines(True), self.filename)
        return self._source

    def op_at(self, tb):
        """The graph operation whose generated line raised, from a traceback."""
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                return self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


def _def_name(name: str, namespace: dict, params: list[str]) -> str:
    """The generated def's name: `name` made an identifier that shadows nothing it uses.

    The def is bound in the namespace that holds the code's globals (`np`, constants `c1`,
    bound objects `k0`, ...) and builtins, so a function named like one of them (`np`, `c1`,
    `range`) gets the prefix `graph_` until the name is free.
    """
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in name) or "graph_fn"
    if not safe.isidentifier():
        safe = f"graph_{safe}"
    taken = set(namespace) | set(params) | set(dir(builtins)) | set(keyword.kwlist)
    while safe in taken or keyword.iskeyword(safe):
        safe = f"graph_{safe}"
    return safe


def render(program: Program, name: str = "graph_fn") -> CompiledGraph:
    """Generates, compiles and returns the Python function that runs `program`."""
    traced, graph = program.traced, program.graph
    em = Emitter()
    params = [em.define(t, f"a{i}") for i, t in enumerate(graph.inputs)]
    em.params.update(params)
    for t, param in zip(graph.inputs, params):
        if t.shape.rank == 0 and t.dtype.is_numeric:
            # NumPy scalars take NumPy's fast scalar arithmetic; 0-d arrays do not
            em.line(f"{param} = {param}[()]")
    for op in graph.operations:  # constants are names bound once; define them all first
        if op.opdef.is_constant:
            em.emit_op(op)
    em.emit_program(program)
    # an output that may be a view of an input array (or a constant) is copied: tensors are
    # immutable, the caller's array is not
    returns = [_copied(em.name(t), t) if t.shape.rank != 0 and t.dtype._np.kind in "biufc"
               and em.may_alias(t) else em.name(t) for t in graph.outputs]
    safe = _def_name(name, em.namespace, params)
    header = f"def {safe}({', '.join(params)}):"
    if len(returns) == 1:
        footer = f"    return {returns[0]}"
    else:
        footer = f"    return ({', '.join(returns)}{',' if returns else ''})"
    source = "\n".join([header, *em.lines, footer]) + "\n"
    filename = f"<rt-graph {safe} #{next(_compile_counter)}>"
    # line_ops are keyed by body position; shift by the header line
    line_ops = {k + 1: v for k, v in em.line_ops.items()}
    code = compile(source, filename, "exec")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = em.namespace
    namespace["__name__"] = "runtime.generated"
    exec(code, namespace)
    fn = namespace[safe]
    compiled = CompiledGraph(
        traced, lambda: "\n".join([header, *em.commented_lines(), footer]) + "\n", fn, line_ops,
        filename)
    compiled._keep = em._keep
    weakref.finalize(compiled, linecache.cache.pop, filename, None)  # its source lives as long
    return compiled


class _Indented:
    __slots__ = ("emitter",)

    def __init__(self, emitter):
        self.emitter = emitter

    def __enter__(self) -> None:
        self.emitter._indent += 1

    def __exit__(self, *exc_info: object) -> Literal[False]:
        self.emitter._indent -= 1
        return False


def _copied(name: str, tensor) -> str:
    """`name` copied; a branch or loop result may be the None a gradient's cond puts in the
    branch that did not compute a saved value, which stays None."""
    if tensor.op.subgraphs:
        return f"({name}.copy() if {name} is not None else None)"
    return f"{name}.copy()"


class NumPyBackend(Backend):
    """The default tier: generated Python that calls NumPy (`jit_compile=False`)."""

    name = "numpy"

    def render(self, program: Program, name: str,
               log: Optional[CompileLog] = None) -> CompiledGraph:
        return render(program, name)


NUMPY = NumPyBackend()
