"""Distributed input: a dataset of global batches split across the replicas
(`experimental_distribute_dataset`), or one dataset per input pipeline
(`distribute_datasets_from_function`); `InputContext`, `InputOptions`, `ValueContext`."""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from .. import context, nest
from ..errors import OutOfRangeError
from ..exports import export
from ..shapes import TensorShape, TensorSpec
from ..tensor import EagerTensor
from .values import PerReplica


@export("distribute.InputContext")
class InputContext:
    """What a `dataset_fn` of `distribute_datasets_from_function` is told: the input pipelines
    (one per worker), which one this is, and the replicas in sync."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1) -> None:
        self._num_input_pipelines = int(num_input_pipelines)
        self._input_pipeline_id = int(input_pipeline_id)
        self._num_replicas_in_sync = int(num_replicas_in_sync)

    @property
    def num_input_pipelines(self) -> int:
        return self._num_input_pipelines

    @property
    def input_pipeline_id(self) -> int:
        return self._input_pipeline_id

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """global_batch_size / num_replicas_in_sync; ValueError when it does not divide."""
        if global_batch_size % self._num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync

    def __repr__(self) -> str:
        return (f"rt.distribute.InputContext(input pipeline id {self._input_pipeline_id}, "
                f"total: {self._num_input_pipelines})")


@export("distribute.InputOptions")
@dataclasses.dataclass(frozen=True)
class InputOptions:
    """Options of distributed input; accepted for TensorFlow compatibility (prefetching to
    devices changes nothing here: the replicas share the host's memory)."""

    experimental_fetch_to_device: Optional[bool] = None
    experimental_replication_mode: Any = None
    experimental_place_dataset_on_device: bool = False
    experimental_per_replica_buffer_size: int = 1


@export("distribute.experimental.ValueContext")
class ValueContext:
    """What `experimental_distribute_values_from_function`'s function is told."""

    def __init__(self, replica_id_in_sync_group: int = 0, num_replicas_in_sync: int = 1):
        self._replica_id = replica_id_in_sync_group
        self._num = num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        return self._replica_id

    @property
    def num_replicas_in_sync(self) -> int:
        return self._num


def split_batch(element, n: int) -> list:
    """One global batch (a structure of arrays or tensors with a common first axis of b) as
    `n` per-replica batches: replica i gets rows [i*c, (i+1)*c) with c = ceil(b / n), the
    way TensorFlow rebatches (the last replicas get fewer, or none)."""
    leaves = nest.flatten(element, expand_composites=False)
    arrays = [np.asarray(leaf) for leaf in leaves]
    if not arrays or any(a.ndim == 0 for a in arrays):
        raise ValueError("experimental_distribute_dataset needs a batched dataset (each "
                         "element a batch with a first axis to split across the replicas); "
                         "call dataset.batch(global_batch_size) first.")
    b = len(arrays[0])
    if any(len(a) != b for a in arrays):
        raise ValueError(f"experimental_distribute_dataset: the components of a batch have "
                         f"different batch sizes {[len(a) for a in arrays]}.")
    chunk = -(-b // n)
    parts = []
    for i in range(n):
        lo, hi = min(i * chunk, b), min((i + 1) * chunk, b)
        parts.append(nest.pack_sequence_as(element, [EagerTensor(a[lo:hi]) for a in arrays], expand_composites=False))
    return parts


def _combine(parts: list):
    """Per-replica structures as one structure of PerReplica leaves."""
    flat = [nest.flatten(p, expand_composites=False) for p in parts]
    return nest.pack_sequence_as(parts[0], [PerReplica([f[i] for f in flat])
                                            for i in range(len(flat[0]))], expand_composites=False)


def _unknown_batch(spec):
    if isinstance(spec, TensorSpec) and spec.shape.rank:
        return TensorSpec(TensorShape([None] + spec.shape.as_list()[1:]), spec.dtype)
    return spec


@export("distribute.DistributedDataset")
class DistributedDataset:
    """A dataset whose elements are PerReplica batches (iterate it, or `iter()` it for a
    `DistributedIterator`)."""

    def __init__(self, strategy, make_iterator: Callable[[], Any], element_spec) -> None:
        self._strategy = strategy
        self._make = make_iterator
        self._element_spec = element_spec

    @property
    def element_spec(self):
        """The spec of an element: each component a PerReplica spec of one TensorSpec per
        replica (their batch size unknown), as TensorFlow's PerReplicaSpec; usable as an
        rt.function's input_signature. With one replica, the TensorSpecs themselves."""
        n = self._strategy.num_replicas_in_sync
        if n == 1:
            return nest.map_structure(_unknown_batch, self._element_spec,
                                      expand_composites=False)
        return nest.map_structure(lambda s: PerReplica.Spec(values=(_unknown_batch(s),) * n),
                                  self._element_spec, expand_composites=False)

    def __iter__(self) -> "DistributedIterator":
        if context.current_graph() is not None:
            raise NotImplementedError("Iterating a DistributedDataset inside an rt.function is "
                                      "not implemented: iterate it outside and pass each "
                                      "element to the function.")
        return DistributedIterator(self._strategy, self._make(), self.element_spec)

    def reduce(self, initial_state, reduce_fn: Callable):
        """reduce_fn(state, element) over the elements, from `initial_state`."""
        state = initial_state
        for element in self:
            state = reduce_fn(state, element)
        return state


@export("distribute.DistributedIterator")
class DistributedIterator:
    """Gives the next PerReplica batch (`next(it)`, `it.get_next()`)."""

    def __init__(self, strategy, source, element_spec) -> None:
        self._strategy = strategy
        self._source = source
        self._element_spec = element_spec

    @property
    def element_spec(self):
        return self._element_spec

    def __iter__(self) -> "DistributedIterator":
        return self

    def __next__(self):
        return next(self._source)

    def get_next(self):
        """The next element; OutOfRangeError at the end, as TensorFlow's."""
        try:
            return next(self._source)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None



def _elements(dataset):
    """The elements of a dataset (or any iterable), eagerly."""
    return iter(dataset)


def distribute_dataset(strategy, dataset, options) -> DistributedDataset:
    n = strategy.num_replicas_in_sync

    def batches():
        for element in _elements(dataset):
            parts = split_batch(element, n)
            yield parts[0] if n == 1 else _combine(parts)
    return DistributedDataset(strategy, batches, getattr(dataset, "element_spec", None))


def datasets_from_function(strategy, dataset_fn: Callable, options) -> DistributedDataset:
    n = strategy.num_replicas_in_sync
    dataset = dataset_fn(InputContext(1, 0, n))

    def batches():
        source = _elements(dataset)
        while True:
            parts = []
            for element in source:
                parts.append(element)
                if len(parts) == n:
                    break
            if not parts:
                return
            while len(parts) < n:  # the data ran out inside a round: empty batches
                parts.append(nest.map_structure(
                    lambda t: EagerTensor(np.asarray(t)[:0]), parts[0], expand_composites=False))
            yield parts[0] if n == 1 else _combine(parts)
    return DistributedDataset(strategy, batches, getattr(dataset, "element_spec", None))
