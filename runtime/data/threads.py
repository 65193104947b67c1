"""Background work for pipelines: `prefetch` on a producer thread, `map` on a thread pool.

Both are generators: closing one (an abandoned iterator is closed when it is collected)
stops its threads. An exception raised by the producer is re-raised to the consumer at the
element where it happened; the elements before it are delivered first.
"""

from __future__ import annotations

import collections
import concurrent.futures as futures
import os
import queue
import threading
from typing import Any, Callable, Iterator

_END = object()


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException):
        self.exc = exc


def default_parallelism() -> int:
    return max(2, os.cpu_count() or 2)


def prefetched(make_source: Callable[[], Iterator], buffer_size: int) -> Iterator:
    """The elements of `make_source()`, produced ahead by a daemon thread into a queue of
    `buffer_size` elements."""
    q: queue.Queue = queue.Queue(maxsize=max(1, buffer_size))
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        source = None
        try:
            source = make_source()
            for element in source:
                if not put(element):
                    return
            put(_END)
        except BaseException as exc:  # delivered to the consumer, in order
            put(_Failure(exc))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="rt.data prefetch", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is _END:
                return
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        stop.set()


_POOL_LOCK = threading.Lock()
_POOLS: dict[int, futures.ThreadPoolExecutor] = {}


def _pool(workers: int) -> futures.ThreadPoolExecutor:
    with _POOL_LOCK:
        pool = _POOLS.get(workers)
        if pool is None:
            pool = _POOLS[workers] = futures.ThreadPoolExecutor(workers, thread_name_prefix="rt.data map")
        return pool


def parallel_mapped(source: Iterator, fn: Callable[[Any], Any], parallelism: int,
                    deterministic: bool = True) -> Iterator:
    """`fn` over `source` with up to `parallelism` calls in flight on a thread pool; in input
    order unless `deterministic` is False (then as they finish)."""
    pool = _pool(parallelism)
    pending: collections.deque = collections.deque()
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < parallelism:
                try:
                    element = next(source)
                except StopIteration:
                    exhausted = True
                    break
                pending.append(pool.submit(fn, element))
            if not pending:
                return
            if deterministic:
                done = pending.popleft()
            else:
                finished, _ = futures.wait(pending, return_when=futures.FIRST_COMPLETED)
                done = next(f for f in pending if f in finished)
                pending.remove(done)
            yield done.result()
    finally:
        for f in pending:
            f.cancel()
        close = getattr(source, "close", None)
        if close is not None:
            close()
