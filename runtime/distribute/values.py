"""Distributed values: one value per replica (`PerReplica`), the same value on every replica
(`Mirrored`), and mirrored variables (one copy per replica, kept equal by their aggregation).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import context, distribute_context, nest
from .. import tf_types as _tf_types
from ..distribute_context import VariableAggregation, VariableSynchronization
from ..exports import export
from ..ops.core import apply, convert_to_tensor
from ..ops.extension_type import ExtensionType
from ..ops.variables import ASSIGN, Variable
from ..tensor import Tensor

_ids = itertools.count(10 ** 9)


@export("distribute.DistributedValues")
class DistributedValues:
    """Values of several replicas (`values`, a tuple: one per replica);
    `strategy.experimental_local_results(v)` lists them."""

    values: tuple

    def _value_for(self, index: int):
        return self.values[index]

    def __repr__(self) -> str:
        items = ",\n".join(f"  {i}: {v!r}" for i, v in enumerate(self.values))
        return f"{_shown_name(self)}:{{\n{items}\n}}"

    __str__ = __repr__


def _shown_name(value) -> str:
    return "PerReplica" if isinstance(value, _PerReplicaObjects) else type(value).__name__


@export("distribute.PerReplica")
class PerReplica(DistributedValues, ExtensionType):
    """A tensor per replica (what `strategy.run` returns, a distributed dataset's batches).
    A composite value: an rt.function takes it as its tensors, traced by their specs."""

    values: tuple[Tensor, ...]

    def __init__(self, values) -> None:
        self.values = tuple(values)


class _PerReplicaObjects(DistributedValues):
    """Per-replica values that are not tensors (Python objects)."""

    def __init__(self, values) -> None:
        self.values = tuple(values)


class Mirrored(DistributedValues):
    """The same value on every replica (an all-reduced result)."""

    def __init__(self, values) -> None:
        self.values = tuple(values)


def per_replica(values: list) -> DistributedValues:
    """PerReplica of `values`, or of Python objects when they are not all tensors."""
    if all(isinstance(v, Tensor) for v in values):
        return PerReplica(values)
    try:
        return PerReplica([convert_to_tensor(v) for v in values])
    except (TypeError, ValueError):
        return _PerReplicaObjects(values)


def per_replica_of(values: list) -> Any:
    """Replica results (one structure each) as one structure of PerReplica leaves; a result
    that is the same Python object on every replica (None, a number) stays itself."""
    flat = [nest.flatten(v, expand_composites=False) for v in values]
    if any(len(f) != len(flat[0]) for f in flat):
        raise ValueError("strategy.run: the replicas returned structures of different sizes.")
    leaves = []
    for i in range(len(flat[0])):
        items = [f[i] for f in flat]
        if all(item is items[0] for item in items) and not isinstance(items[0], Tensor):
            leaves.append(items[0])
        else:
            leaves.append(per_replica(items))
    return nest.pack_sequence_as(values[0], leaves, expand_composites=False)


def _replica_index(var) -> int:
    """The copy of `var` this thread reads: its replica's, or -1 outside the strategy's run."""
    replica = distribute_context.state.replica
    if replica is None or replica.strategy is not var._strategy:
        return -1
    return replica.replica_index


class _Copies:
    """The per-replica values of a mirrored variable."""

    __slots__ = ("values",)

    def __init__(self, n: int) -> None:
        self.values: list = [None] * n


def _get_value(self):
    index = _replica_index(self)
    copies = self._copies.values
    if index < 0 and self._synchronization is VariableSynchronization.ON_READ \
            and len(copies) > 1 and copies[0] is not None:
        total = copies[0]  # read outside the replicas: the copies combined
        for more in copies[1:]:
            total = total + more
        if self._aggregation is VariableAggregation.MEAN:
            total = total / len(copies)
        return np.asarray(total, dtype=self._np_dtype) if np.ndim(total) else \
            self._np_dtype.type(total)
    return copies[max(index, 0)]


def _set_value(self, value) -> None:
    index = _replica_index(self)
    copies = self._copies.values
    if index >= 0:
        copies[index] = value
        return
    copies[0] = value  # outside the replicas: every copy takes the value
    on_read_sum = self._synchronization is VariableSynchronization.ON_READ and \
        self._aggregation is VariableAggregation.SUM
    for i in range(1, len(copies)):
        if on_read_sum:  # the copies add up to the value
            copies[i] = np.zeros_like(value) if isinstance(value, np.ndarray) else \
                self._np_dtype.type(0)
        else:
            copies[i] = value.copy() if isinstance(value, np.ndarray) else value


class MirroredVariable(Variable):
    """A variable with one copy per replica of its strategy.

    Each replica thread reads and writes its own copy; outside `strategy.run` reads see the
    first copy and writes go to all. In a replica, a write first combines the replicas'
    values by the variable's `aggregation` (SUM, MEAN, ONLY_FIRST_REPLICA), so the copies
    stay equal; with NONE each replica writes its own copy, as in TensorFlow (except when
    `strategy.run` is traced inside an rt.function: there the first replica's write goes to
    every copy).
    """

    _value = property(_get_value, _set_value)  # type: ignore[assignment]
    _host = property(_get_value, _set_value)  # type: ignore[assignment]

    def __init__(self, *args, **kwargs) -> None:
        if not getattr(self, "_made", False):
            raise TypeError("MirroredVariable is made by a strategy: create an rt.Variable "
                            "inside `strategy.scope()`.")

    @classmethod
    def make(cls, strategy, args: tuple, kwargs: dict) -> "MirroredVariable":
        self = object.__new__(cls)
        self._strategy = strategy
        self._copies = _Copies(getattr(strategy, "_variable_copies", None)
                               or strategy.num_replicas_in_sync)
        replica, distribute_context.state.replica = distribute_context.state.replica, None
        try:  # the initial value goes to every copy
            Variable.__init__(self, *args, **kwargs)
        finally:
            distribute_context.state.replica = replica
        self._views: dict = {}
        self._made = True
        return self

    # -- copies --------------------------------------------------------------------------
    @property
    def values(self) -> tuple:
        """One variable per replica (views of the copies)."""
        return tuple(self._view(i) for i in range(len(self._copies.values)))

    def _view(self, index: int) -> "ReplicaView":
        view = self._views.get(index)
        if view is None:
            view = self._views[index] = ReplicaView(self, index)
        return view

    def _shared_graph_view(self):
        """While strategy.run traces every replica into one graph: this replica's copy as a
        variable of its own (for variables synchronized on read), else None."""
        replica = distribute_context.state.replica
        if (self._synchronization is VariableSynchronization.ON_READ and replica is not None
                and replica.strategy is self._strategy and replica._group is not None
                and replica._group.graph is not None and context.current_graph() is not None):
            return self._view(replica.replica_index)
        return None

    def _as_tensor(self):
        view = self._shared_graph_view()
        return Variable._as_tensor(self) if view is None else view._as_tensor()

    def _write(self, value, mode, what, read_value):
        value = self._check(value, what)
        replica = distribute_context.state.replica
        if self._synchronization is VariableSynchronization.ON_READ:
            # each replica keeps its own part; reads outside the replicas combine them
            view = self._shared_graph_view()
            apply(ASSIGN, [value], {"var": self if view is None else view, "mode": mode})
            return self if read_value else None
        if replica is not None and replica.strategy is self._strategy:
            if (not distribute_context.state.local_updates
                    and self._aggregation is not VariableAggregation.NONE
                    and replica.num_replicas_in_sync > 1):
                value = replica._aggregate(self._aggregation, value)
            if replica._group.graph is not None and context.current_graph() is not None \
                    and replica.replica_index != 0:
                # every replica traced into one graph, which runs on one thread: there the
                # first replica's write updates all the copies (writes outside the replicas
                # go to every copy), and the others' equal writes are left out
                return self if read_value else None
        apply(ASSIGN, [value], {"var": self, "mode": mode})
        return self if read_value else None

    def __repr__(self) -> str:
        items = ",\n".join(f"  {i}: {Variable.__repr__(v)}" for i, v in enumerate(self.values))
        return f"MirroredVariable:{{\n{items}\n}}"


class ReplicaView(Variable):
    """One replica's copy of a mirrored variable, as a variable of its own."""

    _value = property(lambda self: self._mirrored._copies.values[self._index],  # type: ignore
                      lambda self, v: self._mirrored._copies.values.__setitem__(self._index, v))
    _host = _value  # type: ignore[assignment]

    def __init__(self, mirrored: MirroredVariable, index: int) -> None:  # noqa: D107
        self._mirrored = mirrored
        self._index = index
        self._id = next(_ids)
        self._name = mirrored._name if index == 0 else \
            f"{mirrored._name[:-2]}/replica_{index}:0"
        self._dtype = mirrored._dtype
        self._np_dtype = mirrored._np_dtype
        self._shape = mirrored._shape
        self.trainable = mirrored.trainable
        self._lock = mirrored._lock
        self._aggregation = mirrored._aggregation
        self._synchronization = mirrored._synchronization


# rt.types.experimental.distributed's types, as TensorFlow's values are instances of them
for _cls in (PerReplica, _PerReplicaObjects):
    _tf_types.PerReplica.register(_cls)
for _cls in (Mirrored, MirroredVariable):
    _tf_types.Mirrored.register(_cls)
