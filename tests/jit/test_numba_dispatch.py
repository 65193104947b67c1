"""The Numba tier finds how to write an op through its OpDef, never through its type name: a
writer registered on a new op's definition (or derived from its scalar form) is what the tier
compiles, an op with only a NumPy kernel runs it in object mode, an op with neither is
refused by name, and the tier's modules compare no type names."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import runtime as rt
from runtime.backends.base import JitCompileError
from runtime.backends.numba import rules
from runtime.opdef import builtin_ops, define
from runtime.ops.core import apply, convert_to_tensor

# -- ops a program adds after the tier's rules are loaded --------------------------------------
HYPOT = define("NumbaTestHypot", lambda x, y: (x.shape, x.dtype), ufunc=np.hypot)
TRIPLE = define("NumbaTestTriple", lambda x: (x.shape, x.dtype), lambda x: np.multiply(x, 3.0),
                template="np.multiply({0}, 3.0)")
NO_KERNEL = define("NumbaTestNoKernel", lambda x: (x.shape, x.dtype), template="{0}")

X = np.array([-27.0, -1.5, -0.0, 0.0, 1e-300, 8.0, np.inf, np.nan], np.float64)
Y = np.array([4.0, 2.0, -0.0, 3.0, 1e-300, -6.0, 1.0, 0.0], np.float64)


def _apply(opdef, *xs):
    return apply(opdef, [convert_to_tensor(x) for x in xs])


def _source(f, *args) -> str:
    return f.get_concrete_function(*args).generated_source


def test_a_new_elementwise_op_is_fused_from_its_scalar_form():
    f = rt.function(lambda x, y: _apply(HYPOT, x * 2.0, y) - 1.0, jit_compile=True)
    np.testing.assert_array_equal(f(X, Y).numpy(), np.hypot(X * 2.0, Y) - 1.0)
    source = _source(f, X, Y)
    assert "np.hypot(" in source and "for i0_ in range(8)" in source  # one fused loop
    assert "objmode" not in source
    assert rules.writer(HYPOT) is not None and "numba" not in HYPOT.lowerings


@pytest.mark.parametrize("register", [rules.lowers(TRIPLE), TRIPLE.def_lowering("numba")],
                         ids=["rules.lowers", "def_lowering"])
def test_an_op_with_a_kernel_only_runs_it_until_a_writer_is_registered_on_its_opdef(register):
    def fn(x):
        return _apply(TRIPLE, x) + 1.0

    through_numpy = rt.function(fn, jit_compile=True)
    np.testing.assert_array_equal(through_numpy(X).numpy(), X * 3.0 + 1.0)
    assert "objmode" in _source(through_numpy, X) and rules.writer(TRIPLE) is None

    @register
    def _triple(w, op):
        w.assign(op, f"{w.ins(op)[0]} * np.float64(3.0)")

    try:
        native = rt.function(fn, jit_compile=True)
        np.testing.assert_array_equal(native(X).numpy(), X * 3.0 + 1.0)
        source = _source(native, X)
        assert "* np.float64(3.0)" in source and "objmode" not in source
        assert rules.writer(TRIPLE).write is _triple
    finally:
        del TRIPLE.lowerings["numba"]


def test_an_op_without_a_kernel_or_a_writer_is_refused_naming_it():
    f = rt.function(lambda x: _apply(NO_KERNEL, x) * 2.0, jit_compile=True)
    with pytest.raises(JitCompileError, match=r"NumbaTestNoKernel.*is not supported"):
        f(X)
    np.testing.assert_array_equal(rt.function(lambda x: _apply(NO_KERNEL, x) * 2.0)(X).numpy(),
                                  X * 2.0)  # the NumPy tier writes its template


def test_every_op_with_a_region_carrier_or_variable_trait_has_a_writer_on_its_opdef():
    traited = [op for op in builtin_ops().values()
               if op.region or op.carrier is not None or op.variable]
    assert {op.name for op in traited} >= {"If", "While", "TensorArrayV3", "AccumulatorPush",
                                            "ReadVariableOp"}
    missing = [op.name for op in traited if "numba" not in op.lowerings]
    assert missing == []


# -- no decision by type name in the tier's source ---------------------------------------------

_TIER = pathlib.Path(rules.__file__).parent


def _type_name_checks(tree) -> list[int]:
    """Lines comparing an op's `.type` (or a `kind` read from it) with anything."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr in ("type", "op_type")
                   for s in sides):
                found.append(node.lineno)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in ("startswith", "endswith")
              and isinstance(node.func.value, ast.Attribute)
              and node.func.value.attr in ("type", "op_type")):
            found.append(node.lineno)
    return found


@pytest.mark.parametrize("path", sorted(_TIER.glob("*.py")), ids=lambda p: p.name)
def test_the_tier_compares_no_type_names(path):
    assert _type_name_checks(ast.parse(path.read_text(encoding="utf-8"))) == []


def test_the_check_finds_a_type_name_comparison():
    tree = ast.parse('if op.type == "Add" or op.type.startswith("TensorArray"):\n    pass\n')
    assert _type_name_checks(tree) == [1, 1]
