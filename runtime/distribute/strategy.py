"""Strategies: the default one (one replica), `OneDeviceStrategy`, `MirroredStrategy` (one
replica per logical device of this machine, run in threads), and the functions that report
the distribution state (`get_strategy`, `has_strategy`, ...)."""

from __future__ import annotations

import contextlib
import re
import weakref
from typing import Any, Callable, Iterator, Optional, Sequence

from .. import context, distribute_context, nest
from ..device_config import list_logical_devices
from ..exports import export
from ..function import Function, function
from ..ops import array_math
from ..ops.core import convert_to_tensor
from .context import ReplicaContext
from .input import (
    DistributedDataset,
    InputContext,
    InputOptions,
    ValueContext,
    datasets_from_function,
    distribute_dataset,
)
from .reduce_op import ReduceOp, as_reduce_op
from .replicas import reduce_tensors, run_replicas
from .values import DistributedValues, MirroredVariable, per_replica_of


class StrategyExtended:
    """`strategy.extended`: the devices, and TensorFlow's lower-level calls we support."""

    def __init__(self, strategy) -> None:
        self._strategy = strategy

    @property
    def worker_devices(self) -> tuple:
        return tuple(self._strategy._devices)

    @property
    def parameter_devices(self) -> tuple:
        return tuple(self._strategy._devices)

    @property
    def experimental_between_graph(self) -> bool:
        return False

    @property
    def should_checkpoint(self) -> bool:
        return True

    @property
    def should_save_summary(self) -> bool:
        return True

    def variable_created_in_scope(self, v) -> bool:
        return isinstance(v, MirroredVariable) and v._strategy is self._strategy

    def reduce_to(self, reduce_op, value, destinations=None, options=None):
        return self._strategy.reduce(reduce_op, value, axis=None)

    def batch_reduce_to(self, reduce_op, value_destination_pairs, options=None) -> list:
        return [self._strategy.reduce(reduce_op, v, axis=None) for v, _ in value_destination_pairs]


@export("distribute.Strategy")
class Strategy:
    """A way to run a computation on several replicas (TensorFlow's `tf.distribute.Strategy`).

    Variables made in `scope()` are mirrored on every replica; `run(fn, args)` calls `fn`
    once per replica with that replica's part of each distributed argument; `reduce`,
    `gather` and `experimental_local_results` bring the results together.
    """

    def __init__(self, devices: Sequence[str]) -> None:
        self._devices = list(devices)
        self.extended = StrategyExtended(self)
        self._wrapped: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

    # -- facts ------------------------------------------------------------------------------
    @property
    def num_replicas_in_sync(self) -> int:
        return len(self._devices)

    @property
    def cluster_resolver(self):
        return None

    # -- scope and variables ------------------------------------------------------------------
    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        """Variables (and models, optimizers) made inside belong to this strategy."""
        current = distribute_context.current_strategy()
        if current is not None and current is not self:
            raise ValueError(f"Mixing different rt.distribute.Strategy objects: entering the "
                             f"scope of {self!r} inside the scope of {current!r}; leave the "
                             f"other scope first.")
        distribute_context.state.strategies.append(self)
        try:
            yield self
        finally:
            distribute_context.state.strategies.pop()

    def _create_variable(self, *args, **kwargs) -> MirroredVariable:
        """rt.Variable(...) inside this strategy: a mirrored variable. Replicas that create
        variables inside `run` share them by creation order (the first one makes each)."""
        replica = distribute_context.state.replica
        if replica is None or replica._group is None:
            return MirroredVariable.make(self, args, kwargs)
        group, k = replica._group, replica._created
        replica._created += 1
        with group.create_lock:
            if k < len(group.created):
                return group.created[k]
            with context.init_scope():
                var = MirroredVariable.make(self, args, kwargs)
            group.created.append(var)
            return var

    # -- running ------------------------------------------------------------------------------
    def run(self, fn: Callable, args=(), kwargs=None, options=None) -> Any:
        """fn(*args, **kwargs) on every replica; PerReplica arguments give each replica its
        own value. Returns PerReplica values (the plain result with one replica)."""
        if options is not None:
            raise NotImplementedError("Strategy.run(options=...) is not implemented: leave "
                                      "options out.")
        if not callable(fn):
            raise TypeError(f"Strategy.run: `fn` must be callable, got {fn!r}.")
        kwargs = dict(kwargs or {})
        if distribute_context.state.replica is not None:
            raise RuntimeError("Strategy.run was called inside a replica (inside another "
                               "strategy.run); call it from the cross-replica context.")
        n = self.num_replicas_in_sync
        fn = self._traceable(fn)
        per_replica = [_local_args(i, args, kwargs) for i in range(n)]
        results = run_replicas(self, self._replica_context, fn, per_replica)
        return results[0] if n == 1 else per_replica_of(results)

    def _replica_context(self, group, index: int) -> ReplicaContext:
        return ReplicaContext(self, index, group, self._devices[index])

    def _traceable(self, fn: Callable) -> Callable:
        """While a function traces, a plain Python `fn` is converted by autograph (as
        TensorFlow's strategy.run does) by calling it as an rt.function, which inlines it."""
        if context.current_graph() is None or isinstance(fn, Function):
            return fn
        try:
            found = self._wrapped.get(fn)
        except TypeError:
            return function(fn)
        if found is None:
            found = function(fn)
            try:
                self._wrapped[fn] = found
            except TypeError:
                pass
        return found

    # -- bringing results together ---------------------------------------------------------
    def experimental_local_results(self, value) -> tuple:
        """The values of each replica held by `value` (a tuple; one item for a plain value)."""
        n = self.num_replicas_in_sync
        return tuple(nest.map_structure(lambda v, i=i: _local_value(v, i, n), value, expand_composites=False)
                     for i in range(n)) if nest.is_nested(value) else \
            tuple(_local_value(value, i, n) for i in range(n)) \
            if isinstance(value, (DistributedValues, MirroredVariable)) else (value,)

    def reduce(self, reduce_op, value, axis: Optional[int] = None) -> Any:
        """The replicas' values of `value` summed or averaged into one (a structure: leaf by
        leaf); with `axis`, each value is also reduced along that axis (MEAN: over every
        element of all replicas)."""
        reduce_op = as_reduce_op(reduce_op)
        if distribute_context.state.replica is not None:
            raise RuntimeError("Strategy.reduce is a cross-replica call; inside strategy.run "
                               "use rt.distribute.get_replica_context().all_reduce.")
        return nest.map_structure(lambda v: self._reduce_one(reduce_op, v, axis), value, expand_composites=False)

    def _reduce_one(self, reduce_op: ReduceOp, value, axis):
        locals_ = [convert_to_tensor(v) for v in self._locals_or_broadcast(value, reduce_op)]
        if axis is None:
            return reduce_tensors(reduce_op, locals_)
        sums = [array_math.reduce_sum(v, axis=axis) for v in locals_]
        total = reduce_tensors(ReduceOp.SUM, sums)
        if reduce_op is ReduceOp.MEAN:
            count = reduce_tensors(ReduceOp.SUM, [
                array_math.cast(array_math.shape(v)[axis], total.dtype) for v in locals_])
            total = array_math.divide(total, count)
        return total

    def _locals_or_broadcast(self, value, reduce_op=None) -> list:
        if isinstance(value, (DistributedValues, MirroredVariable)):
            return list(self.experimental_local_results(value))
        if reduce_op is ReduceOp.SUM and self.num_replicas_in_sync > 1:
            raise ValueError(f"A non-DistributedValues value {value!r} cannot be reduced with "
                             f"the given reduce op ReduceOp.SUM.")
        return [value] if reduce_op is not None else [value] * self.num_replicas_in_sync

    def gather(self, value, axis: int) -> Any:
        """The replicas' values of `value` concatenated along `axis` (structures leaf by leaf)."""
        if distribute_context.state.replica is not None:
            raise RuntimeError("Strategy.gather is a cross-replica call; inside strategy.run "
                               "use rt.distribute.get_replica_context().all_gather.")
        return nest.map_structure(
            lambda v: array_math.concat(self._locals_or_broadcast(v), axis), value, expand_composites=False)

    # -- input ----------------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None) -> DistributedDataset:
        """`dataset`'s batches (global batches) split across the replicas, as TensorFlow
        splits them: each batch of b elements gives every replica ceil(b / replicas) of
        them in order, so the last replicas get fewer (or none) from a short batch."""
        return distribute_dataset(self, dataset, _check_options(options))

    def distribute_datasets_from_function(self, dataset_fn: Callable,
                                          options=None) -> DistributedDataset:
        """`dataset_fn(input_context)` gives each replica its dataset (of per-replica batches;
        one input pipeline on one machine, so the function is called once per replica with
        the same InputContext ... as TensorFlow, once per worker)."""
        return datasets_from_function(self, dataset_fn, _check_options(options))

    def experimental_distribute_values_from_function(self, value_fn: Callable) -> Any:
        """PerReplica of value_fn(ValueContext) for each replica."""
        n = self.num_replicas_in_sync
        values = [value_fn(ValueContext(i, n)) for i in range(n)]
        return values[0] if n == 1 else per_replica_of(values)

    def __repr__(self) -> str:
        return f"<rt.distribute.{type(self).__name__} with {self.num_replicas_in_sync} " \
               f"replica(s)>"


def _check_options(options):
    if options is not None and not isinstance(options, InputOptions):
        raise TypeError(f"`options` must be a rt.distribute.InputOptions, got {options!r}.")
    return options


def _local_value(value, index: int, n: int):
    if isinstance(value, DistributedValues):
        return value.values[index]
    if isinstance(value, MirroredVariable):
        return value.values[index]
    return value


def _local_args(index: int, args, kwargs) -> tuple:
    def pick(v):
        return v.values[index] if isinstance(v, DistributedValues) else v
    return (nest.map_structure(pick, tuple(args), expand_composites=False),
            nest.map_structure(pick, kwargs, expand_composites=False))


class _DefaultStrategy(Strategy):
    """The strategy in force outside every scope: one replica, the variables plain."""

    _create_variable = None  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__(["/job:localhost/replica:0/task:0/device:CPU:0"])

    @contextlib.contextmanager
    def scope(self) -> Iterator["Strategy"]:
        yield self

    def run(self, fn: Callable, args=(), kwargs=None, options=None) -> Any:
        if options is not None:
            raise NotImplementedError("Strategy.run(options=...) is not implemented: leave "
                                      "options out.")
        return fn(*args, **(kwargs or {}))

    def experimental_distribute_dataset(self, dataset, options=None):
        return dataset

    def distribute_datasets_from_function(self, dataset_fn: Callable, options=None):
        return dataset_fn(InputContext())


_DEVICE = re.compile(r"^(?:/job:[^/]+)?(?:/replica:\d+)?(?:/task:\d+)?/?(?:device:)?"
                     r"(CPU|GPU|TPU):(\d+)$", re.IGNORECASE)


def _canonical_device(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"devices: each device must be a str such as 'CPU:0', got {name!r}.")
    match = _DEVICE.match(name.strip())
    if match is None:
        raise ValueError(f"devices: {name!r} is not a device name such as 'CPU:0' or "
                         f"'/device:CPU:1'.")
    kind, index = match.group(1).upper(), int(match.group(2))
    known = {d.name for d in list_logical_devices()}
    if f"/device:{kind}:{index}" not in known:
        raise ValueError(f"devices: {name!r} is not a logical device of this machine (there "
                         f"are {sorted(known)}); split the CPU with rt.config."
                         f"set_logical_device_configuration first.")
    return f"/job:localhost/replica:0/task:0/device:{kind}:{index}"


@export("distribute.CrossDeviceOps")
class CrossDeviceOps:
    """How replicas' values are reduced across devices. The replicas here are threads of one
    process that reduce in memory, so every choice gives the same results."""

    def __init__(self, *args, **kwargs) -> None:
        self._args = (args, kwargs)

    def __repr__(self) -> str:
        return f"rt.distribute.{type(self).__name__}()"


@export("distribute.ReductionToOneDevice")
class ReductionToOneDevice(CrossDeviceOps):
    """Reduce on one device, then broadcast (the same results here)."""


@export("distribute.HierarchicalCopyAllReduce")
class HierarchicalCopyAllReduce(CrossDeviceOps):
    """TensorFlow's hierarchical copy all-reduce for GPUs (the same results here)."""


@export("distribute.NcclAllReduce")
class NcclAllReduce(CrossDeviceOps):
    """TensorFlow's NCCL all-reduce for GPUs (the same results here)."""


@export("distribute.MirroredStrategy")
class MirroredStrategy(Strategy):
    """Synchronous training on the logical devices of this machine: one replica per device,
    each in its own thread, variables mirrored, gradients all-reduced.

        cpu = rt.config.list_physical_devices("CPU")[0]
        rt.config.set_logical_device_configuration(
            cpu, [rt.config.LogicalDeviceConfiguration()] * 2)
        strategy = rt.distribute.MirroredStrategy(["CPU:0", "CPU:1"])

    Without `devices`, every logical CPU (there are no GPUs here).
    """

    def __init__(self, devices: Optional[Sequence[str]] = None, cross_device_ops=None) -> None:
        if cross_device_ops is not None and not isinstance(cross_device_ops, CrossDeviceOps):
            raise TypeError(f"MirroredStrategy: cross_device_ops must be an "
                            f"rt.distribute.CrossDeviceOps (such as "
                            f"HierarchicalCopyAllReduce()), got {cross_device_ops!r}.")
        if devices is None:  # every logical CPU (TensorFlow takes the GPUs, else the CPUs)
            devices = [d.name for d in list_logical_devices("CPU")]
        if isinstance(devices, str):
            devices = [devices]
        devices = [_canonical_device(d) for d in devices]
        if not devices:
            raise ValueError("MirroredStrategy needs at least one device.")
        if len(set(devices)) != len(devices):
            raise ValueError(f"MirroredStrategy: a device is listed twice in {devices}.")
        super().__init__(devices)


@export("distribute.experimental.CentralStorageStrategy")
class CentralStorageStrategy(MirroredStrategy):
    """TensorFlow's central-storage strategy: variables on one device, computation mirrored
    on the others. The replicas here share the host's memory, so it trains as
    MirroredStrategy does (over `compute_devices`, every logical CPU by default)."""

    def __init__(self, compute_devices: Optional[Sequence[str]] = None,
                 parameter_device: Optional[str] = None) -> None:
        if parameter_device is not None:
            _canonical_device(parameter_device)
        super().__init__(compute_devices)


@export("distribute.OneDeviceStrategy")
class OneDeviceStrategy(Strategy):
    """Everything on one device: one replica, plain variables."""

    _create_variable = None  # type: ignore[assignment]

    def __init__(self, device: str) -> None:
        super().__init__([_canonical_device(device)])


_default: list = [None]
_default_replica: list = [None]


def default_strategy() -> Strategy:
    if _default[0] is None:
        _default[0] = _DefaultStrategy()
    return _default[0]


@export("distribute.get_strategy")
def get_strategy() -> Strategy:
    """The strategy of the current scope or replica; the default strategy (one replica, this
    device) when there is none."""
    return distribute_context.current_strategy() or default_strategy()


@export("distribute.has_strategy")
def has_strategy() -> bool:
    """True inside a strategy's scope or run (not the default strategy)."""
    return distribute_context.current_strategy() is not None


@export("distribute.in_cross_replica_context")
def in_cross_replica_context() -> bool:
    """True in a strategy's scope outside `strategy.run`."""
    return distribute_context.in_cross_replica_context()


@export("distribute.get_replica_context")
def get_replica_context() -> Optional[ReplicaContext]:
    """The ReplicaContext inside `strategy.run`; None in the cross-replica context; outside
    every strategy, the default strategy's replica context."""
    replica = distribute_context.state.replica
    if replica is not None:
        return replica
    if distribute_context.state.strategies:
        return None
    if _default_replica[0] is None:
        _default_replica[0] = ReplicaContext(default_strategy(), 0)
    return _default_replica[0]


@export("distribute.get_cross_replica_context")
def get_cross_replica_context() -> Optional[Strategy]:
    """The strategy in the cross-replica context; None inside a replica."""
    if distribute_context.state.replica is not None:
        return None
    return get_strategy()
