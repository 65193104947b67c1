"""`ReplicaContext`: what a replica knows inside `strategy.run`, and its collective calls."""

from __future__ import annotations

from typing import Any, Callable

from .. import context, distribute_context, nest
from ..distribute_context import VariableAggregation
from ..exports import export
from ..ops import array_math
from .reduce_op import ReduceOp, as_reduce_op
from .replicas import collective_reduce, reduce_structures
from .values import DistributedValues, per_replica_of


@export("distribute.ReplicaContext")
class ReplicaContext:
    """The context of one replica inside `strategy.run`: its id, the number of replicas, and
    the collective calls (`all_reduce`, `all_gather`, `merge_call`) every replica makes."""

    def __init__(self, strategy, replica_id_in_sync_group: int, group=None, device: str = ""):
        self._strategy = strategy
        self._index = replica_id_in_sync_group
        self._group = group
        self.device = device
        self._created = 0

    @property
    def strategy(self):
        return self._strategy

    @property
    def replica_index(self) -> int:
        return self._index

    @property
    def num_replicas_in_sync(self) -> int:
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index, as an int32 tensor (as TensorFlow's)."""
        return array_math.cast(self._index, "int32")

    @property
    def devices(self) -> tuple:
        return (self.device,) if self.device else ()

    def _meets_now(self) -> bool:
        """True when the replicas can meet now (eagerly, or all tracing the caller's graph);
        False inside a function one replica traces (they meet when it runs)."""
        return context.current_graph() is self._group.graph

    def all_reduce(self, reduce_op, value, options=None) -> Any:
        """`value` (a tensor or a structure of them) summed or averaged over the replicas;
        every replica gets the result."""
        if options is not None:
            raise NotImplementedError("ReplicaContext.all_reduce(options=...) is not "
                                      "implemented: leave options out.")
        reduce_op = as_reduce_op(reduce_op)
        if self._group is None or self.num_replicas_in_sync == 1:
            return nest.map_structure(array_math.identity, value, expand_composites=False)
        if not self._meets_now():
            return nest.map_structure(lambda v: collective_reduce(reduce_op, v), value, expand_composites=False)
        merged = self._group.exchange(
            self._index, value,
            lambda values: [reduce_structures(reduce_op, values)] * len(values))
        return merged

    def all_gather(self, value, axis: int, options=None) -> Any:
        """Each replica's `value` concatenated along `axis`, on every replica."""
        if self._group is None or self.num_replicas_in_sync == 1:
            return value
        if not self._meets_now():
            raise NotImplementedError("ReplicaContext.all_gather inside a function traced by "
                                      "one replica is not implemented; call strategy.run from "
                                      "the traced function instead.")

        def merge(values):
            flat = [nest.flatten(v, expand_composites=False) for v in values]
            joined = [array_math.concat([f[i] for f in flat], axis) for i in range(len(flat[0]))]
            return [nest.pack_sequence_as(values[0], joined, expand_composites=False)] * len(values)
        return self._group.exchange(self._index, value, merge)

    def merge_call(self, merge_fn: Callable, args=(), kwargs=None) -> Any:
        """merge_fn(strategy, *args, **kwargs) once, in the cross-replica context, with each
        argument a PerReplica of the replicas' values; every replica gets its result."""
        kwargs = kwargs or {}
        if self._group is None or self.num_replicas_in_sync == 1:
            return merge_fn(self._strategy, *args, **kwargs)
        if not self._meets_now():
            raise NotImplementedError("merge_call inside a function traced by one replica is not "
                                      "implemented; call strategy.run from the traced function.")

        def merge(values):
            merged_args = per_replica_of([a for a, _ in values])
            merged_kwargs = per_replica_of([k for _, k in values])
            replica = distribute_context.state.replica
            distribute_context.state.replica = None
            distribute_context.state.strategies.append(self._strategy)
            try:
                result = merge_fn(self._strategy, *merged_args, **merged_kwargs)
            finally:
                distribute_context.state.strategies.pop()
                distribute_context.state.replica = replica
            return [_local(result, i) for i in range(len(values))]
        return self._group.exchange(self._index, (tuple(args), dict(kwargs)), merge)

    def _aggregate(self, aggregation: VariableAggregation, value):
        """The update every replica applies to its copy of a variable with `aggregation`."""
        if aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
            if not self._meets_now():
                return collective_reduce(ReduceOp.SUM, array_math.multiply(
                    value, array_math.cast(int(self._index == 0), value.dtype)))
            return self._group.exchange(self._index, value, lambda vs: [vs[0]] * len(vs))
        return self.all_reduce(ReduceOp.from_variable_aggregation(aggregation), value)

    def __repr__(self) -> str:
        return f"<rt.distribute.ReplicaContext replica {self._index} of " \
               f"{self.num_replicas_in_sync}>"


def _local(value, index: int):
    """A replica's part of a merge_call result (PerReplica leaves pick that replica's)."""
    return nest.map_structure(
        lambda v: v.values[index] if isinstance(v, DistributedValues) else v, value, expand_composites=False)
