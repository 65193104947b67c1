"""Op definitions: everything about one primitive op, in one object, and the registry.

An op is defined once: its name, a shape/dtype rule (`infer`), what it computes, how the
executor writes it as Python (`template` or `emit`) and its gradient rule (`def_grad`, on the
lines after the definition). What an op computes is declared as data where it fits, and the
rest is derived from that declaration: an elementwise op names its NumPy ufunc
(`ufunc=np.add`), which gives its eager kernel, its NumPy-tier template (`{0} + {1}`:
operators where NumPy has one), the form that writes into a dying buffer
(`np.add({0}, {1}, out={out})`) and its scalar form for loop-fusing backends (`{0} + {1}`);
a reduction names the ufunc it reduces with
(`reduction=np.add`). Facts that passes and backends ask of an op are properties here
(`is_constant`, `is_loop`, `stateful`, ...); code asks them rather than compare type names,
and a backend finds an op's rule on the OpDef (`lowerings`).

Tensors, graphs and every op module build on this module; a tape learns of applied ops
through `runtime.context`, so nothing here knows about gradients' machinery.
"""

from __future__ import annotations

import enum
from typing import Any, Callable

import numpy as np

from .attr_kinds import ARRAY, AttrKind
from .context import hooks

REGISTRY: dict[str, "OpDef"] = {}


class Effect(enum.Flag):
    """What an op does besides computing its outputs from its inputs. An op with any effect
    is never folded, merged with a twin (CSE) or dropped when its outputs are unused."""

    NONE = 0
    READ = enum.auto()    # reads state that may change between runs (a variable, a TensorArray)
    WRITE = enum.auto()   # changes state (a variable, a TensorArray, an accumulator)
    RANDOM = enum.auto()  # draws from a random generator
    IO = enum.auto()      # talks to the world: prints, raises on a failed assertion
    STATE = READ | WRITE  # what the older `stateful=True` declares


# NumPy-tier spellings of ufuncs that Python writes as operators (the fast form on arrays and
# on NumPy scalars alike). The logical ufuncs are written as the bitwise operators, which agree
# with them on bools, the only dtype their ops accept.
_OPERATORS: dict[np.ufunc, str] = {
    np.add: "{0} + {1}", np.subtract: "{0} - {1}", np.multiply: "{0} * {1}",
    np.true_divide: "{0} / {1}", np.floor_divide: "{0} // {1}", np.remainder: "{0} % {1}",
    np.power: "{0} ** {1}", np.equal: "{0} == {1}", np.not_equal: "{0} != {1}",
    np.less: "{0} < {1}", np.less_equal: "{0} <= {1}", np.greater: "{0} > {1}",
    np.greater_equal: "{0} >= {1}", np.negative: "-{0}",
    np.logical_and: "{0} & {1}", np.logical_or: "{0} | {1}", np.logical_xor: "{0} ^ {1}",
    np.logical_not: "~{0}",
}
# Scalar forms on one element where the operator above is not one (Python's `~True` is -2).
_SCALAR_ONLY: dict[np.ufunc, str] = {
    np.logical_and: "{0} and {1}", np.logical_or: "{0} or {1}", np.logical_xor: "{0} != {1}",
    np.logical_not: "not {0}",
}


# the names people write: np.abs, and np.true_divide (np.divide is the same ufunc)
_SPELLING = {np.absolute: "abs", np.true_divide: "true_divide"}


def _np_name(ufunc: np.ufunc) -> str:
    return "np." + _SPELLING.get(ufunc, ufunc.__name__)


def _operands(count: int) -> str:
    return ", ".join(f"{{{i}}}" for i in range(count))


def ufunc_template(ufunc: np.ufunc) -> str:
    """The NumPy-tier expression of `ufunc` over placeholders `{0}`, `{1}`, ...: the operator
    where Python has one, else the call (`np.exp({0})`)."""
    return _OPERATORS.get(ufunc) or f"{_np_name(ufunc)}({_operands(ufunc.nin)})"


def ufunc_out_template(ufunc: np.ufunc) -> str:
    """`ufunc` writing its result into the buffer named `{out}`: `np.add({0}, {1}, out={out})`."""
    return f"{_np_name(ufunc)}({_operands(ufunc.nin)}, out={{out}})"


def _reduction_kernel(ufunc: np.ufunc) -> Callable:
    def kernel(x, axis, keepdims):
        return ufunc.reduce(x, axis=axis, keepdims=keepdims, dtype=np.asarray(x).dtype)
    kernel.__name__ = f"{ufunc.__name__}_reduce"
    return kernel


def _reduction_emit(ufunc: np.ufunc) -> Callable:
    source = f"{_np_name(ufunc)}.reduce"

    def emit(em, op) -> None:
        x, t = em.ins(op)[0], op.inputs[0]
        axis, keepdims = op.attrs["axis"], op.attrs["keepdims"]
        extra = f", dtype=np.{t.dtype._np.type.__name__}" if t.dtype.is_integer else ""
        em.line(f"{em.outs(op)[0]} = {source}({x}, axis={em.literal(axis)}, "
                f"keepdims={keepdims}{extra})")
    return emit


class OpDef:
    """The definition of one primitive op.

    infer(*inputs, **attrs) -> (shape, dtype) or, for `num_outputs != 1`, a list of them;
        an op staged with subgraphs gets them first: infer(subgraphs, *inputs, **attrs).
    kernel(*arrays, **attrs) -> array (or tuple of arrays); the ufunc or reduction when not given.
    template: Python expression for the executor, e.g. "{0} + {1}" or "np.sum({0}, axis={axis})";
        derived from `ufunc` when not given.
    emit(ctx, op): writes the op's lines itself (control flow, variables, ...).
    grad(op, *output_grads) -> list of input grads (None where there is none).

    What it computes, as data:
    ufunc: the NumPy ufunc the op applies elementwise to its inputs (no attrs). Gives the
        kernel, the template and `out_template`; the op's result is a fresh array.
    reduction: the ufunc whose `.reduce` over attrs `axis` (None or a tuple) with `keepdims`
        the op is (`np.add` for Sum). Gives the kernel and the emitter.
    scalar: the op on one element, for backends that fuse elementwise loops (Numba):
        `{0}`, `{1}` the operands, `{one}`/`{zero}` constants of their dtype. Derived from
        `ufunc`; declared by elementwise ops without one (sigmoid, relu, select).
    scalar_only: `scalar` is Python on one element (`and`, `not`, `x if c else y`); on arrays
        the template is used.
    out_template: the op writing into a dying input's buffer `{out}`; derived from `ufunc`.
    effects: an `Effect` flag set; `stateful=True` is shorthand for `Effect.STATE`.
    in_place(op) -> bool: the op's own emitter may write its result into a dying operand
        (`em.reuse_target(op)`), as a variable's add/sub update does.
    fresh_output: the result is a new array nothing else holds (matmul), so a later
        elementwise op may write into it.
    constant / placeholder / loop: what the graph's passes ask by kind (`is_constant`, ...).
    strings: the op reads or makes string tensors (tiers that hold no strings refuse it).

    Traits backends and passes ask instead of comparing type names:
    region: the op runs the traced graphs in `operation.subgraphs` (If, While).
    taken_branch(value) -> int: for a region op that runs one of its subgraphs, chosen by its
        first input: the index of the one run when that input is `value` (If: 0 when true).
    carrier: the op makes, grows or reads a list carried as a `variant` value: "tensor_array"
        (TensorArray ops) or "accumulator" (the values a loop saves for its gradient).
    variable: the op reads or writes the resource variable in its `var` attr.
    random: (from `effects`) the op draws from a random generator.
    lowerings: backend name ("xla", "numba") -> the rule that lowers the op there, registered
        with `def_lowering`; a backend derives the others from `ufunc`/`reduction`/`scalar`.

    Its attributes, for the saved-model loader (never checked when the op is applied):
    attrs: attribute name -> `AttrKind` (runtime/attr_kinds.py): the names an operation of
        this op carries, exactly, and what each value may be.
    savable: False for ops that hold Python objects or live only on tapes (never written,
        never read).
    """

    __slots__ = ("name", "infer", "kernel", "template", "emit", "grad", "effects",
                 "num_outputs", "differentiable", "ufunc", "reduction", "scalar",
                 "scalar_only", "out_template", "in_place", "fresh_output", "is_constant",
                 "is_placeholder", "is_loop", "strings", "region", "carrier", "variable",
                 "lowerings", "attrs", "savable", "taken_branch")

    def __init__(self, name: str, infer: Callable, kernel: Callable | None = None, *,
                 template: str | None = None, emit: Callable | None = None,
                 grad: Callable | None = None, effects: Effect = Effect.NONE,
                 stateful: bool = False, num_outputs: int | None = 1,
                 differentiable: bool = True,
                 ufunc: np.ufunc | None = None, reduction: np.ufunc | None = None,
                 scalar: str | None = None, scalar_only: bool = False,
                 out_template: str | None = None, in_place: Callable[[Any], bool] | None = None,
                 fresh_output: bool = False, constant: bool = False, placeholder: bool = False,
                 loop: bool = False, strings: bool = False, region: bool = False,
                 carrier: str | None = None, variable: bool = False,
                 taken_branch: Callable[[Any], int] | None = None,
                 attrs: dict[str, AttrKind] | None = None, savable: bool = True):
        if attrs and not all(isinstance(k, AttrKind) for k in attrs.values()):
            raise TypeError(f"op {name!r}: attrs must map names to AttrKinds "
                            "(runtime/attr_kinds.py), e.g. attrs={'axis': AXIS}")
        if carrier not in (None, "tensor_array", "accumulator"):
            raise ValueError(f"op {name!r}: carrier must be 'tensor_array' or 'accumulator', "
                             f"not {carrier!r}")
        if ufunc is not None:
            kernel = ufunc if kernel is None else kernel
            template = ufunc_template(ufunc) if template is None else template
            out_template = ufunc_out_template(ufunc) if out_template is None else out_template
            if scalar is None:
                scalar = _SCALAR_ONLY.get(ufunc) or template
                scalar_only = ufunc in _SCALAR_ONLY
        if reduction is not None:
            kernel = _reduction_kernel(reduction) if kernel is None else kernel
            emit = _reduction_emit(reduction) if emit is None and template is None else emit
        self.name = name
        self.infer = infer
        self.kernel = kernel
        self.template = template
        self.emit = emit
        self.grad = grad
        self.effects = effects | (Effect.STATE if stateful else Effect.NONE)
        self.num_outputs = num_outputs
        self.differentiable = differentiable
        self.ufunc = ufunc
        self.reduction = reduction
        self.scalar = scalar
        self.scalar_only = scalar_only
        self.out_template = out_template
        self.in_place = in_place
        self.fresh_output = fresh_output or ufunc is not None
        self.is_constant = constant
        self.is_placeholder = placeholder
        self.is_loop = loop
        self.strings = strings
        self.region = region or loop
        self.carrier = carrier
        self.variable = variable
        self.taken_branch = taken_branch
        self.lowerings: dict[str, Callable] = {}
        self.attrs: dict[str, AttrKind] = dict(attrs or {})
        self.savable = savable

    @property
    def stateful(self) -> bool:
        """True when the op has any effect: it must run, once, where it stands."""
        return bool(self.effects)

    @property
    def random(self) -> bool:
        """True when the op draws from a random generator."""
        return bool(self.effects & Effect.RANDOM)

    @property
    def is_elementwise(self) -> bool:
        """True when the op maps elements to elements (it has a scalar form)."""
        return self.scalar is not None

    def def_grad(self, rule: Callable) -> Callable:
        """Decorator: `rule(op, *output_grads)` becomes this op's gradient rule."""
        self.grad = rule
        return rule

    def def_lowering(self, backend: str) -> Callable[[Callable], Callable]:
        """Decorator: the rule lowering this op on `backend` ("xla", "numba"); the rule's
        signature is the backend's (see its lowering module)."""
        def register(rule: Callable) -> Callable:
            self.lowerings[backend] = rule
            return rule
        return register

    def __repr__(self) -> str:
        return f"<OpDef {self.name}>"


def builtin_ops() -> dict[str, "OpDef"]:
    """The registered ops the runtime itself defines (not those a program adds with
    `define`), by name: what the tiers' tables and their tests cover. Every op family is
    loaded first (`import runtime` leaves some to load on first use: runtime.ops), so the
    listing is the same whatever was imported before."""
    if hooks.load_op is not None:
        hooks.load_op(None)
    return {name: op for name, op in REGISTRY.items()
            if (getattr(op.infer, "__module__", None) or "").startswith("runtime.")}


def lookup(name: str) -> "OpDef | None":
    """The registered op named `name`, or None: an op of a family `import runtime` has not
    loaded yet (runtime.ops.LAZY_FAMILIES) is loaded first, as a saved graph naming it needs."""
    op = REGISTRY.get(name)
    if op is None and hooks.load_op is not None:
        hooks.load_op(name)
        op = REGISTRY.get(name)
    return op


def define(name: str, infer: Callable, kernel: Callable | None = None, **kwargs: Any) -> OpDef:
    """Registers an op (see `OpDef` for the keywords); names are unique."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is defined twice")
    op = OpDef(name, infer, kernel, **kwargs)
    REGISTRY[name] = op
    return op


def _no_infer(*_args, **_kwargs):
    raise AssertionError("this op is not applied through apply()")


def _emit_const(em, op):
    value = op.attrs["value"]
    if value.ndim == 0 and value.dtype.kind != "O":
        value = value[()]  # NumPy scalars take NumPy's fast scalar arithmetic (a string stays
        # a 0-d array: its item is a bytes object, which no tensor holds)
    em.alias(op.outputs[0], em.bind(value, "c"))


CONST = define("Const", _no_infer, emit=_emit_const, differentiable=False, constant=True,
               attrs={"value": ARRAY})
PLACEHOLDER = define("Placeholder", _no_infer, differentiable=False, placeholder=True,
                     savable=False)
