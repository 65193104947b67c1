"""rt.test (tf.test): TestCase's assertions, compute_gradient and the build queries."""

import unittest

import numpy as np
import pytest

import runtime as rt


class _Case(rt.test.TestCase):
    def runTest(self):  # noqa: N802 - unittest's name
        pass


@pytest.fixture
def case():
    return _Case()


def test_all_close_takes_tensors_arrays_and_nested_structures(case):
    case.assertAllClose(rt.constant([1.0, 2.0]), np.array([1.0, 2.0 + 1e-7]))
    case.assertAllClose({"a": [rt.constant(1.0), (2.0, 3.0)]}, {"a": [1.0, (2.0, 3.0)]})
    case.assertAllClose([np.nan, 1.0], [np.nan, 1.0])
    with pytest.raises(AssertionError):
        case.assertAllClose(rt.constant([1.0, 2.0]), [1.0, 2.1])
    with pytest.raises(AssertionError):
        case.assertAllClose([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(AssertionError):
        case.assertAllClose({"a": 1.0}, {"b": 1.0})
    case.assertNotAllClose([1.0], [2.0])
    # TensorFlow's default tolerances are rtol=1e-6, atol=1e-6
    with pytest.raises(AssertionError):
        case.assertAllClose(1.0, 1.0 + 1e-5)


def test_all_equal_and_comparisons(case):
    case.assertAllEqual(rt.constant([[1, 2]]), [[1, 2]])
    with pytest.raises(AssertionError):
        case.assertAllEqual([1, 2], [[1, 2]])
    case.assertNotAllEqual([1, 2], [1, 3])
    case.assertAllGreater(rt.constant([2, 3]), 1)
    case.assertAllLessEqual([1, 2], 2)
    case.assertAllInRange([0.0, 1.0], 0.0, 1.0)
    with pytest.raises(AssertionError):
        case.assertAllInRange([0.0, 1.0], 0.0, 1.0, open_upper_bound=True)
    case.assertAllInSet(rt.constant([1, 2, 1]), {1, 2})
    with pytest.raises(AssertionError):
        case.assertAllInSet([1, 5], [1, 2])
    case.assertShapeEqual(np.zeros((2, 3)), rt.zeros([2, 3]))
    case.assertDTypeEqual(rt.constant([1.0]), rt.float32)
    case.assertNear(1.0, 1.05, 0.1)
    case.assertAllCloseAccordingToType(np.float16(1.0005), 1.0)


def test_evaluate_and_raises(case):
    value = case.evaluate({"x": rt.constant([1, 2]), "y": 3})
    assert isinstance(value["x"], np.ndarray) and value["x"].tolist() == [1, 2]
    assert value["y"] == 3
    with case.assertRaisesOpError("Incompatible|shapes|broadcast"):
        rt.add(rt.ones([2]), rt.ones([3]))
    with case.assertRaisesWithPredicateMatch(ValueError, lambda e: "bad" in str(e)):
        raise ValueError("bad value")
    with pytest.raises(AssertionError):
        with case.assertRaisesWithPredicateMatch(ValueError, "x"):
            pass


def test_a_test_case_runs_under_unittest():
    class Square(rt.test.TestCase):
        def test_square(self):
            self.assertAllClose(rt.square([1.0, 2.0]), [1.0, 4.0])

        def test_wrong(self):
            self.assertAllEqual(rt.constant([1]), [2])

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Square).run(result)
    assert result.testsRun == 2 and len(result.failures) == 1 and not result.errors


def test_compute_gradient_gives_tensorflows_jacobians():
    # tf.test.compute_gradient(lambda x: x * x, [tf.constant([1.0, 2.0])]) in TensorFlow 2.21:
    # ((array([[2., 0.], [0., 4.]]),), (array([[2., 0.], [0., 4.]]),))
    theoretical, numerical = rt.test.compute_gradient(lambda x: x * x, [rt.constant([1.0, 2.0])])
    np.testing.assert_allclose(theoretical[0], [[2.0, 0.0], [0.0, 4.0]])
    np.testing.assert_allclose(numerical[0], [[2.0, 0.0], [0.0, 4.0]], rtol=1e-3)
    assert theoretical[0].dtype == np.float32
    # two arguments: one Jacobian [y size, x size] each (TensorFlow: [[1.], [2.]] and 3 * I)
    theoretical, numerical = rt.test.compute_gradient(
        lambda x, y: x * y, [rt.constant(3.0), rt.constant([1.0, 2.0])])
    np.testing.assert_allclose(theoretical[0], [[1.0], [2.0]])
    np.testing.assert_allclose(theoretical[1], [[3.0, 0.0], [0.0, 3.0]])
    np.testing.assert_allclose(numerical[1], theoretical[1], rtol=1e-3)
    with pytest.raises(ValueError, match="list or tuple"):
        rt.test.compute_gradient(lambda x: x, rt.constant(1.0))


def test_build_queries_describe_a_cpu_runtime():
    assert rt.test.gpu_device_name() == ""
    assert rt.test.is_gpu_available() is False
    assert rt.test.is_built_with_cuda() is False and rt.test.is_built_with_rocm() is False
    assert rt.test.is_built_with_gpu_support() is False
    assert isinstance(rt.test.is_built_with_xla(), bool)


def test_disable_with_predicate_skips():
    class Skipped(rt.test.TestCase):
        @rt.test.disable_with_predicate(lambda: True, "not here")
        def test_skipped(self):
            raise AssertionError("ran")

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Skipped).run(result)
    assert len(result.skipped) == 1 and not result.failures


def test_benchmark_times_a_callable():
    bench = rt.test.Benchmark()
    out = bench.run_op_benchmark(None, lambda: rt.square(2.0), burn_iters=1, min_iters=3)
    assert out["iters"] == 3 and out["wall_time"] >= 0 and len(bench.reports) == 1
    with pytest.raises(ValueError, match="sessions"):
        bench.run_op_benchmark(object(), lambda: None)
