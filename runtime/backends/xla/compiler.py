"""`jit_compile="xla"`: a Program rendered as one JAX function, compiled by `jax.jit`.

The Program's ops are walked once while `jax.jit` traces (`_Tracer`): each op's lowering
(registered on its OpDef, `lowering.py`) is applied to JAX values; the ops the compiler
lowers itself are chosen by their OpDef too (its traits, or the OpDef object as a key):
`If` becomes `lax.cond`, `While` `lax.while_loop`,
and variables are threaded through as values: the variables a graph uses enter as
arguments, and those it assigns come back as results, stored after the call under their
locks. Values known while tracing (constants, shapes) stay NumPy arrays, and ops on them
run their NumPy kernels, so shape arithmetic stays static as XLA needs.

A graph the tier cannot compile (an op without a lowering, a loop variable that changes
shape, ...) raises JitCompileError naming the op and the user's line, as the Numba tier
does: the caller sees it at the first call, and the gradient machinery
(`runtime/function/backward.py`) runs a refused forward/backward pair on the NumPy tier.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ... import errors
from ...gradients import while_grad
from ...ops import array_math, control_flow, debugging, tensor_array
from ...ops import variables as variable_ops
from ...ops.random import generator
from ...passes import live_operations
from ...tensor import DeviceTensor, DeviceValue, EagerTensor
from ..base import JitCompileError, describe, runtime_error
from ..numpy_source import render as render_numpy
from ..shared import HeldLocks, TensorArrays, loop_invariant, numpy_fallback
from . import arrays as _arrays
from . import host_memory
from .arrays import Buffer, PendingSaves, Ragged, Saved, is_container
from .lowering import Checked, checks, computes_wide, lowered_by_compiler, lowering, static

_OTHER_TIER = ". The NumPy tier (jit_compile=False) runs it."
# why an op without a lowering has none, where there is more to say
_REFUSALS = {debugging.PRINT: "XLA's code cannot print (TensorFlow's XLA refuses tf.print "
                              "too); print before or after the compiled function, or return "
                              "the values"}
# the state key of the graph's validity code: 0, or the number of the first checked op
# (an index out of range, an integer division by zero) whose inputs were invalid
_ERR = -1  # an int, as the variables' keys (ids) are: a loop carries the state as a pytree
# errors of a NumPy kernel run while tracing on values known then, raised at run time
# instead when the op's rule checks its inputs in the kernel
_KERNEL_ERRORS = (errors.InvalidArgumentError, IndexError, ValueError, ZeroDivisionError)
# x64 mode for a block (`with _x64(True):`): jax.enable_x64 on recent JAX, before it the
# context manager of jax.experimental
_x64 = jax.enable_x64 if hasattr(jax, "enable_x64") else jax.experimental.enable_x64


class XlaCompiled:
    """A graph compiled by XLA through JAX: `fn(*input values)` returns the output values."""

    def __init__(self, graph, fn, jitted, source: str, tensor_fn=None):
        self.graph = graph
        self.fn = fn
        # the same call giving tensors whose values stay JAX arrays (DeviceTensor), taking
        # a DeviceTensor's JAX array as it is (`_lazy_value`); None for the two halves of
        # a gradient, which pass a loop's saves
        self.tensor_fn = tensor_fn
        self.jitted = jitted  # the jax.jit function of (inputs, variables, random seeds)
        self.source = source

    def op_at(self, tb):
        return None  # XLA's code has no Python frames to map back to ops


def _all_ops(program):
    """The live ops of `program`, nested bodies included, outermost first."""
    return _ops_in(program.graph)


def _ops_in(graph) -> list:
    """The live ops of `graph`, nested bodies included, outermost first."""
    found = []
    stack = [graph]
    while stack:
        graph = stack.pop()
        for op in live_operations(graph, graph.outputs):
            found.append(op)
            stack.extend(op.subgraphs)
    return found


def check(program) -> list:
    """The live ops of `program`; JitCompileError naming the first op the tier cannot lower."""
    ops = _all_ops(program)
    for op in ops:
        opdef = op.opdef
        if not lowered_by_compiler(opdef) and lowering(opdef) is None:
            reason = _REFUSALS.get(opdef, "the XLA tier has no lowering for it")
            raise JitCompileError(f"jit_compile='xla' cannot compile {describe(op)}: "
                                  f"{reason}{_OTHER_TIER}")
        for t in op.outputs:
            if t.dtype.name == "variant" and _carries_lists(opdef):
                continue
            if t.dtype.name in ("string", "variant", "resource"):
                raise JitCompileError(f"jit_compile='xla' cannot compile {describe(op)}: values "
                                      f"of dtype {t.dtype.name} are not supported.")
    return ops


def compile_graph(program, name: str, log=None) -> XlaCompiled:
    """The XLA tier's compiled function for `program`; JitCompileError naming the op when
    the tier cannot compile it."""
    start = time.perf_counter()
    host_memory.tune()
    ops = check(program)
    graph = program.graph
    variables: list = []
    for op in ops:
        var = op.attrs.get("var") if op.opdef.variable else None
        if var is not None and all(v is not var for v in variables):
            variables.append(var)
    variables.sort(key=lambda v: v._id)
    assigned = [i for i, v in enumerate(variables)
                if any(op.opdef is variable_ops.ASSIGN and op.attrs["var"] is v for op in ops)]
    randoms = [op for op in ops if op.opdef.random]
    ragged = _ragged_outputs(graph)
    tracer = _Tracer(program, variables, assigned, randoms, ops, ragged)
    jitted = jax.jit(tracer)
    wide = _needs_x64(ops, variables)
    _trace_now(jitted, graph, variables, randoms, wide)
    failure = _Failure(program, name, tracer, rerun=not randoms) if tracer.checked else None
    fn = _caller(program, name, jitted, variables, assigned, randoms, ragged, wide, tracer,
                 failure)
    passes_saves = any(t.dtype.name == "variant" for t in list(graph.inputs) + list(graph.outputs))
    tensor_fn = None if passes_saves else _caller(
        program, name, jitted, variables, assigned, randoms, ragged, wide, tracer, failure,
        tensors=True)
    if log is not None:
        log(1, f"jit_compile: {name} traced for XLA in {time.perf_counter() - start:.3f} s")
    source = (f"# {name}: jax.jit of the graph's {len(ops)} ops "
              f"({len(variables)} variables, {len(randoms)} random ops)\n")
    return XlaCompiled(program.traced, fn, jitted, source, tensor_fn)


def _carries_lists(opdef) -> bool:
    """Whether the op's variant values are lists the tier carries as buffers (TensorArrays,
    a loop's saves and their gradients): the ops that make and use them, If and While, and
    Identity."""
    return (opdef.carrier is not None or opdef.region or opdef is array_math.IDENTITY
            or opdef in _SAVES_GRADIENTS)


# the ops of the gradient of a loop's saves (a higher order), held as stacks (arrays.SavesGrad)
_SAVES_GRADIENTS = frozenset({while_grad.ACC_GRAD_ZEROS, while_grad.ACC_GRAD_READ,
                              while_grad.ACC_GRAD_PUSH, tensor_array.TA_GRAD_ADD})


def _needs_x64(ops, variables) -> bool:
    """Whether the graph needs JAX's x64 mode: a 64-bit value anywhere, or an op whose
    rule computes in float64 (registered `wide`: sine and cosine). Chosen once per graph: calls
    of a graph of 32-bit values skip the mode switch."""
    if any(np.dtype(v._np_dtype).itemsize == 8 for v in variables):
        return True
    for op in ops:
        if computes_wide(op.opdef):
            return True
        for t in list(op.inputs) + list(op.outputs):
            if t.dtype.name in ("float64", "int64", "uint64", "complex64", "complex128"):
                return True
    return False


def _trace_now(jitted, graph, variables, randoms, wide: bool = True) -> None:
    """Traces the function when every input shape is known, so that a graph XLA cannot take
    is refused (JitCompileError) before the first call; with unknown dims, at that call."""
    specs = []
    for t in graph.inputs:
        if not t.shape.is_fully_defined() or t.dtype.name == "variant":
            return
        specs.append(jax.ShapeDtypeStruct(t.shape.as_tuple(), t.dtype.as_numpy_dtype))
    for v in variables:
        value = v._host  # its shape, without reading a value this tier left on the device
        if value is None or not v.shape.is_fully_defined():
            return
        shape = value.shape if type(value) is DeviceValue else np.shape(value)
        specs.append(jax.ShapeDtypeStruct(shape, v._np_dtype))
    specs += [jax.ShapeDtypeStruct((), np.uint32) for _ in randoms]
    with _x64(wide):
        jitted.trace(*specs)


class _Tracer:
    """The function `jax.jit` traces: (inputs, variable values, random seeds) -> (outputs,
    new values of the assigned variables[, validity code]), or the outputs alone for a graph
    that assigns no variable and checks nothing. Refusals while tracing are
    JitCompileErrors."""

    def __init__(self, program, variables, assigned, randoms, ops=(), ragged=()):
        self.program = program
        self.ragged = frozenset(ragged)
        has_arrays = any(op.opdef.carrier is not None for op in ops)
        self.arrays = TensorArrays(program.graph) if has_arrays else None
        self.element_shapes = _arrays.element_shapes(self.arrays, ops) if has_arrays else {}
        self.loop_depth = 0  # while tracing a loop's body: its lists have their room already
        self.variables = variables
        self.assigned = assigned
        self.random_index = {id(op): k for k, op in enumerate(randoms)}
        # the ops whose inputs the kernel checks (code k + 1 for checked[k]) and what each
        # found wrong; the results a trace saw forwarded (an input, a constant): copied
        self.checked = [op for op in ops if checks(op)]
        self.codes = {id(op): np.int32(k + 1) for k, op in enumerate(self.checked)}
        self.problems: dict[int, str] = {}
        self.shared: set[int] = set()
        self.shared_new: set[int] = set()  # the same for the assigned variables' new values
        self.traced = False
        # returns the outputs alone (a flat tuple) when there is nothing else to return
        self.plain = not assigned and not self.checked
        self.__name__ = "xla_graph"

    def __call__(self, *args):
        graph = self.program.graph
        n_in, n_var = len(graph.inputs), len(self.variables)
        env: dict[int, Any] = {id(t): a for t, a in zip(graph.inputs, args[:n_in])}
        state = {id(v): a for v, a in zip(self.variables, args[n_in:n_in + n_var])}
        if self.checked:
            state[_ERR] = np.int32(0)
        self.seeds = args[n_in + n_var:]
        for op in self.program.live:
            state = self.run_op(op, env, state)
        outs = tuple(_arrays.as_ragged_output(env[id(t)]) if j in self.ragged
                     else self._jax(env[id(t)], t) for j, t in enumerate(graph.outputs))
        for j, out in enumerate(outs):
            value = out[0] if j in self.ragged else out
            if not isinstance(value, jax.core.Tracer) or any(value is a for a in args):
                self.shared.add(j)  # JAX returns it as it is, not a buffer of this call
        new = tuple(state[id(self.variables[i])] for i in self.assigned)
        for k, value in enumerate(new):
            if not isinstance(value, jax.core.Tracer) or any(value is a for a in args):
                self.shared_new.add(k)
        self.traced = True
        if self.checked:
            return outs, new, jnp.asarray(state[_ERR], np.int32)
        return outs if self.plain else (outs, new)

    def _flag(self, op, checked: Checked, state):
        """`state` with the validity code set to `op`'s when its check fails first."""
        ok = checked.ok
        if isinstance(ok, (np.ndarray, np.generic, bool)) and bool(ok):
            return state
        code = self.codes.get(id(op))
        if code is None:
            raise TypeError(f"its inputs are checked, but {op.type} was not expected to check")
        self.problems[int(code)] = checked.problem
        state = dict(state)
        err = state[_ERR]
        state[_ERR] = jnp.where((err == 0) & jnp.logical_not(ok), code, err)
        return state

    # -- values ----------------------------------------------------------------------------
    @staticmethod
    def _jax(value, tensor):
        if isinstance(value, Ragged):
            raise TypeError("a TensorArray stacked at a length known only at run time is used "
                            "where XLA needs a fixed shape")
        if is_container(value):
            return value
        if value is None:  # a gradient's filler for a value the branch taken never computes
            if not tensor.shape.is_fully_defined():
                raise TypeError(f"a branch's unused value {tensor.name} has unknown shape "
                                f"{tensor.shape}")
            return jnp.zeros(tensor.shape.as_tuple(), tensor.dtype.as_numpy_dtype)
        return jnp.asarray(value, dtype=tensor.dtype.as_numpy_dtype)

    def run_graph(self, graph, env, state):
        for op in live_operations(graph, graph.outputs):
            state = self.run_op(op, env, state)
        return state

    def run_op(self, op, env, state):
        """Runs `op` on the values in `env` (adding its outputs); returns the new state."""
        try:
            return self._run_op(op, env, state)
        except JitCompileError:
            raise
        except Exception as exc:  # JAX's errors while tracing: shapes, concretisation...
            first = (str(exc).strip().splitlines() or [""])[0]
            raise JitCompileError(f"jit_compile='xla' cannot compile {describe(op)}: "
                                  f"{type(exc).__name__}: {first.rstrip('.')}{_OTHER_TIER}") from None

    def _run_op(self, op, env, state):
        opdef = op.opdef
        if opdef.is_constant:
            env[id(op.outputs[0])] = op.attrs["value"]
            return state
        if opdef is control_flow.COND:
            return self._cond(op, env, state)
        if opdef is control_flow.WHILE:
            return self._while(op, env, state)
        values = [env[id(t)] for t in op.inputs]
        if opdef.carrier is not None:
            result = self._array_op(op, values)
            if isinstance(result, Checked):
                state = self._flag(op, result, state)
                result = result.value
            results = [result] if len(op.outputs) == 1 else list(result)
            for t, value in zip(op.outputs, results):
                env[id(t)] = _typed(value, t)
            return state
        if any(isinstance(v, Ragged) for v in values):
            raise TypeError("its input is a TensorArray stacked at a length known only at run "
                            "time (a list grown in a loop); XLA needs a fixed shape, so only a "
                            "result of the function may hold it")
        if opdef.variable:
            return self._variable(op, values, env, state)
        if opdef.random:
            result = lowering(opdef)(op, self.seeds[self.random_index[id(op)]], *values)
        elif (not opdef.effects and opdef.kernel is not None and not op.subgraphs
              and all(isinstance(v, (np.ndarray, np.generic)) for v in values)):
            result = self._known(op, values)
        else:
            result = lowering(opdef)(op, *values)
        if isinstance(result, Checked):
            state = self._flag(op, result, state)
            result = result.value
        results = [result] if len(op.outputs) == 1 else list(result)
        for t, value in zip(op.outputs, results):
            env[id(t)] = _typed(value, t)
        return state

    @staticmethod
    def _known(op, values):
        """The op's NumPy kernel on values known while tracing (the result stays NumPy). When
        the values are invalid and the op's rule checks them, the rule runs instead: the
        call raises, as on the NumPy tier, rather than the compilation."""
        try:
            return op.opdef.kernel(*values, **op.attrs)
        except _KERNEL_ERRORS:
            if not checks(op):
                raise
            return lowering(op.opdef)(op, *values)

    # -- variables ---------------------------------------------------------------------------
    def _variable(self, op, values, env, state):
        var = op.attrs["var"]
        if op.opdef is variable_ops.INIT:
            return state  # the caller runs the NumPy tier until every variable is set
        if op.opdef is variable_ops.READ:
            env[id(op.outputs[0])] = state[id(var)]
            return state
        mode, value = op.attrs["mode"], values[0]
        if mode == "add":
            value = state[id(var)] + value
        elif mode == "sub":
            value = state[id(var)] - value
        new = jnp.asarray(value, dtype=var._np_dtype)
        if var.shape.is_fully_defined() and new.shape != tuple(var.shape.as_tuple()):
            new = jnp.broadcast_to(new, var.shape.as_tuple())
        state = dict(state)
        state[id(var)] = new
        env[id(op.outputs[0])] = new
        return state

    # -- TensorArrays and loop saves ---------------------------------------------------------
    def _array_op(self, op, values):
        """A carrier op (TensorArray, loop saves): its method, chosen by its OpDef."""
        method = _CARRIER_OPS.get(op.opdef)
        if method is None:
            raise TypeError(f"the XLA tier has no lowering for {op.type}")
        return method(self, op, values)

    def _acc_new(self, op, values):
        return PendingSaves(op)

    def _acc_push(self, op, values):
        saved = values[0]
        if not isinstance(saved, Saved):
            raise TypeError("the loop's gradient saves have no buffers (the loop was not "
                            "prepared for them)")
        return _arrays.push(saved, values[1:])

    def _acc_read(self, op, values):
        return _arrays.read(values[0], values[1], op.attrs["index"])

    def _acc_last_index(self, op, values):
        return jnp.asarray(values[0].count, np.int32) - np.int32(1)

    def _ta_new(self, op, values):
        size = int(static(values[0], "The size of a TensorArray"))
        shape = self.element_shapes.get(id(self.arrays.info(op.outputs[0])))
        if shape is None:
            raise TypeError("the TensorArray's element shape is not known when the "
                            "function is compiled (give element_shape=)")
        data = jnp.zeros((size,) + shape, op.attrs["dtype"].as_numpy_dtype)
        return Buffer(data, np.int32(size), bool(op.attrs["dynamic_size"]))

    def _ta_write(self, op, values):
        return self._write(values[0], values[1], values[2])

    def _ta_scatter(self, op, values):
        buf = values[0]
        value = jnp.asarray(values[1], buf.data.dtype)
        n = value.shape[0]
        if n > buf.data.shape[0]:
            if not buf.dynamic:
                raise IndexError(f"TensorArray scatter: {n} elements for a TensorArray of "
                                 f"size {buf.data.shape[0]}")
            buf = _arrays.grown(buf, n - buf.data.shape[0])
        data = buf.data.at[:n].set(value)
        count = buf.count
        if buf.dynamic:
            count = np.maximum(count, np.int32(n)) if _known(count) else \
                jnp.maximum(count, np.int32(n))
        return Buffer(data, count, buf.dynamic)

    def _ta_read(self, op, values):
        buf = values[0]
        return _in_list(buf, values[1], buf.data[values[1]], op.type)

    def _ta_size(self, op, values):
        buf = values[0]
        return buf.count if buf.dynamic else np.int32(buf.data.shape[0])

    def _ta_gather(self, op, values):
        buf = values[0]
        return _in_list(buf, values[1], buf.data[jnp.asarray(values[1])], op.type)

    def _ta_stack(self, op, values):
        return self._written(values[0], ragged=True)

    def _ta_concat(self, op, values):
        data = self._written(values[0], ragged=False)
        if data.ndim < 2:
            raise TypeError("TensorArray concat needs elements of rank 1 or more")
        return data.reshape((-1,) + tuple(data.shape[2:]))

    @staticmethod
    def _written(buf: Buffer, ragged: bool):
        """The elements written to `buf`; a Ragged when their count is known only at run
        time and `ragged` allows it (a stack), else TypeError."""
        if not buf.dynamic or (_known(buf.count) and int(buf.count) == buf.data.shape[0]):
            return buf.data
        if _known(buf.count):
            return buf.data[:int(buf.count)]
        if ragged:
            return Ragged(buf.data, buf.count)
        raise TypeError("the length of the TensorArray is known only at run time")

    def _write(self, buf: Buffer, index, value):
        """TensorArray write. A list that grows gets room for an index known while tracing,
        and outside loops one more element for an index known only at run time (an append:
        the index is the length); a loop gives its lists their room before it starts. An
        index past the room raises when the function is called (Checked), never drops."""
        room = buf.data.shape[0]
        if _known(index) and int(index) >= room:
            if not buf.dynamic:
                raise IndexError(f"TensorArray write: index {int(index)} is out of range "
                                 f"for a TensorArray of size {room}")
            buf = _arrays.grown(buf, int(index) + 1 - room)
        elif buf.dynamic and not _known(index) and not self.loop_depth:
            buf = _arrays.grown(buf, 1)
        data = buf.data.at[index].set(jnp.asarray(value, buf.data.dtype))
        if not buf.dynamic:
            return Buffer(data, buf.count, False)
        count = (np.maximum(buf.count, np.int32(int(index) + 1)) if _known(index) and
                 _known(buf.count) else jnp.maximum(buf.count, jnp.asarray(index, np.int32) + 1))
        written = Buffer(data, count, True)
        if _known(index):
            return written
        room = data.shape[0]
        return Checked(written, jnp.asarray(index) < room,
                       f"TensorArrayWriteV3: a list grew past the {room} elements XLA made room "
                       "for (the loop's bound)")

    def _prepare_loop(self, op, inits, limit, env, state=None):
        """The loop's initial values with growing TensorArrays and gradient saves given room
        for the loop's bound; TypeError when the loop needs a bound the graph does not show."""
        cond_graph, body_graph = op.subgraphs
        bound = None
        out = list(inits)
        for k, value in enumerate(inits):
            if isinstance(value, PendingSaves):
                push = self.arrays.info(value.op.outputs[0]).push if self.arrays else None
                if push is None:
                    raise TypeError("a while loop's gradient saves without their loop")
                if bound is None:
                    bound = _arrays.loop_bound(op, env, inits, limit)
                if bound is None:
                    raise TypeError(
                        "the gradient of this while loop saves every iteration, and the "
                        "loop's trip count has no bound visible in the graph (use "
                        "maximum_iterations=, `for` over rt.range, or `i < N` with i counting "
                        "up by one)")
                out[k] = _arrays.saves_for(value, push, max(bound, 1), body_graph, env, inits,
                                           loop_invariant, _variable_value(state))
            elif isinstance(value, Buffer) and value.dynamic:
                info = self.arrays.info(op.inputs[k])
                writes, nested = _arrays.writes_in(body_graph, self.arrays, info,
                                                   live_operations)
                if nested:
                    raise TypeError("a TensorArray grown by a loop nested in this one (or by a "
                                    "scatter in a loop) has no bound XLA can see")
                if not writes:
                    continue
                if bound is None:
                    bound = _arrays.loop_bound(op, env, inits, limit)
                if bound is None:
                    raise TypeError(
                        "it appends to a list (a TensorArray that grows) in a loop whose trip "
                        "count has no bound visible in the graph; XLA preallocates such lists "
                        "and needs a bound: use maximum_iterations=, `for` over rt.range(N), "
                        "or a condition `i < N` with i counting up by one from a constant")
                out[k] = _arrays.grown(value, bound * writes)
        return out

    # -- control flow ------------------------------------------------------------------------
    def _cond(self, op, env, state):
        pred = env[id(op.inputs[0])]
        branches = op.subgraphs
        if isinstance(pred, (np.ndarray, np.generic)):  # known while tracing: one branch
            branch = branches[0] if bool(pred) else branches[1]
            state = self.run_graph(branch, env, state)
            for t, r in zip(op.outputs, branch.outputs):
                env[id(t)] = env[id(r)]
            return state

        if all(_selectable(branch) for branch in branches):
            selected = self._select(op, pred, env, state)
            if selected is not None:
                return selected

        capacity: list = [0] * len(op.outputs)

        def body(branch):
            def run(state_in):
                st = self.run_graph(branch, env, dict(state_in))
                outs = [self._jax(env[id(r)], t) for r, t in zip(branch.outputs, op.outputs)]
                for k, value in enumerate(outs):  # growing TensorArrays: one capacity
                    if isinstance(value, Buffer) and value.data.shape[0] < capacity[k]:
                        outs[k] = _arrays.grown(value, capacity[k] - value.data.shape[0])
                return tuple(outs), st
            return run
        if any(t.dtype.name == "variant" for t in op.outputs):
            for branch in branches:
                outs, _ = jax.eval_shape(body(branch), state)
                for k, value in enumerate(outs):
                    if isinstance(value, Buffer):
                        capacity[k] = max(capacity[k], value.data.shape[0])
        outs, state = lax.cond(pred.reshape(()), body(branches[0]), body(branches[1]), state)
        for t, value in zip(op.outputs, outs):
            env[id(t)] = value
        return state

    def _select(self, op, pred, env, state):
        """Both branches of a small pure `If` run, and each output selects its side: XLA
        runs a select in the loop's own code, where a conditional is a call of its own
        (`while i < n and tok != eos` in a loop). The validity code is the taken side's.
        The new state, or None when the sides' shapes differ."""
        sides, states = [], []
        for branch in op.subgraphs:
            states.append(self.run_graph(branch, env, state))
            sides.append([self._jax(env[id(r)], t) for r, t in zip(branch.outputs, op.outputs)])
        if any(jnp.shape(a) != jnp.shape(b) for a, b in zip(*sides)):
            return None
        flag = jnp.asarray(pred).reshape(())
        for t, a, b in zip(op.outputs, *sides):
            env[id(t)] = lax.select(flag, a, b)
        if _ERR in state:
            state = dict(state)
            state[_ERR] = lax.select(flag, jnp.asarray(states[0][_ERR], np.int32),
                                     jnp.asarray(states[1][_ERR], np.int32))
        return state

    def _while(self, op, env, state):
        cond_graph, body_graph = op.subgraphs
        n = len(op.outputs)
        inits = [env[id(t)] for t in op.inputs]
        limit = inits[n] if len(inits) > n else None
        if any(is_container(v) for v in inits[:n]):
            inits[:n] = self._prepare_loop(op, inits[:n], limit, env, state)
        values = tuple(self._jax(v, t) for v, t in zip(inits[:n], op.outputs))

        def bind(graph, vals):
            for t, v in zip(graph.inputs, vals):
                env[id(t)] = v

        # a condition with checked ops runs at the end of each step (and once before the
        # loop), so that its validity code is kept: the carry holds its value
        checked_test = _ERR in state and any(id(o) in self.codes for o in _ops_in(cond_graph))

        def test_value(vals, st, count):
            bind(cond_graph, vals)
            new_st = self.run_graph(cond_graph, env, dict(st))
            going = jnp.asarray(env[id(cond_graph.outputs[0])], bool).reshape(())
            if checked_test and limit is not None:  # past the limit it does not run
                new_st[_ERR] = jnp.where(count < limit, new_st[_ERR], st[_ERR])
            return going, new_st

        def test(carry):
            count, vals, st = carry[:3]
            going = carry[3] if checked_test else test_value(vals, st, count)[0]
            if limit is not None:
                going = jnp.logical_and(going, count < limit)
            if _ERR in st:  # a failed check ends the loop: the call raises after it
                going = jnp.logical_and(going, st[_ERR] == 0)
            return going

        def step(carry):
            count, vals, st = carry[:3]
            bind(body_graph, vals)
            self.loop_depth += 1
            try:
                st = self.run_graph(body_graph, env, dict(st))
            finally:
                self.loop_depth -= 1
            new = []
            for k, (r, t) in enumerate(zip(body_graph.outputs, op.outputs)):
                value = self._jax(env[id(r)], t)
                if is_container(value):
                    new.append(value)
                    continue
                if value.shape != vals[k].shape:
                    raise JitCompileError(
                        f"jit_compile='xla' cannot compile {describe(op)}: loop variable #{k} "
                        f"enters the loop with shape {tuple(vals[k].shape)} but has shape "
                        f"{tuple(value.shape)} after one iteration; XLA loops keep shapes "
                        "fixed.")
                new.append(value)
            if checked_test:
                return (count + 1, tuple(new)) + test_value(new, st, count + 1)[::-1]
            return count + 1, tuple(new), st

        carry = (np.int32(0), values) + (test_value(values, state, np.int32(0))[::-1]
                                         if checked_test else (state,))
        _, values, state = lax.while_loop(test, step, carry)[:3]
        for t, value in zip(op.outputs, values):
            env[id(t)] = value
        return state


# the carrier ops (TensorArrays, a while loop's saves for its gradient) by OpDef
_CARRIER_OPS = {
    while_grad.ACC_NEW: _Tracer._acc_new, while_grad.ACC_PUSH: _Tracer._acc_push,
    while_grad.ACC_READ: _Tracer._acc_read, while_grad.ACC_LAST: _Tracer._acc_last_index,
    tensor_array.TA_NEW: _Tracer._ta_new, tensor_array.TA_WRITE: _Tracer._ta_write,
    tensor_array.TA_UNSTACK: _Tracer._ta_scatter, tensor_array.TA_READ: _Tracer._ta_read,
    tensor_array.TA_SIZE: _Tracer._ta_size, tensor_array.TA_GATHER: _Tracer._ta_gather,
    tensor_array.TA_STACK: _Tracer._ta_stack, tensor_array.TA_CONCAT: _Tracer._ta_concat,
}


def _known(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic, int))


def _variable_value(state):
    """For a loop's saves: the value before the loop of a variable read in its body (None for
    any other tensor); a loop that never writes the variable reads that value throughout."""
    def value(t):
        if state is None or not t.op.opdef.variable or t.op.opdef is not variable_ops.READ:
            return None
        return state.get(id(t.op.attrs["var"]))
    return value


def _in_list(buf: Buffer, index, value, kind: str):
    """`value`, read from TensorArray `buf` at `index`, with the check that every index is
    below the array's length (XLA would clamp: the NumPy tier raises)."""
    length = buf.count if buf.dynamic else np.int32(buf.data.shape[0])
    if _known(index) and _known(length):  # a branch not taken may read past the end
        ok = np.all((np.asarray(index) >= 0) & (np.asarray(index) < length))
    else:
        ok = jnp.all((jnp.asarray(index) >= 0) & (jnp.asarray(index) < length))
    return Checked(value, ok, f"{kind}: an index is outside the TensorArray's elements")


def _ragged_outputs(graph) -> list:
    """Positions of the graph's results that are stacks of growing TensorArrays: the tracer
    returns (buffer, length) for them and the caller cuts."""
    found = []
    for j, t in enumerate(graph.outputs):
        op = t.op
        while op.opdef is array_math.IDENTITY and op.inputs:
            op = op.inputs[0].op
        if op.opdef is tensor_array.TA_STACK and not op.outputs[0].shape[:1].is_fully_defined():
            found.append(j)
    return found


# a branch whose every value has at most this many elements may run on both sides
_SELECT_LIMIT = 64


def _selectable(graph) -> bool:
    """Whether a branch is small and pure: no effects, variables, random numbers, lists or
    loops, and no value larger than _SELECT_LIMIT elements."""
    for op in live_operations(graph, graph.outputs):
        opdef = op.opdef
        if (opdef.effects or opdef.random or opdef.variable or opdef.carrier is not None
                or opdef.is_loop):
            return False
        if opdef.region and not all(_selectable(g) for g in op.subgraphs):
            return False
        for t in op.outputs:
            size = t.shape.num_elements()
            if t.dtype.name in ("variant", "string", "resource") or size is None \
                    or size > _SELECT_LIMIT:
                return False
    return True


def _typed(value, tensor):
    """`value` with `tensor`'s dtype (NumPy values stay NumPy)."""
    if is_container(value):
        return value
    want = tensor.dtype._np
    if isinstance(value, (np.ndarray, np.generic)):
        return value if value.dtype == want else np.asarray(value, want)
    if value is None:
        return value
    return value if value.dtype == want else value.astype(want)


def _caller(program, name: str, jitted, variables, assigned, randoms, ragged=(), wide=True,
            tracer=None, failure=None, tensors: bool = False):
    """The Python function that calls the jitted function and stores the variables.

    Generated per graph so the call path does only what this graph needs: the x64 context
    (our float64 stays float64), the variables' values read and the new values stored under
    their locks (in creation order; a failed call stores nothing), one seed per random op
    drawn from the op's generator, the validity code checked (graphs with checked ops: an
    invalid index or divisor raises and stores nothing).

    A variable keeps the JAX array this tier stored (a DeviceValue): the next call passes it
    as it is, and NumPy sees it only when something reads the variable. With `tensors`, the
    results are tensors whose values stay JAX arrays the same way (DeviceTensor); else NumPy
    arrays the caller owns (writable, as on the other tiers).
    """
    graph = program.graph
    params = [f"a{i}" for i in range(len(graph.inputs))]
    args = list(params)
    # a variable's JAX array when this tier stored it, else the JAX array over its NumPy
    # value, kept while the value is the same object (see _OnDevice); scalars as they are
    args += [f"(d if type(b := var{i}._host) is DV and (d := b.buffer) is not None else "
             + (f"dev{i}.get(var{i}))" if v.shape.rank != 0 else f"var{i}._value)")
             for i, v in enumerate(variables)]
    args += [f"seed(gen{k})" for k in range(len(randoms))]
    call = f"jitted({', '.join(args)})"
    if wide:  # x64 mode entered only when the caller is not in it already (6 us a call)
        call = f"({call} if X64.value else in_x64(jitted, {', '.join(args)}))"
    got = "outs, new, err" if failure is not None else "outs, new" if assigned else "outs"
    lines = [f"def run({', '.join(params)}):"]
    large = [p for p, t in zip(params, graph.inputs) if _maybe_large(t)]
    lines += [f"    {p} = aligned({p})" for p in large]
    as_numpy = f"host({''.join(p + ', ' for p in params)})"
    if variables:
        unset = " or ".join(f"var{i}._host is None" for i in range(len(variables)))
        lines += [f"    if {unset}:",
                  f"        return {'numpy_tensors' if tensors else ''}(fallback()(*{as_numpy}))"]
    traced = tracer is not None and tracer.traced
    stores = []
    for k, i in enumerate(assigned):
        if traced and k in tracer.shared_new:  # JAX forwarded a value it did not compute
            store = f"aligned_copy(np.asarray(new[{k}]))" if variables[i].shape.rank != 0 \
                else f"np.asarray(new[{k}])[()]"
        elif traced:
            store = f"DV(new[{k}], fresh)"
        else:
            store = f"stored(new[{k}], {k})"
        stores.append(f"var{i}._host = {store}")
    if stores:
        locks = sorted(assigned, key=lambda i: variables[i]._id)
        lines.append("    with held:")
        lines.append(f"        {got} = {call}")
        if failure is not None:
            lines.append("        err = np.asarray(err)")
            lines.append("        if not err:")
            lines += [f"            {line}" for line in stores]
        else:
            lines += [f"        {line}" for line in stores]
    else:
        lines.append(f"    {got} = {call}")
        if failure is not None:
            lines.append("    err = np.asarray(err)")
    if failure is not None:  # outside the variables' locks: the NumPy tier takes them
        lines.append(f"    if err: return {'numpy_tensors' if tensors else ''}"
                     f"(failure(err, {as_numpy}))")
    outs = []
    for j, t in enumerate(graph.outputs):
        if j in ragged:
            cut = f"result(outs[{j}][0], {j})[:int(outs[{j}][1])]"
            outs.append(f"ET({cut})" if tensors else cut)
        elif t.dtype.name == "variant":  # a loop's saves for the backward function
            outs.append(f"outs[{j}]")
        elif tensors:
            if traced:
                # DeviceTensor(DeviceValue(buffer, to_host)), built without running the two
                # __init__ frames (a quarter of the runtime's own cost of a small call)
                host = "copied" if j in tracer.shared else "fresh"
                lines.append(f"    b{j} = alloc(DV); b{j}.buffer = outs[{j}]; b{j}._host = None; "
                             f"b{j}._to_host = {host}")
                lines.append(f"    t{j} = alloc(DT); t{j}._box = b{j}")
                outs.append(f"t{j}")
            else:
                outs.append(f"tensor(outs[{j}], {j})")
        elif t.shape.rank == 0:
            outs.append(f"np.{t.dtype._np.type.__name__}(outs[{j}])")
        else:
            outs.append(f"result(outs[{j}], {j})")
    lines.append(f"    return {outs[0]}" if len(outs) == 1 else
                 f"    return ({''.join(o + ', ' for o in outs)})")
    shared = tracer.shared if tracer else set()
    namespace: dict[str, Any] = {"jitted": jitted, "np": np, "X64": _X64, "in_x64": _in_x64,
                                 "fallback": numpy_fallback(program, name),
                                 "seed": _draw_seed, "aligned": _aligned,
                                 "aligned_copy": _aligned_copy, "failure": failure,
                                 "result": _Results(shared), "host": _host_args,
                                 "DV": DeviceValue, "DT": DeviceTensor, "ET": EagerTensor,
                                 "alloc": object.__new__,
                                 "fresh": _fresh_host, "copied": _copied_host,
                                 "tensor": _Tensors(shared),
                                 "numpy_tensors": _numpy_tensors(len(graph.outputs)),
                                 "stored": _Stored(tracer)}
    if stores:
        namespace["held"] = HeldLocks([variables[i]._lock for i in locks])
    namespace.update({f"var{i}": v for i, v in enumerate(variables)})
    namespace.update({f"dev{i}": _OnDevice(realign=i not in assigned)
                      for i, v in enumerate(variables) if v.shape.rank != 0})
    namespace.update({f"gen{k}": _Generator(generator, op.attrs.get("seed"))
                      for k, op in enumerate(randoms)})
    exec(compile("\n".join(lines) + "\n", f"<rt-xla {name}>", "exec"), namespace)
    run = namespace["run"]
    # its body, for a caller that checks a call's arguments to run it in the same frame
    # (runtime/function/callers.py): parameters, lines, and the names they read
    run.inline = (params, lines[1:], namespace)
    return run


def _in_x64(fn, *args):
    """`fn(*args)` in JAX's x64 mode."""
    with _x64(True):
        return fn(*args)


class _PublicX64:
    """Whether JAX's x64 mode is on, read through the public config."""

    @property
    def value(self) -> bool:
        return bool(jax.config.jax_enable_x64)


# whether x64 mode is on (`.value`): JAX's own state object when it has one (a third of a
# microsecond to read), else the public config
_X64 = getattr(getattr(getattr(jax, "_src", None), "config", None), "enable_x64", None)
if not hasattr(_X64, "value"):
    _X64 = _PublicX64()


def _host_args(*args) -> tuple:
    """The call's inputs as NumPy arrays (a JAX array passed on by a DeviceTensor is copied),
    for the NumPy tier."""
    return tuple(a if isinstance(a, (np.ndarray, np.generic)) else np.array(a) for a in args)


def _numpy_tensors(n: int):
    """Eager tensors of the NumPy tier's results (a fallback's, in the tensors' caller)."""
    def wrap(result):
        if n == 1:
            return EagerTensor(np.asarray(result) if not isinstance(result, np.generic)
                               else result)
        return tuple(EagerTensor(r) for r in result)
    return wrap


def _fresh_host(buffer):
    """The NumPy value of a JAX array XLA computed for one call and nothing else holds: a
    large one is taken over in place (writable, keeping the JAX array alive; both stay
    valid), others copied. Returns (value, whether it shares the buffer's memory)."""
    view = np.asarray(buffer)
    if view.ndim == 0:
        return view[()], False
    if view.nbytes < _LARGE or not view.flags.c_contiguous or not _same_memory(buffer, view):
        return np.array(view), False
    return np.asarray(_Writable(view, buffer)), True


def _copied_host(buffer):
    """The NumPy value of a JAX array that JAX returned as it is (an input, a constant): a
    copy, so writing into it changes nothing else."""
    value = np.array(buffer)
    return (value[()] if value.ndim == 0 else value), False


class _Tensors:
    """Results as DeviceTensors, for a graph traced after its caller was generated (inputs
    of unknown shape): whether JAX computed each result is known at the call."""

    __slots__ = ("shared",)

    def __init__(self, shared: set):
        self.shared = shared

    def __call__(self, value, j: int):
        return DeviceTensor(DeviceValue(value, _copied_host if j in self.shared
                                        else _fresh_host))


class _Stored:
    """A variable's new value, for a graph traced after its caller was generated: the JAX
    array as a DeviceValue, or a NumPy copy when JAX forwarded a value it did not compute."""

    __slots__ = ("tracer",)

    def __init__(self, tracer):
        self.tracer = tracer

    def __call__(self, value, k: int):
        if self.tracer is not None and k in self.tracer.shared_new:
            value = np.asarray(value)
            return _aligned_copy(value) if value.ndim else value[()]
        return DeviceValue(value, _fresh_host)


class _Failure:
    """What a call whose validity code is not 0 does (a checked op met an index out of range
    or an integer division by zero): the program runs again on the NumPy tier with the same
    inputs, when it draws no random numbers, and raises the NumPy tier's own error (or,
    should the NumPy tier find nothing wrong, returns its results). A program that draws
    random numbers raises an InvalidArgumentError naming the op and what its kernel found."""

    def __init__(self, program, name: str, tracer, rerun: bool):
        self.program, self.name, self.tracer = program, name, tracer
        # not for the two halves of a gradient, which pass a loop's saves in XLA's form
        graph = program.graph
        self.rerun = rerun and all(t.dtype.name != "variant"
                                   for t in list(graph.inputs) + list(graph.outputs))
        self.numpy = None

    def __call__(self, err, args):
        code = int(err)
        if self.rerun:
            return self._numpy_run(args)
        op = self.tracer.checked[code - 1]
        problem = self.tracer.problems.get(code, f"{op.type}: invalid inputs")
        if isinstance(problem, BaseException):  # an assertion's or a staged raise's own
            raise _raised_by(op, problem) from None
        raise errors.InvalidArgumentError(f"{problem}.\n  [raised by {describe(op)}]", op)

    def _numpy_run(self, args):
        """The NumPy tier's results for `args`; its error, named as that tier names it."""
        if self.numpy is None:
            self.numpy = render_numpy(self.program, self.name)
        try:
            return self.numpy.fn(*args)
        except Exception as exc:
            error = runtime_error(self.numpy, exc)
            if error is None:
                raise
            raise error from None


class _At:
    """What `runtime_error` asks of a compiled function: the op an error came from."""

    def __init__(self, op):
        self.op = op

    def op_at(self, tb):
        return self.op


def _raised_by(op, exc: BaseException) -> BaseException:
    """A copy of `exc` as the NumPy tier raises it from `op`: a ValueError (an assertion's
    InvalidArgumentError included) names the op and the user's line; others unchanged."""
    exc = copy.copy(exc).with_traceback(None)
    return runtime_error(_At(op), exc) or exc


class _Results:
    """The caller's results as NumPy arrays the caller owns: writable, as on the other
    tiers. A result XLA computed for this call is a fresh buffer that nothing else holds:
    a large one is taken over in place (the NumPy array keeps the JAX array alive), a small
    one copied. A result JAX returns as it is (an input or a constant) is copied."""

    __slots__ = ("shared",)

    def __init__(self, shared: set):
        self.shared = shared  # positions of the results forwarded by JAX (filled by traces)

    def __call__(self, value, j: int) -> np.ndarray:
        view = np.asarray(value)
        if j in self.shared or view.nbytes < _LARGE or not view.flags.c_contiguous:
            return np.array(view)
        return np.asarray(_Writable(view, value))


class _Writable:
    """The NumPy array interface of a read-only view, writable, holding the view's owner."""

    def __init__(self, view: np.ndarray, owner):
        interface = dict(view.__array_interface__)
        interface["data"] = (interface["data"][0], False)
        self.__array_interface__ = interface
        self.owner = owner


# JAX reads a NumPy array in place (no copy) when its data is aligned to XLA's 64 bytes;
# any other array is copied on every call, by a path slower than NumPy's own copy. NumPy's
# allocator aligns to 16 bytes, so a large input is copied here into an aligned buffer
# instead, and the variables this tier stores are kept aligned (read in place next call).
_ALIGN = 64
_LARGE = 1 << 16  # bytes: below this, JAX's own copy costs less than the check


def _maybe_large(t) -> bool:
    """Whether graph input `t` may hold an array large enough to align before the call."""
    if t.dtype.name in ("variant", "string", "resource") or t.shape.rank == 0:
        return False
    size = t.shape.num_elements()
    return size is None or size * t.dtype._np.itemsize >= _LARGE


def _aligned_copy(value) -> np.ndarray:
    """A writable C-ordered copy of `value` whose data starts on a 64-byte boundary."""
    value = np.asarray(value)
    raw = np.empty(value.nbytes + _ALIGN, np.uint8)
    start = -raw.ctypes.data % _ALIGN
    out = raw[start:start + value.nbytes].view(value.dtype).reshape(value.shape)
    np.copyto(out, value)
    return out


def _misplaced(value: np.ndarray) -> bool:
    """Whether JAX would copy NumPy array `value` (unaligned or not C-ordered)."""
    return bool(value.ctypes.data % _ALIGN) or not value.flags.c_contiguous


def _aligned(value):
    """`value` itself when JAX can read it in place (small, aligned, or not a NumPy array),
    else an aligned copy."""
    if type(value) is np.ndarray and value.nbytes >= _LARGE and _misplaced(value):
        return _aligned_copy(value)
    return value


class _OnDevice:
    """The JAX array a call passes for one variable's value.

    JAX wraps an aligned NumPy array in place, but wrapping costs microseconds per argument
    per call; while the variable holds the same array object, the same JAX array is passed
    again (it reads that memory, so it sees whatever the array holds). A value JAX had to
    copy is not kept.

    An unaligned value of a variable the graph only reads is first replaced, under the
    variable's lock, by an aligned copy of the same values (a variable the graph assigns is
    stored aligned after the call, which holds its lock)."""

    __slots__ = ("pair", "realign")

    def __init__(self, realign: bool):
        self.pair: tuple = (None, None)
        self.realign = realign

    def get(self, var):
        value = var._value
        pair = self.pair  # one read: (array, JAX array) stay a matched pair across threads
        if value is pair[0]:
            return pair[1]
        return self._wrap(var, value)

    def _wrap(self, var, value):
        if value is None or type(value) is not np.ndarray:
            return value
        if self.realign and _misplaced(value):
            copy = _aligned_copy(value)
            with var._lock:
                if var._value is value:
                    var._value = copy
            value = copy
        with _x64(True):  # a float64 value stays float64 (a call may be outside x64 mode)
            device = jax.device_put(value)
        if _same_memory(device, value):
            self.pair = (value, device)
        return device


def _same_memory(device, value: np.ndarray) -> bool:
    """Whether JAX array `device` reads `value`'s own memory (no copy was made)."""
    try:
        return device.unsafe_buffer_pointer() == value.ctypes.data
    except Exception:  # another device, or a JAX without the method: never kept
        return False


class _Generator:
    """The generator a random op draws its seed from, looked up at each call (so
    `rt.random.set_seed` between calls takes effect)."""

    __slots__ = ("generator", "seed")

    def __init__(self, generator, seed):
        self.generator, self.seed = generator, seed


def _draw_seed(gen: _Generator) -> np.uint32:
    return gen.generator(gen.seed).integers(0, 2**32, dtype=np.uint32)


__all__ = ["XlaCompiled", "check", "compile_graph"]
