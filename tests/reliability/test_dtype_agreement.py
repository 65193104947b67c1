"""Every elementwise op on every dtype it accepts: eager value, static dtype and compiled
value agree bit for bit (compiled code runs the same NumPy expressions as eager kernels)."""

import numpy as np
import pytest

import runtime as rt
from runtime import dtypes
from runtime.ops import array_math
from runtime.ops.core import apply

DTYPES = [dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16,
          dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.uint32,
          dtypes.uint64, dtypes.bool_, dtypes.complex64, dtypes.complex128]


def values(dtype, shift):
    if dtype.is_bool:
        return np.array([True, False, True, shift % 2 == 0])
    base = np.array([1, 2, 3, 7]) + shift
    if dtype.is_floating or dtype.is_complex:
        base = base / 4.0
    return base.astype(dtype.as_numpy_dtype)


def outcome(fn):
    try:
        with np.errstate(all="ignore"):
            return np.asarray(fn()), None
    except Exception as exc:  # noqa: BLE001 - the same failure eagerly and compiled is fine
        return None, type(exc)


class Spec:  # what infer needs: shape and dtype
    def __init__(self, shape, dtype):
        self.shape = rt.TensorShape(shape)
        self.dtype = dtype


def accepts(op, arity, dtype) -> bool:
    try:
        op.infer(*[Spec([2], dtype)] * arity)
    except TypeError:
        return False
    return True


def cases():
    """Every public elementwise op with every numeric (or bool) dtype its shape rule accepts."""
    for op in array_math.UNARY_ELEMENTWISE + array_math.BINARY_ELEMENTWISE:
        arity = 1 if op in array_math.UNARY_ELEMENTWISE else 2
        for dtype in DTYPES:
            if accepts(op, arity, dtype):
                yield pytest.param(op, arity, dtype, id=f"{op.name}-{dtype.name}")


def test_every_op_accepts_some_dtype():
    ops = array_math.UNARY_ELEMENTWISE + array_math.BINARY_ELEMENTWISE
    assert len(ops) >= 35
    covered = {case.values[0].name for case in cases()}
    assert covered == {op.name for op in ops}


@pytest.mark.parametrize("op,arity,dtype", list(cases()))
@pytest.mark.parametrize("rank", [0, 1])
def test_eager_static_and_compiled_agree(op, arity, dtype, rank):
    arrays = [values(dtype, i)[0] if rank == 0 else values(dtype, i) for i in range(arity)]
    arrays = [np.asarray(a, dtype=dtype.as_numpy_dtype) for a in arrays]
    static_dtype = op.infer(*[Spec(a.shape, dtype) for a in arrays])[1]
    eager, eager_error = outcome(lambda: apply(op, [rt.constant(a) for a in arrays]).numpy())
    compiled_fn = rt.function(lambda *xs: apply(op, list(xs)), autograph=False)
    compiled, compiled_error = outcome(
        lambda: compiled_fn(*[rt.constant(a) for a in arrays]).numpy())
    assert eager_error == compiled_error
    if eager_error is not None:
        return
    assert eager.dtype == static_dtype._np, (eager.dtype, static_dtype)
    assert compiled.dtype == static_dtype._np, (compiled.dtype, static_dtype)
    assert eager.shape == compiled.shape
    assert np.atleast_1d(eager).tobytes() == np.atleast_1d(compiled).tobytes()
