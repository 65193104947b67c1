"""What runs on the Dask workers of a MultiWorkerMirroredStrategy: each worker holds one
replica, a Dask actor (`Replica`) that loads a saved program once (the model's and
optimizer's variables with the functions that compute gradients, apply them and read or set
the state) and keeps its variables between steps.

The replicas exchange their values directly, worker to worker, over Dask's connections: each
sends its value to every other replica's `deposit` (a method that runs on the receiving
worker's event loop, beside the replica's computation) and combines the values in replica
order, so every replica gets the same bits. Neither the driver nor the scheduler sees them.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import distributed
import numpy as np
from distributed.protocol import to_serialize

from .. import saved_model
from ..ops import collective

TIMEOUT = 120.0  # seconds a replica waits for the others' values in an all-reduce
POLL = 0.5       # seconds between checks that the replica was not aborted while it waits


def digest_of(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def _load(payload: bytes, digest: str):
    if digest_of(payload) != digest:
        raise ValueError("The shipped program does not match its content hash.")
    return saved_model.loads(payload)


def _combined(values: list, reduce_op: str) -> np.ndarray:
    """The replicas' values (in replica order) combined: SUM, MEAN, or the first one's."""
    ordered = [np.asarray(v) for v in values]
    if reduce_op == "FIRST":
        return ordered[0]
    total = ordered[0].copy() if ordered[0].ndim else ordered[0]
    for more in ordered[1:]:
        total = total + more
    if reduce_op == "MEAN":
        total = total / len(ordered) if np.issubdtype(total.dtype, np.floating) \
            else total // len(ordered)
    return np.asarray(total, dtype=ordered[0].dtype)


def _summed(per_replica: list) -> list:
    """Lists of gradients, one per replica, summed in replica order."""
    if len(per_replica) == 1:
        return list(per_replica[0])
    grads = [np.add(a, b) for a, b in zip(per_replica[0], per_replica[1])]
    for more in per_replica[2:]:
        for total, g in zip(grads, more):
            total += g
    return grads


class _Running(threading.local):
    replica = None  # the Replica whose strategy.run program runs in this thread


_running = _Running()


class Replica:
    """One replica on a worker (a Dask actor made by the driver): a saved program with its
    own variables, and an inbox for the values the other replicas send it.

    The driver calls it through `call(seq, method, args)`, numbering its calls: they run one
    at a time in this replica's own thread, in the driver's order, whatever order they
    arrive in. So the driver can send the next step before the last one has finished: the
    worker goes on to it at once."""

    def __init__(self, payload: bytes, digest: str, index: int, count: int) -> None:
        self.program = _load(payload, digest)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="rt-replica")
        self.turn = 0                   # the number of the driver's next call to start
        self.turns = None               # an asyncio.Condition on the worker's event loop
        self.index, self.count = index, count
        self.peers: list = []           # (address, actor key) of every replica, in order
        self.worker = distributed.get_worker()
        self.inbox: dict = {}           # (tag, sender) -> value
        self.discarded = -1             # fit steps up to this one were dropped by set_state
        self.arrived = threading.Condition()
        self.aborted = False
        self.steps = 0                  # fit steps taken
        self.pending = None             # this replica's gradients of the last step, unapplied
        self.runs = 0                   # strategy.run calls
        self.exchanges = 0              # all-reduces in the current run
        self.failure = None             # why a send to another replica failed
        self.busy = 0.0                 # CPU seconds of this replica's thread in fit steps
        self.waited = 0.0               # seconds it waited for the other replicas' values

    async def call(self, seq: int, method: str, args: list):
        """The driver's call number `seq`: method(*args) in this replica's thread, after the
        calls numbered before it."""
        if method not in ("connect", "step", "rollback", "set_state", "state", "run"):
            raise ValueError(f"A replica has no method {method!r}.")
        if self.turns is None:
            self.turns = asyncio.Condition()
        async with self.turns:
            await self.turns.wait_for(lambda: self.turn == seq or self.aborted)
            if self.aborted:
                raise RuntimeError("The replica was aborted: another replica is gone.")
            done = asyncio.get_running_loop().run_in_executor(self.thread,
                                                              getattr(self, method), *args)
            self.turn += 1
            self.turns.notify_all()
        return await done

    # -- the exchange -------------------------------------------------------------------------
    def connect(self, peers: list) -> None:
        self.peers = [tuple(p) for p in peers]

    async def deposit(self, tag, sender: int, value) -> None:
        """Another replica's value (runs on this worker's event loop)."""
        with self.arrived:
            if not (tag[0] == "step" and tag[1] <= self.discarded):
                self.inbox[(tag, sender)] = value
            self.arrived.notify_all()

    async def abort(self) -> None:
        """Wakes a replica waiting for the others (one of them is gone) and ends it."""
        with self.arrived:
            self.aborted = True
            self.arrived.notify_all()
        if self.turns is not None:
            async with self.turns:
                self.turns.notify_all()
        self.thread.shutdown(wait=False)

    async def _send(self, address: str, key, tag, value) -> None:
        # one message and no reply: the receiver does not answer a deposit (a lost receiver
        # fails the write here, or the driver notices it is gone)
        try:
            await self.worker.rpc(address).actor_execute(
                actor=key, function="deposit",
                args=[to_serialize(tag), to_serialize(self.index), to_serialize(value)],
                kwargs={}, reply=False)
        except Exception as exc:  # noqa: BLE001 - reported to the waiting replica
            with self.arrived:
                self.failure = exc
                self.arrived.notify_all()

    def _post(self, tag, value) -> None:
        """Sends `value` to every other replica, without waiting for it to arrive."""
        for j, (address, key) in enumerate(self.peers):
            if j != self.index:
                self.worker.loop.add_callback(self._send, address, key, tag, value)

    def _gather(self, tag, mine) -> list:
        """Every replica's value for `tag`, in replica order (this one's is `mine`)."""
        values = [None] * self.count
        values[self.index] = mine
        start = time.monotonic()
        deadline = start + TIMEOUT
        with self.arrived:
            for j in range(self.count):
                if j == self.index:
                    continue
                while (tag, j) not in self.inbox:
                    if self.aborted:
                        raise RuntimeError("The replica was aborted: another replica is gone.")
                    if self.failure is not None:
                        raise self.failure
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"Replica {self.index} waited {TIMEOUT:.0f} s for "
                                           f"the values of replica {j}.")
                    self.arrived.wait(POLL)
                values[j] = self.inbox.pop((tag, j))
        self.waited += time.monotonic() - start
        return values

    def exchange(self, value: np.ndarray, reduce_op: str) -> np.ndarray:
        """An all-reduce inside a strategy.run program."""
        self.exchanges += 1
        tag = ("run", self.runs, self.exchanges)
        self._post(tag, value)
        return _combined(self._gather(tag, value), reduce_op)

    # -- fit ----------------------------------------------------------------------------------
    def _apply_pending(self) -> None:
        if self.pending is not None:
            grads, self.pending = self.pending, None
            if self.count > 1:
                grads = _summed(self._gather(("step", self.steps), grads))
            self.program.apply(grads)

    def step(self, x, y, share: float, n_logs: int) -> list:
        """Applies the sum of the last step's gradients of every replica, then computes this
        step's on (x, y), weighed by `share` (this part's share of the global batch), sends
        them to the other replicas and returns the logs. The sum is applied at the start of
        the next step (or by `state`): the logs go back while the gradients travel."""
        start = time.thread_time()
        self._apply_pending()
        out = [np.asarray(o) for o in self.program.grads(x, y, np.float32(share))]
        self.steps += 1
        grads = out[n_logs:]
        if self.count > 1:
            self._post(("step", self.steps), grads)
        self.pending = grads
        self.busy += time.thread_time() - start
        return out[:n_logs]

    def rollback(self) -> None:
        """Drops the last step's gradients (a step sent ahead that fit does not take)."""
        with self.arrived:
            self.pending = None
            self.discarded = self.steps
            for key in [k for k in self.inbox if k[0][0] == "step"]:
                del self.inbox[key]

    def set_state(self, values: list) -> None:
        """The driver's state replaces this replica's (an unapplied step is dropped)."""
        self.rollback()
        self.program.set_state(list(values))

    def state(self) -> list:
        """The state after the last step (its gradients applied)."""
        self._apply_pending()
        return [np.asarray(v) for v in self.program.state()]

    # -- strategy.run -------------------------------------------------------------------------
    def run(self, state, args: list) -> tuple:
        """One replica of strategy.run: (its outputs, the state after it when this is the
        first replica). `state` (None when unchanged) replaces this replica's first."""
        if state is not None:
            self.program.set_state(list(state))
        self.runs += 1
        self.exchanges = 0
        _running.replica = self
        try:
            outputs = self.program.step(list(args))
        finally:
            _running.replica = None
        outputs = [np.asarray(o) for o in (outputs if isinstance(outputs, (list, tuple))
                                           else [outputs])]
        return outputs, ([np.asarray(v) for v in self.program.state()]
                         if self.index == 0 else None)


def _exchange(value: np.ndarray, reduce_op: str) -> np.ndarray:
    replica = _running.replica
    return value if replica is None else replica.exchange(value, reduce_op)


collective.worker_exchange[0] = _exchange
