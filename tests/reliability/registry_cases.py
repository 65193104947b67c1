"""Cases generated from the op registry for tests/reliability/test_registry_tier_agreement.py.

Elementwise ops (an OpDef with a `ufunc` or a `scalar` form, and unary or binary ops without
attrs whose NumPy kernel maps each element on its own, found by probing) get edge values
(NaN, +-inf, -0.0, subnormals, the ends of the range, empty tensors) in every dtype their
shape rule accepts; reductions (`OpDef.reduction`) get edge rows and empty axes; `Cast` every
pair of dtypes. The dtypes an op accepts are found by calling its `infer` on symbolic tensors
of each dtype: a `TypeError` means "not accepted".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

import runtime as rt
from runtime.opdef import OpDef, builtin_ops

DTYPES = (rt.float32, rt.float64, rt.int32, rt.int64, rt.bool)
PROBE_SIZE = 7  # the length of the symbolic vectors `infer` is probed with


def edge_values(dtype: rt.DType) -> np.ndarray:
    """The edge values of a dtype: NaN, +-inf, signed zeros, subnormals and the range's ends
    for floats; zero, +-1 and the range's ends for integers; both bools."""
    np_type = dtype.as_numpy_dtype
    if dtype.is_floating:
        info = np.finfo(np_type)
        sub = info.smallest_subnormal
        return np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.25,
                         sub, -sub * 3, info.tiny, -info.max, info.max, 1e-3, 100.0], np_type)
    if dtype.is_integer:
        info = np.iinfo(np_type)
        return np.array([0, 1, -1, 2, -3, 7, 100, info.max, info.min, info.max - 1,
                         info.min + 1], np_type)
    return np.array([False, True])


def operands(dtypes: tuple, arity: int) -> tuple:
    """Inputs of an elementwise op: every combination of the edge values of each input's
    dtype (the first input of a select is a bool pattern)."""
    if arity == 1:
        return (edge_values(dtypes[0]),)
    rows = list(itertools.product(*(edge_values(d) for d in dtypes[-2:])))
    pairs = tuple(np.array(col, d.as_numpy_dtype) for col, d in zip(zip(*rows), dtypes[-2:]))
    if arity == 2:
        return pairs
    pattern = np.array([(k // 3 + k) % 2 == 0 for k in range(len(rows))])
    return (pattern, *pairs)


@dataclass(eq=False)  # hashed by identity: a key of the error cases
class Elementwise:
    """One elementwise op at one dtype signature."""
    op: OpDef
    dtypes: tuple
    declared: bool  # ufunc or scalar set on the OpDef (else found by probing)
    out_dtype: rt.DType = None

    @property
    def arity(self) -> int:
        return len(self.dtypes)

    @property
    def key(self) -> str:
        return f"{self.op.name}[{','.join(d.name for d in self.dtypes)}]"


@dataclass
class Reduction:
    op: OpDef
    dtype: rt.DType


@dataclass
class Registry:
    elementwise: list = field(default_factory=list)
    reductions: list = field(default_factory=list)
    casts: list = field(default_factory=list)  # (source, target) dtype pairs


def declared_arity(op: OpDef) -> int | None:
    """The number of operands of an op with a `ufunc` or a `scalar` form, else None."""
    if op.ufunc is not None:
        return op.ufunc.nin
    if op.scalar is not None:
        return 1 + max(int(c) for c in "0123456789" if f"{{{c}}}" in op.scalar)
    return None


def _signatures(arity: int) -> list:
    same = [tuple([d] * arity) for d in DTYPES]
    if arity == 3:  # a select: a bool condition and two operands of one dtype
        same += [(rt.bool, d, d) for d in DTYPES if d is not rt.bool]
    return same


def _infer(op: OpDef, inputs: list, attrs: dict, declared: bool):
    """The (shape, dtype) `op.infer` gives, or None when it refuses the inputs."""
    try:
        spec = op.infer(*inputs, **attrs)
    except TypeError:
        return None
    except Exception:  # noqa: BLE001 -- a probed op that is not elementwise may raise anything
        if declared:
            raise
        return None
    if not isinstance(spec, tuple) or len(spec) != 2 or not isinstance(spec[1], rt.DType):
        return None
    return spec


def _maps_each_element(op: OpDef, dtypes: tuple) -> bool:
    """True when the op's NumPy kernel gives, element by element, what it gives on the whole
    edge vectors (what makes a probed op elementwise)."""
    if op.kernel is None:
        return False
    inputs = operands(dtypes, len(dtypes))
    try:
        with np.errstate(all="ignore"):
            whole = np.asarray(op.kernel(*inputs))
            parts = [np.asarray(op.kernel(*(x[k:k + 1] for x in inputs)))
                     for k in range(len(inputs[0]))]
    except Exception:  # noqa: BLE001 -- a kernel that needs attrs or other inputs
        return False
    if whole.shape != inputs[0].shape or any(p.shape != (1,) for p in parts):
        return False
    return np.array_equal(whole, np.concatenate(parts), equal_nan=whole.dtype.kind in "fc")


def _candidate(op: OpDef) -> bool:
    return not (op.effects or op.region or op.carrier or op.variable or op.strings
                or op.is_constant or op.is_placeholder or op.num_outputs != 1)


def probe_registry() -> Registry:
    """The generated cases: every op's accepted dtypes, found by calling its `infer` on
    symbolic tensors inside one trace."""
    found = Registry()
    ops = builtin_ops()

    def probe(*vectors):
        by_dtype = dict(zip(DTYPES, vectors))
        for op in ops.values():
            arity = declared_arity(op)
            if op.reduction is not None:
                for d in DTYPES:
                    if _infer(op, [by_dtype[d]], {"axis": None, "keepdims": False}, True):
                        found.reductions.append(Reduction(op, d))
                continue
            if not _candidate(op):
                continue
            for n in ([arity] if arity else [1, 2]):
                for dtypes in _signatures(n):
                    spec = _infer(op, [by_dtype[d] for d in dtypes], {}, arity is not None)
                    if spec is None or tuple(spec[0].as_list()) != (PROBE_SIZE,):
                        continue
                    if arity is None and not _maps_each_element(op, dtypes):
                        continue
                    found.elementwise.append(Elementwise(op, dtypes, arity is not None,
                                                         spec[1]))
                if arity is None and any(c.op is op for c in found.elementwise):
                    break
        return vectors[0]

    rt.function(probe).get_concrete_function(
        *[rt.TensorSpec([PROBE_SIZE], d) for d in DTYPES])
    found.casts = [(s, t) for s in DTYPES for t in DTYPES]
    return found
