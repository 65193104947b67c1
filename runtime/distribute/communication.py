"""`rt.distribute.experimental.CommunicationOptions`: how multi-worker replicas communicate.
On Dask the gradients travel as Dask data whatever is chosen: the options are kept and change
nothing."""

from __future__ import annotations

import enum
from typing import Optional

from ..exports import export


@export("distribute.experimental.CommunicationImplementation")
class CommunicationImplementation(enum.Enum):
    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


@export("distribute.experimental.CommunicationOptions")
class CommunicationOptions:
    """Options of the collective communication (kept; Dask moves the data here)."""

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: Optional[float] = None,
                 implementation=CommunicationImplementation.AUTO) -> None:
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError(f"`implementation` must be a rt.distribute.experimental."
                             f"CommunicationImplementation, got {implementation!r}.")
        if not isinstance(bytes_per_pack, int) or bytes_per_pack < 0:
            raise ValueError(f"`bytes_per_pack` must be a non-negative int, got "
                             f"{bytes_per_pack!r}.")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation
