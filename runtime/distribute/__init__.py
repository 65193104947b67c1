"""`rt.distribute`: TensorFlow's distribution API. Strategies run a computation on several
replicas: `MirroredStrategy` on the logical devices of this machine (threads),
`MultiWorkerMirroredStrategy` on the workers of a Dask cluster; the default strategy is one
replica. See docs/distribute.md.
"""

import importlib as _importlib
import types as _types

from .. import distribute_context as _distribute_context  # noqa: F401
from . import cluster_resolver
from .communication import CommunicationImplementation, CommunicationOptions
from .context import ReplicaContext
from .input import (
    DistributedDataset,
    DistributedIterator,
    InputContext,
    InputOptions,
    ValueContext,
)
from .reduce_op import ReduceOp
from .strategy import (
    CentralStorageStrategy,
    CrossDeviceOps,
    HierarchicalCopyAllReduce,
    MirroredStrategy,
    NcclAllReduce,
    OneDeviceStrategy,
    ReductionToOneDevice,
    Strategy,
    StrategyExtended,
    get_cross_replica_context,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from .values import DistributedValues, MirroredVariable, PerReplica

__all__ = ["CrossDeviceOps", "HierarchicalCopyAllReduce", "NcclAllReduce",
           "ReductionToOneDevice", "DistributedDataset", "DistributedIterator", "DistributedValues", "InputContext",
           "InputOptions", "MirroredStrategy", "MirroredVariable", "OneDeviceStrategy",
           "PerReplica", "ReduceOp", "ReplicaContext", "Strategy", "StrategyExtended",
           "ValueContext", "get_cross_replica_context", "get_replica_context", "get_strategy",
           "cluster_resolver", "has_strategy", "in_cross_replica_context"]



def __getattr__(name):
    # the multi-worker strategy needs Dask (the extra [dask]): loaded when first asked for
    if name == "MultiWorkerMirroredStrategy":
        return _importlib.import_module(".multi_worker", __name__).MultiWorkerMirroredStrategy
    raise AttributeError(f"module 'runtime.distribute' has no attribute {name!r}")


class _Experimental(_types.SimpleNamespace):
    def __getattr__(self, name):
        if name == "MultiWorkerMirroredStrategy":
            return __getattr__(name)
        raise AttributeError(f"rt.distribute.experimental has no attribute {name!r}")


experimental = _Experimental(ValueContext=ValueContext, CentralStorageStrategy=CentralStorageStrategy,
                             CommunicationOptions=CommunicationOptions,
                             CommunicationImplementation=CommunicationImplementation)
