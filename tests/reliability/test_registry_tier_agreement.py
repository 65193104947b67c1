"""Tier agreement generated from the op registry: every op, every tier, edge values.

The cases come from `runtime.opdef.builtin_ops()` (tests/reliability/registry_cases.py):
elementwise ops get NaN, +-inf, -0.0, subnormals, the ends of each dtype's range and empty
tensors in every dtype their shape rule accepts; reductions get edge rows and empty axes;
`Cast` every pair of dtypes; ops reading indices get out-of-range ones; the other ops run on
edge rows in a few programs (shapes known when traced or only when run). The Numba tier
(jit_compile=True) and the XLA tier (jit_compile="xla") must give the NumPy tier's result
(the reference: it matches TensorFlow), bit for bit for exact ops (signed zeros included, any
NaN equal to any NaN) and within 8 ulp for transcendental ones, raise the NumPy tier's error,
or refuse with a JitCompileError that names the op. Documented differences are asserted as
documented (docs/tiers.md): the XLA tier flushes subnormals to zero, and `reduce_max` /
`reduce_min` of 0.0 and -0.0 may give either zero on both compiler tiers. Every builtin op
is covered by a case or listed in NOT_GENERATED with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
import runtime.autograph_backend  # noqa: F401 -- registers RaiseUnless, as staging a raise does
from runtime.backends.base import JitCompileError
from runtime.opdef import builtin_ops
from runtime.ops.core import apply

from .. import op_programs as programs
from ..op_programs import graph_ops
from .registry_cases import DTYPES, edge_values, operands, probe_registry

MAX_ULP = 8
TIERS = {"numba": True, "xla": "xla"}
REGISTRY = probe_registry()

# ufuncs IEEE 754 (or plain integer arithmetic) defines to the last bit: bit for bit on every
# tier; the other floating-point ops are transcendental (libm's), within MAX_ULP
EXACT_UFUNCS = {np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide,
                np.remainder, np.negative, np.absolute, np.sign, np.maximum, np.minimum,
                np.floor, np.ceil, np.rint, np.trunc, np.sqrt, np.square, np.reciprocal,
                np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
                np.logical_and, np.logical_or, np.logical_xor, np.logical_not}
# ops without a ufunc whose results are exact too (a select, a mask, a copy, a classification)
EXACT_OPS = {"Relu", "ReluGrad", "SelectV2", "Identity", "StopGradient", "SumToShape",
             "IsNan", "IsInf", "IsFinite", "Trunc", "NextAfter", "Complex"}


def is_exact(op) -> bool:
    return op.ufunc in EXACT_UFUNCS or op.name in EXACT_OPS


# -- comparing values ---------------------------------------------------------------------------

def _ordered(a: np.ndarray) -> np.ndarray:
    """Floats as integers in the order of their values (-0.0 and 0.0 both 0): ulp distance."""
    signed = np.dtype(f"i{a.dtype.itemsize}")
    bits = a.view(signed).astype(np.int64)
    return np.where(bits < 0, np.iinfo(signed).min - bits, bits)


def same_values(got, want, exact: bool, any_zero: bool = False) -> np.ndarray:
    """Per element: `got` is `want` (bit for bit when exact, else within MAX_ULP with the
    same infinities), any NaN equal to any NaN; `any_zero`: 0.0 and -0.0 equal."""
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "c":
        return (same_values(got.real, want.real, exact, any_zero)
                & same_values(got.imag, want.imag, exact, any_zero))
    if want.dtype.kind != "f":
        return got == want
    nan = np.isnan(got) & np.isnan(want)
    if any_zero:
        got, want = got + want.dtype.type(0), want + want.dtype.type(0)
    if exact:
        close = got.view(f"u{got.dtype.itemsize}") == want.view(f"u{want.dtype.itemsize}")
    else:
        close = (np.abs(_ordered(got) - _ordered(want)) <= MAX_ULP) & \
            (np.isinf(got) == np.isinf(want))
    return nan | (close & ~np.isnan(got) & ~np.isnan(want))


def flushed(x: np.ndarray) -> np.ndarray:
    """Subnormal floats flushed to zero of their sign, as the XLA tier does (docs/tiers.md)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return x
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, np.copysign(x.dtype.type(0), x), x).astype(x.dtype)


def disagreement(what: str, got, want, exact: bool, any_zero: bool = False,
                 flushed_want=None, inputs: tuple = ()) -> str:
    """'' when `got` has the dtype and shape of `want` and each element equals it, else why
    not. With `flushed_want` (the XLA tier, which flushes subnormals to zero), an element
    that flushed equals `flushed_want` agrees too, whatever the sign of a flushed zero."""
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return f"{what}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
    ok = same_values(got, want, exact, any_zero)
    if flushed_want is not None:
        ok |= same_values(flushed(got), np.asarray(flushed_want), exact, any_zero=True)
    if ok.all():
        return ""
    bad = np.flatnonzero(~ok.reshape(-1))[:4]
    at = [tuple(np.asarray(x).reshape(-1)[k].item() for x in inputs) for k in bad]
    return f"{what}: got {got.reshape(-1)[bad].tolist()} where the NumPy tier gives " \
           f"{want.reshape(-1)[bad].tolist()} (at {at or bad.tolist()})"


# -- running a group of cases on a tier ---------------------------------------------------------

def refused_op(exc: Exception, names) -> str | None:
    """The op a JitCompileError names (as `(Type)`), of `names`; None when it names none."""
    return next((n for n in names if f"({n})" in str(exc)), None)


def run_on_tiers(build, cases: list, inputs: list, tier) -> tuple[list, dict, dict]:
    """Runs `build(cases)` (a program of one argument, the list of each case's inputs) on a
    tier; an op the tier refuses naming it is dropped and the rest run again. Returns
    (results per case, or None where refused; {op: message} refused; {case: error})."""
    refused: dict = {}
    failed: dict = {}
    todo = list(range(len(cases)))
    while todo:
        fn = rt.function(build([cases[i] for i in todo]), jit_compile=tier, autograph=False)
        try:
            out = fn([inputs[i] for i in todo])
        except JitCompileError as exc:
            name = refused_op(exc, {cases[i].op.name for i in todo})
            if name is None:
                raise AssertionError(f"a refusal that names no op of its graph: {exc}") \
                    from exc
            refused[name] = str(exc)
            todo = [i for i in todo if cases[i].op.name != name]
            continue
        except Exception:  # noqa: BLE001 -- the cases that fail alone are reported
            if len(todo) == 1:
                raise
            results: list = [None] * len(cases)
            for i in todo:
                try:
                    one, r, _ = run_on_tiers(build, [cases[i]], [inputs[i]], tier)
                    results[i] = one[0]
                    refused.update(r)
                except Exception as exc:  # noqa: BLE001
                    failed[cases[i]] = f"{type(exc).__name__}: {exc}"
            return results, refused, failed
        results = [None] * len(cases)
        for i, value in zip(todo, out):
            results[i] = [np.asarray(v) for v in value]
        return results, refused, failed
    return [None] * len(cases), refused, failed


# -- elementwise ops ----------------------------------------------------------------------------

def _apply_each(cases):
    def program(inputs):
        return [[apply(c.op, list(xs)) for xs in forms] for c, forms in zip(cases, inputs)]
    return program


def _numpy_tier(case) -> rt.Function:
    spec = [rt.TensorSpec([None], d) for d in case.dtypes]
    return rt.function(lambda *xs: apply(case.op, list(xs)), input_signature=spec,
                       autograph=False)


def _raises(fn, xs) -> Exception | None:
    try:
        fn(*xs)
    except Exception as exc:  # noqa: BLE001
        return exc
    return None


_PREPARED: dict = {}


def prepared(dtype):
    """The elementwise cases of the operand dtype: (cases, inputs per case [edge values,
    empty], NumPy-tier results, the same on flushed inputs, {case: (inputs, error)})."""
    if dtype in _PREPARED:
        return _PREPARED[dtype]
    cases = [c for c in REGISTRY.elementwise if c.dtypes[-1] is dtype]
    inputs, want, want_flushed, raising = [], [], [], {}
    for case in cases:
        fn = _numpy_tier(case)
        xs = operands(case.dtypes, case.arity)
        error = _raises(fn, xs)
        if error is not None:  # keep the elements it computes; check the error on its own
            keep = np.array([_raises(fn, [x[k:k + 1] for x in xs]) is None
                             for k in range(len(xs[0]))])
            bad = [x[~keep][:1] for x in xs]
            raising[case] = (bad, _raises(fn, bad))
            xs = tuple(x[keep] for x in xs)
        empty = tuple(x[:0] for x in xs)
        inputs.append([xs, empty])
        want.append([np.asarray(fn(*xs)), np.asarray(fn(*empty))])
        want_flushed.append([flushed(fn(*[flushed(x) for x in xs])), want[-1][1]])
    _PREPARED[dtype] = cases, inputs, want, want_flushed, raising
    return _PREPARED[dtype]


def _lgamma_of_negatives_within_1e13(got, want, x):
    """`got` with the NumPy tier's values where `x` is negative and the two agree within
    1e-13 relative: the documented difference of lgamma of negative arguments on the XLA
    tier (JAX 0.12's gammaln is closer to the exact value than the C library's lgamma that
    the NumPy tier and TensorFlow's CPU kernel use; docs/tiers.md)."""
    got, want, x = np.asarray(got), np.asarray(want), np.asarray(x)
    if got.shape != want.shape or got.shape != x.shape:
        return got
    close = (x < 0) & np.isclose(got, want, rtol=1e-13, atol=0)
    return np.where(close, want, got).astype(got.dtype)


REFUSED: dict = {tier: {} for tier in TIERS}   # filled by the tests: tier -> {op: message}
MISMATCHES: dict = {tier: [] for tier in TIERS}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("tier", sorted(TIERS))
def test_elementwise_ops_agree_on_edge_values(tier, dtype):
    cases, inputs, want, want_flushed, _ = prepared(dtype)
    results, refused, failed = run_on_tiers(_apply_each, cases, inputs, TIERS[tier])
    REFUSED[tier].update(refused)
    problems = [f"{c.key}: {msg}" for c, msg in failed.items()]
    for case, got, ref, ref_flushed in zip(cases, results, want, want_flushed):
        if got is None:
            continue
        for form, (g, w, wf) in enumerate(zip(got, ref, ref_flushed)):
            if tier == "xla" and case.op.name == "Lgamma":
                g = _lgamma_of_negatives_within_1e13(g, w, inputs[cases.index(case)][form][0])
            problem = disagreement(f"{case.key}{' (empty)' if form else ''}", g, w,
                                   is_exact(case.op), flushed_want=wf if tier == "xla" else None,
                                   inputs=inputs[cases.index(case)][form])
            if problem:
                problems.append(problem)
    MISMATCHES[tier] += problems
    assert not problems, "\n".join(problems)


def same_error(got, want, tier: str) -> bool:
    """Both compiler tiers run a failed call again on the NumPy tier (the graphs here neither
    print nor draw random numbers): its error, word for word, naming the op."""
    return type(got) is type(want) and str(got) == str(want)


@pytest.mark.parametrize("tier", sorted(TIERS))
def test_elementwise_errors_are_the_numpy_tiers(tier):
    """Elements the NumPy tier refuses (integer division by zero, integers to negative
    powers) raise its error on every tier, or the op is refused by name."""
    problems, checked = [], 0
    for dtype in DTYPES:
        cases, *_, raising = prepared(dtype)
        for case, (xs, _) in raising.items():
            checked += 1
            spec = [rt.TensorSpec([None], d) for d in case.dtypes]
            fn = lambda *a, op=case.op: apply(op, list(a))  # noqa: E731
            want = _raises(rt.function(fn, input_signature=spec, autograph=False), xs)
            got = _raises(rt.function(fn, jit_compile=TIERS[tier], input_signature=spec,
                                      autograph=False), xs)
            if isinstance(got, JitCompileError) and f"({case.op.name})" in str(got):
                REFUSED[tier][case.op.name] = str(got)
            elif not same_error(got, want, tier):
                problems.append(f"{case.key} on {[x.tolist() for x in xs]}: {got!r} where "
                                f"the NumPy tier raises {want!r}")
    assert checked >= 4  # FloorDiv, FloorMod and Pow of int32 and int64 at least
    MISMATCHES[tier] += problems
    assert not problems, "\n".join(problems)


# -- casts --------------------------------------------------------------------------------------

class _Cast:
    """A cast to one dtype, as a case."""
    def __init__(self, target):
        self.target = target
        self.op = builtin_ops()["Cast"]
        self.key = f"Cast[{target.name}]"


def _apply_casts(cases):
    def program(inputs):
        return [[apply(c.op, [x], {"dtype": c.target}) for x in forms]
                for c, forms in zip(cases, inputs)]
    return program


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("source", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("tier", sorted(TIERS))
def test_casts_agree_on_edge_values(tier, source):
    targets = [t for s, t in REGISTRY.casts if s is source]
    cases = [_Cast(t) for t in targets]
    x = edge_values(source)
    inputs = [[x, x[:0]] for _ in cases]
    want = rt.function(_apply_casts(cases), autograph=False)(inputs)
    want_flushed = rt.function(_apply_casts(cases), autograph=False)(
        [[flushed(x), x[:0]] for _ in cases])
    results, refused, failed = run_on_tiers(_apply_casts, cases, inputs, TIERS[tier])
    REFUSED[tier].update(refused)
    problems = [f"{c.key}: {msg}" for c, msg in failed.items()]
    for case, got, ref, ref_flushed in zip(cases, results, want, want_flushed):
        if got is None:
            continue
        for form, (g, w, wf) in enumerate(zip(got, ref, ref_flushed)):
            problem = disagreement(f"{source.name}->{case.key}{' (empty)' if form else ''}",
                                   g, w, exact=True, flushed_want=wf if tier == "xla" else None)
            if problem:
                problems.append(problem)
    MISMATCHES[tier] += problems
    assert not problems, "\n".join(problems)



# -- reductions ---------------------------------------------------------------------------------

def reduction_rows(dtype) -> np.ndarray:
    """Rows of three whose sum and product are the same in any order (the tiers sum in
    different orders): NaN, infinities, signed zeros, subnormals, overflow."""
    np_type = dtype.as_numpy_dtype
    if dtype is rt.bool:
        return np.array([[False, False, False], [True, False, True], [True, True, True]])
    if dtype.is_integer:  # wrapping is modular: any order gives the same
        info = np.iinfo(np_type)
        return np.array([[info.max, 1, 0], [info.min, -1, 2], [info.max, info.max, 3],
                         [0, -7, 100]], np_type)
    info = np.finfo(np_type)
    sub, big = info.smallest_subnormal, info.max
    return np.array([[np.nan, 1, 2], [np.inf, -np.inf, 1], [np.inf, 1, 2], [-np.inf, -0.0, 3],
                     [-0.0, -0.0, -0.0], [-0.0, 0.0, -0.0], [0.0, -0.0, 0.0], [sub, 2 * sub, sub],
                     [sub, 3, 1], [big, big, 1], [big, 2, 3], [0.5, -2.5, 7.25], [np.inf, 0, 1],
                     [-0.0, 1, -1], [np.nan, 0, np.inf]], np_type)


REDUCTION_FORMS = ((None, False), (1, False), (0, True), ((0, 1), False))  # axis, keepdims
EMPTY_SHAPES = ((2, 0), (0, 3))


class _Reduction:
    def __init__(self, op, axis, keepdims):
        self.op, self.axis, self.keepdims = op, axis, keepdims
        self.key = f"{op.name}[axis={axis}, keepdims={keepdims}]"


def _apply_reductions(cases):
    def program(inputs):
        return [[apply(c.op, [x], {"axis": c.axis, "keepdims": c.keepdims}) for x in forms]
                for c, forms in zip(cases, inputs)]
    return program


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("tier", sorted(TIERS))
def test_reductions_agree_on_edge_values_and_empty_axes(tier, dtype):
    ops = [r.op for r in REGISTRY.reductions if r.dtype is dtype]
    if not ops:
        pytest.skip(f"no reduction accepts {dtype.name}")
    cases = [_Reduction(op, None if axis is None else
                        (axis if isinstance(axis, tuple) else (axis,)), keep)
             for op in ops for axis, keep in REDUCTION_FORMS]
    x = reduction_rows(dtype)
    inputs = [[x] + [np.zeros(s, x.dtype) for s in EMPTY_SHAPES] for _ in cases]
    plain = rt.function(_apply_reductions(cases), autograph=False)
    want = plain(inputs)
    want_flushed = plain([[flushed(x)] + forms[1:] for forms in inputs])
    results, refused, failed = run_on_tiers(_apply_reductions, cases, inputs, TIERS[tier])
    REFUSED[tier].update(refused)
    problems = [f"{c.key}: {msg}" for c, msg in failed.items()]
    for case, got, ref, ref_flushed in zip(cases, results, want, want_flushed):
        if got is None:
            continue
        # docs/tiers.md: reduce_max / reduce_min of 0.0 and -0.0 may give either zero
        any_zero = case.op.reduction in (np.maximum, np.minimum)
        for form, (g, w, wf) in enumerate(zip(got, ref, ref_flushed)):
            shape = x.shape if form == 0 else EMPTY_SHAPES[form - 1]
            problem = disagreement(f"{case.key} of {shape}", g, w, exact=True,
                                   any_zero=any_zero,
                                   flushed_want=flushed(wf) if tier == "xla" else None)
            if problem:
                problems.append(problem)
    MISMATCHES[tier] += problems
    assert not problems, "\n".join(problems)


# -- ops reading indices: out of range, negative, and in range ----------------------------------

_P = np.array([1.0, -0.0, np.nan], np.float32)
_M = np.arange(6, dtype=np.float32).reshape(2, 3)
_I = np.int32


def _read_list(x, i):
    ta = rt.TensorArray(rt.float32, size=3)
    for k in range(3):
        ta = ta.write(k, x * float(k))
    return ta.read(i), ta.gather(rt.stack([i, 0]))


def _dynamic_list(x, i):
    ta = rt.TensorArray(rt.float32, size=0, dynamic_size=True)
    for k in range(3):
        ta = ta.write(k, x * float(k))
    return ta.read(i), ta.stack(), ta.size()


def _segments(d, s):
    return (rt.math.segment_sum(d, s), rt.math.segment_max(d, s), rt.math.segment_min(d, s),
            rt.math.segment_mean(d, s), rt.math.segment_prod(d, s))


# name -> (program, [argument tuples]): each tuple runs on every tier
INDEX_CASES = {
    "gather": (lambda p, i: rt.gather(p, i),
               [(_P, np.array(v, _I)) for v in ([2, 0], [3], [-1], [0, 7], [])]),
    "gather_axis_1": (lambda p, i: rt.gather(p, i, axis=1),
                      [(_M, np.array(v, _I)) for v in ([[0, 2]], [[0, 3]], [[-1, 0]])]),
    "gather_batch_dims": (lambda p, i: rt.gather(p, i, batch_dims=1),
                          [(_M, np.array(v, _I)) for v in ([[0], [2]], [[0], [3]], [[-1], [0]])]),
    "gather_nd": (lambda p, i: rt.gather_nd(p, i),
                  [(_M, np.array(v, _I)) for v in ([[1, 2]], [[1, 3]], [[-1, 0]], [[2, 0]])]),
    "gather_nd_batch_dims": (lambda p, i: rt.gather_nd(p, i, batch_dims=1),
                             [(_M, np.array(v, _I)) for v in ([[2], [0]], [[3], [0]], [[0], [-1]])]),
    "scatter_nd": (lambda i: rt.scatter_nd(i, rt.constant([1.0, -0.0]), [3]),
                   [(np.array(v, _I),) for v in ([[0], [2]], [[0], [3]], [[-1], [0]])]),
    "tensor_scatter_nd_update": (lambda p, i: rt.tensor_scatter_nd_update(p, i, [np.nan]),
                                 [(_P, np.array(v, _I)) for v in ([[1]], [[3]], [[-1]])]),
    "tensor_scatter_nd_add": (lambda p, i: rt.tensor_scatter_nd_add(p, i, [-0.0]),
                              [(_P, np.array(v, _I)) for v in ([[1]], [[3]], [[-1]])]),
    "tensor_scatter_nd_sub": (lambda p, i: rt.tensor_scatter_nd_sub(p, i, [np.inf]),
                              [(_P, np.array(v, _I)) for v in ([[0]], [[7]], [[-4]])]),
    "tensor_scatter_nd_max": (lambda p, i: rt.tensor_scatter_nd_max(p, i, [0.0]),
                              [(_P, np.array(v, _I)) for v in ([[1]], [[3]], [[-1]])]),
    "tensor_scatter_nd_min": (lambda p, i: rt.tensor_scatter_nd_min(p, i, [-0.0]),
                              [(_P, np.array(v, _I)) for v in ([[1]], [[3]], [[-1]])]),
    "unsorted_segments": (
        lambda d, s: (rt.math.unsorted_segment_sum(d, s, 2), rt.math.unsorted_segment_max(d, s, 2),
                      rt.math.unsorted_segment_min(d, s, 2), rt.math.unsorted_segment_prod(d, s, 2)),
        [(_P, np.array(v, _I)) for v in ([0, 1, 1], [1, -1, 1], [0, 2, 1], [0, 0, 5])]),
    "segments": (_segments, [(_P, np.array(v, _I)) for v in ([0, 0, 1], [0, 1, 3], [-1, 0, 0])]),
    "index": (lambda x, i: (x[i], x[:, i], x[..., i]),
              [(_M, _I(v)) for v in (1, -1, 2, -3, 3, -4)]),
    "tensor_array_read": (_read_list, [(np.float32(2), _I(v)) for v in (2, 3, -1)]),
    "tensor_array_dynamic": (_dynamic_list, [(np.float32(2), _I(v)) for v in (1, 3, -1)]),
    "one_hot": (lambda i: rt.one_hot(i, 3),  # TensorFlow: a row of zeros, no error
                [(np.array(v, _I),) for v in ([0, 2], [3, -1])]),
    # TensorFlow 2.21: "Histogram values must not contain NaN"; infinities go to the ends
    "histogram": (lambda v: rt.histogram_fixed_width(v, [0.0, 2.0], nbins=2),
                  [(np.array(v, np.float32),) for v in ([1.0, np.inf, -np.inf], [np.nan, 1.0])]),
    "bincount": (lambda v: rt.math.bincount(v, minlength=2, maxlength=4),
                 [(np.array(v, _I),) for v in ([0, 1, 1, 3], [0, 5, 1], [])]),
}


def _outcome(fn, args):
    """(values, None) or (None, the exception)."""
    try:
        return [np.asarray(v) for v in rt.nest.flatten(fn(*args))], None
    except Exception as exc:  # noqa: BLE001
        return None, exc


@pytest.mark.parametrize("case", sorted(INDEX_CASES))
@pytest.mark.parametrize("tier", sorted(TIERS))
def test_indices_out_of_range_agree(tier, case):
    """The NumPy tier's values for indices in range, its error (the same class and text) for
    indices out of range, or a refusal naming an op of the program."""
    program, arguments = INDEX_CASES[case]
    plain = rt.function(program)
    compiled = rt.function(program, jit_compile=TIERS[tier])
    problems = []
    for args in arguments:
        want, error = _outcome(plain, args)
        got, got_error = _outcome(compiled, args)
        what = f"{case}{tuple(np.asarray(a).tolist() for a in args)}"
        if isinstance(got_error, JitCompileError):
            ops = graph_ops(plain.get_concrete_function(*args).graph, set())
            name = refused_op(got_error, ops)
            assert name is not None, f"{what}: a refusal that names no op: {got_error}"
            REFUSED[tier][name] = str(got_error)
            continue
        if error is not None:
            assert isinstance(error, rt.errors.InvalidArgumentError), (what, error)
            if not same_error(got_error, error, tier):
                problems.append(f"{what}: {got_error!r} (values {got}) where the NumPy tier "
                                f"raises {error!r}")
            continue
        if got_error is not None:
            problems.append(f"{what}: {got_error!r} where the NumPy tier gives {want}")
            continue
        for k, (g, w) in enumerate(zip(got, want)):
            problem = disagreement(f"{what} output {k}", g, w, exact=True)
            if problem:
                problems.append(problem)
    MISMATCHES[tier] += problems
    assert not problems, "\n".join(problems)


# -- other ops on edge values -----------------------------------------------------------------

_EDGE_ROWS = np.array([[np.nan, 1.0, -0.0, 2.5], [np.inf, -np.inf, 0.0, -1.0],
                       [-0.0, -0.0, 3.0, 5e-324], [3e38, -3e38, 7.0, -2.0]])


def _arrays(x):
    """Ops that move values: the values must come out bit for bit."""
    y = rt.reshape(x, [2, 8])
    parts = rt.split(x, 2, axis=1)
    return (y, rt.transpose(x), rt.concat([x, -x], 0), rt.stack([x, x], 2), rt.unstack(x)[2],
            parts[1], rt.tile(x, [1, 2]), rt.reverse(x, [1]), rt.roll(x, 3, axis=1),
            rt.expand_dims(x, 0), rt.squeeze(rt.expand_dims(x, 2), 2),
            rt.broadcast_to(x[0], [3, 4]), rt.zeros_like(x), rt.ones_like(x),
            rt.fill([2, 2], x[0, 0]), rt.shape(x), rt.size(x), rt.range(0, 5, 2),
            rt.where(x > 0.0, x, -x), rt.repeat(x, 2, axis=0), rt.zeros([2, 0]),
            rt.reverse_sequence(x, [2, 4, 0, 1], seq_axis=1), rt.identity(x[:, ::-2]),
            rt.sort(x, axis=1), rt.argsort(rt.where(rt.math.is_nan(x), 9.0, x), axis=1),
            rt.math.top_k(rt.where(rt.math.is_nan(x), -9.0, x), 2)[0],
            rt.searchsorted([-1.0, 0.0, 2.0], rt.reshape(x, [-1])),
            rt.math.real(rt.complex(x, -x)), rt.math.imag(rt.math.conj(rt.complex(x, x))),
            rt.bitcast(x, rt.int32), rt.bitcast(x, rt.uint8))


def _numeric(x):
    """Ops that compute: within MAX_ULP of the NumPy tier, NaN where it is NaN."""
    finite = rt.where(rt.math.is_finite(x), x, 0.5)
    return (rt.nn.softmax(x), rt.nn.log_softmax(x), rt.cumsum(x, axis=1),
            rt.math.cumprod(x, axis=1), rt.reduce_mean(x, axis=1), rt.argmax(x, axis=0),
            rt.argmin(x, axis=1), rt.matmul(finite, finite, transpose_b=True),
            rt.einsum("ij,kj->ik", finite, finite), rt.tensordot(finite, finite, [[1], [1]]),
            rt.math.angle(rt.complex(x, -x)), rt.math.reduce_logsumexp(x, axis=1),
            rt.nn.softmax_cross_entropy_with_logits(rt.nn.softmax(finite), x),
            rt.math.polygamma(rt.constant(1.0, x.dtype), x), rt.math.real(rt.signal.fft(
                rt.complex(finite, finite))), rt.signal.irfft(rt.signal.rfft(finite)),
            rt.math.imag(rt.signal.ifft(rt.complex(finite, x))),
            rt.histogram_fixed_width(rt.where(rt.math.is_nan(x), 0.5, x), [-1.0, 8.0], nbins=4),
            rt.math.betainc(rt.abs(finite) + 0.5, rt.abs(finite) + 1.0, rt.sigmoid(finite)))


def _value_shaped(x):
    """Ops whose result's shape depends on the values (the XLA tier refuses them by name)."""
    return (rt.boolean_mask(x, x > 0.0), rt.unique(rt.reshape(x, [-1]))[0],
            rt.where(x > 0.0), *rt.unique_with_counts(rt.reshape(x, [-1])),
            *rt.image.non_max_suppression_with_scores(x, x[:, 1], 3, 0.5, soft_nms_sigma=0.5),
            rt.image.non_max_suppression_overlaps(rt.abs(x), x[:, 3], 3),
            *rt.image.combined_non_max_suppression(rt.reshape(rt.cast(x, rt.float32), [1, 4, 1, 4]),
                                                   rt.reshape(rt.cast(x, rt.float32), [1, 4, 4]),
                                                   2, 3))


def _dynamic(x):
    """Shapes, axes and counts known only when run (the rows' count is unknown when traced)."""
    return (*programs.dynamic(x), *programs.axes_from_shapes(x, known_ranks=True))


# name -> (program, argument, exact, either zero from max/min, rt.function's options)
EDGE_PROGRAMS = {
    "arrays": (_arrays, _EDGE_ROWS.astype(np.float32), True, False, {}),
    "numeric": (_numeric, _EDGE_ROWS, False, False, {}),
    "value_shaped": (_value_shaped, _EDGE_ROWS, True, False, {}),
    "dynamic": (_dynamic, _EDGE_ROWS.astype(np.float32), False, True,
                {"input_signature": [rt.TensorSpec([None, 4], rt.float32)]}),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", sorted(EDGE_PROGRAMS))
@pytest.mark.parametrize("tier", sorted(TIERS))
def test_other_ops_agree_on_edge_values(tier, case):
    program, x, exact, any_zero, options = EDGE_PROGRAMS[case]
    plain = rt.function(program, **options)
    want, plain_error = _outcome(plain, (x,))
    assert plain_error is None, plain_error
    got, error = _outcome(rt.function(program, jit_compile=TIERS[tier], **options), (x,))
    if isinstance(error, JitCompileError):
        name = refused_op(error, graph_ops(plain.get_concrete_function(x).graph, set()))
        assert name is not None, f"a refusal that names no op: {error}"
        REFUSED[tier][name] = str(error)
        return
    assert error is None, error
    problems = []
    for k, (g, w) in enumerate(zip(got, want)):
        problem = disagreement(f"{case} output {k}", g, w, exact=exact, any_zero=any_zero,
                               flushed_want=flushed(w) if tier == "xla" else None)
        if problem:
            problems.append(problem)
    MISMATCHES[tier] += problems
    assert not problems, "\n".join(problems)


# -- the registry is covered --------------------------------------------------------------------

def reason_by_trait(op) -> str | None:
    """Why an op has no generated case, read off its OpDef's traits."""
    if op.strings:
        return "string tensors: both compiler tiers refuse them naming the op " \
               "(tests/jit/test_every_op.py, tests/xla/test_xla_ops.py)"
    if op.random:
        return "draws random numbers: the tiers draw from the same generators " \
               "(tests/jit/test_every_op.py::test_random_ops_draw_from_the_same_generators)"
    if op.variable:
        return "reads or writes a variable (tests/reliability/test_variables.py)"
    if op.region:
        return "runs subgraphs whose ops have their own cases (tests/differential)"
    if op.carrier is not None:
        return "carries a list; reads past its end are the tensor_array index cases"
    if op.effects:
        return "prints, asserts, calls Python or reads a dataset: no value to compare " \
               "(tests/jit/test_every_op.py, tests/xla/test_assertions.py)"
    if op.is_constant or op.is_placeholder:
        return "a graph's constant or input"
    return None


# ops with no generated case and no trait that explains it: why
_GRADIENT = "made by gradients (ordinary values: the gradient groups of tests/jit/test_every_op.py)"
_DYNAMIC = "shapes, axes or counts known when run (ordinary values: the dynamic groups)"
_ORDER = "sums in another order on each tier (ordinary values within tolerance: test_every_op.py)"
_STATELESS = "draws from a seed argument (the stateless_random group of test_every_op.py)"
_STACKS = "made by a loop's differentiable-again gradient (every tier against the eager " \
          "values: tests/gradients/test_loop_gradient_orders.py)"
_CONV3D = "3-D convolution or pool (or its gradient): no lowering on either compiler tier (the " \
          "Numba tier runs its NumPy kernel, the XLA tier refuses it); values and gradients " \
          "against TensorFlow and NumPy loops in tests/runtime/test_conv3d.py"
_KERNEL_ONLY = "one NumPy kernel with no compiler lowering (the Numba tier runs it, the XLA tier " \
               "refuses it by its OpDef); values and gradients against TensorFlow 2.21 in "
_SEEDED = "draws from a seed argument with this runtime's samplers (same seed, same values on " \
          "every tier): statistics and seeds in "
NOT_GENERATED = {
    "CTCLossDense": _KERNEL_ONLY + "tests/runtime/test_ctc.py",
    "CTCGreedyDecoderDense": _KERNEL_ONLY + "tests/runtime/test_ctc.py",
    "CTCBeamSearchDecoderDense": _KERNEL_ONLY + "tests/runtime/test_ctc.py",
    "CropAndResize": _KERNEL_ONLY + "tests/runtime/test_image_crops.py",
    "CropAndResizeGradBoxes": _KERNEL_ONLY + "tests/runtime/test_image_crops.py",
    "CropAndResizeGradImage": _KERNEL_ONLY + "tests/runtime/test_image_crops.py",
    "DrawBoundingBoxesV2": _KERNEL_ONLY + "tests/runtime/test_image_crops.py",
    "StatelessSampleDistortedBoundingBox": _SEEDED + "tests/runtime/test_image_crops.py",
    "StatelessParameterizedTruncatedNormal": _SEEDED + "tests/runtime/test_random_distributions.py",
    "StatelessRandomGammaV2": _SEEDED + "tests/runtime/test_random_distributions.py",
    "StatelessRandomPoisson": _SEEDED + "tests/runtime/test_random_distributions.py",
    # made by gradients: compared on ordinary values by the gradient groups of
    # tests/jit/test_every_op.py and tests/xla/test_xla_ops.py
    "AccumulatorGradFromRead": _GRADIENT, "AccumulatorPushGrad": _GRADIENT,
    "AccumulatorGradZeros": _GRADIENT,
    "AvgPoolGrad": _GRADIENT, "BatchGatherGrad": _GRADIENT, "BatchGatherNdGrad": _GRADIENT,
    "Conv2DBackpropFilter": _GRADIENT, "Conv2DBackpropInput": _GRADIENT,
    "CustomGradient": _GRADIENT, "MaskScatter": _GRADIENT, "MaxPoolGrad": _GRADIENT,
    "MaxPoolGradGrad": _GRADIENT, "ProdOthers": _GRADIENT,
    "RepeatGrad": _GRADIENT, "ScatterAddAxis": _GRADIENT, "ScatterAlongAxis": _GRADIENT,
    "ScatterNdAdd": _GRADIENT, "StridedSliceGrad": _GRADIENT,
    "TakeAlongAxis": _GRADIENT, "TensorArrayGradAdd": _GRADIENT,
    "TensorArrayGradFromConcat": _GRADIENT, "TensorArrayGradFromGather": _GRADIENT,
    "TensorArrayGradFromRead": _GRADIENT, "TensorArrayGradFromStack": _GRADIENT,
    "TensorArrayGradGet": _GRADIENT, "TensorArrayGradGetConcat": _GRADIENT,
    "TensorArrayGradGetGathered": _GRADIENT, "TensorArrayGradGetStacked": _GRADIENT,
    "TensorArrayScatterGrad": _GRADIENT, "TensorArrayWriteGrad": _GRADIENT,
    # shapes, counts and axes known only when run (folded to constants when traced with
    # known shapes, as here): the dynamic groups of the same tests
    "Zeros": _DYNAMIC,
    # LAPACK and convolutions: the tiers sum in other orders; within tolerance there
    "Cholesky": _ORDER, "LogMatrixDeterminant": _ORDER, "MatrixDeterminant": _ORDER,
    "MatrixExponential": _ORDER, "MatrixInverse": _ORDER, "MatrixSolve": _ORDER,
    "MatrixTriangularSolve": _ORDER, "Qr": _ORDER, "SelfAdjointEigV2": _ORDER, "Svd": _ORDER,
    "AvgPool": _ORDER, "Conv2D": _ORDER, "MaxPool": _ORDER,
    "StatelessMultinomial": _STATELESS, "StatelessRandomBinomial": _STATELESS,
    "StatelessRandomNormal": _STATELESS, "StatelessRandomUniform": _STATELESS,
    "StatelessRandomUniformFullInt": _STATELESS, "StatelessRandomUniformInt": _STATELESS,
    "StatelessTruncatedNormal": _STATELESS,
    "PartitionedCall": "a tape's record of an eager call of a compiled function",
    "StackPush": _STACKS, "StackPop": _STACKS,
    "Undefined": "stands for a value a branch leaves undefined; never computed",
    "Conv3D": _CONV3D, "Conv3DBackpropInputV2": _CONV3D, "Conv3DBackpropFilterV2": _CONV3D,
    "MaxPool3D": _CONV3D, "MaxPool3DGrad": _CONV3D, "MaxPool3DGradGrad": _CONV3D,
    "AvgPool3D": _CONV3D, "AvgPool3DGrad": _CONV3D,
}


def covered_ops() -> set[str]:
    """The op types the generated cases build (on the NumPy tier: tracing compiles nothing)."""
    found = {c.op.name for c in REGISTRY.elementwise} | {r.op.name for r in REGISTRY.reductions}
    found.add(builtin_ops()["Cast"].name)
    for program, arguments in INDEX_CASES.values():
        graph_ops(rt.function(program).get_concrete_function(*arguments[0]).graph, found)
    for program, x, _, _, options in EDGE_PROGRAMS.values():
        graph_ops(rt.function(program, **options).get_concrete_function(x).graph, found)
    return found


def test_every_builtin_op_has_a_case_or_a_reason():
    ops = builtin_ops()
    covered = covered_ops()
    missing = sorted(name for name, op in ops.items()
                     if name not in covered and reason_by_trait(op) is None
                     and name not in NOT_GENERATED)
    assert not missing, f"ops with no generated case and no reason in NOT_GENERATED: {missing}"
    stale = sorted(set(NOT_GENERATED) - set(ops))
    assert not stale, f"NOT_GENERATED lists ops the registry does not hold: {stale}"
    needless = sorted(set(NOT_GENERATED) & covered)
    assert not needless, f"NOT_GENERATED lists ops that have a case: {needless}"


# -- transcendental functions over their range on the XLA tier ----------------------------------

def _dense(dtype) -> np.ndarray:
    """Values across the range a transcendental function computes on (the edge values above
    are few): uniform steps to +-750, fine steps near 0 and a geometric sweep of small ones."""
    return np.concatenate([np.linspace(-750, 750, 6001), np.linspace(-3, 3, 1201),
                           np.geomspace(1e-30, 1, 200), -np.geomspace(1e-30, 1, 200)]
                          ).astype(dtype)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xla_transcendental_functions_within_8_ulp_across_their_range(dtype):
    """exp2, sinh and cosh were up to hundreds of ulp off (JAX's forms), arcsin of the
    smallest normal numbers 0, arctan2 of subnormals NaN; compared with the NumPy tier (NumPy's
    own functions), subnormal results flushed as the tier does. (Digamma is not here: near its
    roots float64 cannot give 8 ulp without the long double the NumPy tier sums in.)"""
    ops = builtin_ops()
    names = ["Exp2", "Sinh", "Cosh", "Asin", "Atan2"]

    def program(x, y):
        return [apply(ops[n], [x, y] if n == "Atan2" else [x]) for n in names]
    x = _dense(dtype)
    y = np.roll(x, 17)
    got = rt.function(program, jit_compile="xla", autograph=False)(x, y)
    want = rt.function(program, autograph=False)(x, y)
    problems = []
    for name, g, w in zip(names, got, want):
        w = np.asarray(w)
        problem = disagreement(name, g, w, exact=False, flushed_want=flushed(w),
                               inputs=(x, y))
        if problem:
            problems.append(problem)
    assert not problems, "\n".join(problems)
