"""The XLA tier finds an op's lowering through its OpDef, never through its type name: a rule
registered on a new op's definition (or derived from its ufunc) is what the tier compiles, an
op without one is refused by name, and the tier's modules compare no type names."""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

pytest.importorskip("jax")

import jax.numpy as jnp  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.base import JitCompileError  # noqa: E402
from runtime.backends.xla import lowering as xla_lowering  # noqa: E402
from runtime.opdef import define  # noqa: E402
from runtime.ops.core import apply, convert_to_tensor  # noqa: E402

# -- two ops a program adds: one elementwise (a ufunc), one with a kernel only -----------------
HYPOT = define("XlaTestHypot", lambda x, y: (x.shape, x.dtype), ufunc=np.hypot)
CUBE_ROOT = define("XlaTestCubeRoot", lambda x: (x.shape, x.dtype), lambda x: np.cbrt(x),
                   template="np.cbrt({0})")

X = np.array([-27.0, -1.5, -0.0, 0.0, 1e-300, 8.0, np.inf, np.nan], np.float64)
Y = np.array([4.0, 2.0, -0.0, 3.0, 1e-300, -6.0, 1.0, 0.0], np.float64)


def hypot(x, y):
    return apply(HYPOT, [convert_to_tensor(x), convert_to_tensor(y)])


def cube_root(x):
    return apply(CUBE_ROOT, [convert_to_tensor(x)])


def test_a_new_elementwise_op_gets_its_rule_from_its_ufunc():
    f = rt.function(lambda x, y: hypot(x, y) * 2.0, jit_compile="xla")
    np.testing.assert_allclose(f(X, Y).numpy(), np.hypot(X, Y) * 2.0, rtol=1e-15)
    # derived once, then kept on the OpDef as the tier's rule
    assert HYPOT.lowerings["xla"] is xla_lowering.lowering(HYPOT)


def test_an_op_without_a_rule_is_refused_until_one_is_registered_on_its_opdef():
    refused = rt.function(lambda x: cube_root(x) + 1.0, jit_compile="xla")
    with pytest.raises(JitCompileError, match=r"XlaTestCubeRoot.*no lowering"):
        refused(X)
    assert xla_lowering.lowering(CUBE_ROOT) is None

    @CUBE_ROOT.def_lowering("xla")
    def _cube_root(op, x):
        return jnp.cbrt(x)

    try:
        compiled = rt.function(lambda x: cube_root(x) + 1.0, jit_compile="xla")
        np.testing.assert_allclose(compiled(X).numpy(), np.cbrt(X) + 1.0, rtol=1e-15,
                                   atol=1e-15)
        assert xla_lowering.lowering(CUBE_ROOT) is _cube_root
    finally:
        del CUBE_ROOT.lowerings["xla"]


def test_rules_are_registered_on_the_opdefs_they_lower():
    for name in ("RealDiv", "GatherV2", "Sin", "SegmentSum", "TensorScatterAdd",
                 "ArgMaxDynamic", "RaiseUnless", "RandomUniform", "Dropout"):
        opdef = rt.opdef.REGISTRY[name]
        assert xla_lowering.lowering(opdef) is opdef.lowerings["xla"], name


# -- no decision by type name in the tier's source ---------------------------------------------

_TIER = pathlib.Path(xla_lowering.__file__).parent


def _is_type_name(node) -> bool:
    return isinstance(node, ast.Attribute) and node.attr in ("type", "op_type")


def _name_decisions(source: str) -> list[int]:
    """Lines comparing an op's type with a string, indexing a table by it, slicing it or
    asking its prefix/suffix, and module-level sets of strings (op-name tables)."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_is_type_name(n) for n in
                                                 [node.left, *node.comparators]):
            found.append(node.lineno)
        elif isinstance(node, ast.Subscript) and (_is_type_name(node.value)
                                                  or _is_type_name(node.slice)):
            found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith") \
                and _is_type_name(node.func.value):
            found.append(node.lineno)
    for node in tree.body:
        value = getattr(node, "value", None)
        if isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("frozenset", "set") \
                and value.args:
            value = value.args[0]
        keys = value.keys if isinstance(value, ast.Dict) else \
            value.elts if isinstance(value, ast.Set) else []
        if keys and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                        and k.value[:1].isupper() for k in keys):
            found.append(node.lineno)
    return sorted(found)


@pytest.mark.parametrize("module", sorted(p.name for p in _TIER.glob("*.py")))
def test_the_tier_decides_by_opdef_not_by_type_name(module):
    assert _name_decisions((_TIER / module).read_text()) == []


def test_the_name_check_finds_name_decisions():
    source = ('A = frozenset({"Add", "Sub"})\n'
              'def f(op):\n'
              '    if op.type == "Sin": pass\n'
              '    t = TABLE[op.type]\n'
              '    k = op.type[len("Segment"):]\n'
              '    return op.type.endswith("Dynamic")\n')
    assert _name_decisions(source) == [1, 3, 4, 5, 6]
