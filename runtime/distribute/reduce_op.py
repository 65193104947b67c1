"""`rt.distribute.ReduceOp`: how values of several replicas are combined."""

from __future__ import annotations

import enum

from ..exports import export


@export("distribute.ReduceOp")
class ReduceOp(enum.Enum):
    """SUM adds the replicas' values; MEAN averages them."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation) -> "ReduceOp":
        from_name = {"SUM": ReduceOp.SUM, "MEAN": ReduceOp.MEAN}
        name = getattr(aggregation, "name", aggregation)
        if name not in from_name:
            raise ValueError(f"Could not convert from {aggregation!r} to a ReduceOp: only SUM "
                             f"and MEAN aggregations have one.")
        return from_name[name]

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}: '{self.value}'>"

    def __str__(self) -> str:
        return f"ReduceOp.{self.name}"


def as_reduce_op(value, what: str = "reduce_op") -> ReduceOp:
    """A ReduceOp from itself or its name ("SUM", "mean", ...)."""
    if isinstance(value, ReduceOp):
        return value
    if isinstance(value, str) and value.upper() in ReduceOp.__members__:
        return ReduceOp[value.upper()]
    raise ValueError(f"`{what}` must be a rt.distribute.ReduceOp (SUM or MEAN) or its name, "
                     f"got {value!r}.")
