"""Lowering a FuncGraph to the source of one Numba kernel and its Python caller.

The kernel is a plain function of the graph inputs, the values of the variables it uses and
its array constants; it returns the outputs and the variables' new values. Each op is
written by the Numba lowering registered on its OpDef (`rules.writer`): `cond` and
`while_loop` become native `if` and `while` (here, as do variables), fused elementwise chains
become loops (`fusion.py`), TensorArrays are growing buffers (`tensor_arrays.py`); an op
without one runs its NumPy kernel (`vectorised.py`). The caller reads the variables, calls
the kernel and stores what it assigned.
"""

from __future__ import annotations

import contextlib
import itertools
import re

import numpy as np

from ...graph import graphs_within
from ...ops.array_math import ADD, SLICE_GRAD
from ...ops.control_flow import COND, WHILE
from ...ops.variables import ASSIGN, INIT, READ
from ...passes import external_inputs, live_operations
from ..base import JitCompileError, describe
from . import fusion, vectorised, windows  # noqa: F401 - windows registers its writers
from .rules import add_into_slice, lowers, one_row_scatter, slice_grad_index, writer
from .tensor_arrays import TensorArrays, makes_stack, rows_read, set_stack, stack_carrier


class _NotNative(Exception):
    """A writer met a case its native form does not cover: the op runs its NumPy kernel."""


class KernelWriter:
    """Collects the kernel's lines, its parameters and what each tensor is called."""

    def __init__(self, graph):
        self.graph = graph
        self.lines: list[str] = []
        self.line_ops: dict[int, object] = {}
        self.parallel = False
        self.object_mode = False  # an allocation goes through Python: the GIL is kept
        self.fused_loops = 0
        self.variables: list = []  # variable objects, in parameter order
        self.assigned: set[int] = set()  # indexes into `variables`
        self.constants: list = []  # array constants passed as parameters
        self.calls: list = []  # NumPy kernels run in objmode blocks (the module's _OPS)
        self.arrays = TensorArrays(graph)
        self.stacks: dict[int, str] = {}  # id(tensor) -> its stack carrier (tensor_arrays.py)
        self.stack_rows = rows_read(graph)  # ids of the tensors read as arrays
        self._var_names: dict[int, str] = {}
        self._names: dict[int, str] = {}
        self._keep: list = []
        self._indent = 1
        self._counters: dict[str, itertools.count] = {}
        self._current = None
        self._readers = _readers(graph)
        # tensors whose array the kernel allocated for them alone (a fused loop's results)
        self.fresh_arrays: set[int] = set()
        self._native_only = True  # False while a writer may hand its op to NumPy instead
        self._slice_adds: dict[int, tuple] = {}  # id(Add) -> (its StridedSliceGrad, input)
        self._slice_grads: set[int] = set()  # ids of those StridedSliceGrads
        # ids of loop bodies' inputs that are the loop's own array, added into in place
        self.accumulators: set[int] = set()
        self._objmode: dict | None = None  # the last objmode block (open_objmode)

    # -- names -------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        return f"{prefix}{next(self._counters.setdefault(prefix, itertools.count()))}"

    def name(self, tensor) -> str:
        try:
            return self._names[id(tensor)]
        except KeyError:
            raise JitCompileError(f"internal: tensor {tensor.name} is used before it is "
                                  "computed") from None

    def alias(self, tensor, name: str) -> None:
        self._names[id(tensor)] = name
        self._keep.append(tensor)

    @property
    def current(self):
        """The op being written."""
        return self._current

    def ins(self, op) -> list[str]:
        return [self.name(t) for t in op.inputs]

    def assign(self, op, expr: str) -> None:
        name = self.fresh("t")
        self.line(f"{name} = {expr}")
        self.alias(op.outputs[0], name)

    def only_reader(self, tensor, op) -> bool:
        """Whether `op` is the one reader of `tensor` (no other op, no graph output)."""
        return self._readers.get(id(tensor)) == [id(op)]

    def read_only_within(self, tensor, ops) -> bool:
        """Whether ops of `ops` read `tensor`, and nothing else (no other op, no output)."""
        inside = {id(op) for op in ops}
        readers = self._readers.get(id(tensor), ())
        return bool(readers) and all(r in inside for r in readers)

    def is_read(self, tensor) -> bool:
        """Whether an op or a graph output reads `tensor`."""
        return bool(self._readers.get(id(tensor)))

    def variable(self, var) -> str:
        name = self._var_names.get(id(var))
        if name is None:
            name = self._var_names[id(var)] = f"v{len(self.variables)}"
            self.variables.append(var)
        return name

    # -- types -------------------------------------------------------------------------------
    def dt(self, dtype) -> str:
        np_type = np.dtype(getattr(dtype, "as_numpy_dtype", dtype)).type
        if np_type is np.bool_:
            return "np.bool_"
        if np.dtype(np_type).kind not in "biufc" or np_type is np.float16:
            what = f"values of dtype {getattr(dtype, 'name', np.dtype(np_type).name)}"
            if self._current is not None:
                self.unsupported(self._current, what)
            raise JitCompileError(f"jit_compile=True: {what} are not supported.")
        return f"np.{np_type.__name__}"

    def typed(self, expr: str, tensor) -> str:
        """`expr` with the tensor's dtype: scalars through the type, integer arrays cast."""
        if tensor.dtype.is_bool:
            return expr
        if tensor.shape.rank == 0:
            return f"{self.dt(tensor.dtype)}({expr})"
        if not tensor.dtype.is_floating:
            return f"({expr}).astype({self.dt(tensor.dtype)})"
        return expr

    def static_dims(self, tensor) -> list[int]:
        dims = tensor.shape.as_tuple()
        if dims is None or any(d is None for d in dims):
            self.unsupported(self._current, f"a tensor of unknown shape {tensor.shape}")
        return list(dims)

    def shape_literal(self, shape) -> str:
        dims = shape.as_tuple()
        if dims is None or any(d is None for d in dims):
            self.unsupported(self._current, f"a result of unknown shape {shape}")
        return repr(tuple(dims))

    def unsupported(self, op, what: str):
        if not self._native_only and op is self._current:
            raise _NotNative(what)
        raise JitCompileError(
            f"jit_compile=True cannot compile {describe(op)}: {what} is not supported. Use "
            "jit_compile=False for this function (the NumPy executor runs every op).")

    # -- lines -------------------------------------------------------------------------------
    def line(self, text: str) -> None:
        self.lines.append("    " * self._indent + text)
        if self._current is not None:
            self.line_ops[len(self.lines)] = self._current

    def open_objmode(self, op, declared: list[tuple], note: str) -> None:
        """Starts an objmode block for `op` declaring its results `declared` ((name, tensor,
        Numba type) each), or continues the block just closed when nothing was written
        since: consecutive NumPy calls share one block, which Numba compiles as one
        object-mode function (each block costs its own compile, and a round trip through
        Python at each call). A block declares the results that an op outside it reads."""
        last = self._objmode
        if last is not None and last["end"] == (len(self.lines), self._indent):
            last["ops"].add(id(op))
            last["declared"] += declared
            last["notes"].append(note)
        else:
            self.line("")
            last = self._objmode = {"header": len(self.lines) - 1, "ops": {id(op)},
                                    "declared": list(declared), "notes": [note]}
        last["end"] = None
        names = ", ".join(f"{name}={kind!r}" for name, t, kind in last["declared"]
                          if any(r not in last["ops"] for r in self._readers.get(id(t), ())))
        self.lines[last["header"]] = ("    " * self._indent + f"with numba.objmode({names}):"
                                      f"  # {'; '.join(last['notes'])}")

    def close_objmode(self) -> None:
        """Ends the objmode block `open_objmode` started (a next one may continue it)."""
        self._objmode["end"] = (len(self.lines), self._indent)

    @contextlib.contextmanager
    def indented(self):
        self._indent += 1
        try:
            yield
        finally:
            self._indent -= 1

    # -- graphs ------------------------------------------------------------------------------
    def emit_graph(self, graph, outputs=None) -> None:
        ops = live_operations(graph, graph.outputs if outputs is None else outputs)
        self._find_slice_adds(ops)
        for item in fusion.plan(ops, self._reads, apart=self._slice_adds):
            if isinstance(item, fusion.Group):
                self._current = item.ops[-1]
                fusion.write_group(self, item, lambda t, ops=item.ops: self._needed(t, ops))
                self.fused_loops += 1
                self._current = None
            else:
                self.write_op(item)

    def _find_slice_adds(self, ops) -> None:
        """Adds of a StridedSliceGrad (or a one-row ScatterAddAxis) that only they read to a
        tensor of the full shape (a gradient accumulated slice by slice): written by
        `rules.add_into_slice`, unfused."""
        ids = {id(op) for op in ops}
        for op in ops:
            found = self.slice_add(op)
            if found is not None and id(found[0]) in ids:
                self._slice_adds[id(op)] = found
                self._slice_grads.add(id(found[0]))

    def slice_add(self, op):
        """(the slice gradient, its input position) when `op` adds a slice gradient that only
        it reads to a tensor of the full shape; else None."""
        if op.opdef is not ADD or not op.outputs[0].shape.is_fully_defined():
            return None
        for k, t in enumerate(op.inputs):
            other = op.inputs[1 - k]
            src = t.op
            if (((src.opdef is SLICE_GRAD and slice_grad_index(src) is not None)
                 or one_row_scatter(src))
                    and self._readers.get(id(t)) == [id(op)] and other is not t
                    and other.shape == t.shape == op.outputs[0].shape
                    and other.dtype == t.dtype == op.outputs[0].dtype):
                return src, k
        return None

    def _reads(self, op):
        return list(op.inputs) + (external_inputs(op) if op.subgraphs else [])

    def _needed(self, tensor, group_ops) -> bool:
        inside = {id(op) for op in group_ops}
        return any(reader not in inside for reader in self._readers.get(id(tensor), ()))

    def write_op(self, op) -> None:
        outer, self._current = self._current, op
        try:
            self._write_op(op)
        finally:
            self._current = outer

    def _write_op(self, op) -> None:
        """Writes `op` as its OpDef's Numba lowering says (rules.writer), else runs its NumPy
        kernel; refuses an op that has neither, naming it."""
        opdef = op.opdef
        for t in op.outputs:
            if t.shape.rank is None:
                self.unsupported(op, "a result of unknown rank")
        if opdef.is_constant:
            return  # written once at the top
        if id(op) in self._slice_grads:
            return  # written by the Add that reads it
        if id(op) in self._slice_adds:
            grad_op, k = self._slice_adds[id(op)]
            other = op.inputs[1 - k]
            add_into_slice(self, op, grad_op, self.name(other),
                           in_place=id(other) in self.accumulators)
            return
        found = writer(opdef)
        if vectorised.vectorised(op):
            vectorised.write(self, op)
        elif found is not None and found.numpy_fallback:
            self._write_native(op, lambda: found.write(self, op))
        elif found is not None:
            found.write(self, op)
        elif (opdef.kernel is not None and not op.subgraphs and opdef.carrier is None
              and not opdef.variable):
            vectorised.write(self, op)
        else:
            self.unsupported(op, f"the op type {op.type!r}")

    def _write_native(self, op, write) -> None:
        """`write()`, or the op's NumPy kernel when the native writer does not cover it."""
        mark, self._native_only = len(self.lines), op.opdef.kernel is None
        try:
            write()
        except _NotNative:
            del self.lines[mark:]
            self._native_only = True  # the NumPy form refuses with a JitCompileError
            vectorised.write(self, op)
        finally:
            self._native_only = True

    # -- elementwise -------------------------------------------------------------------------
    def scalar_expr(self, op, operands) -> str:
        """The fusible `op` on one element of its `operands` (source expressions)."""
        return writer(op.opdef).scalar(self, op, operands)


# -- control flow and variables: writers registered on their OpDefs --------------------------

@lowers(COND, numpy_fallback=False)
def _write_if(w, op) -> None:
    """A Python `if` in both tiers: the op's own emitter writes it."""
    op.opdef.emit(w, op)


@lowers(WHILE, numpy_fallback=False)
def _write_while(w, op) -> None:
    cond, body = op.subgraphs
    names = [w.fresh("w") for _ in op.outputs]
    inits = w.ins(op)
    n_vars = len(names)
    # a stack the body pushes onto is carried as (buffer, count, claim): pushes in place
    stacks = [i for i in range(n_vars) if makes_stack(body.outputs[i])]
    for i in stacks:
        inits[i] = stack_carrier(w, op.inputs[i])
    for i in _accumulated(w, cond, body, stacks):
        inits[i] = f"{inits[i]}.copy()"  # the loop's own array: slices are added in place
        w.accumulators.add(id(body.inputs[i]))
    _assign_all(w, names, inits[:n_vars])
    for graph in (cond, body):
        for t, name in zip(graph.inputs, names):
            w.alias(t, name)
    counter = None
    if len(inits) > n_vars:
        counter = w.fresh("n")
        w.line(f"{counter} = 0")
    w.line("while True:")
    with w.indented():
        if counter is not None:
            w.line(f"if {counter} >= {inits[n_vars]}:")
            with w.indented():
                w.line("break")
            w.line(f"{counter} += 1")
        for i in stacks:
            for graph in (cond, body):
                set_stack(w, graph.inputs[i], names[i])
        w.emit_graph(cond)
        w.line(f"if not {w.name(cond.outputs[0])}:")
        with w.indented():
            w.line("break")
        w.emit_graph(body)
        results = [stack_carrier(w, t) if i in stacks else w.name(t)
                   for i, t in enumerate(body.outputs)]
        _assign_all(w, names, results)
    for t, name in zip(op.outputs, names):
        w.alias(t, name)
    for i in stacks:
        set_stack(w, op.outputs[i], names[i])


def _accumulated(w, cond, body, stacks) -> list[int]:
    """The loop variables that each step replaces by themselves plus a slice gradient (a
    gradient accumulated a row a step, such as an RNN's input sequence's) and that nothing
    else reads: the cond, other ops, the body's outputs. The loop adds into its own copy of
    such a variable in place."""
    found = []
    for i, (t_in, t_out) in enumerate(zip(body.inputs, body.outputs)):
        add = t_out.op
        if (i in stacks or w.is_read(cond.inputs[i])
                or w._readers.get(id(t_out)) != ["out"]
                or w._readers.get(id(t_in)) != [id(add)]):
            continue
        grad = w.slice_add(add)
        if grad is not None and add.inputs[1 - grad[1]] is t_in:
            found.append(i)
    return found


def _assign_all(w, names: list[str], values: list[str]) -> None:
    """`names = values` as one assignment a name: Numba builds a tuple of more than three
    values and unpacks it, increfs and decrefs of every array in it, which for a loop's dozens
    of variables is much of the kernel's compile time. A value that names a variable written
    here is copied first."""
    pending = [(name, value) for name, value in zip(names, values) if name != value]
    targets = {name for name, _ in pending}
    first = {}
    for _, value in pending:
        if value in targets and value not in first:
            first[value] = w.fresh("p")
            w.line(f"{first[value]} = {value}")
    for name, value in pending:
        w.line(f"{name} = {first.get(value, value)}")


@lowers(READ, numpy_fallback=False)
def _write_read(w, op) -> None:
    # a later assignment rebinds the variable's name; the read keeps its value
    w.assign(op, w.variable(op.attrs["var"]))


@lowers(ASSIGN, numpy_fallback=False)
def _write_assign(w, op) -> None:
    var = op.attrs["var"]
    name = w.variable(var)
    x = w.name(op.inputs[0])
    mode = op.attrs["mode"]
    expr = x if mode == "assign" else f"{name} {'+' if mode == 'add' else '-'} {x}"
    if var.shape.rank == 0:
        expr = f"{w.dt(var.dtype)}({expr})"
    w.line(f"{name} = {expr}")
    w.assigned.add(int(name[1:]))
    if op.outputs:
        w.alias(op.outputs[0], name)


@lowers(INIT, numpy_fallback=False)
def _write_init(w, op) -> None:
    """Nothing: the caller runs the NumPy executor while a variable is unset."""


def _readers(graph) -> dict[int, list]:
    """Tensor id -> ids of the live ops that read it (the string "out" for a graph output);
    a reader that is never run (its result unused) does not count, so an output of a
    several-output op that only such an op reads is not declared as an objmode result."""
    found: dict[int, list] = {}
    for g in graphs_within(graph):
        for op in live_operations(g, g.outputs):
            for t in op.inputs:
                found.setdefault(id(t), []).append(id(op))
        for t in g.outputs:
            found.setdefault(id(t), []).append("out")
    return found


class Lowered:
    """The kernel source and what its caller passes to it."""

    def __init__(self, source: str, w: KernelWriter, input_ranks: list[int]):
        self.source = source
        self.variables = w.variables
        self.assigned = sorted(w.assigned)
        self.constants = w.constants
        self.calls = w.calls
        self.parallel = w.parallel
        self.fused_loops = w.fused_loops
        self.line_ops = w.line_ops
        self.input_ranks = input_ranks
        self.has_init = any(op.opdef is INIT for g in graphs_within(w.graph)
                            for op in g.operations)


HEADER = ("import numba\nimport numpy as np\n\nfrom runtime.backends.numba import helpers as _h\n"
          "from runtime.backends.numba import vectorised as _v\n"
          "from runtime.backends.numba import window_kernels as _w\n\n_OPS = []  # set by the compiler\n\n\n")
HEADER_LINES = HEADER.count("\n") + 1  # the decorator line comes before `def kernel`


def _refuse_string_input(graph, tensor) -> None:
    """A string input (the tier holds no strings) is refused naming the op that reads it."""
    for op in live_operations(graph, graph.outputs):
        if any(t is tensor for t in op.inputs):
            raise JitCompileError(
                f"jit_compile=True cannot compile {describe(op)}: its input of dtype string is "
                "not supported. Use jit_compile=False for this function (the NumPy executor "
                "runs every op).")


def lower(graph, fastmath) -> Lowered:
    """The kernel for `graph` (raises JitCompileError naming an op it cannot compile)."""
    w = KernelWriter(graph)
    params = []
    for i, t in enumerate(graph.inputs):
        if t.shape.rank is None:
            raise JitCompileError(f"jit_compile=True needs inputs of known rank; input {i} has "
                                  f"shape {t.shape}.")
        if t.dtype.name == "string":
            _refuse_string_input(graph, t)
        if t.dtype.name != "variant":  # a loop's saves for its gradient: a tuple of buffers
            w.dt(t.dtype)
        params.append(f"a{i}")
        w.alias(t, f"a{i}")
    _write_constants(w, graph)
    w.emit_graph(graph)
    _set_up_object_mode_first(w)
    returns = [w.name(t) for t in graph.outputs]
    returns += [w.variable(w.variables[i]) for i in sorted(w.assigned)]
    params += [f"v{i}" for i in range(len(w.variables))]
    params += [f"k{i}" for i in range(len(w.constants))]
    flags = ", ".join(repr(f) for f in sorted(fastmath))  # sorted: the source must not vary
    options = f"cache=True, error_model='numpy', fastmath={{{flags}}}"
    if not w.object_mode:
        options += ", nogil=True"
    if w.parallel:
        options += ", parallel=True"
    body = "\n".join(w.lines) or "    pass"
    source = (f"@numba.njit({options})\ndef kernel({', '.join(params)}):\n{body}\n"
              f"    return ({''.join(r + ', ' for r in returns)})\n")
    return Lowered(HEADER + unambiguous_names(source), w, [t.shape.rank for t in graph.inputs])


_NUMBERED = re.compile(r"(?<![\w.'\"])([a-z]+\d+)\b")


def unambiguous_names(source: str) -> str:
    """`source` with every local name that ends in a digit (`t12`, `a0`) ending in `_`.

    Numba names the temporary of each load of a local `$<name><bytecode offset>.<n>`: with
    names ending in digits, a load of `l3` at offset 4648 and one of `l34` at offset 648 get
    the same temporary, one of them is lost, and type inference fails ("Type of variable
    '$l34648.2' cannot be determined"). A name ending in `_` keeps the two apart."""
    return _NUMBERED.sub(r"\1_", source)


OBJMODE = "with numba.objmode("


def _set_up_object_mode_first(w) -> None:
    """An empty objmode block first in the kernel when its first objmode block is nested.

    Numba sets up the Python API of a function (its environment pointers) at the first
    objmode block it lowers, and every later block reuses those values. When that first
    block is inside a loop or a branch, they do not dominate a block after it, and LLVM
    rejects the module ("Instruction does not dominate all uses!"). An empty block at the top
    of the kernel is lowered first and dominates every other block.
    """
    first = next((line for line in w.lines if line.lstrip().startswith(OBJMODE)), None)
    if first is None or first.startswith("    " + OBJMODE):
        return
    w.lines[:0] = ["    with numba.objmode():  # sets up Numba's Python API for the nested "
                   "objmode blocks", "        pass"]
    w.line_ops = {k + 2: op for k, op in w.line_ops.items()}


def _write_constants(w, graph) -> None:
    used = set()
    for g in graphs_within(graph):
        for op in g.operations:
            used.update(id(t) for t in op.inputs)
        used.update(id(t) for t in g.outputs)
    for op in graph.operations:
        if not op.opdef.is_constant or id(op.outputs[0]) not in used:
            continue
        value = np.asarray(op.attrs["value"])
        if value.dtype.kind not in "biuf":
            w.unsupported(op, f"a constant of dtype {value.dtype}")
        if value.ndim == 0:
            w.alias(op.outputs[0], w.fresh("c"))
            w.line(f"{w.name(op.outputs[0])} = {_scalar_literal(value)}")
        else:
            w.alias(op.outputs[0], f"k{len(w.constants)}")
            w.constants.append(np.ascontiguousarray(value))


def _scalar_literal(value) -> str:
    kind = value.dtype.kind
    if kind == "b":
        return repr(bool(value))
    number = int(value) if kind in "iu" else float(value)
    text = repr(number) if np.isfinite(number) else f"np.{'nan' if np.isnan(number) else 'inf'}"
    if kind == "f" and np.isinf(number) and number < 0:
        text = "-np.inf"
    return f"np.{value.dtype.type.__name__}({text})"
