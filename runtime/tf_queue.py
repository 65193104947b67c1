"""`tf.queue`: eager queues of tuples of tensors, safe to share between Python threads.

`FIFOQueue`, `PaddingFIFOQueue`, `PriorityQueue` and `RandomShuffleQueue` keep their elements
host-side (NumPy arrays). As TensorFlow's queues, a dequeue from an empty open queue (and an
enqueue into a full one) waits for another thread; once the queue is closed, a dequeue that
cannot be served raises `OutOfRangeError` and an enqueue raises `CancelledError`.

Inside a compiled function each queue operation is staged as a `numpy_function` op (an IO
effect: it runs at every call, in program order), where TensorFlow stages resource ops; the
queue itself stays a Python object shared by the eager code and the functions using it.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from typing import Any

import numpy as np

from . import context
from . import dtypes as _dtypes
from .errors import CancelledError, InvalidArgumentError, OutOfRangeError
from .exports import export
from .ops import py_function as _pyf
from .ops.core import convert_to_tensor
from .shapes import TensorShape, TensorSpec
from .tensor import EagerTensor, Tensor

_COUNTER = itertools.count()


@export("queue.QueueBase")
class QueueBase:
    """The base of the queues: a bounded store of elements, each a tuple of tensors of the
    queue's `dtypes` (and `shapes`, when given)."""

    _kind = "QueueBase"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="queue") -> None:
        if type(self) is QueueBase:
            raise TypeError("QueueBase is the base of the queues: make a FIFOQueue, "
                            "PaddingFIFOQueue, PriorityQueue or RandomShuffleQueue.")
        if shared_name not in (None, ""):
            raise NotImplementedError("shared_name: the queues here are not shared between "
                                      "sessions; leave it None.")
        if not isinstance(capacity, (int, np.integer)) or isinstance(capacity, bool):
            raise TypeError(f"capacity must be an int, got {capacity!r}.")
        single = not isinstance(dtypes, (list, tuple))
        self._dtypes = [_dtypes.as_dtype(d) for d in ([dtypes] if single else dtypes)]
        if shapes is None:
            self._shapes = [TensorShape(None) for _ in self._dtypes]
        else:
            if isinstance(shapes, TensorShape):
                shapes = [shapes]
            if not isinstance(shapes, (list, tuple)):
                raise TypeError(f"shapes must be a list of shapes, got {shapes!r}.")
            if all(d is None or isinstance(d, (int, np.integer)) for d in shapes):
                shapes = [shapes]  # one shape (TensorFlow reads a flat list so)
            self._shapes = [TensorShape(s) for s in shapes]
            if len(self._shapes) != len(self._dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
        if names is not None:
            names = [names] if isinstance(names, str) else list(names)
            if len(names) != len(self._dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._capacity = int(capacity)
        self._name = name
        self._id = next(_COUNTER)
        self._closed = False
        self._cancelled = False
        self._lock = threading.Condition()

    # -- properties --------------------------------------------------------------------
    dtypes = property(lambda self: list(self._dtypes), doc="The dtypes of the components.")
    shapes = property(lambda self: list(self._shapes), doc="The shapes of the components.")
    names = property(lambda self: None if self._names is None else list(self._names),
                     doc="The names of the components, or None.")
    name = property(lambda self: self._name, doc="The queue's name.")

    @property
    def queue_ref(self) -> QueueBase:
        """The queue itself (TensorFlow's resource handle of it)."""
        return self

    def _label(self) -> str:
        return f"{self._kind} '{self._id}_{self._name}'"

    # -- storage (overridden by the subclasses) ------------------------------------------
    def _count(self) -> int:
        return len(self._items)

    def _put(self, element: list) -> None:
        self._items.append(element)

    def _take(self) -> list:
        return self._items.pop(0)

    def _ready(self, n: int) -> bool:
        """Whether `n` elements can be taken now (the queue being open)."""
        return self._count() >= n

    # -- conversion --------------------------------------------------------------------
    def _tensors(self, vals, what: str) -> list:
        if isinstance(vals, dict):
            if self._names is None:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(vals) != sorted(self._names):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue. "
                                 f"Dictionary: {sorted(vals)}, Queue: {sorted(self._names)}")
            vals = [vals[n] for n in self._names]
        elif not isinstance(vals, (list, tuple)):
            vals = [vals]
        vals = list(vals)
        if len(vals) != len(self._dtypes):
            raise ValueError(f"{what}: the queue holds {len(self._dtypes)} component(s), got "
                             f"{len(vals)}.")
        return [convert_to_tensor(v, dtype) for v, dtype in zip(vals, self._dtypes)]

    @staticmethod
    def _check_shape(shape: TensorShape, wanted: TensorShape) -> None:
        if not wanted.is_compatible_with(shape):
            raise ValueError(f"Shapes {shape} and {wanted} are incompatible")

    def _stage(self, host, inputs: list, outs: list) -> list:
        """Runs `host(*arrays)` (a list of arrays back, one per TensorSpec of `outs`) now, or,
        while a function is traced, as a `numpy_function` op at every call."""
        if context.current_graph() is None:
            result = host(*[np.asarray(t.numpy()) for t in inputs])
            return [convert_to_tensor(r, spec.dtype) for r, spec in zip(result, outs)]
        staged = _pyf.numpy_function(host, list(inputs), list(outs))
        return list(staged) if outs else []

    # -- enqueue -----------------------------------------------------------------------
    def enqueue(self, vals, name=None) -> None:
        """Adds one element (a tensor, a list of the components, or a dict by name); waits
        while the queue is full."""
        parts = self._tensors(vals, "enqueue")
        for t, s in zip(parts, self._shapes):
            self._check_shape(t.shape, s)

        def host(*arrays):
            for a, s in zip(arrays, self._shapes):
                self._check_shape(TensorShape(np.shape(a)), s)
            self._insert([[np.asarray(a) for a in arrays]])
            return []
        self._stage(host, parts, [])

    def enqueue_many(self, vals, name=None) -> None:
        """Adds the elements made by slicing each component along its first axis."""
        parts = self._tensors(vals, "enqueue_many")
        if any(t.shape.rank == 0 for t in parts):
            raise ValueError("enqueue_many: each component needs a first axis (the elements).")
        for t, s in zip(parts, self._shapes):
            if t.shape.rank is not None:
                self._check_shape(TensorShape(t.shape.as_list()[1:]), s)

        def host(*arrays):
            arrays = [np.asarray(a) for a in arrays]
            counts = {a.shape[0] for a in arrays}
            if len(counts) != 1:
                raise InvalidArgumentError(f"enqueue_many: the components hold different "
                                           f"numbers of elements: {sorted(counts)}.")
            for a, s in zip(arrays, self._shapes):
                self._check_shape(TensorShape(a.shape[1:]), s)
            self._insert([[np.asarray(a[i]) for a in arrays] for i in range(counts.pop())])
            return []
        self._stage(host, parts, [])

    def _insert(self, elements: list) -> None:
        with self._lock:
            for element in elements:
                while True:
                    if self._closed or self._cancelled:
                        raise CancelledError(f"{self._label()} is closed.")
                    if self._count() < self._capacity:
                        break
                    self._lock.wait()
                self._put(element)
                self._lock.notify_all()

    # -- dequeue -----------------------------------------------------------------------
    def _pack(self, tensors: list):
        if self._names is not None:
            return dict(zip(self._names, tensors))
        return tensors[0] if len(tensors) == 1 else tensors

    def _wait_take(self, n: int, up_to: bool) -> list:
        with self._lock:
            while True:
                if self._closed:
                    count = self._count()
                    if count >= n or (up_to and count > 0):
                        break
                    raise OutOfRangeError(f"{self._label()} is closed and has insufficient "
                                          f"elements (requested {n}, current size {count})")
                if self._ready(n):
                    break
                self._lock.wait()
            taken = [self._take() for _ in range(min(n, self._count()))]
            self._lock.notify_all()
            return taken

    def dequeue(self, name=None) -> Any:
        """Removes and returns one element; waits while the queue is empty, raises
        OutOfRangeError when it is closed and empty."""
        def host():
            [element] = self._wait_take(1, False)
            return element
        outs = [TensorSpec(s, d) for s, d in zip(self._shapes, self._dtypes)]
        return self._pack(self._stage(host, [], outs))

    def _many(self, n, up_to: bool, what: str) -> Any:
        if isinstance(n, EagerTensor):
            n = int(n.numpy())
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
            raise InvalidArgumentError(f"{what}: n must be a non-negative int known when "
                                       f"called, got {n!r}.")
        n = int(n)
        self._check_many()

        def host():
            return self._stack(self._wait_take(n, up_to) if n else [])
        outs = [TensorSpec([None if up_to else n, *s.as_list()], d)
                for s, d in zip(self._shapes, self._dtypes)]
        return self._pack(self._stage(host, [], outs))

    def _check_many(self) -> None:
        if not all(s.is_fully_defined() for s in self._shapes):
            raise InvalidArgumentError(f"{self._kind}'s DequeueMany and DequeueUpTo require the "
                                       "components to have specified shapes.")

    def _stack(self, elements: list) -> list:
        return [np.stack([e[i] for e in elements]) if elements else
                np.zeros([0, *s.as_list()], d.as_numpy_dtype if d is not _dtypes.string else object)
                for i, (s, d) in enumerate(zip(self._shapes, self._dtypes))]

    def dequeue_many(self, n, name=None) -> Any:
        """Removes `n` elements and returns each component stacked along a new first axis;
        waits for `n` elements."""
        return self._many(n, False, "dequeue_many")

    def dequeue_up_to(self, n, name=None) -> Any:
        """As `dequeue_many`, but once the queue is closed returns the fewer left (at least
        one)."""
        return self._many(n, True, "dequeue_up_to")

    # -- state -------------------------------------------------------------------------
    def size(self, name=None) -> Tensor:
        """The number of elements in the queue (an int32 scalar)."""
        def host():
            with self._lock:
                return [np.int32(self._count())]
        return self._stage(host, [], [TensorSpec([], _dtypes.int32)])[0]

    def close(self, cancel_pending_enqueues=False, name=None) -> None:
        """Closes the queue: no more enqueues; dequeues take what is left. With
        `cancel_pending_enqueues`, waiting enqueues raise CancelledError."""
        if not isinstance(cancel_pending_enqueues, bool):
            raise TypeError(f"cancel_pending_enqueues must be a bool, got "
                            f"{cancel_pending_enqueues!r}.")

        def host():
            with self._lock:
                self._closed = True
                self._cancelled = self._cancelled or cancel_pending_enqueues
                self._lock.notify_all()
            return []
        self._stage(host, [], [])

    def is_closed(self, name=None) -> Tensor:
        """Whether the queue is closed (a bool scalar)."""
        return self._stage(lambda: [np.bool_(self._closed)], [],
                           [TensorSpec([], _dtypes.bool_)])[0]

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self._name!r} dtypes={[d.name for d in self._dtypes]} "
                f"size={self._count()}>")


@export("queue.FIFOQueue")
class FIFOQueue(QueueBase):
    """A queue that returns its elements in the order they were enqueued."""

    _kind = "FIFOQueue"

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue") -> None:
        super().__init__(capacity, dtypes, shapes, names, shared_name, name)
        self._items: list = []


@export("queue.PaddingFIFOQueue")
class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose component shapes may have unknown dimensions: `dequeue_many`
    pads each component with zeros (empty strings) to the largest element."""

    _kind = "PaddingFIFOQueue"

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue") -> None:
        if shapes is None:
            raise ValueError("PaddingFIFOQueue needs `shapes`, one per component (None for a "
                             "dimension padded).")
        super().__init__(capacity, dtypes, shapes, names, shared_name, name)
        if any(s.rank is None for s in self._shapes):
            raise ValueError("PaddingFIFOQueue: every component shape needs a known rank, got "
                             f"{self._shapes}.")
        self._items = []

    def _check_many(self) -> None:
        pass

    def _stack(self, elements: list) -> list:
        out = []
        for i, (s, d) in enumerate(zip(self._shapes, self._dtypes)):
            np_dtype = object if d is _dtypes.string else d.as_numpy_dtype
            parts = [e[i] for e in elements]
            dims = [max([p.shape[k] for p in parts], default=0) if s.as_list()[k] is None
                    else s.as_list()[k] for k in range(s.rank)]
            fill = b"" if d is _dtypes.string else 0
            batch = np.full([len(parts), *dims], fill, dtype=np_dtype)
            for j, p in enumerate(parts):
                batch[(j, *[slice(0, n) for n in p.shape])] = p
            out.append(batch)
        return out


@export("queue.PriorityQueue")
class PriorityQueue(QueueBase):
    """A queue whose elements start with an int64 priority: dequeues return the lowest
    priority first (enqueued first among equal ones). `types` and `shapes` describe the
    components after the priority."""

    _kind = "PriorityQueue"

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue") -> None:
        types = [types] if not isinstance(types, (list, tuple)) else list(types)
        if shapes is not None:
            shapes = [[], *shapes]
        if names is not None:
            raise NotImplementedError("PriorityQueue(names=...) is not implemented here; "
                                      "enqueue tuples (priority, *components).")
        super().__init__(capacity, [_dtypes.int64, *types], shapes, None, shared_name, name)
        self._heap: list = []
        self._order = itertools.count()

    def _count(self) -> int:
        return len(self._heap)

    def _put(self, element: list) -> None:
        if element[0].shape != ():
            raise InvalidArgumentError("PriorityQueue: the priority (the first component) of "
                                       f"an element must be a scalar, got shape {element[0].shape}.")
        heapq.heappush(self._heap, (int(element[0]), next(self._order), element))

    def _take(self) -> list:
        return heapq.heappop(self._heap)[2]

    def _pack(self, tensors: list):
        return list(tensors)


@export("queue.RandomShuffleQueue")
class RandomShuffleQueue(QueueBase):
    """A queue that returns its elements in random order; while open, a dequeue leaves at
    least `min_after_dequeue` elements in it (and waits for more)."""

    _kind = "RandomShuffleQueue"

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue") -> None:
        super().__init__(capacity, dtypes, shapes, names, shared_name, name)
        if not isinstance(min_after_dequeue, (int, np.integer)) or min_after_dequeue < 0:
            raise TypeError(f"min_after_dequeue must be a non-negative int, got "
                            f"{min_after_dequeue!r}.")
        self._min_after = int(min_after_dequeue)
        self._items = []
        self._rng = np.random.default_rng(seed)

    def _ready(self, n: int) -> bool:
        return self._count() >= n + self._min_after

    def _take(self) -> list:
        return self._items.pop(int(self._rng.integers(len(self._items))))


__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]
