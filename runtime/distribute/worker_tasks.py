"""What runs on the Dask workers of a MultiWorkerMirroredStrategy: each worker holds one
replica, a saved program (the model's and optimizer's variables with the functions that
compute gradients, apply them and read or set the state), loaded once per process."""

from __future__ import annotations

import hashlib
import threading

import distributed
import numpy as np

from .. import saved_model
from ..ops import collective

TIMEOUT = 120.0  # seconds a replica waits for the others' values in an all-reduce

_programs: dict = {}
_lock = threading.Lock()


def digest_of(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def program(payload: bytes, digest: str):
    """The program in `payload`, loaded once per worker process (and per digest)."""
    found = _programs.get(digest)
    if found is None:
        with _lock:
            found = _programs.get(digest)
            if found is None:
                if digest_of(payload) != digest:
                    raise ValueError("The shipped program does not match its content hash.")
                found = _programs[digest] = saved_model.loads(payload)
    return found


def _summed(results) -> list:
    """The replicas' gradients of one step, summed in replica order (the all-reduce: Dask
    brings the other replicas' results to this worker)."""
    grads = [np.array(g, copy=True) for g in results[0][1]]
    for _, more in results[1:]:
        for total, g in zip(grads, more):
            total += g
    return grads


def replica_step(payload: bytes, digest: str, state, previous, x, y, share: float,
                 n_logs: int) -> tuple:
    """One replica's step: set the state (first step of an epoch), apply the sum of the
    previous step's gradients of every replica, then (logs, gradients) of this replica's
    part of the batch."""
    prog = program(payload, digest)
    if state is not None:
        prog.set_state(list(state))
    if previous is not None:
        prog.apply(_summed(previous))
    out = [np.asarray(o) for o in prog.grads(x, y, np.float32(share))]
    return out[:n_logs], out[n_logs:]


def logs_of(result: tuple) -> list:
    return result[0]


def final_state(payload: bytes, digest: str, state, previous) -> list:
    """The state after the last step of an epoch (its gradients applied)."""
    prog = program(payload, digest)
    if state is not None:
        prog.set_state(list(state))
    if previous is not None:
        prog.apply(_summed(previous))
    return [np.asarray(v) for v in prog.state()]


# == strategy.run on the workers: a replica program and its all-reduces ==========================

class _Run(threading.local):
    def __init__(self) -> None:
        self.active = None  # (inbox names, this replica's index, run number, [all-reduce count])
        self.pending: dict = {}


_run = _Run()


def _exchange(value: np.ndarray, reduce_op: str) -> np.ndarray:
    """This replica's value combined with the others' (SUM, MEAN, or the first replica's):
    each replica puts its value in every other replica's inbox (a Dask Queue) and takes
    theirs from its own, then all combine them in replica order."""
    if _run.active is None:
        return value
    inboxes, index, run, counter = _run.active
    counter[0] += 1
    key = (run, counter[0])
    client = distributed.get_client()
    for j, name in enumerate(inboxes):
        if j != index:
            distributed.Queue(name, client=client).put((key, index, value))
    values = {index: value}
    pending = _run.pending.setdefault(inboxes[index], [])
    mine = distributed.Queue(inboxes[index], client=client)
    while len(values) < len(inboxes):
        found = [item for item in pending if item[0] == key]
        for item in found:
            pending.remove(item)
            values[item[1]] = item[2]
        if len(values) == len(inboxes):
            break
        pending.append(mine.get(timeout=TIMEOUT))
    ordered = [np.asarray(values[i]) for i in range(len(inboxes))]
    if reduce_op == "FIRST":
        return ordered[0]
    total = ordered[0].copy() if ordered[0].ndim else ordered[0]
    for more in ordered[1:]:
        total = total + more
    if reduce_op == "MEAN":
        total = total / len(ordered) if np.issubdtype(total.dtype, np.floating) \
            else total // len(ordered)
    return np.asarray(total, dtype=ordered[0].dtype)


collective.worker_exchange[0] = _exchange


def run_replica(payload: bytes, digest: str, state, inboxes: list, index: int, run: int,
                args: list) -> tuple:
    """One replica of strategy.run: (its outputs, the state after it when `index` is 0)."""
    prog = program(payload, digest)
    if state is not None:
        prog.set_state(list(state))
    _run.active = (inboxes, index, run, [0])
    try:
        outputs = prog.step(list(args))
        outputs = [np.asarray(o) for o in (outputs if isinstance(outputs, (list, tuple))
                                           else [outputs])]
    finally:
        _run.active = None
    return outputs, ([np.asarray(v) for v in prog.state()] if index == 0 else None)
