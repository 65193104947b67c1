"""`fit` under a distribution strategy: each batch split across the replicas, every replica
running the model's train step on its part at the same time, the gradients all-reduced.

Each replica's gradients are weighed by its share of the batch's samples before they are
summed, so a step gives the weights of one step on the whole batch, whatever the split
(TensorFlow splits a batch of b samples ceil(b / replicas) a replica). A replica left with no
samples (a short last batch) runs on one sample with weight 0, so it adds nothing.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

import numpy as np

from .. import distribute_context, nest
from ..distribute import get_replica_context, get_strategy
from ..distribute.input import split_batch
from ..distribute.values import MirroredVariable, per_replica_of

_weights: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


_created_in: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def created(model):
    """Notes the strategy whose scope `model` is made in (Model.__new__ calls this)."""
    strategy = distribute_context.current_strategy()
    if strategy is not None:
        try:
            _created_in[model] = strategy
        except TypeError:  # pragma: no cover - a model that cannot be weakly referenced
            pass
    return model


def _own_strategy(model):
    for var in getattr(model, "variables", ()):
        strategy = getattr(var, "_strategy", None)
        if strategy is not None:
            return strategy
    try:
        return _created_in.get(model)
    except TypeError:  # pragma: no cover
        return None


def model_strategy(model) -> Any:
    """`model.distribute_strategy`: the strategy it (or its variables) was made in, else the
    current one (the default strategy outside every scope)."""
    return _own_strategy(model) or get_strategy()


def _replicated(model):
    """The model's strategy when it has several replicas, else None."""
    strategy = _own_strategy(model) or distribute_context.current_strategy()
    if strategy is None or not hasattr(strategy, "_create_variable") or \
            strategy._create_variable is None:
        return None
    if getattr(strategy, "_client", None) is not None:
        return strategy  # replicas on Dask workers, even one
    return strategy if strategy.num_replicas_in_sync > 1 else None


def _weight_of(strategy) -> MirroredVariable:
    """A float32 variable holding each replica's share of the current batch."""
    found = _weights.get(strategy)
    if found is None:
        with strategy.scope():
            found = _weights[strategy] = MirroredVariable.make(
                strategy, (np.float32(1.0),), {"trainable": False, "name": "replica_share"})
    return found


def train_batch(model, step: Callable, totals, x, y, w, count: int) -> dict:
    """One training step on a batch: `step(x, y, w)` on one replica, or split across the
    replicas of the model's strategy. Adds the results to `totals`; returns the logs."""
    strategy = _replicated(model)
    if strategy is None:
        return totals.add(step(x, y, w), count)
    if hasattr(strategy, "_train_batch"):  # replicas elsewhere (Dask workers)
        return strategy._train_batch(model, totals, x, y, w, count)
    n = strategy.num_replicas_in_sync
    has_weights = w is not None
    parts = split_batch((x, y, w) if has_weights else (x, y), n)
    counts = [len(nest.flatten(p, expand_composites=False)[0]) for p in parts]
    total = sum(counts)
    share = _weight_of(strategy)
    for i in range(n):
        share._copies.values[i] = np.float32(counts[i] / total)
        if not counts[i]:  # one sample that weighs nothing: the replica still meets the others
            parts[i] = nest.map_structure(lambda t: t[:1], parts[0], expand_composites=False)

    def replica_step(part):
        get_replica_context()._gradient_weight = share
        return step(*part) if has_weights else step(*part, None)

    results = strategy.run(replica_step, args=(per_replica_of(parts),))
    logs: dict = {}
    for i, local in enumerate(strategy.experimental_local_results(results)):
        if counts[i]:
            logs = totals.add(local, counts[i])
    stateful = _stateful_metrics(model)
    if stateful and not isinstance(logs, dict) or stateful and totals.latest:
        # a metric object's result read here, outside the replicas, covers all of them
        for position in totals.latest:
            metric = stateful.get(totals.names[position]) if position < len(totals.names) \
                else None
            if metric is not None:
                totals.last[position] = _logged(metric.result())
        logs = totals.means()
    return logs


def _stateful_metrics(model) -> dict:
    trackers = getattr(model, "_metric_trackers", None)
    return dict(getattr(trackers[1], "_stateful", {})) if trackers else {}


def _logged(value):
    array = np.asarray(value)
    return float(array) if array.ndim == 0 else array


def epoch_batches(model, batches):
    """fit's batches of an epoch; a strategy whose replicas run elsewhere reads them one
    ahead, to send the next batch to its workers while this one trains."""
    strategy = _replicated(model)
    if strategy is not None and hasattr(strategy, "_look_ahead"):
        return strategy._look_ahead(model, batches)
    return batches


def end_epoch(model) -> None:
    """After an epoch's last batch, before the callbacks see the model: a strategy whose
    replicas run elsewhere brings their state back into the model."""
    strategy = _replicated(model)
    if strategy is not None and hasattr(strategy, "_end_epoch"):
        strategy._end_epoch(model)
