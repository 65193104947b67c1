"""`rt.distribute.cluster_resolver`: which processes take part in multi-worker training.
`DaskClusterResolver(client)` lists the workers of a Dask cluster (one replica each)."""

from __future__ import annotations

from typing import Any

from ..exports import export

__all__ = ["ClusterResolver", "ClusterSpec", "DaskClusterResolver"]


@export("distribute.cluster_resolver.ClusterSpec")
class ClusterSpec:
    """The jobs of a cluster and their tasks' addresses (`as_dict()`, `job_tasks(job)`)."""

    def __init__(self, cluster: dict) -> None:
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec needs a dict of job name -> addresses, got {cluster!r}.")
        self._cluster = {job: list(tasks) for job, tasks in cluster.items()}

    def as_dict(self) -> dict:
        return {job: list(tasks) for job, tasks in self._cluster.items()}

    @property
    def jobs(self) -> list:
        return list(self._cluster)

    def num_tasks(self, job_name: str) -> int:
        return len(self._cluster[job_name])

    def job_tasks(self, job_name: str) -> list:
        return list(self._cluster[job_name])

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return f"ClusterSpec({self._cluster!r})"


@export("distribute.cluster_resolver.ClusterResolver")
class ClusterResolver:
    """The base of cluster resolvers: `cluster_spec()`, `task_type`, `task_id`."""

    task_type = "worker"
    task_id = 0
    rpc_layer = None

    def cluster_spec(self) -> ClusterSpec:
        raise NotImplementedError

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        return ""

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None) -> dict:
        return {}


@export("distribute.cluster_resolver.DaskClusterResolver")
class DaskClusterResolver(ClusterResolver):
    """The workers of the Dask cluster `client` is connected to: one replica per worker
    process, in the order of their addresses; this (client) process drives them.

        client = distributed.Client(distributed.LocalCluster(n_workers=2, threads_per_worker=1))
        strategy = rt.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=rt.distribute.cluster_resolver.DaskClusterResolver(client))
    """

    def __init__(self, client) -> None:
        if not hasattr(client, "nthreads") or not hasattr(client, "submit"):
            raise TypeError(f"DaskClusterResolver needs a distributed.Client, got {client!r}.")
        self.client = client
        self._workers = sorted(client.nthreads())  # asked of the scheduler now
        if not self._workers:
            raise ValueError("DaskClusterResolver: the Dask cluster has no workers; start "
                             "them (or wait with client.wait_for_workers(n)) first.")

    @property
    def workers(self) -> list:
        """The workers' addresses, one replica each (as when the resolver was made)."""
        return list(self._workers)

    def cluster_spec(self) -> ClusterSpec:
        return ClusterSpec({"worker": self.workers})

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        return self.client.scheduler.address

    def __repr__(self) -> str:
        return f"DaskClusterResolver({len(self._workers)} workers)"
