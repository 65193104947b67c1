"""rt.errors has TensorFlow 2.21's error classes, each an OpError, with the Python bases
that let Python code catch them as it catches the built-in kind."""

import pytest

import runtime as rt

# tf.errors' classes in TensorFlow 2.21 (dir(tf.errors), the names ending in Error)
TENSORFLOW_ERRORS = [
    "AbortedError", "AlreadyExistsError", "CancelledError", "DataLossError",
    "DeadlineExceededError", "FailedPreconditionError", "InternalError",
    "InvalidArgumentError", "NotFoundError", "OpError", "OperatorNotAllowedInGraphError",
    "OutOfRangeError", "PermissionDeniedError", "ResourceExhaustedError",
    "UnauthenticatedError", "UnavailableError", "UnimplementedError", "UnknownError"]


@pytest.mark.parametrize("name", TENSORFLOW_ERRORS)
def test_every_tensorflow_error_class_exists(name):
    cls = getattr(rt.errors, name)
    assert issubclass(cls, Exception)
    if name not in ("OpError", "OperatorNotAllowedInGraphError"):
        assert issubclass(cls, rt.errors.OpError)  # as in TensorFlow


def test_python_bases_let_python_code_catch_them():
    assert issubclass(rt.errors.UnimplementedError, NotImplementedError)
    assert issubclass(rt.errors.PermissionDeniedError, PermissionError)
    assert issubclass(rt.errors.NotFoundError, FileNotFoundError)
    with pytest.raises(rt.errors.OpError):
        raise rt.errors.FailedPreconditionError("x")
