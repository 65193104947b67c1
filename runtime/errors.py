"""Exceptions raised by the runtime."""

from __future__ import annotations


class OpError(Exception):
    """Base class of errors raised while a graph or an eager op runs."""

    def __init__(self, message: str = "", op=None):
        super().__init__(message)
        self.message = message
        self.op = op


class InvalidArgumentError(OpError, ValueError):
    """A value met at run time is invalid (a failed assertion, an unwritten read, ...)."""


class IndexOutOfBoundsError(InvalidArgumentError, IndexError):
    """An index outside its axis (`x[5]` of a 3-element tensor): TensorFlow's
    `InvalidArgumentError`, and the `IndexError` Python sequences raise."""


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (such as `bool()`) was applied to a symbolic tensor."""


class InaccessibleTensorError(ValueError, TypeError):
    """A symbolic tensor was used outside the graph (or branch) that made it.

    A `ValueError`, as TensorFlow's class is, and a `TypeError`, which TensorFlow 2 raises
    when a function captures a tensor leaked from another function's graph."""


class ResourceExhaustedError(OpError, MemoryError):
    """An op ran out of memory (a huge allocation); the message names the op and its line."""


class SignatureMismatchError(InvalidArgumentError, TypeError):
    """A call's argument does not fit the function's input_signature (dtype, shape or spec).

    A `TypeError`, as TensorFlow 2 raises for a shape that does not fit; an
    `InvalidArgumentError` (so a `ValueError`), as it raises for a dtype that does not, and as
    code catching either expects."""


class SymbolicValueError(NotImplementedError, AttributeError):
    """`.numpy()` was called on a symbolic tensor, whose value exists only when the graph runs.

    A `NotImplementedError`, as this runtime raised before, and an `AttributeError`, as a
    TensorFlow symbolic tensor has no `numpy` (so `getattr`-style probes treat it alike)."""


class NotFoundError(OpError, FileNotFoundError):
    """Something asked for does not exist: a checkpoint file, or a name inside a checkpoint.

    A `FileNotFoundError` (so an `OSError`), which is what Python code catches for a missing
    file, and an `OpError`, as TensorFlow's `tf.errors.NotFoundError` is."""


class AlreadyExistsError(OpError, FileExistsError):
    """What was to be made already exists: a file `rt.io.gfile.copy` or `rename` would replace
    without `overwrite=True`. A `FileExistsError` too, as Python code expects."""


class OutOfRangeError(OpError, StopIteration):
    """An iterator has no more elements (`next()` on a staged dataset iterator at the end).

    A `StopIteration` too, so Python code that ends a loop on it keeps working."""


class DataLossError(OpError):
    """Unrecoverable data loss or corruption: a TFRecord whose CRC does not match, or a record
    truncated or declaring more bytes than its file holds."""


class FailedPreconditionError(OpError):
    """The system is not in a state the operation needs: a file to read is a directory, a
    variable read before it holds a value."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented or not supported here. A `NotImplementedError` too."""


class PermissionDeniedError(OpError, PermissionError):
    """The caller may not do this: a file that cannot be opened for lack of rights. A
    `PermissionError` too."""


class CancelledError(OpError):
    """The operation was cancelled (TensorFlow's class, for programs that catch it)."""


class UnknownError(OpError):
    """An error of no other class (TensorFlow's class, for programs that catch it)."""


class InternalError(OpError):
    """An invariant of the runtime was broken (TensorFlow's class, for programs that catch
    it)."""


class AbortedError(OpError):
    """The operation was aborted (TensorFlow's class, for programs that catch it)."""


class DeadlineExceededError(OpError):
    """A deadline passed before the operation ended (TensorFlow's class, for programs that
    catch it)."""


class UnavailableError(OpError):
    """A service is unavailable (TensorFlow's class, for programs that catch it)."""


class UnauthenticatedError(OpError):
    """The request lacks valid credentials (TensorFlow's class, for programs that catch it)."""


# TensorFlow's error codes (`tf.errors.OK`, ...: the canonical status codes)
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16
