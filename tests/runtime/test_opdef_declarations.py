"""What an op computes is declared once on its OpDef; everything derived from it agrees.

For every op that declares a ufunc, NumPy is the oracle: the eager kernel, the NumPy-tier
template, the compiled function and the `out=` form (buffer reuse) must give the ufunc's
values on random inputs, and the scalar form (fused Numba loops) its value on one element.
And facts about ops are asked of the OpDef, not by comparing type names outside the op
definitions.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import runtime as rt
from runtime.opdef import REGISTRY, OpDef, builtin_ops
from runtime.ops.core import apply

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILTIN = builtin_ops()  # every op family loaded, whatever the tests before imported
UFUNC_OPS = sorted((op for op in BUILTIN.values() if op.ufunc is not None), key=lambda o: o.name)
OUT_OPS = sorted((op for op in BUILTIN.values() if op.out_template is not None),
                 key=lambda o: o.name)


def _inputs(op: OpDef, nin: int, seed: int) -> list[np.ndarray]:
    """Random operands of the first dtype the op accepts (floats away from 0, for log and /)."""
    rng = np.random.default_rng(seed)
    for dtype in (np.float64, np.float32, np.int64, np.bool_):
        if dtype is np.bool_:
            xs = [rng.random((3, 4)) < 0.5 for _ in range(nin)]
        elif np.issubdtype(dtype, np.integer):
            xs = [rng.integers(1, 5, (3, 4)).astype(dtype) for _ in range(nin)]
        else:
            xs = [rng.uniform(0.5, 2.0, (3, 4)).astype(dtype) for _ in range(nin)]
        try:
            op.infer(*[rt.constant(x) for x in xs])
        except TypeError:
            continue
        return xs
    raise AssertionError(f"{op.name} accepts none of the test dtypes")


def _eval(template: str, xs, **extra):
    names = [f"x{i}" for i in range(len(xs))]
    source = template.format(*names, **{k: k for k in extra})
    namespace = {"np": np}
    if "_h." in source:  # a Numba helper (helpers.power): its Python form, as kernels name it
        from runtime.backends.numba import helpers
        namespace["_h"] = helpers
    return eval(source, namespace, dict(zip(names, xs), **extra))


def test_the_registry_declares_ufuncs():
    assert {"Add", "Sub", "Mul", "RealDiv", "Exp", "Equal", "LogicalAnd"} <= {op.name for op in UFUNC_OPS}


@pytest.mark.parametrize("op", UFUNC_OPS, ids=lambda op: op.name)
def test_kernel_template_and_compiled_function_agree_with_the_ufunc(op):
    xs = _inputs(op, op.ufunc.nin, seed=len(op.name))
    with np.errstate(all="ignore"):
        expected = op.ufunc(*xs)
        np.testing.assert_array_equal(op.kernel(*xs), expected)
        if op.emit is None:
            rendered = _eval(op.template, xs)
            np.testing.assert_allclose(rendered, expected, rtol=1e-12)
            assert np.asarray(rendered).dtype == expected.dtype

        @rt.function(autograph=False)
        def f(*args):
            return apply(op, list(args))

        compiled = f(*[rt.constant(x) for x in xs]).numpy()
    np.testing.assert_allclose(compiled, expected, rtol=1e-6)
    assert compiled.dtype == expected.dtype


@pytest.mark.parametrize("op", OUT_OPS, ids=lambda op: op.name)
def test_the_out_form_agrees_with_the_kernel(op):
    nin = op.ufunc.nin if op.ufunc is not None else op.out_template.count("{") - 1
    xs = _inputs(op, nin, seed=7)
    with np.errstate(all="ignore"):
        expected = np.asarray(op.kernel(*xs))
        out = np.empty_like(expected)
        _eval(op.out_template, xs, out=out)
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    if op.ufunc is not None:  # the ufunc itself, under the name people write
        assert eval(op.out_template.split("(")[0], {"np": np}) is op.ufunc


@pytest.mark.parametrize("op", UFUNC_OPS, ids=lambda op: op.name)
def test_the_scalar_form_agrees_with_the_ufunc(op):
    xs = [x.flat[0] for x in _inputs(op, op.ufunc.nin, seed=3)]
    one, zero = xs[0].dtype.type(1), xs[0].dtype.type(0)
    with np.errstate(all="ignore"):
        assert _eval(op.scalar, xs, one=one, zero=zero) == op.ufunc(*xs)


def test_the_numba_forms_are_read_off_the_opdef():
    from runtime.backends.numba.rules import elementwise, writer

    assert all(elementwise(op).scalar == op.scalar and writer(op).scalar is not None
               for op in UFUNC_OPS)
    assert all((elementwise(op) is None) == (not op.is_elementwise) for op in REGISTRY.values())
    assert elementwise(REGISTRY["Add"]).scalar == REGISTRY["Add"].scalar == "{0} + {1}"
    assert elementwise(REGISTRY["Equal"]).boolean and not elementwise(REGISTRY["Add"]).boolean
    assert elementwise(REGISTRY["LogicalNot"]).array == "~{0}"


def test_effects_are_declared():
    assert REGISTRY["RandomUniform"].effects & rt.opdef.Effect.RANDOM
    assert REGISTRY["PrintV2"].stateful and not REGISTRY["Add"].stateful
    assert REGISTRY["Const"].is_constant and REGISTRY["While"].is_loop


# -- no type-name checks outside the op definitions ---------------------------------------------

_OWNERS = ("runtime/ops/", "runtime/opdef.py", "runtime/backends/numba/")


def _type_name_checks(source: str) -> list[int]:
    """The lines of `x.type == "Const"`, `x.type in ("A", "B")` and the like in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)
                and node.left.attr == "type"):
            continue
        for cmp, right in zip(node.ops, node.comparators):
            names = right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]
            if isinstance(cmp, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) and any(
                    isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names):
                found.append(node.lineno)
    return found


def test_no_op_type_name_checks_outside_the_op_definitions():
    found = []
    for path in sorted((ROOT / "runtime").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if not name.startswith(_OWNERS):
            found += [f"{name}:{line}" for line in _type_name_checks(path.read_text(encoding="utf-8"))]
    assert found == [], "ask the OpDef (op.opdef.is_constant, ...), not the type name"


def test_the_check_finds_type_name_checks():
    source = 'if op.type == "Const" or op.type in ("While", "If") or op.type is t:\n    pass\n'
    assert _type_name_checks(source) == [1, 1]
