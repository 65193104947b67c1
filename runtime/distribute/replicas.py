"""Running a function once per replica, in threads, and the meeting points of the replicas.

Eagerly (and when a compiled function runs in the replica threads) the replicas run at the
same time: NumPy releases the GIL. While a function traces, `strategy.run` traces every
replica into that one graph: the replica threads then take turns (one holds the baton at a
time, handing it on at each meeting point), so the graph is built by one thread at a time.

A meeting point (`_Group.exchange`) waits for every replica's value, combines them once (the
last replica to arrive does it) and hands each replica its part of the result. Inside a
function traced by one replica thread, an all-reduce is an op (`CollectiveReduce`, in
runtime.ops.collective) whose kernel meets the other replicas when the function runs.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from .. import context, distribute_context, nest
from ..errors import UnavailableError
from ..ops import array_math, collective
from ..ops.core import convert_to_tensor
from ..tensor import EagerTensor, SymbolicTensor, Tensor
from .reduce_op import ReduceOp

TIMEOUT = 600.0  # seconds a replica waits for the others at a meeting point


class ReplicaFailed(RuntimeError):
    """Raised in the replicas waiting for one that failed (the caller sees that one's error)."""


class _Group:
    """The replicas of one `strategy.run`: their meeting points and their baton."""

    def __init__(self, strategy, n: int, graph) -> None:
        self.strategy = strategy
        self.n = n
        self.graph = graph          # the graph being traced at the call, or None (eager)
        self.baton = threading.Lock() if graph is not None else None
        self.cond = threading.Condition()
        self.arrived: dict[int, Any] = {}
        self.generation = 0
        self.result: Any = None
        self.error: BaseException | None = None
        self.created: list = []     # variables made in the replicas, by creation order
        self.create_lock = threading.Lock()

    def exchange(self, index: int, value, merge: Callable[[list], list]):
        """Waits for every replica's `value`; returns this replica's item of merge(values)."""
        baton = self.baton
        with self.cond:
            if self.error is not None:
                raise ReplicaFailed("another replica failed") from None
            generation = self.generation
            self.arrived[index] = value
            if len(self.arrived) == self.n:
                values = [self.arrived[i] for i in range(self.n)]
                self.arrived = {}
                try:
                    self.result = merge(values)
                except BaseException as exc:
                    self.error = exc
                    self.cond.notify_all()
                    raise
                self.generation += 1
                self.cond.notify_all()
                return self.result[index]
            if baton is not None:
                baton.release()
            try:
                if not self.cond.wait_for(lambda: self.generation != generation
                                          or self.error is not None, TIMEOUT):
                    self.error = UnavailableError(
                        f"replica {index} waited {TIMEOUT:.0f} s for the other replicas at a "
                        f"meeting point (an all-reduce or merge_call); one of them never came "
                        f"(every replica must make the same collective calls).")
                    self.cond.notify_all()
                    raise self.error
                if self.generation == generation:
                    raise ReplicaFailed("another replica failed") from None
                result = self.result[index]
            finally:
                if baton is not None:
                    self.cond.release()
                    try:
                        baton.acquire()
                    finally:
                        self.cond.acquire()
        return result

    def fail(self, exc: BaseException) -> None:
        with self.cond:
            if self.error is None:
                self.error = exc
            self.cond.notify_all()


class _ThreadSetup:
    """The caller's per-thread state, carried into a replica thread."""

    def __init__(self) -> None:
        state = context.state
        self.graphs = list(state.graphs)
        self.scopes = list(state.scopes)
        self.devices = list(state.devices)
        self.strategies = list(distribute_context.state.strategies)

    def enter(self, replica) -> tuple:
        state, dstate = context.state, distribute_context.state
        saved = (state.graphs, state.scopes, state.devices, state.tapes,
                 dstate.strategies, dstate.replica)
        state.graphs, state.scopes = list(self.graphs), list(self.scopes)
        state.devices = self.devices + [replica.device]
        state.tapes = []
        dstate.strategies, dstate.replica = list(self.strategies), replica
        return saved

    @staticmethod
    def leave(saved: tuple) -> None:
        state, dstate = context.state, distribute_context.state
        (state.graphs, state.scopes, state.devices, state.tapes,
         dstate.strategies, dstate.replica) = saved


_pools: dict = {}
_pools_lock = threading.Lock()


def _pool(n: int) -> ThreadPoolExecutor:
    """A pool of threads for replicas 1.. (replica 0 runs on the calling thread)."""
    with _pools_lock:
        pool = _pools.get(n)
        if pool is None:
            pool = _pools[n] = ThreadPoolExecutor(n, thread_name_prefix="rt-replica")
        return pool


def run_replicas(strategy, make_context, fn: Callable, per_replica_args: list) -> list:
    """fn(*args, **kwargs) for each replica's (args, kwargs), each in its ReplicaContext
    (made by `make_context(group, index)`); the results in replica order."""
    n = len(per_replica_args)
    group = _Group(strategy, n, context.current_graph())
    setup = _ThreadSetup()
    results: list = [None] * n
    errors: list = [None] * n

    def one(index: int) -> None:
        replica = make_context(group, index)
        saved = setup.enter(replica)
        if group.baton is not None:
            group.baton.acquire()
        try:
            args, kwargs = per_replica_args[index]
            results[index] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller below
            errors[index] = exc
            group.fail(exc)
        finally:
            if group.baton is not None:
                group.baton.release()
            setup.leave(saved)

    if n == 1:
        one(0)
    else:
        futures = [_pool(n).submit(one, i) for i in range(1, n)]
        one(0)
        for future in futures:
            future.result()
    real = [e for e in errors if e is not None and not isinstance(e, ReplicaFailed)]
    if real or any(errors):
        raise (real or [e for e in errors if e is not None])[0]
    return results


# == reducing values of the replicas =============================================================

def _as_tensor(value) -> Tensor:
    return value if isinstance(value, (EagerTensor, SymbolicTensor)) else convert_to_tensor(value)


def reduce_tensors(reduce_op: ReduceOp, values: list) -> Tensor:
    """The sum or mean of one tensor from each replica (eager or in the graph being built)."""
    total = _as_tensor(values[0])
    for value in values[1:]:
        total = array_math.add(total, _as_tensor(value))
    if reduce_op is ReduceOp.MEAN:
        total = array_math.divide(total, array_math.cast(len(values), total.dtype)) \
            if total.dtype.is_floating else array_math.floordiv(total, len(values))
    return total


def reduce_structures(reduce_op: ReduceOp, structures: list) -> Any:
    """Each replica's structure reduced leaf by leaf; the first replica's structure."""
    flat = [nest.flatten(s, expand_composites=False) for s in structures]
    reduced = [reduce_tensors(reduce_op, [f[i] for f in flat]) for i in range(len(flat[0]))]
    return nest.pack_sequence_as(structures[0], reduced, expand_composites=False)


def collective_reduce(reduce_op: ReduceOp, value) -> Tensor:
    """An all-reduce op in the function being traced (replicas meet when it runs; declared
    in runtime.ops.collective)."""
    return collective.collective_reduce(reduce_op.value, value)
