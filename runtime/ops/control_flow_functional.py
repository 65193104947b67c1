"""Higher-order functions over tensors: `map_fn`, `scan`, `foldl`, `foldr`, `vectorized_map`,
`switch_case` and `case`.

They add no op. Eagerly they loop (or branch) in Python, so a tape records the ops `fn` runs.
While tracing, the loop functions build one `while_loop` that reads the elements from
TensorArrays and writes the results into TensorArrays: the graph does not grow with the
number of elements, a count unknown at trace time works, and gradients come from the rules of
`While` and the TensorArray ops. `switch_case` and `case` are chains of `cond`.
"""

from __future__ import annotations

from typing import Any, Callable

from .. import context, nest
from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..exports import export
from ..graph import FuncGraph
from ..shapes import TensorShape, TensorSpec
from ..tensor import EagerTensor, Tensor
from . import array_math, debugging
from .control_flow import _describe_structure, cond, while_loop
from .core import convert_to_tensor
from .extension_type import as_templates, batch_template, flatten_components, pack_components, unbatch_template
from .tensor_array import TensorArray

# -- the shared loop -------------------------------------------------------------------------


def _elements(elems, what: str) -> tuple[list, Any]:
    """The flat tensors of `elems` and their common length (an int, or a scalar tensor when
    it is unknown at trace time)."""
    flat = flatten_components(elems)  # an extension type's Python fields are not elements
    if not flat:
        raise ValueError(f"{what}: elems must hold at least one tensor.")
    tensors = []
    for i, x in enumerate(flat):
        try:
            t = convert_to_tensor(x)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{what}: elems must be tensors (or a nest of tensors); element "
                            f"{i} is {type(x).__name__}: {exc}") from None
        if t.shape.rank == 0:
            raise ValueError(f"{what}: elems must have at least one dimension to iterate over; "
                             f"element {i} is a scalar.")
        tensors.append(t)
    dims = {t.shape.as_tuple()[0] for t in tensors if t.shape.rank is not None}
    known = {d for d in dims if d is not None}
    if len(known) > 1:
        raise ValueError(f"{what}: the tensors in elems must have the same first dimension, "
                         f"got {sorted(known)}.")
    if known and None not in dims and len(dims) == len(known):
        return tensors, known.pop()
    if context.current_graph() is None:  # eager: every shape is known
        return tensors, tensors[0].shape.as_tuple()[0]
    if known:
        return tensors, known.pop()
    return tensors, array_math.shape(tensors[0])[0]


def _signature_leaves(signature, what: str) -> list[tuple[_dtypes.DType, TensorShape]]:
    leaves = []
    for leaf in nest.flatten(signature):
        if isinstance(leaf, TensorSpec):
            leaves.append((leaf.dtype, leaf.shape))
        else:
            try:
                leaves.append((_dtypes.as_dtype(leaf), TensorShape(None)))
            except (TypeError, ValueError):
                raise TypeError(f"{what}: fn_output_signature must be a DType, a TensorSpec or "
                                f"a nest of them, got {leaf!r}.") from None
    return leaves


def _to_tensors(values, what: str) -> list:
    out = []
    for v in values:
        try:
            out.append(convert_to_tensor(v))
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{what}: fn must return tensors (or a nest of tensors), got "
                            f"{type(v).__name__}: {exc}") from None
    return out


def _probe(fn: Callable, args: list[tuple[_dtypes.DType, TensorShape]], pack: Callable):
    """Traces `fn` on placeholders of `args` in a throwaway graph: its result's structure and
    flat (dtype, shape) leaves. No tape records the trace."""
    graph = FuncGraph("probe", outer_graph=context.current_graph())
    saved = context.state.tapes
    context.state.tapes = []
    try:
        with context.graph_scope(graph):
            placeholders = [graph.placeholder(shape, dtype) for dtype, shape in args]
            result = fn(pack(placeholders))
            flat = _to_tensors(flatten_components(result), "map_fn")
    finally:
        context.state.tapes = saved
    return result, [(t.dtype, t.shape) for t in flat]


def _run_loop(step: Callable, elems: list, n, carry: list, out_specs: list, reverse: bool,
              name: str):
    """`carry, outs_i = step(elements_i, carry)` for every i (backwards when `reverse`).

    Returns the last carry and, per output, the stacked outputs. `out_specs` gives each
    output's (dtype, element shape). Eagerly a Python loop; staged one while_loop.
    """
    if context.current_graph() is None:
        return _eager_loop(step, elems, n, carry, out_specs, reverse)
    in_tas = [TensorArray(x.dtype, size=n, element_shape=x.shape[1:] if x.shape.rank else None,
                          infer_shape=True).unstack(x) for x in elems]
    out_tas = [TensorArray(dtype, size=n, element_shape=shape) for dtype, shape in out_specs]
    n_t = convert_to_tensor(n, dtype=_dtypes.int32) if not isinstance(n, Tensor) else n

    def body(i, carry, outs):
        index = n_t - 1 - i if reverse else i
        xs = [ta.read(index) for ta in in_tas]
        new_carry, values = step(xs, list(carry))
        outs = [ta.write(index, v) for ta, v in zip(outs, values)]
        return i + 1, list(new_carry), outs

    _, carry, outs = while_loop(lambda i, c, o: i < n_t, body,
                                (convert_to_tensor(0, dtype=_dtypes.int32), list(carry), out_tas),
                                name=name)
    stacked = []
    for ta in outs:
        s = ta.stack()
        rest = s.shape.as_list()[1:] if s.shape.rank is not None else [None]
        if isinstance(n, int) and None not in rest and s.shape.as_list()[0] is None:
            s = array_math.reshape(s, [n] + rest)  # the count is known: so is the shape
        stacked.append(s)
    return list(carry), stacked


def _eager_loop(step, elems, n, carry, out_specs, reverse):
    columns = [array_math.unstack(x) if n else [] for x in elems]
    results: list[list] = [[] for _ in out_specs]
    order = range(n - 1, -1, -1) if reverse else range(n)
    for i in order:
        carry, values = step([col[i] for col in columns], list(carry))
        for r, v in zip(results, values):
            r.append(v)
    stacked = []
    for r, (dtype, shape) in zip(results, out_specs):
        if reverse:
            r.reverse()
        if r:
            stacked.append(array_math.stack(r))
        else:
            dims = shape.as_list() if shape.rank is not None else []
            stacked.append(array_math.zeros([0] + [d or 0 for d in dims], dtype=dtype))
    return list(carry), stacked


def _check_dtypes(values: list, specs: list, what: str) -> list:
    out = []
    for i, (v, (dtype, _shape)) in enumerate(zip(values, specs)):
        if v.dtype is not dtype:
            raise TypeError(f"{what}: output {i} of fn has dtype {v.dtype.name}, but "
                            f"{dtype.name} was declared (fn_output_signature) or returned "
                            "before. Cast it, or declare the dtype fn returns.")
        out.append(v)
    return out


# -- map_fn ------------------------------------------------------------------------------------


@export("map_fn")
def map_fn(fn: Callable, elems, dtype=None, parallel_iterations=None, back_prop=True,
           swap_memory=False, infer_shape=True, name=None, fn_output_signature=None) -> Any:
    """`fn` applied to each slice of `elems` along its first axis, the results stacked.

    `elems` may be a nest of tensors (fn then receives the same nest of slices). The result
    has the structure `fn` returns; `fn_output_signature` (or the older `dtype`) declares it
    when it differs from `elems` (a DType, a TensorSpec or a nest of them). Without it, while
    tracing, `fn` is traced once more in a scratch graph to learn what it returns.
    `parallel_iterations`, `back_prop`, `swap_memory` and `infer_shape` are accepted for
    compatibility and change nothing.
    """
    if not callable(fn):
        raise TypeError(f"map_fn: fn must be callable, got {type(fn).__name__}.")
    if dtype is not None and fn_output_signature is not None:
        raise ValueError("map_fn: pass fn_output_signature or dtype, not both.")
    signature = as_templates(fn_output_signature if fn_output_signature is not None else dtype)
    flat, n = _elements(elems, "map_fn")
    element = unbatch_template(elems)  # a batchable extension type's batch shape loses a dim

    def pack(xs):
        return pack_components(element, xs) if nest.is_nested(elems) else xs[0]

    element_args = [(t.dtype, t.shape[1:] if t.shape.rank is not None else TensorShape(None))
                    for t in flat]
    if signature is not None:
        structure = signature
        specs = _signature_leaves(signature, "map_fn")
    elif context.current_graph() is not None or n == 0:
        structure, specs = _probe(fn, element_args, pack)
    else:
        structure, specs = None, None  # eager: learnt from the first call

    state = {"structure": structure, "specs": specs}

    def step(xs, carry):
        result = fn(pack(xs))
        values = _to_tensors(flatten_components(result), "map_fn")
        if state["specs"] is None:
            state["structure"] = result
            state["specs"] = [(v.dtype, v.shape) for v in values]
        if len(values) != len(state["specs"]):
            raise ValueError(f"map_fn: fn returned {len(values)} tensors, but "
                             f"{len(state['specs'])} were expected from fn_output_signature "
                             "(or its earlier result).")
        return carry, _check_dtypes(values, state["specs"], "map_fn")

    with context.name_scope(name or "map"):
        if specs is None:  # eager, first call decides the structure
            columns = [array_math.unstack(x) for x in flat]
            results: list[list] = []
            for i in range(n):
                _, values = step([c[i] for c in columns], [])
                if not results:
                    results = [[] for _ in values]
                for r, v in zip(results, values):
                    r.append(v)
            outs = [array_math.stack(r) for r in results]
        else:
            _, outs = _run_loop(step, flat, n, [], specs, False, "map")
    structure = state["structure"]
    if nest.is_nested(structure):
        return pack_components(batch_template(structure, n if isinstance(n, int) else None), outs)
    return outs[0]


@export("vectorized_map")
def vectorized_map(fn: Callable, elems, fallback_to_while_loop=True, warn=True) -> Any:
    """`map_fn(fn, elems)`: the same results. There is no vectorising transformation here:
    the map always runs as a loop (staged: one while_loop), whatever
    `fallback_to_while_loop` says."""
    return map_fn(fn, elems)


# -- scan / foldl / foldr -----------------------------------------------------------------------


def _accumulate(fn, elems, initializer, reverse, what, keep_all, name):
    if not callable(fn):
        raise TypeError(f"{what}: fn must be callable, got {type(fn).__name__}.")
    flat, n = _elements(elems, what)

    def pack_elems(xs):
        return nest.pack_sequence_as(elems, xs) if nest.is_nested(elems) else xs[0]

    if initializer is None:
        structure = elems
        if isinstance(n, int) and n == 0:
            raise ValueError(f"{what}: elems is empty and no initializer was given.")
        first = n - 1 if reverse else 0
        if isinstance(n, Tensor) and reverse:
            first = n - 1
        carry = [x[first] for x in flat]
        if isinstance(n, int):
            rest = [x[:-1] if reverse else x[1:] for x in flat]
        else:
            rest = [x[:n - 1] if reverse else x[1:] for x in flat]
        flat, n = rest, (n - 1)
    else:
        structure = initializer
        carry = _to_tensors(nest.flatten(initializer), what)
    carry_specs = [(t.dtype, t.shape) for t in carry]

    def pack_carry(cs):
        return nest.pack_sequence_as(structure, cs) if nest.is_nested(structure) else cs[0]

    def step(xs, carry):
        result = fn(pack_carry(carry), pack_elems(xs))
        try:
            nest.assert_same_structure(result, structure)
        except (TypeError, ValueError):
            raise TypeError(f"{what}: fn must return the structure of the accumulator "
                            f"({_describe_structure(structure)}), got {_describe_structure(result)}.") from None
        values = _check_dtypes(_to_tensors(nest.flatten(result), what), carry_specs, what)
        return values, (values if keep_all else [])

    with context.name_scope(name or what):
        out_specs = [(d, s) for d, s in carry_specs] if keep_all else []
        if initializer is None and keep_all:
            first_carry = list(carry)
        carry, outs = _run_loop(step, flat, n, carry, out_specs, reverse, what)
        if initializer is None and keep_all:  # the first element starts the output
            outs = [array_math.concat([array_math.expand_dims(c, 0), o] if not reverse
                                      else [o, array_math.expand_dims(c, 0)], 0)
                    for c, o in zip(first_carry, outs)]
    result = outs if keep_all else carry
    return pack_carry(result)


@export("scan")
def scan(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None) -> Any:
    """The running accumulation `acc = fn(acc, x)` over the first axis of `elems`, every
    accumulator stacked. Without `initializer` the first element starts it (and is the
    first output). With `reverse=True` it runs from the last element, and outputs keep the
    elements' order."""
    return _accumulate(fn, elems, initializer, bool(reverse), "scan", True, name)


@export("foldl")
def foldl(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None) -> Any:
    """`acc = fn(acc, x)` over the first axis of `elems`, first to last; the last `acc`."""
    return _accumulate(fn, elems, initializer, False, "foldl", False, name)


@export("foldr")
def foldr(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None) -> Any:
    """`acc = fn(acc, x)` over the first axis of `elems`, last to first; the last `acc`."""
    return _accumulate(fn, elems, initializer, True, "foldr", False, name)


# -- switch_case / case ------------------------------------------------------------------------


def _branches(branch_fns) -> list[tuple[int, Callable]]:
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    elif isinstance(branch_fns, (list, tuple)):
        pairs = [item if isinstance(item, tuple) else (i, item)
                 for i, item in enumerate(branch_fns)]
    else:
        raise TypeError(f"switch_case: branch_fns must be a list, tuple or dict of callables, "
                        f"got {type(branch_fns).__name__}.")
    if not pairs:
        raise ValueError("switch_case: branch_fns must not be empty.")
    for key, fn in pairs:
        if type(key) is not int or not callable(fn):
            raise TypeError(f"switch_case: branch_fns must map int indices to callables, got "
                            f"{key!r}: {fn!r}.")
    if len({k for k, _ in pairs}) != len(pairs):
        raise ValueError("switch_case: branch_fns has a repeated index.")
    return pairs


@export("switch_case")
def switch_case(branch_index, branch_fns, default=None, name=None) -> Any:
    """Runs `branch_fns[branch_index]()`: a list of callables, a dict {int: callable} or a
    list of (int, callable) pairs. An index that names no branch runs `default` (the last
    branch when `default` is None). Staged, a chain of `cond`s."""
    pairs = _branches(branch_fns)
    if default is None:
        default = pairs[-1][1]
    elif not callable(default):
        raise TypeError(f"switch_case: default must be callable, got {type(default).__name__}.")
    index = branch_index
    if isinstance(index, Tensor) or hasattr(index, "_as_tensor"):
        index = convert_to_tensor(index)
        if not index.dtype.is_integer or index.shape.rank not in (0, None):
            raise TypeError(f"switch_case: branch_index must be an int32 or int64 scalar, got "
                            f"{index.dtype.name} of shape {index.shape}.")
        if isinstance(index, EagerTensor):
            index = int(index.numpy())
    elif type(index) is not int:
        raise TypeError(f"switch_case: branch_index must be an int or an integer scalar "
                        f"tensor, got {type(branch_index).__name__}.")
    if isinstance(index, int):
        for key, fn in pairs:
            if key == index:
                return fn()
        return default()

    def chain(k):
        if k == len(pairs):
            return default()
        key, fn = pairs[k]
        return cond(array_math.equal(index, convert_to_tensor(key, dtype=index.dtype)),
                    fn, lambda: chain(k + 1))
    with context.name_scope(name or "switch_case"):
        return chain(0)


@export("case")
def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case") -> Any:
    """Runs the callable of the first (pred, fn) pair whose predicate is true, or `default`
    (when None, the last pair's callable, whose predicate is then not checked). With
    `exclusive=True` more than one true predicate raises InvalidArgumentError (at run time
    when staged)."""
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs:
        raise TypeError("case: pred_fn_pairs must be a non-empty list of (predicate, callable) "
                        "pairs.")
    pairs = []
    for item in pred_fn_pairs:
        if not isinstance(item, tuple) or len(item) != 2 or not callable(item[1]):
            raise TypeError(f"case: each entry of pred_fn_pairs must be a (predicate, callable) "
                            f"pair, got {item!r}.")
        pred = convert_to_tensor(item[0], dtype_hint=_dtypes.bool_)
        if not pred.dtype.is_bool:
            raise TypeError(f"case: predicates must be bool, got {pred.dtype.name}.")
        pairs.append((pred, item[1]))
    if default is not None and not callable(default):
        raise TypeError(f"case: default must be callable, got {type(default).__name__}.")
    all_preds = [p for p, _ in pairs]
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
    with context.name_scope(name or "case"):
        if exclusive and len(all_preds) > 1:
            count = array_math.reduce_sum(array_math.cast(array_math.stack(
                [array_math.reshape(p, []) for p in all_preds]), _dtypes.int32))
            if context.current_graph() is None:
                if int(count.numpy()) > 1:
                    raise InvalidArgumentError("case: more than one predicate is true with "
                                               "exclusive=True.")
            else:
                debugging.Assert(array_math.less_equal(count, 1),
                                 ["case: more than one predicate is true with exclusive=True."])

        def chain(k):
            if k == len(pairs):
                return default()
            pred, fn = pairs[k]
            return cond(array_math.reshape(pred, []), fn, lambda: chain(k + 1))
        return chain(0)
