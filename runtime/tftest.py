"""`rt.test`: TensorFlow's `tf.test` over this runtime: `TestCase` (unittest's, with
TensorFlow's array assertions and `evaluate`), `main`, `compute_gradient` (the theoretical
and numerical Jacobians), `Benchmark`, and the build queries, answered for a CPU runtime
(no CUDA, no ROCm, no GPU; XLA when JAX, the XLA tier's compiler, is installed).

    class MyTest(rt.test.TestCase):
        def test_square(self):
            self.assertAllClose(rt.square([1.0, 2.0]), [1.0, 4.0])

    if __name__ == "__main__":
        rt.test.main()
"""

from __future__ import annotations

import contextlib
import importlib.util
import platform
import re
import sys
import tempfile
import time
import types
import unittest

import numpy as np

from . import nest
from .errors import OpError
from .gradients import GradientTape
from .ops.core import convert_to_tensor
from .tensor import Tensor


def _numpy(value):
    """A tensor, variable or nested structure of them as NumPy values (other values as given)."""
    def one(v):
        if isinstance(v, Tensor) or hasattr(v, "numpy") and callable(v.numpy):
            return v.numpy()
        return v
    return nest.map_structure(one, value)


def _array(value) -> np.ndarray:
    return np.asarray(_numpy(value))


class TestCase(unittest.TestCase):
    """unittest's TestCase with TensorFlow's assertions over tensors, arrays and nested
    structures of them (`assertAllClose(a, b, rtol=1e-6, atol=1e-6)`, `assertAllEqual`, ...)
    and `evaluate` (tensors as NumPy values)."""

    def evaluate(self, tensors):
        """The NumPy values of a tensor or a nested structure of tensors."""
        return _numpy(tensors)

    def get_temp_dir(self) -> str:
        """A temporary directory for this test case, removed when the process ends."""
        if not hasattr(self, "_tempdir"):
            self._tempdir_holder = tempfile.TemporaryDirectory()
            self._tempdir = self._tempdir_holder.name
        return self._tempdir

    def create_tempdir(self):
        return types.SimpleNamespace(full_path=tempfile.mkdtemp(dir=self.get_temp_dir()))

    def create_tempfile(self, file_path=None, content=None, mode="w"):
        path = tempfile.mkstemp(dir=self.get_temp_dir())[1] if file_path is None else \
            f"{self.get_temp_dir()}/{file_path}"
        if content is not None:
            with open(path, mode) as f:
                f.write(content)
        return types.SimpleNamespace(full_path=path)

    # -- closeness and equality -----------------------------------------------------------

    def _close(self, a, b, rtol, atol, msg, path=""):
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertIsInstance(a, dict, msg)
            self.assertIsInstance(b, dict, msg)
            self.assertEqual(set(a), set(b), f"{msg}: mismatched keys at {path or 'top'}")
            for key in a:
                self._close(a[key], b[key], rtol, atol, msg, f"{path}[{key!r}]")
            return
        a_list = isinstance(a, (list, tuple)) and not _is_array_like(a)
        b_list = isinstance(b, (list, tuple)) and not _is_array_like(b)
        if a_list or b_list:
            self.assertEqual(len(a), len(b), f"{msg}: lengths differ at {path or 'top'}")
            for i, (x, y) in enumerate(zip(a, b)):
                self._close(x, y, rtol, atol, msg, f"{path}[{i}]")
            return
        x, y = _array(a), _array(b)
        if x.shape != y.shape and x.size != 1 and y.size != 1:
            raise self.failureException(f"{msg} shapes differ at {path or 'top'}: {x.shape} "
                                        f"vs {y.shape}".strip())
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"{msg} {path}".strip(),
                                   equal_nan=True)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """a and b (tensors, arrays, numbers, or lists, tuples and dicts of them) are
        elementwise within atol + rtol * |b|, NaNs matching NaNs."""
        self._close(a, b, rtol, atol, msg or "")

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                                      bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None):
        """assertAllClose with the tolerances of the least precise dtype of a and b."""
        kinds = {_array(a).dtype, _array(b).dtype}
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        elif np.dtype(np.float32) in kinds or np.dtype(np.complex64) in kinds:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if any(k.name == "bfloat16" for k in kinds):
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise self.failureException(msg or "the two values are all close")

    def assertAllEqual(self, a, b, msg=None):
        """a and b have the same shape and equal elements."""
        x, y = _array(a), _array(b)
        if x.shape != y.shape and not (x.size == 1 == y.size):
            raise self.failureException(f"{msg or ''} shapes differ: {x.shape} vs {y.shape}")
        np.testing.assert_array_equal(x, y, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise self.failureException(msg or "the two values are all equal")

    def _all(self, a, test, what, msg):
        x = _array(a)
        if not np.all(test(x)):
            raise self.failureException(f"{msg or ''} not all elements are {what}: {x}".strip())

    def assertAllGreater(self, a, comparison_target):
        self._all(a, lambda x: x > comparison_target, f"> {comparison_target}", None)

    def assertAllGreaterEqual(self, a, comparison_target):
        self._all(a, lambda x: x >= comparison_target, f">= {comparison_target}", None)

    def assertAllLess(self, a, comparison_target):
        self._all(a, lambda x: x < comparison_target, f"< {comparison_target}", None)

    def assertAllLessEqual(self, a, comparison_target):
        self._all(a, lambda x: x <= comparison_target, f"<= {comparison_target}", None)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        def inside(x):
            low = x > lower_bound if open_lower_bound else x >= lower_bound
            high = x < upper_bound if open_upper_bound else x <= upper_bound
            return low & high
        self._all(target, inside, f"in the range {lower_bound}..{upper_bound}", None)

    def assertAllInSet(self, target, expected_set):
        allowed = set(np.asarray(list(expected_set)).tolist())
        values = set(_array(target).ravel().tolist())
        if not values <= allowed:
            raise self.failureException(f"elements {sorted(values - allowed)} are not in "
                                        f"{sorted(allowed)}")

    def assertNear(self, f1, f2, err, msg=None):
        if not abs(float(f1) - float(f2)) <= err:
            raise self.failureException(msg or f"{f1} != {f2} +/- {err}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(f1, f2, err, msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        if not np.allclose(_array(ndarray1), _array(ndarray2), rtol=0, atol=err):
            raise self.failureException(msg or f"arrays differ by more than {err}")

    def assertShapeEqual(self, input_a, input_b, msg=None):
        """A NumPy array's shape equals a tensor's."""
        self.assertEqual(tuple(np.shape(input_a)), tuple(input_b.shape.as_list()), msg)

    def assertDTypeEqual(self, target, expected_dtype):
        dtype = getattr(expected_dtype, "as_numpy_dtype", expected_dtype)
        self.assertEqual(_array(target).dtype, np.dtype(dtype))

    def assertDeviceEqual(self, device1, device2, msg=None):
        self.assertEqual(_canonical_device(device1), _canonical_device(device2), msg)

    # -- exceptions and strings -----------------------------------------------------------

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """The block raises `exception_type` whose message matches a regular expression (or
        which a predicate accepts)."""
        predicate = expected_err_re_or_predicate
        if not callable(predicate):
            pattern = predicate
            predicate = lambda e: re.search(pattern, str(e)) is not None  # noqa: E731
        try:
            yield
        except exception_type as e:
            if not predicate(e):
                raise self.failureException(f"{type(e).__name__}({e}) does not match "
                                            f"{expected_err_re_or_predicate!r}") from e
        else:
            raise self.failureException(f"{exception_type.__name__} not raised")

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        return self.assertRaisesWithPredicateMatch(OpError, expected_err_re_or_predicate)

    def assertStartsWith(self, actual, expected_start, msg=None):
        if not actual.startswith(expected_start):
            raise self.failureException(msg or f"{actual!r} does not start with "
                                        f"{expected_start!r}")

    def assertEndsWith(self, actual, expected_end, msg=None):
        if not actual.endswith(expected_end):
            raise self.failureException(msg or f"{actual!r} does not end with {expected_end!r}")

    def assertLen(self, container, expected_len, msg=None):
        self.assertEqual(len(container), expected_len, msg)

    def assertEmpty(self, container, msg=None):
        self.assertLen(container, 0, msg)

    def assertNotEmpty(self, container, msg=None):
        self.assertNotEqual(len(container), 0, msg)

    def assertItemsEqual(self, first, second, msg=None):
        self.assertCountEqual(first, second, msg)

    def assertSameElements(self, expected_seq, actual_seq, msg=None):
        self.assertEqual(set(expected_seq), set(actual_seq), msg)

    def assertBetween(self, value, minv, maxv, msg=None):
        if not minv <= value <= maxv:
            raise self.failureException(msg or f"{value} is not between {minv} and {maxv}")

    def assertSameStructure(self, a, b, msg=None):
        nest.assert_same_structure(a, b)


def _is_array_like(value) -> bool:
    """A list or tuple of numbers (one array), not of nested structures."""
    return all(isinstance(v, (int, float, complex, bool, np.number, np.bool_)) or
               isinstance(v, (list, tuple)) and _is_array_like(v) for v in value)


def _canonical_device(name: str) -> str:
    name = name or ""
    return name.upper().replace("/JOB:LOCALHOST/REPLICA:0/TASK:0", "")


def main(argv=None):
    """Runs the test cases of `__main__` (unittest's main), as tf.test.main does."""
    return unittest.main(module="__main__", argv=argv if argv is not None else sys.argv)


def compute_gradient(f, x, delta=None):
    """(theoretical, numerical): for each tensor of the list `x`, the Jacobian of `f(*x)`
    [y size, x size] from a GradientTape, and from central differences with step `delta`
    (1/1024 by default, as TensorFlow's) in the values' own dtype."""
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"compute_gradient: x must be a list or tuple of tensors, got "
                         f"{type(x).__name__}.")
    delta = 1.0 / 1024 if delta is None else delta
    xs = [np.array(_numpy(convert_to_tensor(v))) for v in x]
    theoretical, numerical = [], []
    for i, xi in enumerate(xs):
        tensors = [convert_to_tensor(v) for v in xs]
        with GradientTape() as tape:
            tape.watch(tensors[i])
            y = convert_to_tensor(f(*tensors))
        jac = tape.jacobian(y, tensors[i])
        y_size, x_size = int(np.prod(y.shape.as_list())), xi.size
        theoretical.append(np.zeros((y_size, x_size), y.dtype.as_numpy_dtype) if jac is None
                           else np.asarray(jac.numpy()).reshape(y_size, x_size))
        jac_n = np.zeros((y_size, x_size), y.dtype.as_numpy_dtype)
        for col in range(x_size):
            shifted = [v.copy() for v in xs]
            flat = shifted[i].reshape(-1)
            flat[col] += delta
            up = _array(f(*[convert_to_tensor(v) for v in shifted])).reshape(-1)
            flat[col] -= 2 * delta
            down = _array(f(*[convert_to_tensor(v) for v in shifted])).reshape(-1)
            jac_n[:, col] = (up - down) / np.asarray(2 * delta, dtype=jac_n.dtype)
        numerical.append(jac_n)
    return tuple(theoretical), tuple(numerical)


class Benchmark:
    """A benchmark: subclasses define `benchmark*` methods that call `report_benchmark`;
    `run_op_benchmark` / `evaluate` time callables."""

    def __init__(self):
        self.reports: list[dict] = []

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        """Records one result (and prints it)."""
        entry = {"name": name or type(self).__name__, "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        self.reports.append(entry)
        print(entry)

    def evaluate(self, tensors):
        return _numpy(tensors)

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2,
                         min_iters=10, store_trace=False, store_memory_usage=True, name=None,
                         extras=None, mbs=0):
        """Times `op_or_tensor` (a callable here: there are no sessions) over `min_iters`
        calls after `burn_iters`; reports and returns the median wall time."""
        if sess is not None:
            raise ValueError("run_op_benchmark: sessions are TensorFlow 1's; pass sess=None and "
                             "a callable as op_or_tensor.")
        if not callable(op_or_tensor):
            raise TypeError("run_op_benchmark: op_or_tensor must be a callable (eager tensors "
                            "are already computed).")
        for _ in range(burn_iters):
            op_or_tensor()
        times = []
        for _ in range(min_iters):
            start = time.perf_counter()
            op_or_tensor()
            times.append(time.perf_counter() - start)
        wall = float(np.median(times))
        self.report_benchmark(iters=min_iters, wall_time=wall, name=name, extras=extras)
        return {"iters": min_iters, "wall_time": wall, "extras": extras or {}}


def benchmark_config():
    """The configuration benchmarks run with (none is needed on this runtime)."""
    return None


def gpu_device_name() -> str:
    """'' : there is no GPU."""
    return ""


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    return False


def is_built_with_cuda() -> bool:
    return False


def is_built_with_rocm() -> bool:
    return False


def is_built_with_gpu_support() -> bool:
    return False


def is_built_with_xla() -> bool:
    """Whether the XLA tier can compile (JAX, extra [xla], is installed)."""
    return importlib.util.find_spec("jax") is not None


def is_cpu_target_available(target) -> bool:
    """Whether `target` ('x86', 'aarch64', ...) is the machine's processor family."""
    machine = platform.machine().lower()
    family = {"amd64": "x86", "x86_64": "x86", "i386": "x86", "i686": "x86", "arm64": "aarch64"}
    return str(target).lower() == family.get(machine, machine)


def disable_with_predicate(pred, skip_message):
    """Decorator: skips the test method when `pred()` is true."""
    def decorator(fn):
        def wrapper(self, *args, **kwargs):
            if pred():
                self.skipTest(skip_message)
            return fn(self, *args, **kwargs)
        wrapper.__name__ = fn.__name__
        return wrapper
    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """Decorator kept for TensorFlow's test classes: returns the class unchanged (ops here
    always run as themselves)."""
    return cls if cls is not None else (lambda c: c)


__all__ = ["Benchmark", "TestCase", "benchmark_config", "compute_gradient",
           "disable_with_predicate", "gpu_device_name", "is_built_with_cuda",
           "is_built_with_gpu_support", "is_built_with_rocm", "is_built_with_xla",
           "is_cpu_target_available", "is_gpu_available", "main", "with_eager_op_as_function"]
