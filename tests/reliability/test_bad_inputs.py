"""The bad-input catalogue: every misuse raises the documented exception, and its message names
the argument or variable, and the user's file and line where the error comes from their code."""

import functools

import numpy as np
import pytest

import runtime as rt

HERE = "test_bad_inputs.py"
v_float = rt.Variable([1.0, 2.0], name="weights")
v_int = rt.Variable([1, 2], name="counts")


def compiled(fn, **kwargs):
    return rt.function(fn, **kwargs)


def prints(x):
    rt.print(x)
    return x + 1


def to_half(x):
    return rt.cast(x * 2.0, rt.float16)  # the Numba tier holds no float16 values


def relaxed_assign(x):
    v_float.assign(x)


def range_zero(d):
    return rt.range(0, 5, d)


def huge(n):
    return rt.zeros(rt.stack([n, n, n]))


def matmul_mismatch(a, b):
    return rt.matmul(a, b)


def recursive(n):
    if n <= 1:
        return rt.constant(1)
    return n * recursive_fn(n - 1)


recursive_fn = rt.function(recursive)


def generator(x):
    yield x


def one_branch(x):
    if x > 0:
        y = x
    return y  # noqa: F821


def use_numpy(x):
    return x.numpy()


_leaked = []


def leak(x):
    _leaked.append(x * 2)
    return x


def use_leaked():
    compiled(leak)(rt.constant(1.0))
    return rt.add(_leaked[-1], 1.0)


signature = [rt.TensorSpec([2], rt.float32)]

CATALOGUE = [
    # id, callable, exception, substrings the message must contain
    ("add-None", lambda: rt.constant([1.0]) + None, TypeError, ["None"]),
    ("mul-list-with-None", lambda: rt.constant([1.0, 2.0]) * [None, 1.0], TypeError, ["None"]),
    ("bool-plus-int", lambda: rt.constant([True, False]) + 1, TypeError, ["bool"]),
    ("bool-times-bool", lambda: rt.constant([True]) * rt.constant([True]), TypeError, ["bool"]),
    ("int-plus-float-tensor", lambda: rt.constant(1) + rt.constant(1.0), TypeError,
     ["int32", "float32"]),
    ("constant-2**70", lambda: rt.constant(2 ** 70), TypeError, ["out of range", "int64"]),
    ("constant-fraction-as-int", lambda: rt.constant(np.array([1.5]), dtype=rt.int32), TypeError,
     ["fractional"]),
    ("python-fraction-as-int", lambda: rt.constant(1.5, dtype=rt.int32), TypeError, ["fractional"]),
    ("range-delta-0", lambda: rt.range(0, 5, 0), rt.errors.InvalidArgumentError, ["delta"]),
    ("range-delta-0-compiled", lambda: compiled(range_zero)(rt.constant(0)),
     rt.errors.InvalidArgumentError, ["delta", HERE]),
    ("huge-allocation-compiled", lambda: compiled(huge)(rt.constant(100000)), MemoryError,
     ["Fill", HERE, "huge"]),
    ("reshape-size", lambda: rt.reshape(rt.ones([6]), [4, 2]), ValueError, ["(6,)", "[4, 2]"]),
    ("matmul-shapes", lambda: compiled(matmul_mismatch)(rt.ones([2, 3]), rt.ones([2, 3])),
     ValueError, ["MatMul", "(2, 3)", HERE]),
    ("assign-float-array-to-int", lambda: v_int.assign(np.array([1.5, 2.0])), TypeError,
     ["counts", "fractional"]),
    ("assign-wrong-shape", lambda: v_float.assign([1.0, 2.0, 3.0]), ValueError,
     ["weights", "(3,)", "(2,)"]),
    ("assign-wrong-dtype", lambda: v_float.assign(rt.constant([1, 2])), ValueError,
     ["weights", "int32", "float32"]),
    ("compiled-assign-relaxed-shape",
     lambda: compiled(relaxed_assign, input_signature=[rt.TensorSpec([None], rt.float32)])(
         rt.constant([1.0, 2.0, 3.0])),
     rt.errors.InvalidArgumentError, ["weights", "(3,)", "(2,)", HERE]),
    ("signature-shape", lambda: compiled(lambda x: x, input_signature=signature)(rt.ones([3])),
     ValueError, ["'x'", "(3,)"]),
    ("signature-dtype", lambda: compiled(lambda x: x, input_signature=signature)(
        rt.constant([1, 2])), ValueError, ["'x'", "int32"]),
    ("signature-None", lambda: compiled(lambda x: x, input_signature=signature)(None), TypeError,
     ["'x'", "None"]),
    ("too-many-arguments", lambda: compiled(lambda x: x)(1, 2), TypeError, ["too many"]),
    ("unhashable-argument", lambda: compiled(lambda x, s: x)(rt.constant(1.0), {1, 2}), TypeError,
     ["'s'", "unhashable", "set"]),
    ("unhashable-nested", lambda: compiled(lambda x, s: x)(rt.constant(1.0), [bytearray(b"a")]),
     TypeError, ["'s'", "bytearray"]),
    ("generator-function", lambda: compiled(generator)(rt.constant(1.0)), TypeError,
     ["generator"]),
    ("recursion-on-tensors", lambda: recursive_fn(rt.constant(3)), RecursionError, [HERE]),
    ("variable-in-one-branch", lambda: compiled(one_branch)(rt.constant(1.0)), Exception,
     ["'y'", HERE]),
    ("numpy-while-tracing", lambda: compiled(use_numpy)(rt.constant(1.0)), NotImplementedError,
     ["numpy()", HERE]),
    ("bool-of-symbolic", lambda: compiled(lambda x: bool(x), autograph=False)(rt.constant(1.0)),
     rt.errors.OperatorNotAllowedInGraphError, ["bool", "autograph"]),
    ("symbolic-tensor-outside", use_leaked, TypeError, ["outside the function"]),
    ("jit-compile-unsupported-op", lambda: compiled(to_half, jit_compile=True)(rt.constant(1.0)),
     NotImplementedError, ["Cast", "float16", "jit_compile=False", HERE]),
    ("partial-is-supported", lambda: compiled(functools.partial(lambda x, k: x * k, k=3))(
        rt.constant(2)), None, ["6"]),
    ("trace-cache-size-0", lambda: rt.config.set_trace_cache_size(0), ValueError, ["at least 1"]),
    ("assert-rank", lambda: rt.debugging.assert_rank(rt.ones([2]), 2), ValueError, ["rank 2"]),
]


@pytest.mark.parametrize("run,expected,names", [c[1:] for c in CATALOGUE],
                         ids=[c[0] for c in CATALOGUE])
def test_bad_input(run, expected, names):
    if expected is None:  # supported now: the value is right
        text = str(np.asarray(run()))
    else:
        with pytest.raises(expected) as info:
            run()
        text = str(info.value)
    for name in names:
        assert name in text, (name, text)


def test_the_catalogue_size():
    assert len(CATALOGUE) >= 30
