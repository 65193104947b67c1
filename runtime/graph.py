"""The graph IR: operations on symbolic tensors, and function graphs with inputs and outputs."""

from __future__ import annotations

import copy as _copy
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from . import context, errors
from .dtypes import DType, from_numpy
from .graph_printer import format_graph, to_dot
from .opdef import CONST, PLACEHOLDER, OpDef
from .shapes import TensorShape
from .tensor import EagerTensor, SymbolicTensor

Location = tuple[str, int, str]  # (filename, line, function) of the user's code


class FrozenGraphError(RuntimeError):
    """A traced (frozen) graph was asked to change."""


def _refuse(what: str) -> FrozenGraphError:
    return FrozenGraphError(
        f"{what} is part of a traced graph, which is frozen: it never changes once tracing "
        "has finished. Passes and gradients build new graphs (or new operations in the graph "
        "being traced) instead; runtime.graph.copy_function_graph gives a copy to change.")


class FrozenList(list):
    """A list of a frozen graph or operation: readable as a list, never changed."""

    __slots__ = ()

    def _refused(self, *args: Any, **kwargs: Any) -> None:
        raise _refuse("This list")

    append = extend = insert = remove = pop = _refused  # type: ignore[assignment]
    clear = sort = reverse = _refused  # type: ignore[assignment]
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refused  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        return (list, (list(self),))

    def __copy__(self) -> list:
        return list(self)

    def __deepcopy__(self, memo: dict) -> list:
        return _copy.deepcopy(list(self), memo)


class FrozenDict(dict):
    """The attributes of a frozen operation: readable as a dict, never changed."""

    __slots__ = ()

    def _refused(self, *args: Any, **kwargs: Any) -> None:
        raise _refuse("This operation's attribute dict")

    __setitem__ = __delitem__ = __ior__ = _refused  # type: ignore[assignment]
    update = pop = popitem = clear = setdefault = _refused  # type: ignore[assignment]

    def __reduce__(self) -> tuple:
        return (dict, (dict(self),))

    def __copy__(self) -> dict:
        return dict(self)

    def __deepcopy__(self, memo: dict) -> dict:
        return _copy.deepcopy(dict(self), memo)


class Operation:
    """One node of a graph: an op type applied to input tensors, producing output tensors."""

    __slots__ = ("name", "type", "opdef", "inputs", "outputs", "attrs", "device", "graph",
                 "subgraphs", "_effects", "location", "__weakref__")

    def __init__(self, graph: Graph, opdef: OpDef, name: str, inputs: Iterable[Any],
                 attrs: dict[str, Any], device: str | None,
                 subgraphs: Iterable[FuncGraph] = ()) -> None:
        self.graph: Graph = graph
        self.opdef: OpDef = opdef
        self.type: str = opdef.name
        self.name: str = name
        self.inputs: list[Any] = list(inputs)
        self.attrs: dict[str, Any] = attrs
        self.device: str | None = device
        self.outputs: list[SymbolicTensor] = []
        self.subgraphs: tuple[FuncGraph, ...] = tuple(subgraphs)
        self._effects: Any = None
        self.location: Location | None = None if opdef.is_constant else user_location()

    @property
    def stateful(self) -> bool:
        return self.opdef.stateful

    def get_attr(self, name: str) -> Any:
        return self.attrs[name]

    def __repr__(self) -> str:
        return f"<Operation '{self.name}' type={self.type}>"

    def _freeze(self) -> None:
        self.inputs = FrozenList(self.inputs)
        self.outputs = FrozenList(self.outputs)
        attrs = self.attrs
        if type(attrs) is not FrozenDict:
            self.attrs = FrozenDict(attrs) if attrs else _NO_ATTRS
        self.__class__ = _FrozenOperation


_NO_ATTRS = FrozenDict()  # the attributes of every frozen operation without any


class _FrozenOperation(Operation):
    """An operation of a frozen graph: its fields can no longer be assigned. (Changing the
    class when a graph freezes keeps building and reading operations as fast as before.)"""

    __slots__ = ()

    def __setattr__(self, name: str, value: Any) -> None:
        raise _refuse(f"The operation {getattr(self, 'name', '?')!r}")

    def __delattr__(self, name: str) -> None:
        raise _refuse(f"The operation {getattr(self, 'name', '?')!r}")

    def __setstate__(self, state: Any) -> None:
        """Unpickling (and copying) restores the fields of a frozen operation."""
        slots = state[1] if isinstance(state, tuple) else state
        for key, value in (slots or {}).items():
            object.__setattr__(self, key, value)


_internal_dirs: tuple[str, ...] = (os.path.dirname(os.path.abspath(__file__)) + os.sep,)
_is_own_file: dict[str, bool] = {}


def register_internal_dir(path: str) -> None:
    """Marks the package directory `path` as internal: op locations skip its frames.

    The runtime's own directory is internal; a front end (the autograph converter) that
    calls ops on the user's behalf registers its own.
    """
    global _internal_dirs
    _internal_dirs = _internal_dirs + (os.path.abspath(path) + os.sep,)
    _is_own_file.clear()


def user_location() -> Location | None:
    """(filename, line, function) of the innermost caller outside this package, or None."""
    frame: Any = sys._getframe(2)
    own = _is_own_file
    internal = _internal_dirs
    while frame is not None:
        filename = frame.f_code.co_filename
        is_own = own.get(filename)
        if is_own is None:
            is_own = own[filename] = filename.startswith(internal) or filename.startswith("<rt-")
        if not is_own:
            return (filename, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return None


class Graph:
    """A list of operations in creation (program) order.

    Once traced, a graph is frozen (`freeze`): its operations, inputs, outputs and captures,
    and every operation's inputs, outputs and attributes, can no longer change
    (FrozenGraphError). Passes and gradients build new graphs instead.
    """

    _frozen = False
    pruned = False  # set on a frozen graph once the passes find every one of its ops live

    def __init__(self, name: str = "graph", outer_graph: Graph | None = None) -> None:
        self.name: str = name
        self.outer_graph: Graph | None = outer_graph
        self.operations: list[Operation] = []
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self._names: dict[str, int] = {} if outer_graph is None else outer_graph._names
        self._const_cache: dict[Any, SymbolicTensor] = {}
        # id(eager tensor) -> (that tensor, its own Const): tensors captured by identity
        self._identity_captures: dict[int, tuple[Any, SymbolicTensor]] = {}
        self.captures: list[tuple[object, SymbolicTensor]] = []
        self.variables: list[Any] = []  # variables created while this graph was traced

    @property
    def frozen(self) -> bool:
        """Whether the graph is frozen (traced: it never changes again)."""
        return self._frozen

    def freeze(self) -> None:
        """Makes this graph, its operations and their nested bodies read-only for good."""
        if self._frozen:
            return
        for op in self.operations:
            if op.subgraphs:
                for sub in op.subgraphs:
                    sub.freeze()
            op._freeze()
        for t in self.inputs:
            if t.op is not None and type(t.op) is Operation:
                t.op._freeze()
        self.operations = FrozenList(self.operations)
        self.inputs = FrozenList(self.inputs)
        self.outputs = FrozenList(self.outputs)
        self.captures = FrozenList(self.captures)
        # a frozen graph is one of a subclass that refuses assignments to its structure
        # (changing the class, as for operations, keeps building a graph as fast as before)
        cls = type(self)
        frozen = _FROZEN_GRAPH_CLASSES.get(cls)
        if frozen is None:
            frozen = _FROZEN_GRAPH_CLASSES[cls] = type(cls.__name__, (cls,), {
                "__slots__": (), "_frozen": True, "__setattr__": _FrozenGraph.__setattr__,
                "__module__": cls.__module__, "__qualname__": cls.__qualname__,
                "__doc__": cls.__doc__})
        self.__class__ = frozen

    def _check_open(self) -> None:
        if self._frozen:
            raise _refuse(f"The graph {self.name!r}")

    # -- building ----------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        """`base`, or `base_1`, `base_2`, ... so that names stay unique (shared with subgraphs)."""
        base = context.scope_prefix() + base
        count = self._names.get(base)
        if count is None:
            self._names[base] = 1
            return base
        for n in itertools.count(count):
            candidate = f"{base}_{n}"
            if candidate not in self._names:
                self._names[base] = n + 1
                self._names[candidate] = 1
                return candidate
        raise AssertionError("unreachable: itertools.count never ends")

    def create_op(self, opdef: OpDef, inputs: Iterable[Any], attrs: dict[str, Any],
                  out_specs: Iterable[tuple[TensorShape, DType]], name: str | None = None,
                  subgraphs: Iterable[FuncGraph] = ()) -> Operation:
        if self._frozen:
            self._check_open()
        op = Operation(self, opdef, self.unique_name(name or opdef.name), inputs, attrs,
                       context.current_device(), subgraphs)
        op.outputs = [SymbolicTensor(op, i, shape, dtype) for i, (shape, dtype) in enumerate(out_specs)]
        self.operations.append(op)
        return op

    def is_ancestor_of(self, graph: Graph | None) -> bool:
        while graph is not None:
            if graph is self:
                return True
            graph = graph.outer_graph
        return False

    def capture(self, tensor: Any) -> Any:
        """A tensor usable in this graph for `tensor` (eager values become constants)."""
        if type(tensor) is SymbolicTensor:
            if tensor.op.graph.is_ancestor_of(self):
                return tensor
            raise errors.InaccessibleTensorError(
                f"The tensor {tensor.name} was made in another graph (or in a branch or loop body "
                "that has ended) and cannot be used here. Return it from that function, branch or "
                "loop body instead of keeping it in a Python variable.")
        if isinstance(tensor, EagerTensor):
            by_identity = self.root()._identity_captures
            if by_identity:
                found = by_identity.get(id(tensor))
                if found is not None:
                    return found[1]
            return self.constant(tensor._value, captured=True)
        return tensor._as_graph_tensor(self)  # variables and other tensor-likes

    def capture_by_identity(self, tensor: EagerTensor) -> SymbolicTensor:
        """A Const of its own for the eager `tensor`, read by every later capture of this same
        tensor object (as TensorFlow captures a tensor), so that a gradient tape inside the
        function can watch it: a value-shared constant would also stand for other uses of
        the same number."""
        root = self.root()
        found = root._identity_captures.get(id(tensor))
        if found is not None:
            return found[1]
        value = tensor._value
        with context.name_scope_reset():
            op = root.create_op(CONST, [], {"value": value},
                                [(TensorShape(value.shape), from_numpy(value.dtype))], name="Const")
        root.captures.append((value, op.outputs[0]))
        root._identity_captures[id(tensor)] = (tensor, op.outputs[0])
        return op.outputs[0]

    def root(self) -> Graph:
        graph: Graph = self
        while graph.outer_graph is not None:
            graph = graph.outer_graph
        return graph

    def constant(self, value: Any, captured: bool = False) -> SymbolicTensor:
        """A Const op for a NumPy value; repeated small constants are shared."""
        root = self.root()
        key = None
        if value.size <= 16 and value.dtype != object:
            key = (value.dtype.str, value.shape, value.tobytes())
            found = root._const_cache.get(key)
            if found is not None:
                return found
        with context.name_scope_reset():
            op = root.create_op(CONST, [], {"value": value},
                                [(TensorShape(value.shape), from_numpy(value.dtype))], name="Const")
        if key is not None:
            root._const_cache[key] = op.outputs[0]
        if captured:
            root.captures.append((value, op.outputs[0]))
        return op.outputs[0]

    def shared_constant(self, key: Any, make: Callable[[], SymbolicTensor]) -> SymbolicTensor:
        """The constant cached under `key` in the outermost graph, made by `make()` once."""
        cache = self.root()._const_cache
        found = cache.get(key)
        if found is None:
            found = cache[key] = make()
        return found

    def supersede(self, old: Operation, new: list[Operation]) -> None:
        """Puts `new` (operations just created in this graph, the last one taking over all of
        `old`'s output tensors) where the operation now standing for `old` is, and takes that
        one out of the op list. The operations themselves are not changed (nor are the
        tensors: `tensor.op` of those outputs stays the traced op, whose name the new one
        carries): a gradient asks this of the graph being built when it rewrites a traced cond
        or while op."""
        self._check_open()
        current = self.current_version(old)
        moved = {id(op) for op in new}
        ops = [op for op in self.operations if id(op) not in moved]
        at = next(i for i, op in enumerate(ops) if op is current)
        ops[at:at + 1] = new
        self.operations[:] = ops
        versions = self.__dict__.setdefault("_versions", {})
        versions[id(old)] = (old, new[-1])
        if current is not old:
            versions[id(current)] = (current, new[-1])

    def current_version(self, op: Operation) -> Operation:
        """The operation that stands for `op` in this graph now: `op`, or the last operation
        that superseded it (see `supersede`)."""
        versions = self.__dict__.get("_versions")
        while versions:
            found = versions.get(id(op))
            if found is None or found[0] is not op:
                break
            op = found[1]
        return op

    def remove_operations(self, ops: Iterable[Operation]) -> None:
        """Removes `ops` from this graph, with their cached-constant and capture entries."""
        self._check_open()
        ids = {id(op) for op in ops}
        self.operations[:] = [op for op in self.operations if id(op) not in ids]
        for key, t in list(self._const_cache.items()):
            if id(t.op) in ids:
                del self._const_cache[key]
        self.captures[:] = [(v, t) for v, t in self.captures if id(t.op) not in ids]

    # -- reading -----------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        return list(self.operations)

    def as_graph_def(self, add_shapes: bool = False) -> Any:
        """The graph as plain data (`.node`: name, op, input, attr of each operation); see
        runtime/graph_def.py. `add_shapes` is accepted for compatibility: shapes are always in
        each node's `_output_shapes` attribute."""
        from . import graph_def  # on first use: `import runtime` does not load it

        return graph_def.build(self)

    def get_tensor_by_name(self, name: str) -> SymbolicTensor:
        """The tensor named 'op:index' (or 'op' for output 0)."""
        op_name, _, index = name.rpartition(":") if ":" in name else (name, "", "0")
        op = self.get_operation_by_name(op_name)
        if not index.isdigit() or int(index) >= len(op.outputs):
            raise KeyError(f"The operation {op_name!r} has no output {index!r}.")
        return op.outputs[int(index)]

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self.all_operations():
            if op.name == name:
                return op
        for t in self.inputs:
            if t.op.name == name:
                return t.op
        raise KeyError(f"No operation named {name!r} in graph {self.name!r}.")

    def all_operations(self) -> Iterator[Operation]:
        """Every operation, including those of nested cond/while bodies."""
        for op in self.operations:
            yield op
            for sub in op.subgraphs:
                yield from sub.all_operations()

    def __str__(self) -> str:
        return format_graph(self)

    def __repr__(self) -> str:
        return f"<Graph '{self.name}' with {len(self.operations)} operations>"

    def to_dot(self) -> str:
        """Graphviz DOT text; nested cond/while bodies are drawn as clusters."""
        return to_dot(self)

    def to_svg(self) -> str:
        """The graph rendered as SVG; needs the optional `graphviz` package and program."""
        try:
            import graphviz
        except ImportError:
            raise ImportError("Rendering graphs needs the optional graphviz package: "
                              "pip install 'autograph-rt[graphviz]'. Graph.to_dot() needs nothing.") from None
        return graphviz.Source(self.to_dot()).pipe(format="svg").decode()

    def _repr_svg_(self) -> str | None:
        """Jupyter shows a graph as a picture when graphviz is installed."""
        try:
            return self.to_svg()
        except Exception:  # no graphviz: Jupyter falls back to the text listing
            return None


class _FrozenGraph:
    """What a graph's class gains when the graph freezes (`Graph.freeze` makes a subclass of
    it with these names): its structure can no longer be assigned."""

    __slots__ = ()
    _frozen = True

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _GRAPH_STRUCTURE:
            raise _refuse(f"The graph {self.name!r}")  # type: ignore[attr-defined]
        object.__setattr__(self, name, value)


_FROZEN_GRAPH_CLASSES: dict[type, type] = {}  # a graph class -> its frozen subclass
_GRAPH_STRUCTURE = frozenset({"name", "outer_graph", "operations", "inputs", "outputs",
                              "captures", "variables", "structured_input_signature",
                              "structured_outputs"})


class FuncGraph(Graph):
    """A graph with placeholders (`inputs`) and results (`outputs`): a traced function body."""

    def __init__(self, name: str, outer_graph: Graph | None = None) -> None:
        super().__init__(name, outer_graph)
        self.structured_input_signature: Any = None
        self.structured_outputs: Any = None

    def placeholder(self, shape: TensorShape, dtype: DType, name: str = "input") -> SymbolicTensor:
        op = self.create_op(PLACEHOLDER, [], {}, [(shape, dtype)], name=name)
        # placeholders are not part of the op program: they are the function's parameters
        self.operations.remove(op)
        self.inputs.append(op.outputs[0])
        return op.outputs[0]


def external_inputs(op: Operation) -> list[SymbolicTensor]:
    """Tensors from enclosing graphs that the subgraphs of `op` (nested ones included) read."""
    result = []
    for sub in op.subgraphs:
        for graph in graphs_within(sub):
            for inner in graph.operations:
                for t in inner.inputs:
                    if not sub.is_ancestor_of(t.op.graph):
                        result.append(t)
            for t in graph.outputs:  # a branch may return an outer tensor as it is
                if not sub.is_ancestor_of(t.op.graph):
                    result.append(t)
    return result


def graphs_within(graph: Graph) -> Iterator[Graph]:
    """`graph` and every branch and loop body nested in it, outermost first."""
    yield graph
    for op in graph.operations:
        for sub in op.subgraphs:
            yield from graphs_within(sub)


def constant_value(tensor: Any) -> Any:
    """The NumPy value of a tensor known at trace time (eager, or a Const op), else None."""
    if isinstance(tensor, EagerTensor):
        return tensor._value
    if type(tensor) is SymbolicTensor and tensor.op.opdef.is_constant:
        return tensor.op.attrs["value"]
    if isinstance(tensor, (int, float, bool, np.ndarray, np.generic)):
        return np.asarray(tensor)
    return None


def copy_function_graph(graph: FuncGraph) -> tuple[FuncGraph, dict[int, SymbolicTensor]]:
    """A copy of `graph` with its own operations, tensors and nested bodies.

    Returns the copy and a map from `id(original tensor)` to its copy. Attributes (variables,
    constants' values) are shared, not copied. Passes that need to change a graph (the
    gradient's forward, which saves values for the backward pass) change a copy, so the
    traced graph stays as it was traced.
    """
    mapping: dict[int, SymbolicTensor] = {}
    copy = FuncGraph(graph.name)
    copy._names = dict(graph._names)
    _copy_into(graph, copy, mapping)
    copy.structured_input_signature = graph.structured_input_signature
    copy.structured_outputs = graph.structured_outputs
    copy.variables = list(graph.variables)
    copy.captures = [(v, mapping.get(id(t), t)) for v, t in graph.captures]
    return copy, mapping


def copy_into(graph: Any, copy: Graph, mapping: dict) -> None:
    """Copies the inputs (as placeholders), operations and outputs of `graph` (anything with
    those three lists) into `copy`; a tensor with an entry in `mapping` is read from there."""
    _copy_into(graph, copy, mapping)


def _copy_into(graph: Graph, copy: Graph, mapping: dict) -> None:
    for t in graph.inputs:
        new_input = SymbolicTensor(None, 0, t.shape, t.dtype)
        placeholder = Operation(copy, t.op.opdef, t.op.name, [], t.op.attrs, t.op.device)
        placeholder.outputs = [new_input]
        placeholder.location = t.op.location
        new_input.op = placeholder
        mapping[id(t)] = new_input
        copy.inputs.append(new_input)
    for op in graph.operations:
        subgraphs = []
        for sub in op.subgraphs:
            new_sub = FuncGraph(sub.name, outer_graph=copy)
            _copy_into(sub, new_sub, mapping)
            subgraphs.append(new_sub)
        new = Operation(copy, op.opdef, op.name, [mapping.get(id(t), t) for t in op.inputs],
                        op.attrs, op.device, subgraphs)
        new.location = op.location
        new.outputs = [SymbolicTensor(new, i, t.shape, t.dtype) for i, t in enumerate(op.outputs)]
        for t, c in zip(op.outputs, new.outputs):
            mapping[id(t)] = c
        copy.operations.append(new)
    copy.outputs = [mapping.get(id(t), t) for t in graph.outputs]
