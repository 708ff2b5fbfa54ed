"""A thread pool whose workers never hold up interpreter exit.

``concurrent.futures.ThreadPoolExecutor`` joins its workers at exit, so one judge call that
hangs (a model that never answers, with no timeout) would keep the host process alive for
ever. Judge calls run here instead: daemon threads, the same ``Executor`` interface.
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


class DaemonExecutor(Executor):
    """Up to ``max_workers`` daemon threads, started on demand."""

    def __init__(self, max_workers: int, name: str = "vcg-otel") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be >= 1")
        self.max_workers = max_workers
        self.name = name
        self._work: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._idle = 0
        self._lock = threading.Lock()
        self._shutdown = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit after shutdown")
            self._work.put((future, fn, args, kwargs))
            if self._idle == 0 and len(self._threads) < self.max_workers:
                thread = threading.Thread(target=self._worker, daemon=True,
                                          name=f"{self.name}-{len(self._threads)}")
                self._threads.append(thread)
                thread.start()
            else:
                self._idle -= 1 if self._idle else 0
        return future

    def _worker(self) -> None:
        while True:
            item = self._work.get()
            if item is _STOP:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # delivered to the waiting caller
                    future.set_exception(exc)
            with self._lock:
                self._idle += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
        if cancel_futures:
            while True:
                try:
                    item = self._work.get_nowait()
                except queue.Empty:
                    break
                if item is not _STOP:
                    item[0].cancel()
        for _ in threads:
            self._work.put(_STOP)
        if wait:
            for thread in threads:
                thread.join()
