"""More of `rt.train` (TensorFlow's `tf.train`): `ExponentialMovingAverage` (shadow variables
that follow variables), `ClusterSpec` (a cluster's jobs and task addresses),
`CheckpointOptions`, `Coordinator` (stopping a group of threads together) and
`checkpoints_iterator` (new checkpoints of a directory as they appear)."""

from __future__ import annotations

import threading
import time
from typing import Any, Optional

from ..checkpoint import latest_checkpoint
from ..checkpoint.views import check_sharding_callback
from ..cluster_def import ClusterDef
from ..context import init_scope
from ..ops import array_math
from ..ops.variables import Variable


class ExponentialMovingAverage:
    """Shadow copies of variables that move towards them at each `apply`:
    `shadow -= (1 - decay) * (shadow - variable)`; with `num_updates` (a number or a
    variable, read at each apply) the decay is at most (1 + num_updates) / (10 +
    num_updates), so early averages follow faster. `average(var)` is var's shadow."""

    def __init__(self, decay, num_updates=None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage") -> None:
        if zero_debias:
            raise NotImplementedError("ExponentialMovingAverage(zero_debias=True) is not "
                                      "implemented here; leave zero_debias=False.")
        self._decay, self._num_updates, self._name = decay, num_updates, name
        self._averages: dict[int, Variable] = {}

    name = property(lambda self: self._name)

    def _decay_now(self):
        decay = array_math.cast(self._decay, "float32")
        if self._num_updates is None:
            return decay
        updates = array_math.cast(self._num_updates, "float32")
        return array_math.minimum(decay, (1.0 + updates) / (10.0 + updates))

    def apply(self, var_list=None) -> None:
        """Creates the shadows of `var_list` that do not exist yet (starting at the
        variables' values), then moves every shadow of `var_list` towards its variable."""
        var_list = list(var_list or [])
        for var in var_list:
            if not isinstance(var, Variable) or not var.dtype.is_floating:
                raise TypeError(f"ExponentialMovingAverage.apply takes float variables, got "
                                f"{var!r:.80}.")
            if id(var) not in self._averages:
                with init_scope():
                    self._averages[id(var)] = Variable(var.read_value(), trainable=False,
                                                       name=self.average_name(var))
        decay = self._decay_now()
        for var in var_list:
            shadow = self._averages[id(var)]
            factor = array_math.cast(1.0 - decay, var.dtype)
            shadow.assign_sub(factor * (shadow.read_value() - var.read_value()))

    def average(self, var) -> Optional[Variable]:
        """The shadow variable of `var` (None before `apply` was given it)."""
        return self._averages.get(id(var))

    def average_name(self, var) -> str:
        """`<variable name>/<this object's name>`, the shadow's name."""
        return f"{var.name.split(':')[0]}/{self._name}"


class ClusterSpec:
    """A cluster's jobs and their tasks' network addresses: built from {job: [addresses]}
    (tasks 0, 1, ...) or {job: {task index: address}}, another ClusterSpec or a ClusterDef."""

    def __init__(self, cluster) -> None:
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        elif isinstance(cluster, ClusterDef):
            cluster = {job.name: dict(job.tasks) for job in cluster.job}
        if not isinstance(cluster, dict):
            raise TypeError(f"ClusterSpec takes a dict of jobs or a ClusterSpec, got "
                            f"{type(cluster).__name__}.")
        self._jobs: dict[str, dict[int, str]] = {}
        for job, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                self._jobs[str(job)] = {i: str(a) for i, a in enumerate(tasks)}
            elif isinstance(tasks, dict):
                self._jobs[str(job)] = {int(i): str(a) for i, a in tasks.items()}
            else:
                raise TypeError(f"The tasks for job {job!r} must be a list or a dict from "
                                f"integers to strings, got {tasks!r}.")

    @property
    def jobs(self) -> list[str]:
        return list(self._jobs)

    def _job(self, job_name: str) -> dict:
        if job_name not in self._jobs:
            raise ValueError(f"No such job in cluster: {job_name!r}")
        return self._jobs[job_name]

    def num_tasks(self, job_name: str) -> int:
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> list[int]:
        return sorted(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        tasks = self._job(job_name)
        if task_index not in tasks:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}")
        return tasks[task_index]

    def job_tasks(self, job_name: str) -> list:
        """The addresses of the job's tasks by index, None for an index without a task."""
        tasks = self._job(job_name)
        return [tasks.get(i) for i in range(max(tasks) + 1)] if tasks else []

    def as_dict(self) -> dict:
        """{job: [addresses]} when a job's tasks are 0..n-1, else {job: {index: address}}."""
        return {job: [tasks[i] for i in range(len(tasks))]
                if sorted(tasks) == list(range(len(tasks))) else dict(tasks)
                for job, tasks in self._jobs.items()}

    def as_cluster_def(self) -> ClusterDef:
        """The cluster as an `rt.train.ClusterDef` (jobs sorted by name)."""
        return ClusterDef(job=[{"name": job, "tasks": dict(self._jobs[job])}
                               for job in sorted(self._jobs)])

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __eq__(self, other) -> bool:
        return isinstance(other, ClusterSpec) and other._jobs == self._jobs

    __hash__ = None  # mutable-looking, as TensorFlow's

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"


class CheckpointOptions:
    """Options of `Checkpoint.save` / `write` / `read` / `restore`: accepted and kept; the
    files are written and read in the calling thread on this machine (no I/O device, no
    asynchronous or sharded writes)."""

    def __init__(self, experimental_io_device: Optional[str] = None,
                 experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks=None, enable_async: bool = False,
                 experimental_sharding_callback=None,
                 experimental_skip_slot_variables: bool = False) -> None:
        if experimental_enable_async_checkpoint or enable_async:
            raise NotImplementedError("CheckpointOptions(enable_async=True) is not implemented "
                                      "here: checkpoints are written before save returns.")
        check_sharding_callback(experimental_sharding_callback)  # ShardByTaskPolicy or None
        vars(self).update(  # kept as attributes, as TensorFlow's
            experimental_io_device=experimental_io_device,
            experimental_enable_async_checkpoint=experimental_enable_async_checkpoint,
            enable_async=enable_async, experimental_write_callbacks=experimental_write_callbacks,
            experimental_sharding_callback=experimental_sharding_callback,
            experimental_skip_slot_variables=experimental_skip_slot_variables)


class Coordinator:
    """Stops a group of threads together: threads loop `while not coord.should_stop()`, any
    of them may `request_stop(ex)` (an exception is re-raised by `join`), and `join(threads)`
    waits for them."""

    def __init__(self, clean_stop_exception_types=None) -> None:
        self._clean = tuple(clean_stop_exception_types or ())
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._exc_info: Any = None
        self._joined = False

    def request_stop(self, ex=None) -> None:
        """Asks the threads to stop; an exception (or exc_info triple) is kept for `join`,
        unless it is one of `clean_stop_exception_types`."""
        with self._lock:
            if ex is not None and self._exc_info is None:
                error = ex[1] if isinstance(ex, tuple) else ex
                if not isinstance(error, self._clean):
                    self._exc_info = error
            self._stop.set()

    def clear_stop(self) -> None:
        with self._lock:
            self._joined, self._exc_info = False, None
            self._stop.clear()

    def should_stop(self) -> bool:
        return self._stop.is_set()

    def stop_on_exception(self):
        """A context manager that requests a stop when its block raises."""
        coordinator = self

        class _Stopper:
            def __enter__(self):
                return self

            def __exit__(self, kind, value, traceback):
                if value is not None:
                    coordinator.request_stop(value)
                return True
        return _Stopper()

    def wait_for_stop(self, timeout: Optional[float] = None) -> bool:
        return self._stop.wait(timeout)

    def join(self, threads=None, stop_grace_period_secs: float = 120,
             ignore_live_threads: bool = False) -> None:
        """Waits for `threads` to end after a stop was requested; re-raises the exception
        given to `request_stop`; RuntimeError when threads are still running after
        `stop_grace_period_secs` (unless `ignore_live_threads`)."""
        threads = list(threads or [])
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(0.05):
            pass
        deadline = time.monotonic() + stop_grace_period_secs
        for thread in threads:
            thread.join(max(deadline - time.monotonic(), 0))
        self._joined = True
        if self._exc_info is not None:
            raise self._exc_info
        live = [t.name for t in threads if t.is_alive()]
        if live and not ignore_live_threads:
            raise RuntimeError(f"Coordinator stopped with threads still running: "
                               f"{' '.join(live)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        if self._exc_info is not None:
            raise self._exc_info


def checkpoints_iterator(checkpoint_dir, min_interval_secs: float = 0, timeout=None,
                         timeout_fn=None):
    """Yields the path of each new checkpoint of `checkpoint_dir` as it appears (the latest
    one first); stops after `timeout` seconds without a new one (when `timeout_fn` returns
    True, or is not given)."""
    last = None
    while True:
        start = time.monotonic()
        path = None
        while True:
            path = latest_checkpoint(checkpoint_dir)
            if path is not None and path != last:
                break
            if timeout is not None and time.monotonic() - start >= timeout:
                path = None
                break
            time.sleep(min(1.0, max(timeout or 1.0, 0.01)))
        if path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        last = path
        yield path
        wait = min_interval_secs - (time.monotonic() - start)
        if wait > 0:
            time.sleep(wait)
