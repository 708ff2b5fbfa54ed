"""A thread pool whose workers never hold up interpreter exit, and whose hung workers are replaced.

``concurrent.futures.ThreadPoolExecutor`` joins its workers at exit, so one judge call that
hangs (a model that never answers, with no timeout) would keep the host process alive for
ever. Judge calls run here instead: daemon threads, the same ``Executor`` interface.

A thread cannot be killed, so a call that hangs holds its worker for as long as it hangs. The
caller that gave up on it (a timeout) calls :meth:`DaemonExecutor.abandon`: the worker stops
counting towards ``max_workers`` and a replacement may start, so hung calls cannot jam the
pool. Abandoned workers are bounded too (``max_abandoned``): beyond that bound the pool stops
replacing them and further calls wait in the queue (and time out at their callers), so a judge
that hangs on every call costs at most ``max_workers + max_abandoned`` threads. An abandoned
worker whose call finally returns rejoins the pool if there is room, and exits otherwise.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

__all__ = ["DaemonExecutor"]

T = TypeVar("T")
_STOP = object()


class _Worker:
    __slots__ = ("abandoned",)

    def __init__(self) -> None:
        self.abandoned = False


class DaemonExecutor(Executor):
    """Up to ``max_workers`` daemon threads, started on demand; hung ones can be abandoned.

    Args:
        max_workers: threads running calls at once (not counting abandoned ones).
        name: thread name prefix.
        max_abandoned: abandoned (hung) threads kept at most before the pool stops replacing
            them; default ``4 * max_workers``.
    """

    def __init__(self, max_workers: int, name: str = "vcg-otel",
                 max_abandoned: int | None = None) -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be >= 1")
        self.max_workers = max_workers
        self.max_abandoned = 4 * max_workers if max_abandoned is None else max_abandoned
        if self.max_abandoned < 0:
            raise ValueError("max_abandoned must be >= 0")
        self.name = name
        self._work: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._live = 0  # workers counting towards max_workers
        self._idle = 0  # live workers waiting for work
        self._queued = 0  # submitted items no worker has taken yet
        self._abandoned = 0
        self._started = 0
        self._running: dict[Future[Any], _Worker] = {}
        self._threads: set[threading.Thread] = set()
        self._shutdown = False

    @property
    def abandoned(self) -> int:
        """Workers currently abandoned (their call hangs or has not returned yet)."""
        return self._abandoned

    @property
    def threads(self) -> int:
        """Worker threads alive or about to be (live and abandoned)."""
        with self._lock:
            return self._live + self._abandoned

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit after shutdown")
            self._queued += 1
            self._work.put((future, fn, args, kwargs))
            self._grow()
        return future

    def _grow(self) -> None:
        """Start a worker if queued work outnumbers idle workers and there is room (locked)."""
        if self._queued > self._idle and self._live < self.max_workers:
            self._live += 1
            self._started += 1
            thread = threading.Thread(target=self._worker, daemon=True,
                                      name=f"{self.name}-{self._started}")
            self._threads.add(thread)
            thread.start()

    def abandon(self, future: Future[Any]) -> bool:
        """The caller gave up on ``future``: if it is running, let a new worker take its place.

        Returns whether a worker was abandoned (``False`` when the call is not running, was
        already abandoned, or ``max_abandoned`` workers are already hung).
        """
        with self._lock:
            worker = self._running.get(future)
            if worker is None or worker.abandoned or self._abandoned >= self.max_abandoned:
                return False
            worker.abandoned = True
            self._live -= 1
            self._abandoned += 1
            if not self._shutdown:
                self._grow()
            return True

    def _worker(self) -> None:
        try:
            self._serve(_Worker())
        finally:
            with self._lock:
                self._threads.discard(threading.current_thread())

    def _serve(self, me: _Worker) -> None:
        while True:
            with self._lock:
                self._idle += 1
            item = self._work.get()
            with self._lock:
                self._idle -= 1
                if item is _STOP:
                    self._live -= 1
                    return
                self._queued -= 1
                future, fn, args, kwargs = item
                self._running[future] = me
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # delivered to the waiting caller
                    future.set_exception(exc)
            with self._lock:
                self._running.pop(future, None)
                if me.abandoned:
                    self._abandoned -= 1
                    if self._shutdown or self._live >= self.max_workers:
                        return  # replaced meanwhile: this thread ends
                    me.abandoned = False
                    self._live += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            live = self._live
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._work.get_nowait()
                except queue.Empty:
                    break
                if item is not _STOP:
                    with self._lock:
                        self._queued -= 1
                    item[0].cancel()
        for _ in range(live):
            self._work.put(_STOP)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()
