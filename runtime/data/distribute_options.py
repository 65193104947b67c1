"""`rt.data.experimental.AutoShardPolicy` and `DistributeOptions`: how a dataset is sharded
across workers (`options.experimental_distribute.auto_shard_policy`). A multi-worker strategy
here hands each replica its part of every global batch, so the policy is kept and changes
nothing."""

from __future__ import annotations

import enum


class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class DistributeOptions:
    """`Options.experimental_distribute`: `auto_shard_policy` and `num_devices` (kept)."""

    def __init__(self) -> None:
        self._policy = AutoShardPolicy.AUTO
        self.num_devices = None

    @property
    def auto_shard_policy(self) -> AutoShardPolicy:
        return self._policy

    @auto_shard_policy.setter
    def auto_shard_policy(self, value) -> None:
        try:
            self._policy = AutoShardPolicy(value)
        except ValueError:
            raise ValueError(f"auto_shard_policy must be a rt.data.experimental.AutoShardPolicy "
                             f"(OFF, AUTO, FILE, DATA, HINT), got {value!r}.") from None
