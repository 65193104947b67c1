"""The all-reduce ops of replicated programs, declared with the other ops so the registry is
whole whichever modules a program loaded (rt.distribute builds them, its strategies run them).

`CollectiveReduce` is the meeting point of the replica threads of a MirroredStrategy: its
kernel waits for every replica's value (the replica context of runtime.distribute_context
holds the group). `WorkerAllReduce` is the meeting point of replicas on Dask workers: its
kernel calls the exchange a worker installs in `worker_exchange`; outside such a run both are
the identity (one replica).
"""

from __future__ import annotations

import numpy as np

from .. import distribute_context
from ..attr_kinds import one_of
from ..opdef import Effect, define
from ..tensor import EagerTensor, SymbolicTensor, Tensor
from .core import apply, convert_to_tensor


def _as_tensor(value) -> Tensor:
    return value if isinstance(value, (EagerTensor, SymbolicTensor)) else convert_to_tensor(value)


def _collective_infer(x, reduce_op):
    return x.shape, x.dtype


def _collective_kernel(x, reduce_op):
    replica = distribute_context.state.replica
    if replica is None or replica.num_replicas_in_sync == 1:
        return x  # the function runs outside strategy.run: one replica

    def merge(values):
        total = np.sum(np.stack([np.asarray(v) for v in values]), axis=0)
        if reduce_op == "MEAN":
            total = total / len(values) if np.issubdtype(total.dtype, np.floating) \
                else total // len(values)
        total = np.asarray(total, dtype=np.asarray(x).dtype)
        return [total] * len(values)

    return replica._group.exchange(replica.replica_index, x, merge)


COLLECTIVE_REDUCE = define("CollectiveReduce", _collective_infer, _collective_kernel,
                           effects=Effect.IO, savable=False,
                           attrs={"reduce_op": one_of("SUM", "MEAN")})


@COLLECTIVE_REDUCE.def_grad
def _collective_grad(op, g):
    return [apply(COLLECTIVE_REDUCE, [g], {"reduce_op": op.attrs["reduce_op"]})]


def collective_reduce(reduce_op: str, value) -> Tensor:
    """An all-reduce op ("SUM" or "MEAN") in the function being traced (replicas meet when it
    runs)."""
    return apply(COLLECTIVE_REDUCE, [_as_tensor(value)], {"reduce_op": reduce_op})


worker_exchange: list = [None]  # fn(value, reduce_op) -> the reduced value, on Dask workers


def _worker_kernel(x, reduce_op):
    exchange = worker_exchange[0]
    return x if exchange is None else exchange(np.asarray(x), reduce_op)


WORKER_ALL_REDUCE = define("WorkerAllReduce", _collective_infer, _worker_kernel,
                           effects=Effect.IO,
                           attrs={"reduce_op": one_of("SUM", "MEAN", "FIRST")})


@WORKER_ALL_REDUCE.def_grad
def _worker_grad(op, g):
    return [apply(WORKER_ALL_REDUCE, [g], {"reduce_op": op.attrs["reduce_op"]})]


def worker_reduce(reduce_op: str, value) -> Tensor:
    """An all-reduce across the Dask workers' replicas, in the program being traced."""
    return apply(WORKER_ALL_REDUCE, [_as_tensor(value)], {"reduce_op": reduce_op})
