"""The attribute schema agrees with the op registry, and every kind refuses what it should."""

import numpy as np
import pytest

import runtime as rt
from runtime.opdef import builtin_ops
from runtime.saved_model import schema


def test_the_schema_of_every_op_is_its_registered_declaration():
    assert not hasattr(schema, "OP_ATTRS")  # no table of names beside the ops
    for name, opdef in builtin_ops().items():  # every family loaded
        if opdef.savable:
            assert schema.attr_kinds(name) is opdef.attrs, name


CTX = schema.AttrContext(2, rt.Variable, type(None))


@pytest.mark.parametrize("kind, good, bad", [
    (schema.BOOL, [True, False], [1, "True", None]),
    (schema.INT, [0, -3, 2 ** 30], [True, 1.0, 2 ** 40, "1"]),
    (schema.AXIS, [0, -1, 5], [99, None, (1,)]),
    (schema.DIMS, [(), (2, 3), (-1, 4)], [(2 ** 31, 2 ** 31), (-2,), [2, 3], (1.0,)]),
    (schema.PARTIAL_DIMS, [None, (None, 3)], [(-1,), "x"]),
    (schema.STR, ["a"], [b"a", "x" * 5000]),
    (schema.EQUATION, ["ij,jk->ik", "...i->..."], ["__import__('os')", "ij;k"]),
    (schema.DTYPE, [rt.float32], ["float32", np.float32]),
    (schema.NP_DTYPE, [np.dtype("float32")], [np.dtype("O"), "float32"]),
    (schema.ARRAY, [np.zeros(2), np.float32(1)], [np.array([{}], dtype=object), [1, 2]]),
    (schema.STREAM, [None, "stdout", "stderr"], ["/etc/passwd", 1]),
    (schema.PARTS, [(("t", 1), ("s", "hi"))], [(("t", 2),), (("x", "y"),), (("s", 1),)]),
    (schema.KEY, [(0, slice(None, 2, None), None, Ellipsis)],
     [(Ellipsis, Ellipsis), ("a",), (slice("a", None, None),)]),
])
def test_attribute_kinds(kind, good, bad):
    for value in good:
        assert kind.check(value, CTX) is None, value
    for value in bad:
        assert kind.check(value, CTX) is not None, value


def test_attr_errors_name_unknown_missing_and_wrong_attributes():
    problems = schema.attr_errors("MatMul", {"transpose_a": 1, "evil": 0}, CTX)
    assert problems == ["unknown attribute 'evil'", "missing attribute 'transpose_b'",
                        "attribute 'transpose_a' must be a bool, got 1"]
