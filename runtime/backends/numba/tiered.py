"""Tiered execution: a function's calls run on the NumPy tier while its kernel compiles.

`jit_compile=True` without waiting (docs/jit.md, "Tiered execution"): the first call lowers
the graph (an op the tier cannot take is still refused then), starts a background thread and
returns the NumPy tier's result. The thread has a worker process (`worker.py`) compile the
kernel into the on-disk cache, so Numba's type inference and LLVM neither hold the caller's
GIL nor grow its memory, then imports Numba, loads the kernel from the cache and makes
`compiled.fn` the kernel's caller: later calls run the kernel. A kernel already in the cache
is found so by the worker, which then compiles nothing. When Numba rejects the kernel, the
calls stay on the NumPy tier and a warning naming the op is logged on the `runtime.function`
logger. The worker runs at `nice NICE`, so
that the calls keep their core, and is stopped when the calling process exits.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from typing import Callable, Optional

from ..base import JitCompileError

logger = logging.getLogger("runtime.function")
TIMEOUT = 1800.0  # seconds a worker may compile before it is stopped (the calls stay on NumPy)
NICE = 15  # the worker's priority: the calling process keeps its core (docs/jit.md)
IDLE = True  # and Linux's SCHED_IDLE: the worker runs only on a core nothing else wants
# Before it imports anything, the worker lowers its priority and starts a thread that ends
# it when the pipe whose write end this process holds reads end-of-file: a caller that dies
# (killed, say) leaves no worker compiling for nobody.
_START = """import os, sys, threading
try:
    os.nice({nice})
    if {idle}:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
except (OSError, AttributeError):
    pass
def _watch(fd=int(sys.argv.pop())):
    while os.read(fd, 1):
        pass
    os._exit(3)
threading.Thread(target=_watch, daemon=True).start()
import runpy
runpy.run_module('runtime.backends.numba.worker', run_name='__main__')
"""


class WorkerError(Exception):
    """Numba's error in the worker process, as the worker reported it; `split`: whether the
    kernel it compiled was split into parts (its line numbers are the parts')."""

    def __init__(self, message: str, split: bool = False):
        super().__init__(message)
        self.split = split


class BackgroundCompile:
    """The background compile of one kernel: `ready` is set once calls run the kernel, or
    once the compile failed (`error` then holds the JitCompileError)."""

    def __init__(self, compiled, source: str, spec: list, finish: Callable[[], Callable],
                 explain: Callable[[BaseException], str], name: str, log=None):
        self.ready = threading.Event()
        self.error: Optional[JitCompileError] = None
        self.worker: Optional[dict] = None  # its report: seconds, peak_rss_mb, cache_hits
        self._compiled, self._source, self._spec = compiled, source, spec
        self._finish, self._explain, self._name, self._log = finish, explain, name, log
        self._thread = threading.Thread(target=self._run, name=f"rt-jit-compile {name}",
                                        daemon=True)
        self._thread.start()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Blocks until calls run the kernel (True), the compile failed (True, `error` set)
        or `timeout` seconds passed (False)."""
        return self.ready.wait(timeout)

    def _run(self) -> None:
        start = time.perf_counter()
        try:
            self.worker = _compile_in_worker(self._source, self._spec)
            run = self._finish()  # loads the kernel from the cache (compiles it if it is not)
        except JitCompileError as exc:
            self.error = exc
        except WorkerError as exc:
            self.error = JitCompileError(self._explain(exc))
        except Exception as exc:  # the worker could not start, or timed out
            self.error = JitCompileError(f"jit_compile=True: compiling {self._name} in the "
                                         f"background failed: {type(exc).__name__}: {exc}")
        else:
            self._compiled.fn = run
            if self._log is not None:
                how = ("loaded from the on-disk cache" if self.worker.get("cache_hits")
                       else "compiled in a worker process")
                self._log(1, f"jit_compile: {self._name} {how} in the background in "
                             f"{time.perf_counter() - start:.3f} s; its calls now run the kernel")
        finally:
            if self.error is not None:
                logger.warning("%s Its calls keep running on the NumPy tier.", self.error)
            self.ready.set()


_workers: set = set()  # the running workers, stopped when this process exits


@atexit.register
def _stop_workers() -> None:
    """Stops the workers still compiling: a process that exits needs no kernel, and a worker
    left behind would compile for nobody."""
    for worker in list(_workers):
        worker.kill()


def _compile_in_worker(source: str, spec: list) -> dict:
    """Runs `worker.py` on the kernel's source; its report, or WorkerError with Numba's
    error."""
    here = os.path.dirname(os.path.abspath(__file__))  # runtime/backends/numba
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    alive_read, alive = os.pipe()  # the worker exits when this process's end closes
    try:
        worker = subprocess.Popen(
            [sys.executable, "-c", _START.format(nice=NICE, idle=IDLE), str(alive_read)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
            pass_fds=(alive_read,))
    finally:
        os.close(alive_read)
    _workers.add(worker)
    try:
        out, err = worker.communicate(pickle.dumps((source, spec)), timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.communicate()
        raise
    finally:
        _workers.discard(worker)
        os.close(alive)
    done = subprocess.CompletedProcess(worker.args, worker.returncode, out, err)
    reports = [json.loads(line) for line in done.stdout.decode().splitlines()
               if line.startswith("{")]
    if done.returncode == 2:
        raise WorkerError(done.stderr.decode(errors="replace").strip(),
                          split=bool(reports and reports[0].get("split")))
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        raise RuntimeError(f"the worker process exited with status {done.returncode}: "
                           f"{' '.join(tail)}")
    return reports[-1]
