"""A concurrency limit shared by every event loop and thread that uses one auditor.

``asyncio.Semaphore`` belongs to one event loop, and an auditor's audits run on many: each sync
``Auditor.audit`` on a short-lived loop of its own, the background audits on the runner's loop,
the host's async audits on the host's loop. A semaphore per audit (as before) bounded one audit,
not the auditor: 1,000 background audits with ``max_concurrency=4`` had 1,660 judge calls in
flight. :class:`Slots` is one counter behind a thread lock; a waiter parks on a future of its
own loop, and a release hands the slot over with ``call_soon_threadsafe``.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

__all__ = ["Slots"]


class _Waiter:
    __slots__ = ("future", "granted", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> None:
        self.loop, self.future, self.granted = loop, future, False


class Slots:
    """At most ``limit`` holders at once, across event loops and threads; first come, first served.

    Use as ``async with slots:``.
    """

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        self.limit = limit
        self._lock = threading.Lock()
        self._free = limit
        self._waiters: deque[_Waiter] = deque()

    @property
    def in_use(self) -> int:
        """Slots held right now."""
        return self.limit - self._free

    async def acquire(self) -> None:
        """Wait for a slot (cancellable: a cancelled waiter never keeps one)."""
        import asyncio

        with self._lock:
            if self._free > 0 and not self._waiters:
                self._free -= 1
                return
            loop = asyncio.get_running_loop()
            waiter = _Waiter(loop, loop.create_future())
            self._waiters.append(waiter)
        try:
            await waiter.future
        except BaseException:
            with self._lock:
                if waiter.granted:
                    self._release_locked()  # handed over as we were cancelled: pass it on
                else:
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Give a slot back (to the longest waiter, on its own loop)."""
        with self._lock:
            self._release_locked()

    def _release_locked(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            waiter.granted = True
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # its loop is closed: that waiter is gone
                continue
            return
        self._free += 1

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: Any) -> None:
        self.release()


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
