"""`MultiWorkerMirroredStrategy` on a Dask cluster: one replica per worker process, driven
from this (client) process, on Dask's own scheduling and communication.

Each replica is a Dask actor on its worker, made once per program (Keras `fit` ships the
model as a saved program: its variables, the optimizer's, and the functions that compute a
replica's gradients and apply summed ones; `strategy.run` ships the traced function). The
replicas keep their variables between steps. A step is one direct message from the driver
to each worker with its part of the batch, and one reply with the logs: no task graph, no
scheduler round trip, no parameters through the driver. The replicas send their gradients
to each other, worker to worker, and each applies their sum in replica order (the
all-reduce), so they stay equal. `fit` sends each next batch before waiting for the last
one's logs, so the workers go from one step to the next without waiting for the driver.
After each epoch the driver's model takes the first replica's state. A worker lost mid-fit
raises `rt.errors.UnavailableError` naming it, and the driver's model keeps the state of
the last completed epoch (never a half-applied step).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any, Iterator, Optional

import distributed
import numpy as np
from distributed.actor import ProxyRPC
from distributed.protocol import to_serialize

from .. import context, distribute_context, nest
from ..distribute_context import VariableAggregation
from ..errors import UnavailableError
from ..exports import export
from ..function import function
from ..gradients import GradientTape
from ..module import Module
from ..ops import array_math
from ..ops.collective import worker_reduce
from ..ops.core import convert_to_tensor
from ..ops.py_function import py_function
from ..saved_model import dumps
from ..saved_model.graph_io import variables_read
from ..shapes import TensorShape, TensorSpec
from ..tensor import EagerTensor, Tensor
from . import worker_tasks
from .cluster_resolver import ClusterResolver, DaskClusterResolver
from .communication import CommunicationOptions
from .context import ReplicaContext
from .input import split_batch
from .reduce_op import ReduceOp, as_reduce_op
from .strategy import Strategy, StrategyExtended, _local_args
from .values import per_replica_of

_END = object()
POLL = 0.5  # seconds between checks that the workers are still there while a step runs
LOSS_GRACE = 15.0  # seconds to wait for the scheduler to notice a worker lost mid-call


class _MultiWorkerExtended(StrategyExtended):
    @property
    def experimental_between_graph(self) -> bool:
        return True

    @property
    def should_checkpoint(self) -> bool:
        return True  # the driver holds the model: it writes checkpoints


@export("distribute.MultiWorkerMirroredStrategy",
        "distribute.experimental.MultiWorkerMirroredStrategy")
class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data-parallel training on the workers of a Dask cluster (one replica
    each), given `cluster_resolver=DaskClusterResolver(client)`; without a resolver, one
    local replica (as TensorFlow without TF_CONFIG).

    `fit` of a model made in `scope()` runs on the workers: each global batch is split
    across them as `experimental_distribute_dataset` splits it, their gradients are summed
    (weighed by each part's share of the batch), and the weights equal those of `fit` in
    one process on the global batch.
    """

    _variable_copies = 1  # the driver keeps one copy; the replicas live on the workers

    def __init__(self, cluster_resolver: Optional[ClusterResolver] = None,
                 communication_options=None) -> None:
        if communication_options is not None and \
                not isinstance(communication_options, CommunicationOptions):
            raise TypeError(f"MultiWorkerMirroredStrategy: communication_options must be an "
                            f"rt.distribute.experimental.CommunicationOptions, got "
                            f"{communication_options!r}.")
        if cluster_resolver is None:
            self._resolver, self._client, self._workers = None, None, []
            devices = ["/job:localhost/replica:0/task:0/device:CPU:0"]
        elif isinstance(cluster_resolver, DaskClusterResolver):
            self._resolver = cluster_resolver
            self._client = cluster_resolver.client
            self._workers = cluster_resolver.workers
            devices = [f"/job:worker/replica:0/task:{i}/device:CPU:0"
                       for i in range(len(self._workers))]
        else:
            raise TypeError(f"MultiWorkerMirroredStrategy: cluster_resolver must be an "
                            f"rt.distribute.cluster_resolver.DaskClusterResolver(client), got "
                            f"{cluster_resolver!r}.")
        super().__init__(devices)
        self.extended = _MultiWorkerExtended(self)
        self._sessions: dict = {}
        self._run_programs: dict = {}
        self._upcoming: dict = {}  # id(model) -> fit's next batch, while an epoch runs

    @property
    def cluster_resolver(self):
        return self._resolver

    def run(self, fn, args=(), kwargs=None, options=None) -> Any:
        """fn(*args, **kwargs) on every worker, as Dask tasks: `fn` is traced here once (per
        argument specs) into a program with the variables it uses, which each worker loads
        and keeps; its all-reduces (an optimizer's gradients, `all_reduce`, aggregated
        variable writes) meet the other replicas through Dask queues. After each run the
        variables here take the first worker's values."""
        if self._client is None:
            return super().run(fn, args, kwargs, options)
        if options is not None:
            raise NotImplementedError("Strategy.run(options=...) is not implemented: leave "
                                      "options out.")
        if distribute_context.state.replica is not None:
            raise RuntimeError("Strategy.run was called inside a replica; call it from the "
                               "cross-replica context.")
        kwargs = dict(kwargs or {})
        n = self.num_replicas_in_sync
        per_replica = [_local_args(i, args, kwargs) for i in range(n)]
        if context.current_graph() is not None:
            return self._staged_run(fn, per_replica)
        with self._guard():
            program = self._run_program(fn, per_replica[0])
            return program.run(self, per_replica)

    def _staged_run(self, fn, per_replica: list) -> Any:
        """strategy.run while a function traces: one op that runs the replicas on the
        workers each time the function runs (TensorFlow's pattern of a compiled step that
        calls strategy.run)."""
        n = self.num_replicas_in_sync
        with context.init_scope():
            program = self._run_program(fn, per_replica[0])
        k = len(program.tensor_positions)
        inputs = []
        for args, kwargs in per_replica:
            leaves = nest.flatten((args, kwargs), expand_composites=False)
            inputs += [convert_to_tensor(leaves[p]) for p in program.tensor_positions]
        out_leaves = nest.flatten(program.out_structure, expand_composites=False)
        m = len(out_leaves)
        specs = [TensorSpec(o.shape, o.dtype) for o in out_leaves] * n

        def run_on_workers(*values):
            replicas = [program.rebuild(values[i * k:(i + 1) * k]) for i in range(n)]
            with self._guard():
                result = program.run(self, replicas)
            flat = nest.flatten(result, expand_composites=False)
            return [leaf.values[i] if hasattr(leaf, "values") else leaf
                    for i in range(n) for leaf in flat]

        outs = py_function(run_on_workers, inputs, specs)
        outputs = [nest.pack_sequence_as(program.out_structure, list(outs[i * m:(i + 1) * m]),
                                         expand_composites=False) for i in range(n)]
        return per_replica_of(outputs)

    def _run_program(self, fn, first) -> "_RunProgram":
        program = _RunProgram(self, fn, first)
        found = self._run_programs.get(program.key)
        if found is None:
            found = self._run_programs[program.key] = program.build()
        return found

    # -- fit (called by runtime.layers.distributed_fit) --------------------------------------
    def _train_batch(self, model, totals, x, y, w, count: int) -> dict:
        if self._client is None:
            raise NotImplementedError("fit under MultiWorkerMirroredStrategy without a cluster "
                                      "runs as one replica")  # pragma: no cover - not routed
        session = self._sessions.get(id(model))
        if session is None or session.model is not model:
            session = self._sessions[id(model)] = _FitSession(self, model)
        with self._guard():
            try:
                return session.step(totals, x, y, w, self._upcoming.get(id(model)))
            except BaseException:
                session.abandon()
                raise

    def _look_ahead(self, model, batches) -> Iterator:
        """fit's batches of an epoch, one read ahead: while a batch trains, the next is
        known (`_train_batch` sends it to the workers before waiting for this one)."""
        iterator = iter(batches)
        current = next(iterator, _END)
        try:
            while current is not _END:
                upcoming = next(iterator, _END)
                self._upcoming[id(model)] = None if upcoming is _END else upcoming
                yield current
                current = upcoming
        finally:
            self._upcoming.pop(id(model), None)

    def _end_epoch(self, model) -> None:
        session = self._sessions.get(id(model))
        if session is not None and session.model is model:
            with self._guard():
                try:
                    session.end_epoch()
                except BaseException:
                    session.abandon()
                    raise

    # -- faults ------------------------------------------------------------------------------
    def _check_workers(self) -> None:
        # asked of the scheduler now: the client's scheduler_info() is a copy refreshed every
        # few seconds, which may not list a worker that joined just before the strategy
        alive = set(self._client.nthreads())
        for index, address in enumerate(self._workers):
            if address not in alive:
                raise UnavailableError(
                    f"Dask worker {address} (replica {index} of "
                    f"{self.num_replicas_in_sync}) is unavailable: it left the cluster during "
                    f"training. The model keeps the state of its last completed epoch; "
                    f"restart the worker, make a new strategy and call fit again (with "
                    f"rt.keras.callbacks.BackupAndRestore to resume from that epoch).")

    def _wait_futures(self, futures: list) -> list:
        """The futures' results, once all are done (UnavailableError if a worker is lost)."""
        pending = threading.Semaphore(0)
        for future in futures:
            future.add_done_callback(lambda _: pending.release())
        for _ in futures:
            while not pending.acquire(timeout=POLL):
                self._check_workers()
        return [future.result() for future in futures]

    def _rpc(self, address: str):
        client = self._client
        if client.direct_to_workers is False:  # the client may only reach the scheduler
            return ProxyRPC(client.scheduler, address)
        return client.rpc(address)

    def _start_actor_calls(self, calls: list) -> "_Calls":
        """Sends calls (address, actor key, seq, method, args) to actors, without waiting."""
        pending = _Calls()

        async def one(address, key, seq, method, args):
            reply = await self._rpc(address).actor_execute(
                actor=key, function="call", args=[seq, method, [to_serialize(a) for a in args]],
                kwargs={})
            if reply["status"] != "OK":
                raise reply["exception"]
            return reply["result"]

        async def every():
            try:
                pending.value = await asyncio.gather(*(one(*call) for call in calls))
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                pending.error = exc
            finally:
                pending.done.set()

        self._client.loop.add_callback(every)
        return pending

    def _finish(self, pending: "_Calls") -> list:
        """The results of calls sent by _start_actor_calls, once all have come back."""
        while not pending.done.wait(POLL):
            self._check_workers()
        if pending.error is not None:
            raise pending.error
        return list(pending.value)

    def _abort_actors(self, actors: list, futures: list) -> None:
        """Wakes actors waiting for a lost replica and ends them (without waiting for them
        to answer); their futures are let go after that, so Dask drops the actors then."""
        async def abort(address, key, keep):
            with contextlib.suppress(Exception):
                await self._rpc(address).actor_execute(actor=key, function="abort",
                                                       args=[], kwargs={})

        for (address, key), future in zip(actors, futures):
            self._client.loop.add_callback(abort, address, key, future)

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """Errors of a lost worker (closed connections, killed tasks) as UnavailableError
        naming it: the scheduler notices the loss within moments."""
        try:
            yield
        except UnavailableError:
            raise
        except Exception as exc:  # noqa: BLE001 - a lost worker shows as many errors
            if not _is_comm_error(exc):
                raise
            deadline = time.monotonic() + LOSS_GRACE
            while True:
                self._check_workers()  # raises UnavailableError naming the lost worker
                if time.monotonic() > deadline:
                    raise UnavailableError(f"A Dask worker of the strategy could not be "
                                           f"reached: {exc}") from exc
                time.sleep(POLL)


def _is_comm_error(exc: BaseException) -> bool:
    return isinstance(exc, (OSError, distributed.comm.CommClosedError)) or \
        type(exc).__name__ in ("KilledWorker", "FutureCancelledError", "CancelledError")


class _Calls:
    """Calls to replicas in flight: set when all have answered."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Optional[list] = None
        self.error: Optional[BaseException] = None


class _Replicas:
    """The replicas of one program on the workers: a Dask actor each (made once, with the
    program), called directly over the client's connections to the workers, so a call is
    one message to each worker and its reply; no task is built and the scheduler is not
    involved. The calls to a replica are numbered: it runs them in that order. The replicas
    send their all-reduced values to each other, never here."""

    def __init__(self, strategy: "MultiWorkerMirroredStrategy", payload, digest: str) -> None:
        client = strategy._client
        self.strategy = strategy
        n = strategy.num_replicas_in_sync
        self.futures = [client.submit(worker_tasks.Replica, payload, digest, i, n,
                                      workers=[address], allow_other_workers=False,
                                      actor=True, pure=False)
                        for i, address in enumerate(strategy._workers)]
        strategy._wait_futures(self.futures)
        self.keys = [future.key for future in self.futures]
        self.seqs = [0] * n
        peers = list(zip(strategy._workers, self.keys))
        self.call("connect", [(peers,)] * n)
        self.synced: Optional[list] = None  # the replicas' state, as last sent or received

    def start(self, method: str, per_replica: list,
              replicas: Optional[list] = None) -> _Calls:
        """Sends method(*args) to each replica (args per replica), without waiting."""
        indices = list(range(len(per_replica))) if replicas is None else replicas
        calls = []
        for i, args in zip(indices, per_replica):
            calls.append((self.strategy._workers[i], self.keys[i], self.seqs[i], method, args))
            self.seqs[i] += 1
        return self.strategy._start_actor_calls(calls)

    def call(self, method: str, per_replica: list, replicas: Optional[list] = None) -> list:
        """method(*args) on each replica, their results in order."""
        return self.strategy._finish(self.start(method, per_replica, replicas))

    def sync_state(self, state: list) -> None:
        """The replicas take `state` unless they hold it already."""
        if self.synced is None or len(state) != len(self.synced) or \
                any(not np.array_equal(a, b) for a, b in zip(state, self.synced)):
            self.call("set_state", [(state,)] * len(self.keys))
            self.synced = [np.array(v, copy=True) for v in state]

    def release(self) -> None:
        """Wakes replicas that wait for a lost one and lets Dask drop them all."""
        self.strategy._abort_actors(list(zip(self.strategy._workers, self.keys)), self.futures)
        self.futures = []


class _FitSession:
    """The replicas of one model on the workers, for `fit`. Each step sends the next batch
    too (when fit's loop has it): the workers go on to it as soon as they finish this one,
    instead of waiting for this step's logs to reach the driver and the next batch to come
    back. A step sent ahead that fit does not take (it stopped) is rolled back."""

    def __init__(self, strategy: MultiWorkerMirroredStrategy, model) -> None:
        self.strategy = strategy
        self.model = model
        self.client = strategy._client
        self.programs: dict = {}
        self.program = None
        self.replicas: Optional[_Replicas] = None
        self.stepped = False   # a step ran since the driver's model took the replicas' state
        self.totals = None     # the current epoch's (fit makes new totals each epoch)
        self.ahead = None      # (x, y, counts, calls) of the step sent ahead

    @staticmethod
    def _arrays(x, y, w):
        if w is not None:
            raise NotImplementedError("fit under MultiWorkerMirroredStrategy does not take "
                                      "sample_weight or class_weight yet: leave them out.")
        if nest.is_nested(x) or nest.is_nested(y):
            raise NotImplementedError("fit under MultiWorkerMirroredStrategy takes one input "
                                      "array and one target array.")
        return np.asarray(x), np.asarray(y)

    @staticmethod
    def _key(x, y) -> tuple:
        return (x.dtype.str, x.shape[1:], y.dtype.str, y.shape[1:])

    def _program_for(self, x, y) -> "_Program":
        key = self._key(x, y)
        found = self.programs.get(key)
        if found is None:
            found = self.programs[key] = _Program(self.model, x, y, self.client)
        return found

    def _send(self, program, x, y) -> tuple:
        """Sends a step on (x, y) to the replicas: (the parts' sizes, the calls)."""
        n = self.strategy.num_replicas_in_sync
        parts = split_batch((x, y), n)
        counts = [len(p[0]) for p in parts]
        total = sum(counts)
        per_replica = []
        for i in range(n):
            part = parts[i] if counts[i] else tuple(np.asarray(t)[:1] for t in parts[0])
            xs, ys = (np.asarray(t) for t in part)
            per_replica.append((xs, ys, counts[i] / total, program.n_logs))
        self.stepped = True
        self.replicas.synced = None  # they move on from the state last seen here
        return counts, self.replicas.start("step", per_replica)

    def _drop_ahead(self) -> None:
        """Rolls back the step sent ahead, if any (its gradients are not applied)."""
        if self.ahead is not None:
            calls, self.ahead = self.ahead[3], None
            self.strategy._finish(calls)
            self.replicas.call("rollback", [()] * len(self.replicas.keys))

    def step(self, totals, x, y, w, upcoming=None) -> dict:
        original = (x, y)
        x, y = self._arrays(x, y, w)
        program = self._program_for(x, y)
        if program is not self.program:
            self.end_epoch()
            self.release()
            self.program = program
        if self.replicas is None:
            self.replicas = _Replicas(self.strategy, program.payload_on(self.client),
                                      program.digest)
        sent = None
        if self.ahead is not None:
            if self.ahead[0] is original[0] and self.ahead[1] is original[1] and \
                    totals is self.totals:
                sent, self.ahead = self.ahead[2:], None
            else:
                self._drop_ahead()
        if totals is not self.totals:  # a new epoch: the driver's model may have changed
            if self.stepped:           # the last one did not end (fit raised): start over
                self.replicas.synced = None
            self.replicas.sync_state(program.current_state())
            self.totals = totals
        counts, calls = sent if sent is not None else self._send(program, x, y)
        if upcoming is not None and upcoming[2] is None and \
                not (nest.is_nested(upcoming[0]) or nest.is_nested(upcoming[1])):
            ux, uy = np.asarray(upcoming[0]), np.asarray(upcoming[1])
            if self._key(ux, uy) == self._key(x, y):
                self.ahead = (upcoming[0], upcoming[1], *self._send(program, ux, uy))
        result: dict = {}
        for i, replica_logs in enumerate(self.strategy._finish(calls)):
            if counts[i]:
                result = totals.add(program.unpack_logs(replica_logs), counts[i])
        return result

    def release(self) -> None:
        if self.replicas is not None:
            self.replicas.release()
        self.replicas = None
        self.stepped = False
        self.ahead = None
        self.totals = None

    def abandon(self) -> None:
        """After a failure: drop the replicas and the steps in flight (the driver keeps its
        last epoch)."""
        self.release()
        self.program = None

    def end_epoch(self) -> None:
        """The driver's model takes the first replica's state (the last step applied)."""
        if self.program is None or self.replicas is None or not self.stepped:
            return
        self._drop_ahead()
        values = self.replicas.call("state", [()], replicas=[0])[0]
        self.program.set_driver_state(values)
        self.replicas.synced = [np.array(v, copy=True) for v in values]
        self.stepped = False
        self.totals = None


def _spec_of(array: np.ndarray) -> TensorSpec:
    return TensorSpec(TensorShape([None, *array.shape[1:]]), array.dtype)


def _state_module(state_vars: list) -> type:
    """A Module class whose saved functions read (`state`) and write (`set_state`) the
    variables `state_vars`: how a worker's program and the driver exchange their state."""
    state_specs = [TensorSpec(v.shape, v.dtype) for v in state_vars]

    class StateModule(Module):
        @function(input_signature=[state_specs])
        def set_state(self, values):
            for var, value in zip(state_vars, values):
                var.assign(value)
            return convert_to_tensor(0)

        @function(input_signature=[])
        def state(self):
            return [var.read_value() for var in state_vars]

    return StateModule


class _Program:
    """A model's training step as a saved program for the workers."""

    def __init__(self, model, x, y, client) -> None:
        if not model.variables:  # a model built by its first call: build it here, in scope
            with model.distribute_strategy.scope():
                model(x[:1])
        optimizer = model.optimizer
        trainable = list(model.trainable_variables)
        optimizer.build(trainable)
        state_vars, seen = [], set()
        for var in list(model.variables) + list(optimizer.variables):
            if id(var) not in seen:
                seen.add(id(var))
                state_vars.append(var)
        loss_fn = model._compiled_loss
        named = _stateless_metrics(model)
        self.n_logs = 1 + 2 * len(named)
        self.state_vars = state_vars
        grad_specs = [TensorSpec(v.shape, v.dtype) for v in trainable]

        class Program(_state_module(state_vars)):
            @function(input_signature=[_spec_of(x), _spec_of(y), TensorSpec([], "float32")])
            def grads(self, xb, yb, share):
                with GradientTape() as tape:
                    prediction = model(xb, training=True)
                    loss = sum(model.losses, loss_fn(yb, prediction, None))
                    scaled = loss * array_math.cast(share, loss.dtype)
                grads = tape.gradient(scaled, trainable, unconnected_gradients="zero")
                logs = [loss]
                for _, fn in named:
                    mean, counted = fn(yb, prediction, None)
                    logs += [array_math.cast(mean, "float32"), array_math.cast(counted, "float32")]
                return logs + list(grads)

            @function(input_signature=[grad_specs])
            def apply(self, grads):
                optimizer.apply_gradients(zip(grads, trainable))
                return optimizer.iterations.read_value()

        program = Program()
        program.tracked = state_vars
        self.payload = dumps(program)
        self.digest = worker_tasks.digest_of(self.payload)
        self._shipped: dict = {}

    def payload_on(self, client):
        found = self._shipped.get(id(client))
        if found is None:
            found = self._shipped[id(client)] = client.scatter(self.payload, broadcast=True,
                                                               hash=False)
        return found

    def current_state(self) -> list:
        return [np.asarray(var.numpy()) for var in self.state_vars]

    def set_driver_state(self, values: list) -> None:
        for var, value in zip(self.state_vars, values):
            var.assign(value)

    def unpack_logs(self, logs: list) -> list:
        out = [float(logs[0])]
        for i in range(1, len(logs), 2):
            out.append((float(logs[i]), float(logs[i + 1])))
        return out


def _stateless_metrics(model) -> list:
    """The compiled metrics as (name, step fn) pairs; stateful metric objects are refused."""
    trackers = getattr(model, "_metric_trackers", None)
    named = getattr(trackers[1], "_named", []) if trackers else []
    stateful = getattr(trackers[1], "_stateful", {}) if trackers else {}
    if stateful:
        raise NotImplementedError(f"fit under MultiWorkerMirroredStrategy does not take "
                                  f"stateful metric objects yet ({sorted(stateful)}): pass "
                                  f"metric names or functions such as 'accuracy'.")
    return list(named)


# == strategy.run on the workers ===================================================================

class _TraceGroup:
    """Stands for the replicas' group while a run program traces (they meet on the workers)."""

    def __init__(self) -> None:
        self.graph = None
        self.created: list = []
        self.create_lock = threading.Lock()


class _WorkerReplicaContext(ReplicaContext):
    """The replica context a run program is traced in: its all-reduces are WorkerAllReduce
    ops, where the replicas meet when the program runs on the workers."""

    def _meets_now(self) -> bool:
        return False

    def all_reduce(self, reduce_op, value, options=None) -> Any:
        if options is not None:
            raise NotImplementedError("ReplicaContext.all_reduce(options=...) is not "
                                      "implemented: leave options out.")
        op = as_reduce_op(reduce_op).value
        return nest.map_structure(lambda v: worker_reduce(op, v), value,
                                  expand_composites=False)

    def _aggregate(self, aggregation, value):
        if aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
            return worker_reduce("FIRST", value)
        return worker_reduce(ReduceOp.from_variable_aggregation(aggregation).value, value)


def _any_batch(spec: TensorSpec) -> TensorSpec:
    dims = spec.shape.as_list() if spec.shape.rank is not None else None
    if not dims:
        return spec
    return TensorSpec(TensorShape([None] + dims[1:]), spec.dtype)


class _RunProgram:
    """`fn` of strategy.run traced into a program for the workers."""

    def __init__(self, strategy, fn, first) -> None:
        self.strategy, self.fn = strategy, fn
        args, kwargs = first
        self.structure = (args, kwargs)
        leaves = nest.flatten(self.structure, expand_composites=False)
        self.tensor_positions = [i for i, leaf in enumerate(leaves)
                                 if isinstance(leaf, (Tensor, np.ndarray))]
        self.constants = [None if i in self.tensor_positions else leaf
                          for i, leaf in enumerate(leaves)]
        self.specs = [_any_batch(TensorSpec.from_tensor(convert_to_tensor(leaves[i])))
                      for i in self.tensor_positions]
        self.key = (fn, tuple(str(s) for s in self.specs),
                    tuple(repr(c) for c in self.constants))

    def rebuild(self, flat) -> tuple:
        """(args, kwargs) of one replica from its tensors."""
        leaves = list(self.constants)
        for position, value in zip(self.tensor_positions, flat):
            leaves[position] = value
        return nest.pack_sequence_as(self.structure, leaves, expand_composites=False)

    def _call(self, flat):
        args, kwargs = self.rebuild(flat)
        out = self.fn(*args, **kwargs)
        self.out_structure = out
        return [convert_to_tensor(o) for o in nest.flatten(out, expand_composites=False)]

    def build(self) -> "_RunProgram":
        strategy = self.strategy
        replica = _WorkerReplicaContext(strategy, 0, _TraceGroup(), strategy._devices[0])
        saved = distribute_context.state.replica
        distribute_context.state.replica = replica
        try:
            probe = function(self._call, input_signature=[self.specs])
            state_vars = variables_read(probe.get_concrete_function())
            call = self._call
            specs = self.specs

            class RunProgram(_state_module(state_vars)):
                @function(input_signature=[specs])
                def step(self, flat):
                    return call(flat)

            module = RunProgram()
            module.tracked = state_vars
            module.step.get_concrete_function()
            self.payload = dumps(module)
        finally:
            distribute_context.state.replica = saved
        self.state_vars = state_vars
        self.digest = worker_tasks.digest_of(self.payload)
        self._payload = None
        self.replicas: Optional[_Replicas] = None
        return self

    def _state_here(self) -> list:
        return [np.asarray(v.numpy()) for v in self.state_vars]

    def run(self, strategy, per_replica: list) -> Any:
        if self.replicas is None:
            client = strategy._client
            if self._payload is None:
                self._payload = client.scatter(self.payload, broadcast=True, hash=False)
            self.replicas = _Replicas(strategy, self._payload, self.digest)
        replicas = self.replicas
        here = self._state_here()
        state = None
        if replicas.synced is None or any(not np.array_equal(a, b)
                                          for a, b in zip(here, replicas.synced)):
            state = here
        calls = []
        for args, kwargs in per_replica:
            leaves = nest.flatten((args, kwargs), expand_composites=False)
            calls.append((state, [np.asarray(leaves[p]) for p in self.tensor_positions]))
        replicas.synced = None
        try:
            results = replicas.call("run", calls)
        except BaseException:
            self.release()
            raise
        state_after = results[0][1]
        for var, value in zip(self.state_vars, state_after):
            var.assign(value)
        replicas.synced = [np.array(v, copy=True) for v in state_after]
        outputs = [nest.pack_sequence_as(self.out_structure, [EagerTensor(o) for o in outs],
                                         expand_composites=False) for outs, _ in results]
        return per_replica_of(outputs)

    def release(self) -> None:
        if self.replicas is not None:
            self.replicas.release()
        self.replicas = None
