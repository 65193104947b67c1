"""Shape mismatches in ops raise rt.errors.InvalidArgumentError (a ValueError, as in TF) naming
both shapes, eagerly and while tracing; NumPy refusing the same operands is the oracle."""

import numpy as np
import pytest

import runtime as rt

CASES = [
    ("matmul", lambda a, b: rt.matmul(a, b), np.matmul, (2, 3), (4, 5)),
    ("add", lambda a, b: a + b, np.add, (2, 3), (4, 5)),
    ("multiply", rt.multiply, np.multiply, (3,), (4,)),
    ("maximum", rt.maximum, np.maximum, (2, 3), (3, 2)),
    ("concat", lambda a, b: rt.concat([a, b], 0), lambda a, b: np.concatenate([a, b], 0),
     (2, 3), (2, 4)),
    ("stack", lambda a, b: rt.stack([a, b]), lambda a, b: np.stack([a, b]), (2,), (3,)),
    ("reshape", lambda a, b: rt.reshape(a, [5]), lambda a, b: np.reshape(a, [5]), (2, 3), (1,)),
]


@pytest.mark.parametrize("name, op, oracle, sa, sb", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("staged", [False, True], ids=["eager", "staged"])
def test_shape_mismatch_is_invalid_argument(name, op, oracle, sa, sb, staged):
    a = np.ones(sa, np.float32)
    b = np.ones(sb, np.float32)
    with pytest.raises(ValueError):
        oracle(a, b)  # NumPy refuses these operands too
    run = rt.function(op) if staged else (lambda x, y: op(rt.constant(x), rt.constant(y)))
    with pytest.raises(rt.errors.InvalidArgumentError) as info:
        run(a, b)
    assert isinstance(info.value, ValueError)
    assert str(tuple(sa)) in str(info.value)


def test_messages_name_both_shapes():
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\(2, 3\).*\(4, 5\)"):
        rt.matmul(rt.ones([2, 3]), rt.ones([4, 5]))
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\(2, 3\).*\(4, 5\)"):
        rt.ones([2, 3]) + rt.ones([4, 5])
