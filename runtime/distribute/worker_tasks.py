"""What runs on the Dask workers of a MultiWorkerMirroredStrategy: each worker holds one
replica, a saved program (the model's and optimizer's variables with the functions that
compute gradients, apply them and read or set the state), loaded once per process."""

from __future__ import annotations

import hashlib
import threading

import numpy as np

from .. import saved_model

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


def replica_step(payload: bytes, digest: str, state, total, x, y, share: float,
                 n_logs: int) -> tuple:
    """One replica's step: set the state (first step of an epoch), apply the previous
    step's summed gradients, then (logs, gradients) of this replica's part of the batch."""
    prog = program(payload, digest)
    if state is not None:
        prog.set_state(list(state))
    if total is not None:
        prog.apply(list(total[0]))
    out = [np.asarray(o) for o in prog.grads(x, y, np.float32(share))]
    return out[:n_logs], out[n_logs:]


def sum_gradients(*results) -> tuple:
    """(the replicas' gradients summed, each replica's logs): the all-reduce of a step."""
    grads = [np.array(g, copy=True) for g in results[0][1]]
    for _, more in results[1:]:
        for total, g in zip(grads, more):
            total += g
    return grads, [logs for logs, _ in results]


def logs_of(summed: tuple) -> list:
    return summed[1]


def final_state(payload: bytes, digest: str, state, total) -> list:
    """The state after the last step of an epoch (its gradients applied)."""
    prog = program(payload, digest)
    if state is not None:
        prog.set_state(list(state))
    if total is not None:
        prog.apply(list(total[0]))
    return [np.asarray(v) for v in prog.state()]
