"""Lowering a FuncGraph to the source of one Numba kernel and its Python caller.

The kernel is a plain function of the graph inputs, the values of the variables it uses and
its array constants; it returns the outputs and the variables' new values. `cond` and
`while_loop` become native `if` and `while`; fused elementwise chains become loops
(`fusion.py`); TensorArrays are growing buffers (`tensor_arrays.py`). The caller reads the
variables, calls the kernel and stores what it assigned.
"""

from __future__ import annotations

import contextlib
import itertools

import numpy as np

from ...graph import graphs_within
from ...ops.array_ops import int_range, is_float_to_int
from ...passes import external_inputs, live_operations
from ..base import JitCompileError, describe
from . import fusion, vectorised
from .rules import ALIASES, CAST, ELEMENTWISE, FILL, WRITERS, add_into_slice, slice_grad_index
from .tensor_arrays import TensorArrays

_VARIABLE_OPS = {"ReadVariableOp", "AssignVariableOp", "VarInitIfNeeded"}
# The gradients of TensorArray ops: maps {index: element gradient}, in a kernel a triple
# (buffer, present, size) like a TensorArray (`_write_tensor_array_grad_op`).
TENSOR_ARRAY_GRADIENTS = frozenset({
    "TensorArrayGradAdd", "TensorArrayGradFromStack", "TensorArrayGradFromRead",
    "TensorArrayGradFromGather", "TensorArrayGradFromConcat", "TensorArrayWriteGrad",
    "TensorArrayScatterGrad"})


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
        self._var_names: dict[int, str] = {}
        self._names: dict[int, str] = {}
        self._keep: list = []
        self._indent = 1
        self._counters: dict[str, itertools.count] = {}
        self._current = None
        self._readers = _readers(graph)
        self._native_only = True  # False while a writer may hand its op to NumPy instead
        self._slice_adds: dict[int, tuple] = {}  # id(Add) -> (its StridedSliceGrad, input)
        self._slice_grads: set[int] = set()  # ids of those StridedSliceGrads

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
        np_type = dtype._np.type if hasattr(dtype, "_np") else np.dtype(dtype).type
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
        """Adds of a StridedSliceGrad that only they read to a tensor of the full shape (a
        gradient accumulated slice by slice): written by `rules.add_into_slice`, unfused."""
        ids = {id(op) for op in ops}
        for op in ops:
            if op.type != "Add" or not op.outputs[0].shape.is_fully_defined():
                continue
            for k, t in enumerate(op.inputs):
                other = op.inputs[1 - k]
                src = t.op
                if (src.type == "StridedSliceGrad" and id(src) in ids
                        and slice_grad_index(src) is not None
                        and self._readers.get(id(t)) == [id(op)] and other is not t
                        and other.shape == t.shape == op.outputs[0].shape
                        and other.dtype == t.dtype == op.outputs[0].dtype):
                    self._slice_adds[id(op)] = (src, k)
                    self._slice_grads.add(id(src))
                    break

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
        kind = op.type
        for t in op.outputs:
            if t.shape.rank is None:
                self.unsupported(op, "a result of unknown rank")
        if kind == "Const":
            return  # written once at the top
        if id(op) in self._slice_grads:
            return  # written by the Add that reads it
        if id(op) in self._slice_adds:
            grad_op, k = self._slice_adds[id(op)]
            add_into_slice(self, op, grad_op, self.name(op.inputs[1 - k]))
            return
        if kind in ALIASES:
            self.alias(op.outputs[0], self.name(op.inputs[0]))
        elif vectorised.vectorised(op):
            vectorised.write(self, op)
        elif kind in ELEMENTWISE or kind == CAST:
            self._write_native(op, lambda: self._write_elementwise(op))
        elif kind in WRITERS:
            self._write_native(op, lambda: WRITERS[kind](self, op))
        elif kind == "If":  # a Python `if` in both tiers: the op's own emitter writes it
            op.opdef.emit(self, op)
        elif kind == "While":
            self._write_while(op)
        elif kind in _VARIABLE_OPS:
            self._write_variable_op(op)
        elif kind in TENSOR_ARRAY_GRADIENTS:
            self._write_tensor_array_grad_op(op)
        elif kind.startswith("TensorArray"):
            self._write_tensor_array_op(op)
        elif kind.startswith("Accumulator") and kind != "AccumulatorSource":
            self._write_accumulator_op(op)
        elif op.opdef.kernel is not None and not op.subgraphs:
            vectorised.write(self, op)
        else:
            self.unsupported(op, f"the op type {kind!r}")

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
        out = op.outputs[0]
        if op.type == FILL:
            return operands[0] if out.dtype.is_bool else f"{self.dt(out.dtype)}({operands[0]})"
        if op.type == CAST:
            if out.dtype.is_bool:
                return f"{operands[0]} != 0"
            if is_float_to_int(op.inputs[0].dtype.as_numpy_dtype, out.dtype.as_numpy_dtype):
                return self._saturating(operands[0], out.dtype)
            return f"{self.dt(out.dtype)}({operands[0]})"
        rule = ELEMENTWISE[op.type]
        expr = rule.scalar.format(*operands, **self._constants_for(op))
        return expr if rule.boolean else f"{self.dt(out.dtype)}({expr})"

    def _write_elementwise(self, op) -> None:
        out = op.outputs[0]
        operands = self.ins(op)
        if out.shape.rank == 0:
            self.assign(op, self.scalar_expr(op, operands))
            return
        if op.type == CAST:
            src = op.inputs[0]
            if src.shape.rank == 0:
                self.assign(op, f"np.full({self.shape_literal(out.shape)}, {operands[0]})")
            elif out.dtype.is_bool:
                self.assign(op, f"{operands[0]} != 0")
            elif is_float_to_int(src.dtype.as_numpy_dtype, out.dtype.as_numpy_dtype):
                lo, hi, top = int_range(out.dtype.as_numpy_dtype)
                t = self.dt(out.dtype)
                self.assign(op, f"_h.saturate_into({operands[0]}, np.empty({operands[0]}.shape, "
                                f"{t}), {t}({lo}), {t}({hi}), {top!r})")
            else:
                self.assign(op, f"{operands[0]}.astype({self.dt(out.dtype)})")
            return
        rule = ELEMENTWISE[op.type]
        expr = (rule.array or rule.scalar).format(*operands, **self._constants_for(op))
        self.assign(op, expr)

    def _saturating(self, x: str, dtype) -> str:
        """The scalar float `x` as the integer `dtype`, saturating as the Cast op does on
        every tier (array_ops.saturating_cast): NaN 0, out of range the nearest end."""
        lo, hi, top = int_range(dtype.as_numpy_dtype)
        t = self.dt(dtype)
        return (f"({t}(0) if {x} != {x} else {t}({lo}) if {x} < {float(lo)!r} else "
                f"{t}({hi}) if {x} >= {top!r} else {t}({x}))")

    def _constants_for(self, op) -> dict:
        dtype = op.inputs[0].dtype
        if dtype.is_bool:
            return {}
        t = self.dt(dtype)
        return {"one": f"{t}(1)", "zero": f"{t}(0)", "T": t}

    # -- control flow ------------------------------------------------------------------------
    def _write_while(self, op) -> None:
        cond, body = op.subgraphs
        names = [self.fresh("w") for _ in op.outputs]
        inits = self.ins(op)
        n_vars = len(names)
        if names:
            self.line(f"{', '.join(names)} = {', '.join(inits[:n_vars])}")
        for graph in (cond, body):
            for t, name in zip(graph.inputs, names):
                self.alias(t, name)
        counter = None
        if len(inits) > n_vars:
            counter = self.fresh("n")
            self.line(f"{counter} = 0")
        self.line("while True:")
        with self.indented():
            if counter is not None:
                self.line(f"if {counter} >= {inits[n_vars]}:")
                with self.indented():
                    self.line("break")
                self.line(f"{counter} += 1")
            self.emit_graph(cond)
            self.line(f"if not {self.name(cond.outputs[0])}:")
            with self.indented():
                self.line("break")
            self.emit_graph(body)
            results = [self.name(t) for t in body.outputs]
            if names:
                self.line(f"{', '.join(names)} = {', '.join(results)}")
        for t, name in zip(op.outputs, names):
            self.alias(t, name)

    # -- state -------------------------------------------------------------------------------
    def _write_variable_op(self, op) -> None:
        var = op.attrs["var"]
        name = self.variable(var)
        if op.type == "ReadVariableOp":
            self.assign(op, name)  # a later assignment rebinds `name`; the read keeps its value
        elif op.type == "AssignVariableOp":
            x = self.name(op.inputs[0])
            mode = op.attrs["mode"]
            expr = x if mode == "assign" else f"{name} {'+' if mode == 'add' else '-'} {x}"
            if var.shape.rank == 0:
                expr = f"{self.dt(var.dtype)}({expr})"
            self.line(f"{name} = {expr}")
            self.assigned.add(int(name[1:]))
            if op.outputs:
                self.alias(op.outputs[0], name)
        # VarInitIfNeeded: the caller runs the NumPy executor while a variable is unset

    def _write_tensor_array_op(self, op) -> None:
        info = self.arrays.info(op.inputs[0] if op.inputs and op.type != "TensorArrayV3"
                                else op.outputs[0])
        if info is None or info.rank is None:
            self.unsupported(op, "a TensorArray whose element rank is unknown")
        names = self.ins(op)
        new = info.new_op
        dynamic = bool(new.attrs.get("dynamic_size"))
        kind = op.type
        if kind == "TensorArrayV3":
            shape = new.attrs.get("element_shape")
            dims = [d or 0 for d in shape] if shape is not None else [0] * info.rank
            size = f"np.int64({names[0]})"
            self.assign(op, f"(np.zeros(({size}, {''.join(f'{d}, ' for d in dims)}), "
                            f"{self.dt(new.attrs['dtype'])}), np.zeros({size}, np.bool_), {size})")
        elif kind == "TensorArrayWriteV3":
            h, i, v = names
            fn = "write" if info.rank else "write_scalar"
            self.assign(op, f"_h.{fn}(*{h}, np.int64({i}), {v}, {dynamic})")
        elif kind == "TensorArrayReadV3":
            h, i = names
            item = f"{h}[0][_h.check_index({h}[1], {h}[2], np.int64({i}))]"
            self.assign(op, f"{item}.copy()" if info.rank else item)
        elif kind == "TensorArrayStack":
            self.assign(op, f"_h.stack(*{names[0]})")
        elif kind == "TensorArraySizeV3":
            self.assign(op, f"np.int32({names[0]}[2])")
        elif kind == "TensorArrayGatherV3":
            h, i = names
            self.assign(op, f"_h.gather(*{h}, {i})")
        elif kind == "TensorArrayConcatV3":
            self.assign(op, f"_h.concat(*{names[0]})")
        elif kind == "TensorArrayScatterV3":
            v = names[1]
            self.assign(op, f"(np.ascontiguousarray({v}).copy(), np.ones({v}.shape[0], np.bool_), "
                            f"np.int64({v}.shape[0]))")
        else:
            self.unsupported(op, f"the op type {kind!r}")

    def _write_tensor_array_grad_op(self, op) -> None:
        """A TensorArray's gradient, a map {index: element gradient}: (buffer, present, size)."""
        names = self.ins(op)
        kind = op.type
        if kind == "TensorArrayGradAdd":
            if not names:
                element = self.arrays.grad_element(op.outputs[0])
                if element is None:
                    self.unsupported(op, "a TensorArray gradient whose element rank is unknown")
                rank, dtype = element
                self.assign(op, f"(np.zeros((0, {'0, ' * rank}), {self.dt(dtype)}), "
                                f"np.zeros(0, np.bool_), np.int64(0))")
                return
            total = names[0]
            for name in names[1:]:
                total = f"_h.grad_add(*{total}, *{name})"
            self.assign(op, total)
        elif kind == "TensorArrayGradFromStack":
            self.assign(op, f"_h.grad_from_stack({names[0]})")
        elif kind == "TensorArrayGradFromRead":
            g, i = names
            fn = "grad_from_read" if op.inputs[0].shape.rank else "grad_from_read_scalar"
            self.assign(op, f"_h.{fn}({g}, np.int64({i}))")
        elif kind == "TensorArrayGradFromGather":
            g, i = names
            indices = i if op.inputs[1].shape.rank else f"np.array([{i}])"
            self.assign(op, f"_h.grad_from_gather({g}, {indices})")
        elif kind == "TensorArrayGradFromConcat":
            g, h = names
            self.assign(op, f"_h.grad_from_concat({g}, {h}[2])")
        elif kind in ("TensorArrayWriteGrad", "TensorArrayScatterGrad"):
            grad, rest, value = names[0], self.fresh("m"), self.fresh("t")
            shape = op.attrs.get("shape")
            if kind == "TensorArrayWriteGrad":
                index = f"np.int64({names[1]})"
                if op.outputs[1].shape.rank == 0:
                    call = f"_h.write_grad_scalar(*{grad}, {index})"
                else:
                    dims = repr(tuple(shape)) if shape is not None else f"{names[2]}.shape"
                    call = f"_h.write_grad(*{grad}, {index}, {dims})"
            else:
                count = op.attrs.get("count")
                if shape is None or count is None:
                    like = names[1]
                    count, dims = f"{like}.shape[0]", f"{like}.shape[1:]"
                else:
                    dims = repr(tuple(shape))
                call = f"_h.scatter_grad(*{grad}, np.int64({count}), {dims})"
            self.line(f"{rest}, {value} = {call}")
            self.alias(op.outputs[0], rest)
            self.alias(op.outputs[1], value)
        else:
            self.unsupported(op, f"the op type {kind!r}")

    def _write_accumulator_op(self, op) -> None:
        """A while loop's saves for its gradient: (count, one TensorArray triple per value)."""
        names = self.ins(op)
        kind = op.type
        if kind == "AccumulatorNew":
            info = self.arrays.info(op.outputs[0])
            if info is None or info.push is None:
                self.unsupported(op, "an accumulator without its loop")
            slots = [f"(np.zeros((0, {'0, ' * t.shape.rank}), {self.dt(t.dtype)}), "
                     f"np.zeros(0, np.bool_), np.int64(0)), " for t in info.push.inputs[1:]]
            self.assign(op, f"(np.int64(0), {''.join(slots)})")
        elif kind == "AccumulatorPush":
            # inline: a row store per value, the buffer grown (by doubling) only when full; a
            # value that cannot change during the loop is stored once, in a one-row buffer
            acc, count = names[0], self.fresh("n")
            self.line(f"{count} = {acc}[0]")
            body = op.graph
            slots = []
            for i, (t, name) in enumerate(zip(op.inputs[1:], names[1:])):
                buf = self.fresh("b")
                self.line(f"{buf} = {acc}[{i + 1}][0]")
                if t.shape.rank and _loop_invariant(t, body):
                    self.line(f"if {count} == 0:")
                    with self.indented():
                        self.line(f"{buf} = np.empty((1,) + {name}.shape, {buf}.dtype)")
                        self.line(f"{buf}[0] = {name}")
                else:
                    self.line(f"if {count} >= {buf}.shape[0]:")
                    with self.indented():
                        grow = (f"_h.grown_rows({buf}, {count}, {name})" if t.shape.rank
                                else f"_h.grown_scalars({buf}, {count})")
                        self.line(f"{buf} = {grow}")
                    self.line(f"{buf}[{count}] = {name}")
                slots.append(f"({buf}, {acc}[{i + 1}][1], {acc}[{i + 1}][2]), ")
            self.assign(op, f"({count} + 1, {''.join(slots)})")
        elif kind == "AccumulatorRead":
            # a view of the saved row (saved rows are never written again); a one-row buffer
            # holds a value saved once for every step
            acc, step = names
            buf = f"{acc}[{op.attrs['index'] + 1}][0]"
            self.assign(op, f"{buf}[min({step}, {buf}.shape[0] - 1)]")
        elif kind == "AccumulatorLastIndex":
            self.assign(op, f"np.int32({names[0]}[0] - 1)")
        else:
            self.unsupported(op, f"the op type {kind!r}")


def _loop_invariant(tensor, body) -> bool:
    """Whether `tensor`, saved by the loop whose body is `body`, has one value in every
    iteration: made outside the body, passed through it unchanged, or read from a variable
    that nothing in the loop writes."""
    if not body.is_ancestor_of(tensor.op.graph):
        return True
    for i, t in enumerate(body.inputs):
        if t is tensor:
            return i < len(body.outputs) and body.outputs[i] is tensor
    if tensor.op.type != "ReadVariableOp":
        return False
    var = tensor.op.attrs["var"]
    outer = getattr(body, "outer_graph", None)
    loops = [op for op in (outer.operations if outer is not None else ())
             if any(sub is body for sub in op.subgraphs)]
    if len(loops) != 1:
        return False
    graphs = [g for sub in loops[0].subgraphs for g in graphs_within(sub)]
    return not any(op.attrs.get("var") is var and op.type != "ReadVariableOp"
                   for g in graphs for op in g.operations)


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

    def __init__(self, source: str, writer: KernelWriter, input_ranks: list[int]):
        self.source = source
        self.variables = writer.variables
        self.assigned = sorted(writer.assigned)
        self.constants = writer.constants
        self.calls = writer.calls
        self.parallel = writer.parallel
        self.fused_loops = writer.fused_loops
        self.line_ops = writer.line_ops
        self.input_ranks = input_ranks
        self.has_init = any(op.type == "VarInitIfNeeded" for g in graphs_within(writer.graph)
                            for op in g.operations)


HEADER = ("import numba\nimport numpy as np\n\nfrom runtime.backends.numba import helpers as _h\n"
          "from runtime.backends.numba import vectorised as _v\n\n_OPS = []  # set by the compiler\n\n\n")
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
    source = (f"{HEADER}@numba.njit({options})\ndef kernel({', '.join(params)}):\n{body}\n"
              f"    return ({''.join(r + ', ' for r in returns)})\n")
    return Lowered(source, w, [t.shape.rank for t in graph.inputs])


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
        if op.type != "Const" or id(op.outputs[0]) not in used:
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
