"""The distribution state ops and optimizers read without importing `runtime.distribute`:
the strategy entered by `strategy.scope()` and the replica a thread runs (both per thread),
and `rt.VariableAggregation` / `rt.VariableSynchronization`.

`runtime.distribute` fills these; below it, `rt.nn.compute_average_loss` asks how many
replicas there are, `rt.Variable` asks whether a strategy creates its variables, and an
optimizer asks whether its gradients are to be all-reduced first.
"""

from __future__ import annotations

import contextlib
import enum
import threading
from typing import Any, Iterator

from .exports import export


@export("VariableAggregation")
class VariableAggregation(enum.Enum):
    """How updates of a mirrored variable from several replicas are combined."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __repr__(self) -> str:
        return f"<VariableAggregation.{self.name}: {self.value}>"


@export("VariableSynchronization")
class VariableSynchronization(enum.Enum):
    """When a distributed variable's copies are brought in sync."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


def as_aggregation(value, what: str = "aggregation") -> VariableAggregation:
    """`value` (an enum member, its name in any case, or None) as a VariableAggregation."""
    if value is None:
        return VariableAggregation.NONE
    if isinstance(value, VariableAggregation):
        return value
    if isinstance(value, str) and value.upper() in VariableAggregation.__members__:
        return VariableAggregation[value.upper()]
    raise ValueError(f"`{what}` must be a rt.VariableAggregation (NONE, SUM, MEAN or "
                     f"ONLY_FIRST_REPLICA), got {value!r}.")


def as_synchronization(value) -> VariableSynchronization:
    if value is None:
        return VariableSynchronization.AUTO
    if isinstance(value, VariableSynchronization):
        return value
    if isinstance(value, str) and value.upper() in VariableSynchronization.__members__:
        return VariableSynchronization[value.upper()]
    raise ValueError(f"`synchronization` must be a rt.VariableSynchronization (AUTO, NONE, "
                     f"ON_WRITE or ON_READ), got {value!r}.")


class _State(threading.local):
    def __init__(self) -> None:
        self.strategies: list = []    # strategy.scope() stack of this thread
        self.replica: Any = None      # the ReplicaContext this thread runs, or None
        self.local_updates = 0        # >0: mirrored-variable writes skip their aggregation


state = _State()


def current_strategy():
    """The strategy of this thread's innermost `scope()` or replica, or None (the default)."""
    if state.replica is not None:
        return state.replica.strategy
    return state.strategies[-1] if state.strategies else None


def replica_context():
    """The ReplicaContext this thread runs in (inside `strategy.run`), or None."""
    return state.replica


def num_replicas_in_sync() -> int:
    strategy = current_strategy()
    return 1 if strategy is None else strategy.num_replicas_in_sync


def in_cross_replica_context() -> bool:
    """True in a strategy's scope outside `strategy.run` (TensorFlow's cross-replica context)."""
    return state.replica is None and bool(state.strategies)


def replica_id() -> int:
    """The replica this thread runs (0 outside `strategy.run`)."""
    replica = state.replica
    return 0 if replica is None else replica.replica_index


@contextlib.contextmanager
def local_updates() -> Iterator[None]:
    """Mirrored-variable writes inside go to this replica's copy as they are (the optimizer
    has all-reduced its gradients already), without the variable's aggregation."""
    state.local_updates += 1
    try:
        yield
    finally:
        state.local_updates -= 1


def variable_creator():
    """The function the current strategy creates variables with, or None (plain variables)."""
    strategy = current_strategy()
    return None if strategy is None else getattr(strategy, "_create_variable", None)
