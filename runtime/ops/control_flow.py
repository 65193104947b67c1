"""Control flow: `cond` and `while_loop`, and what orders or checks ops without computing:
`control_dependencies`, `group`, `tuple`, `no_op`, `identity_n`, `ensure_shape`,
`get_static_value`.

Eagerly `cond` and `while_loop` run Python directly. While tracing, branches and loop bodies are traced into
subgraphs of one op; the executor writes that op as a Python `if` or `while`.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import numpy as np

from .. import context, nest
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import FuncGraph, constant_value
from ..opdef import define
from ..shapes import TensorShape, as_shape
from ..tensor import EagerTensor, SymbolicTensor, Tensor
from . import array_math, debugging
from .core import apply, convert_to_tensor
from .tensor_array import TensorArray

# -- composites: values made of several tensors (TensorArray) -----------------------------------

def _flatten_values(structure):
    """Leaves with composites (TensorArrays) replaced by their component tensors."""
    out = []
    for leaf in nest.flatten(structure):
        if isinstance(leaf, TensorArray):
            out.append(leaf._handle)
        else:
            out.append(leaf)
    return out


def _pack_values(structure, flat):
    it = iter(flat)
    leaves = []
    for leaf in nest.flatten(structure):
        value = next(it)
        leaves.append(leaf._with_handle(value) if isinstance(leaf, TensorArray) else value)
    return nest.pack_sequence_as(structure, leaves) if nest.is_nested(structure) else leaves[0]


def _to_tensor(value, what: str):
    if isinstance(value, Tensor) or hasattr(value, "_as_tensor"):
        return convert_to_tensor(value)
    try:
        return convert_to_tensor(value)
    except TypeError:
        raise TypeError(f"{what} must be a tensor or a Python number, got {value!r}.") from None


# -- cond ------------------------------------------------------------------------------------------

def _emit_cond(em, op):
    pred = em.ins(op)[0]
    outs = [em.fresh("r") for _ in op.outputs]
    for t, name in zip(op.outputs, outs):
        em.alias(t, name)
    for keyword, branch in (("if", op.subgraphs[0]), ("else", op.subgraphs[1])):
        em.line(f"if {pred}:" if keyword == "if" else "else:")
        with em.indented():
            start = len(em.lines)
            em.emit_graph(branch)
            results = [em.name(t) for t in branch.outputs]
            # one assignment a result: Numba builds a tuple of more than three and unpacks it,
            # increfs and decrefs of each array in it costing compile time
            for name, result in zip(outs, results):
                em.line(f"{name} = {result}")
            if not outs and len(em.lines) == start:
                em.line("pass")


def _cond_infer(branches, pred):
    true_graph, false_graph = branches
    return [(t.shape.most_specific_common_supertype([f.shape]), t.dtype)
            for t, f in zip(true_graph.outputs, false_graph.outputs)]


def _taken_branch(pred) -> int:
    """The branch an If op runs for the predicate's value: 0 (true_fn) or 1 (false_fn)."""
    return 0 if bool(pred) else 1


COND = define("If", _cond_infer, None, emit=_emit_cond, num_outputs=None, region=True,
              taken_branch=_taken_branch)


def select(pred, true_fn, false_fn):
    """What an If op means: one branch runs, chosen by the predicate."""
    return true_fn() if bool(pred) else false_fn()


def _trace_branch(fn, name, outer):
    graph = FuncGraph(name, outer_graph=outer)
    with context.graph_scope(graph):
        result = fn()
        flat = [None if v is None else _to_tensor(v, f"The output of {name}")
                for v in _flatten_values(result)]
    return graph, result, flat


@export("cond")
def cond(pred, true_fn=None, false_fn=None, name=None) -> Any:
    """`true_fn()` if `pred` else `false_fn()`; staged as one `If` op while tracing."""
    return _build_cond(pred, true_fn, false_fn, name, merge_shapes=False)


def cond_merging_shapes(pred, true_fn, false_fn, name=None):
    """`cond` whose branches may give an output different dims of the same rank (a staged
    Python `if`, as in TensorFlow 2): the output takes the shape common to both."""
    return _build_cond(pred, true_fn, false_fn, name, merge_shapes=True)


def _build_cond(pred, true_fn, false_fn, name, merge_shapes):
    if true_fn is None or false_fn is None or not callable(true_fn) or not callable(false_fn):
        raise TypeError("cond needs callable true_fn and false_fn.")
    graph = context.current_graph()
    if graph is None or not isinstance(pred, Tensor) or isinstance(pred, EagerTensor):
        if isinstance(pred, SymbolicTensor):
            raise TypeError(f"cond: the predicate {pred.name} belongs to a graph that is not "
                            "being built.")
        return select(pred, true_fn, false_fn)
    pred = convert_to_tensor(pred)
    if not pred.dtype.is_bool or pred.shape.rank not in (0, None):
        if pred.shape.num_elements() != 1:
            raise ValueError(f"cond: the predicate must be a bool scalar, got shape {pred.shape} "
                             f"and dtype {pred.dtype.name}.")
    if not pred.dtype.is_bool:
        raise TypeError(f"cond: the predicate must be bool, got {pred.dtype.name}.")
    true_graph, true_result, true_flat = _trace_branch(true_fn, "cond_true", graph)
    false_graph, false_result, false_flat = _trace_branch(false_fn, "cond_false", graph)
    _check_branches(true_result, false_result, true_flat, false_flat, merge_shapes)
    true_graph.outputs = [t for t in true_flat if t is not None]
    false_graph.outputs = [f for f in false_flat if f is not None]
    outs = iter(apply(COND, [pred], name=name or "cond", subgraphs=(true_graph, false_graph)))
    flat = [None if t is None else next(outs) for t in true_flat]
    return _pack_values(true_result, flat)


def _check_branches(true_result, false_result, true_flat, false_flat, merge_shapes):
    if nest.structure_signature(true_result) != nest.structure_signature(false_result):
        raise TypeError(
            "cond: true_fn and false_fn must return the same structure; true_fn returned "
            f"{_describe_structure(true_result)} and false_fn returned "
            f"{_describe_structure(false_result)}.")
    for i, (t, f) in enumerate(zip(true_flat, false_flat)):
        if (t is None) != (f is None):
            raise TypeError(f"cond: output {i} is None in one branch only.")
        if t is None:
            continue
        if t.dtype is not f.dtype:
            raise TypeError(f"cond: output {i} has dtype {t.dtype.name} in true_fn but "
                            f"{f.dtype.name} in false_fn; cast one branch with rt.cast.")
        if merge_shapes and t.shape.rank == f.shape.rank:
            continue
        if not t.shape.is_compatible_with(f.shape):
            raise ValueError(f"cond: output {i} has shape {t.shape} in true_fn but {f.shape} in "
                             "false_fn; both branches must return compatible shapes.")


def _describe_structure(value) -> str:
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        kind = "a list" if isinstance(value, list) else "a tuple"
        return f"{kind} of {len(value)}"
    if isinstance(value, dict):
        return f"a dict with keys {sorted(map(str, value))}"
    return "a single value"


# -- while_loop ---------------------------------------------------------------------------------------

def _emit_while(em, op):
    cond_graph, body_graph = op.subgraphs
    names = [em.fresh("w") for _ in op.outputs]
    inits = em.ins(op)
    n_vars = len(names)
    max_iter = inits[n_vars] if len(inits) > n_vars else None
    if names:
        em.line(f"{', '.join(names)} = {', '.join(inits[:n_vars])}")
    for graph in (cond_graph, body_graph):
        for t, name in zip(graph.inputs, names):
            em.alias(t, name)
    counter = None
    if max_iter is not None:
        counter = em.fresh("n")
        em.line(f"{counter} = 0")
    # the condition is emitted once, one level in; if it is one expression it becomes the
    # `while` test itself, else it opens a `while True:` body that breaks on it
    mark = len(em.lines)
    with em.indented():
        em.emit_graph(cond_graph)
    test_name = em.name(cond_graph.outputs[0])
    cond_lines = em.lines[mark:]
    cond_ops = {k - mark: v for k, v in em.line_ops.items() if k > mark}
    del em.lines[mark:]
    for key in [k for k in em.line_ops if k > mark]:
        del em.line_ops[key]
    prefix = f"{test_name} = "
    single = len(cond_lines) == 1 and cond_lines[0].strip().startswith(prefix)
    if single:
        test = cond_lines[0].strip()[len(prefix):]
        if counter is not None:
            test = f"{counter} < {max_iter} and ({test})"
        em.line(f"while {test}:")
    else:
        em.line("while True:")
    loop_start = len(em.lines)
    with em.indented():
        if not single:
            if counter is not None:
                em.line(f"if {counter} >= {max_iter}:")
                with em.indented():
                    em.line("break")
            base = len(em.lines)
            em.lines.extend(cond_lines)
            em.line_ops.update({base + k: v for k, v in cond_ops.items()})
            em.line(f"if not {test_name}:")
            with em.indented():
                em.line("break")
        if counter is not None:
            em.line(f"{counter} += 1")
        em.emit_graph(body_graph)
        results = [em.name(t) for t in body_graph.outputs]
        if names:
            em.line(f"{', '.join(names)} = {', '.join(results)}")
        if len(em.lines) == loop_start:
            em.line("pass")
    for t, name in zip(op.outputs, names):
        em.alias(t, name)


def _while_infer(graphs, *inputs):
    return [(t.shape, t.dtype) for t in graphs[1].inputs]  # the loop variables' invariants


WHILE = define("While", _while_infer, None, emit=_emit_while, num_outputs=None, loop=True)


def run_loop(cond, body, values, maximum_iterations):
    """What a While op means: `values = body(values)` while `cond(values)`, at most
    `maximum_iterations` times (None: no limit)."""
    limit = None if maximum_iterations is None else int(maximum_iterations)
    count = 0
    while limit is None or count < limit:
        if not bool(cond(values)):
            break
        values = body(values)
        count += 1
    return values


@export("while_loop")
def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None,
               loop_var_names=None, relax_shapes=False) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns the last vars.

    `loop_vars` is any nest of tensors and TensorArrays. While tracing, the loop is one
    `While` op whose graph does not grow with the trip count. A loop variable whose shape
    changes between iterations is an error unless `shape_invariants` allows it.
    `loop_var_names` (an extension) names the variables in error messages; with
    `relax_shapes` (an extension, what a loop over a dataset does, as TensorFlow's dataset
    reduce does), a variable whose shape changes is carried with the most specific shape
    both fit instead.
    """
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop needs callable cond and body.")
    single = not isinstance(loop_vars, (list, tuple))
    structure = (loop_vars,) if single else loop_vars
    graph = context.current_graph()
    flat_init = _flatten_values(structure)
    if graph is None or not any(isinstance(v, SymbolicTensor) for v in flat_init):
        if graph is None or maximum_iterations is None or not isinstance(maximum_iterations, SymbolicTensor):
            if graph is None:
                return _eager_while(cond, body, structure, single, maximum_iterations)
    names = list(loop_var_names or [])
    flat_init = [_to_tensor(v, f"loop variable {_label(names, i)}") for i, v in enumerate(flat_init)]
    invariants = _invariants(structure, flat_init, shape_invariants, names)
    for _ in range(len(invariants) + 1):
        try:
            return _trace_while(cond, body, structure, single, graph, flat_init, invariants,
                                names, maximum_iterations, name, shape_invariants is not None)
        except _ShapeChanged as changed:
            if not relax_shapes:
                raise changed.error from None
            invariants[changed.index] = _common_shape(invariants[changed.index], changed.shape)
    raise AssertionError("while_loop: relaxing shapes did not converge")  # pragma: no cover


class _ShapeChanged(Exception):
    """A loop variable's shape after one iteration does not fit its invariant."""

    def __init__(self, index: int, shape: TensorShape, error: ValueError):
        super().__init__(str(error))
        self.index, self.shape, self.error = index, shape, error


def _common_shape(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape that both `a` and `b` fit."""
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None or len(da) != len(db):
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(da, db)])


def _trace_while(cond, body, structure, single, graph, flat_init, invariants, names,
                 maximum_iterations, name, given_invariants=False):
    cond_graph = FuncGraph("while_cond", outer_graph=graph)
    body_graph = FuncGraph("while_body", outer_graph=graph)
    for g in (cond_graph, body_graph):
        for i, (t, shape) in enumerate(zip(flat_init, invariants)):
            g.placeholder(shape, t.dtype, name=f"loop_var_{i}")
    with context.graph_scope(cond_graph):
        pred = cond(*_pack_values(structure, list(cond_graph.inputs)))
        pred = _to_tensor(pred, "The result of the loop condition")
        if not pred.dtype.is_bool:
            raise TypeError(f"while_loop: the condition must return a bool tensor, got "
                            f"{pred.dtype.name}.")
        if pred.shape.num_elements() not in (1, None):
            raise ValueError(f"while_loop: the condition must return a scalar, got shape {pred.shape}.")
        cond_graph.outputs = [pred]
    with context.graph_scope(body_graph):
        result = _normalize_body_result(
            structure, body(*_pack_values(structure, list(body_graph.inputs))), single)
        flat_out = [_to_tensor(v, f"loop variable {_label(names, i)}")
                    for i, v in enumerate(_flatten_values(result))]
        for i, (t_in, t_out, shape) in enumerate(zip(flat_init, flat_out, invariants)):
            label = _label(names, i)
            if t_out.dtype is not t_in.dtype:
                raise TypeError(
                    f"while_loop: loop variable {label} has dtype {t_in.dtype.name} before the "
                    f"loop, but dtype {t_out.dtype.name} after one iteration. "
                    "Keep its dtype fixed, e.g. with rt.cast.")
            if not t_out.shape.is_subtype_of(shape):
                raise _ShapeChanged(i, t_out.shape, ValueError(
                    f"while_loop: loop variable {label} "
                    f"{_shape_change(label, t_in.shape, shape, t_out.shape, given_invariants)} "
                    "To allow the shape to vary "
                    "across iterations, pass shape_invariants to while_loop (with autograph: "
                    f"ag.experimental.set_loop_options(shape_invariants=[({_plain(label)}, "
                    f"rt.TensorShape({_relaxed_dims(shape, t_out.shape)}))]) as the first "
                    "statement of the loop body)."))
        body_graph.outputs = flat_out
    inputs = list(flat_init)
    if maximum_iterations is not None:
        inputs.append(convert_to_tensor(maximum_iterations, dtype_hint=_dtypes.int32))
    outs = apply(WHILE, inputs, name=name or "while", subgraphs=(cond_graph, body_graph))
    packed = _pack_values(result, outs)  # TensorArrays keep element shapes from the body
    return packed[0] if single else packed


def _plain(label: str) -> str:
    return label.strip("'") if label.startswith("'") else "x"


def _relaxed_dims(a: TensorShape, b: TensorShape):
    da, db = a.as_tuple(), b.as_tuple()
    if da is None or db is None or len(da) != len(db):
        return None
    return [x if x == y else None for x, y in zip(da, db)]


def _shape_change(label: str, entered, invariant, after, given: bool) -> str:
    """How a loop variable's shape changed, in TensorFlow's words (`given`: whether the
    caller passed shape invariants)."""
    if not given:
        return (f"enters the loop with shape {entered}: {label} has shape {entered} before the "
                f"loop, but shape {after} after one iteration.")
    return (f"enters the loop with shape {entered}: {label} has shape {after} after one "
            f"iteration, which does not conform with the shape invariant {invariant}.")


def _label(names, i) -> str:
    return repr(names[i]) if i < len(names) and names[i] else f"#{i}"


def _invariants(structure, flat_init, shape_invariants, names):
    if shape_invariants is None:
        return [t.shape for t in flat_init]
    if isinstance(shape_invariants, (TensorShape,)) or not isinstance(shape_invariants, (list, tuple)):
        shape_invariants = (shape_invariants,)
    flat = [leaf.shape for leaf in nest.flatten(_shape_nest(shape_invariants))]
    if len(flat) != len(flat_init):
        raise ValueError(f"while_loop: shape_invariants has {len(flat)} entries for "
                         f"{len(flat_init)} loop variables.")
    out = []
    for i, (t, inv) in enumerate(zip(flat_init, flat)):
        inv = as_shape(inv) if inv is not None else t.shape
        if not t.shape.is_subtype_of(inv):
            raise ValueError(f"while_loop: loop variable {_label(names, i)} has shape {t.shape}, "
                             f"which does not fit its shape invariant {inv}.")
        out.append(inv)
    return out


def _shape_nest(value):
    if isinstance(value, TensorShape):
        return _Leaf(value)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (int, type(None))) for v in value):
        return _Leaf(TensorShape(value))
    if isinstance(value, (list, tuple)):
        return [_shape_nest(v) for v in value]
    if isinstance(value, dict):
        return {k: _shape_nest(v) for k, v in value.items()}
    return _Leaf(value)


class _Leaf:
    def __init__(self, shape):
        self.shape = shape


def _normalize_body_result(structure, result, single):
    """The body's result in the structure of the loop variables, or a TypeError.

    As in TensorFlow, a body for one loop variable may return it bare, and a tuple may
    stand for a list (or a namedtuple) of the same length.
    """
    if single or (len(structure) == 1 and not isinstance(result, (list, tuple))):
        result = (result,)
    if isinstance(result, (list, tuple)) and len(result) == len(structure):
        if nest.is_namedtuple(structure):
            result = type(structure)(*result)
        elif type(result) is not type(structure) and not nest.is_namedtuple(result):
            result = type(structure)(result)
    if nest.structure_signature(result) != nest.structure_signature(structure):
        raise TypeError(
            "while_loop: body must return the same structure as loop_vars; loop_vars is "
            f"{_describe_structure(structure)} but body returned {_describe_structure(result)}.")
    return result


def _eager_while(cond, body, structure, single, maximum_iterations):
    values = run_loop(lambda values: cond(*values),
                   lambda values: _normalize_body_result(structure, body(*values), single),
                   structure, maximum_iterations)
    values = tuple(values) if isinstance(structure, tuple) and not nest.is_namedtuple(structure) else values
    flat = [_to_tensor(v, "loop variable") if not isinstance(v, TensorArray) else v
            for v in nest.flatten(values)]
    packed = nest.pack_sequence_as(values, flat) if nest.is_nested(values) else flat[0]
    return packed[0] if single else packed


# == control dependencies, grouping, identity_n, ensure_shape, static values ========================
#
# Ordering: a graph runs its operations in the order they were created (program order), and ops
# with effects (prints, assertions, variable writes, py_function) are never dropped or moved. So
# `control_dependencies` needs to add nothing: the ops created inside its block already run
# after the control inputs, which were created before it. `group` and `no_op` give None (there
# is no operation object to wait on; nothing needs one).

newaxis = None  # rt.newaxis (runtime/__init__.py): `x[:, rt.newaxis]` adds an axis


@export("control_dependencies")
@contextlib.contextmanager
def control_dependencies(control_inputs) -> Iterator[None]:
    """Ops created in the block run after `control_inputs` (tensors, ops, or None).

    Eagerly there is nothing to order. Staged, graphs run in program order and never drop an
    op with an effect, so the inputs (made before the block) already run first."""
    if control_inputs is not None and not isinstance(control_inputs, (list, tuple)):
        raise TypeError(f"control_dependencies: control_inputs must be a list of tensors or "
                        f"operations (or None), got {type(control_inputs).__name__}.")
    yield None


@export("no_op")
def no_op(name: str | None = None) -> None:
    """Does nothing (TensorFlow's placeholder for control dependencies); returns None."""
    return None


@export("group")
def group(*inputs: Any, name: str | None = None) -> None:
    """Waits for `inputs`: in program order they have already run. Returns None."""
    return None


@export("identity_n")
def identity_n(input, name: str | None = None) -> list[Tensor]:  # noqa: A002 - TensorFlow's name
    """`[identity(t) for t in input]`."""
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"identity_n: input must be a list of tensors, got "
                        f"{type(input).__name__}.")
    return [array_math.identity(t) for t in input]


@export("tuple")
def tuple_(tensors, control_inputs=None, name: str | None = None) -> list[Tensor | None]:
    """The tensors, each passed through `identity` (they are ready together)."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"tuple: tensors must be a list of tensors, got "
                        f"{type(tensors).__name__}.")
    return [None if t is None else array_math.identity(t) for t in tensors]


@export("get_static_value")
def get_static_value(tensor, partial: bool = False) -> np.ndarray | None:
    """The NumPy value of `tensor` if it is known without running a graph (an eager tensor,
    a constant, a Python or NumPy value, a static shape), else None."""
    if isinstance(tensor, TensorShape):
        return np.array(tensor.as_list(), dtype=np.int32) if tensor.is_fully_defined() else None
    if hasattr(tensor, "_as_tensor") and not isinstance(tensor, (EagerTensor, SymbolicTensor)):
        return None  # a variable: its value may change
    value = constant_value(tensor)
    if value is None and type(tensor) is SymbolicTensor:
        op = tensor.op
        if op.opdef is array_math.SHAPE and op.inputs[0].shape.is_fully_defined():
            return np.array(op.inputs[0].shape.as_list(), dtype=tensor.dtype.as_numpy_dtype)
    return None if value is None else np.asarray(value)


@export("ensure_shape")
def ensure_shape(x, shape, name: str | None = None) -> Tensor:
    """`x`, checked to have `shape` (None for an unknown dim). Eagerly a mismatch raises
    rt.errors.InvalidArgumentError; while tracing, a static mismatch is a ValueError and a dim
    known only at run time is checked then (InvalidArgumentError). The result carries the merged static shape."""
    x = convert_to_tensor(x)
    want = TensorShape(shape)
    if isinstance(x, EagerTensor):
        if not want.is_compatible_with(TensorShape(x.shape.as_list())):
            raise InvalidArgumentError(f"ensure_shape: shape of tensor {x.shape} is not "
                                       f"compatible with expected shape {want}.")
        return x
    if not x.shape.is_compatible_with(want):
        raise ValueError(f"ensure_shape: the tensor {_tensor_label(x)} has shape {x.shape}, which is "
                         f"not compatible with the expected shape {want}.")
    if want.rank is None or x.shape.is_subtype_of(want):
        return array_math.identity(x)
    actual = array_math.shape(x)
    checks = []
    if x.shape.rank is None:
        checks.append(array_math.equal(array_math.size(actual), want.rank))
        padded = array_math.concat([actual, array_math.zeros([want.rank], _dtypes.int32)], 0)
        actual = padded[:want.rank]
    for i, d in enumerate(want.as_list()):
        if d is not None and (x.shape.rank is None or x.shape.as_list()[i] is None):
            checks.append(array_math.equal(actual[i], d))
    if checks:
        ok = array_math.reduce_all(array_math.stack(checks))
        debugging.Assert(ok, [f"ensure_shape: shape of tensor {_tensor_label(x)} is not compatible "
                              f"with expected shape {want}; it is", actual])
    y = array_math.identity(x)
    y.set_shape(y.shape.merge_with(want) if y.shape.rank is not None else want)
    return y


def _tensor_label(x) -> str:
    return getattr(x, "name", None) or "x"
